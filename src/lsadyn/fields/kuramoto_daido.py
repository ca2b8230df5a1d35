r"""The d = 2 softmax fields (USA, SA) as a Kuramoto–Daido model: every velocity through the empirical moments
:math:`Z_m = \frac1n\sum_j e^{im\theta_j}`, O(n M) per evaluation instead of the O(n²) kernel matrix
(docs/theory.md §6).

**Complex form.** A token is :math:`x = (\cos\theta, \sin\theta)`, :math:`z = e^{i\theta}`. A real 2×2 matrix acts
on :math:`z = x_1 + i x_2` as :math:`Az = \alpha z + \gamma\bar z` with (:func:`complex_form`)

.. math::
    \alpha = \tfrac12[(A_{11}+A_{22}) + i(A_{21}-A_{12})],\qquad
    \gamma = \tfrac12[(A_{11}-A_{22}) + i(A_{21}+A_{12})],

:math:`A^\top z = \bar\alpha z + \gamma\bar z` and :math:`\|A\|_2 = |\alpha| + |\gamma|`. Since
:math:`\langle x, y\rangle = \mathrm{Re}(\bar z_x z_y)`,

.. math::
    \beta\langle x_k, A x_j\rangle = \beta|\alpha|\cos(\theta_j-\theta_k+\arg\alpha)
        + \beta|\gamma|\cos(\theta_j+\theta_k-\arg\gamma)
    = x_k\cos(\theta_j - \phi_k),\qquad x_k e^{i\phi_k} = \beta(\bar\alpha z_k + \gamma\bar z_k),

i.e. token k looks along :math:`A^\top x_k` (length :math:`x_k/\beta \le \|A\|_2`, angle :math:`\phi_k`).

**Jacobi–Anger.** :math:`e^{x\cos\phi} = \sum_{m\in\mathbb Z} I_m(x)e^{im\phi}` turns the kernel into one Fourier
series in :math:`\theta_j` per token, with :math:`\zeta_k = e^{-i\phi_k}` and
:math:`u_m(x) = e^{-x}I_{|m|}(x)` (``scipy.special.ive``; :math:`\sum_m u_m = 1`, so every sum below is a convex-like
combination of moments, :math:`|Z_m| \le 1`):

.. math::
    \frac1n\sum_j e^{\beta\langle x_k,Ax_j\rangle} f(z_j) = e^{x_k}\sum_m u_m(x_k)\,\zeta_k^m\,\langle f\,z^m\rangle .

With :math:`Vz = \nu z + \mu\bar z` (the complex form of V) the attention sum and SA's normaliser of token k are

.. math::
    S_k = e^{x_k}\sum_{m=-M}^{M} u_m(x_k)\,\zeta_k^m\,(\nu Z_{m+1} + \mu Z_{m-1}),\qquad
    N_k = e^{x_k}\sum_{m=-M}^{M} u_m(x_k)\,\zeta_k^m Z_m \ (\text{real}),

and the tangent projection keeps :math:`\dot\theta_k = \mathrm{Im}(\bar z_k S_k)` (USA) or
:math:`\mathrm{Im}(\bar z_k S_k)/N_k` (SA, the :math:`e^{x_k}` cancels); :math:`\dot x_k = \dot\theta_k(-\sin\theta_k,
\cos\theta_k)`. Expanding :math:`x_k^m\zeta_k^m` back in :math:`\theta_k` gives the double series of docs/theory.md §6
(harmonics :math:`e^{ir\theta_k}e^{is\theta_j}`); the per-token form sums it exactly, scaled by each row's own
largest possible logit :math:`x_k` instead of the global :math:`\beta\|A\|_2`, so no row loses digits to a
scale it does not reach.

**LSA is the pure second harmonic.** For :math:`h(y) = y`, :math:`x\cos(\theta_j-\phi) = \frac x2(\zeta^{-1}
e^{i\theta_j} + \zeta e^{-i\theta_j})`: only :math:`m = \pm1` with weights :math:`x_k/2` (no :math:`e^{x_k}`), so
:math:`S_k` reads :math:`Z_0 = 1` and :math:`Z_{\pm2}` only, and since :math:`x_k\zeta_k = \beta(\alpha\bar z_k +
\bar\gamma z_k)`, :math:`\dot\theta_k` holds only the harmonics 0 and ±2 of :math:`\theta_k`: docs/theory.md §2
(:func:`lsa_field_moments`). The softmax kernel adds every harmonic, the first included.

**Cutoff rule** (:func:`bessel_cutoff`). The series is cut at :math:`|m| \le M`, M the smallest with
:math:`2\sum_{m>M} e^{-a}I_m(a) \le` :data:`BESSEL_TAIL` (1e-17) for :math:`a = \beta\|A\|_2`: the dropped part of
:math:`e^{x\cos\phi}` is below 1e-17·e^x for every φ and every :math:`x \le a` (the tail grows with x). For large
a, :math:`e^{-a}I_m(a) \approx e^{-m^2/2a}/\sqrt{2\pi a}`, so :math:`M \approx 9\sqrt a` (a = 1: 15, a = 5: 28,
a = 700: ~ 240). Moments :math:`0 \le m \le M + 1` (:math:`Z_{-m} = \bar Z_m`).

**Bessel weights per token** (:func:`bessel_weights`): the ratios :math:`r_m = I_m/I_{m-1}` by the backward
recurrence :math:`r_m = x/(2m + x r_{m+1})` (each in [0, 1): no overflow, x = 0 allowed), started at
:math:`M +` :data:`RATIO_START` with :math:`r = 0`, then :math:`u_m/u_0 = r_1\cdots r_m` and
:math:`u_0 = 1/(1 + 2\sum_{m\ge1} u_m/u_0)` (Miller's normalisation :math:`\sum_m u_m = 1`): O(M) per token.

**Cost and shapes.** Tokens X (n, 2) → velocities (n, 2). Two passes over the tokens, compiled
(:mod:`lsadyn.fields.daido_kernels`): the moments (a running power per token), then per token the look
(:math:`x_k`, :math:`\zeta_k`), the weights :math:`u_m` and the sums against the (M+1)-term moment combinations:
O(n M) time, O(n) memory. ``compiled=False`` runs the numpy reference of both passes (powers by doubling and
matrix products, in chunks of :data:`CHUNK` tokens; the same numbers to rounding, several times slower). Batches
X (B, n, 2) with per-member (A, V, β) run the same way with M the batch's largest (:func:`usa_field_batch_moments`).

**Accuracy.** Rounding is relative to each row's bound :math:`e^{x_k}\|V\|_2`: USA velocities are exact to ~1e-15 of
it. An SA row whose normaliser is far below that bound (:math:`N_k e^{-x_k}` < :data:`SA_DIRECT_BELOW`: the tokens
avoid the direction token k looks along, e.g. a token whose :math:`A^\top x_k` points away from a tight cluster at
large β) would lose digits in the division; those rows are evaluated directly (O(n) each, as
:func:`lsadyn.fields.attention.sa_field`): in states where most tokens are such rows (SA, large β, every token
looking away from all others) the cost approaches the direct field's. USA raises ``OverflowError`` (naming
``beta``) when some :math:`x_k >` :data:`~lsadyn.fields.attention.USA_MAX_LOGIT` (the direct field: when the largest
logit over the actual pairs does).

**When it is used** (:func:`usa_field_d2`, :func:`sa_field_d2`): :func:`lsadyn.fields.attention.field_for` with
``d = 2`` (and :class:`lsadyn.batch.BatchField` for d = 2 USA stacks) use it when
:func:`lsadyn.budget.softmax_d2_uses_moments` estimates it cheaper than the direct field (from ~150 tokens on);
``direct=True`` asks for the O(n²) field; :mod:`lsadyn.budget` estimates whichever runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ive

from ..budget import softmax_d2_uses_moments
from .attention import USA_MAX_LOGIT, Attention, sa_field, usa_field

#: Relative weight of the dropped Jacobi–Anger terms: M is the smallest with 2 Σ_{m>M} e^{-a} I_m(a) ≤ this.
BESSEL_TAIL = 1e-17
#: The backward ratio recurrence of :func:`bessel_weights` starts this many orders above M.
RATIO_START = 12
#: SA rows whose normaliser e^{-x_k} (1/n) Σ_j e^{β⟨x_k, A x_j⟩} is below this are evaluated directly.
SA_DIRECT_BELOW = 1e-3
#: Tokens per chunk of the power and weight arrays (a chunk holds ~3 CHUNK × (M + 2) numbers).
CHUNK = 4096


def complex_form(M) -> tuple:
    """(α, γ) with M z = α z + γ z̄ for a real (..., 2, 2) matrix M (complex arrays of shape (...))."""
    M = np.asarray(M, dtype=float)
    a11, a12, a21, a22 = M[..., 0, 0], M[..., 0, 1], M[..., 1, 0], M[..., 1, 1]
    return 0.5 * ((a11 + a22) + 1j * (a21 - a12)), 0.5 * ((a11 - a22) + 1j * (a21 + a12))


def bessel_cutoff(a: float, tail: float = BESSEL_TAIL) -> int:
    """Smallest M ≥ 0 with 2 Σ_{m>M} e^{-a} I_m(a) ≤ ``tail`` (the Jacobi–Anger cutoff; module docstring)."""
    a = float(a)
    if not (np.isfinite(a) and a >= 0):
        raise ValueError(f"a: the Bessel argument must be finite and >= 0, got {a!r}")
    if a == 0.0:
        return 0
    m = np.arange(int(a + 12.0 * np.sqrt(a) + 60.0))
    terms = ive(m, a)
    # dropped[M] = 2 * sum_{p > M} terms[p], summed from the small end up (no cancellation)
    dropped = 2.0 * np.concatenate([np.cumsum(terms[::-1])[::-1][1:], [0.0]])
    return int(np.argmax(dropped <= tail))


def harmonics(A, beta) -> int:
    """M = :func:`bessel_cutoff` (β‖A‖₂) for A (2, 2): the moments |m| ≤ M + 1 the softmax fields read."""
    alpha, gamma = complex_form(A)
    return bessel_cutoff(beta * (abs(alpha) + abs(gamma)))


def bessel_weights(x, M: int) -> np.ndarray:
    """u_m = e^{-x} I_m(x) for m = 0..M, x (..., c) ≥ 0 -> (..., M + 1, c), by the backward ratio recurrence and
    Miller's normalisation (module docstring)."""
    x = np.asarray(x, dtype=float)
    top = M + RATIO_START
    r = np.empty(x.shape[:-1] + (top, x.shape[-1]))  # r[..., m - 1, :] = I_m / I_{m-1}, m = 1..top
    nxt = np.zeros_like(x)
    for m in range(top, 0, -1):
        nxt = x / (2.0 * m + x * nxt)
        r[..., m - 1, :] = nxt
    rel = np.cumprod(r, axis=-2)  # I_m / I_0, m = 1..top
    u0 = 1.0 / (1.0 + 2.0 * rel.sum(axis=-2))
    u = np.empty(x.shape[:-1] + (M + 1, x.shape[-1]))
    u[..., 0, :] = u0
    u[..., 1:, :] = rel[..., :M, :] * u0[..., None, :]
    return u


def _unit_phases(X) -> np.ndarray:
    """z = e^{iθ} of tokens X (..., n, 2) (normalised: the moment form is a function on the circle)."""
    X = np.asarray(X, dtype=float)
    z = X[..., 0] + 1j * X[..., 1]
    return z / np.abs(z)


def _powers(z, K) -> np.ndarray:
    """z^m for m = 0..K-1, z (..., c) -> (..., K, c) (each power a contiguous row), by doubling (log₂ K products)."""
    P = np.empty(z.shape[:-1] + (K, z.shape[-1]), dtype=complex)
    P[..., 0, :] = 1.0
    if K > 1:
        P[..., 1, :] = z
    k = 2
    while k < K:
        m = min(k - 1, K - k)
        np.multiply(P[..., 1:m + 1, :], P[..., k - 1:k, :], out=P[..., k:k + m, :])  # z^(k-1) z^(i+1) = z^(k+i)
        k += m
    return P


def _chunks(n):
    return [(lo, min(lo + CHUNK, n)) for lo in range(0, n, CHUNK)]


def moments(z, K, compiled=True) -> np.ndarray:
    """Z_m = (1/n) Σ_j z_j^m for m = 0..K-1, z (..., n) unit complex -> (..., K); ``compiled``:
    :func:`lsadyn.fields.daido_kernels.moments_kernel`, else numpy (powers by doubling, in chunks)."""
    n = z.shape[-1]
    if compiled:
        from .daido_kernels import moments_kernel

        zb = z.reshape(-1, n)
        Zr, Zi = np.zeros((zb.shape[0], K)), np.zeros((zb.shape[0], K))
        moments_kernel(np.ascontiguousarray(zb.real), np.ascontiguousarray(zb.imag), Zr, Zi)
        return ((Zr + 1j * Zi) / n).reshape(z.shape[:-1] + (K,))
    Z = np.zeros(z.shape[:-1] + (K,), dtype=complex)
    for lo, hi in _chunks(n):
        Z += _powers(z[..., lo:hi], K).sum(axis=-1)
    return Z / n


def moment_combinations(Zpos, nu, mu, normaliser: bool) -> np.ndarray:
    """C (..., k, 2M+1), index m + M: row 0 ν Z_{m+1} + μ Z_{m-1} (the attention sum), row 1 Z_m (SA's
    normaliser, if ``normaliser``), from Zpos (..., M + 2) = Z_0..Z_{M+1} and ν, μ (...) (Z_{-m} = conj Z_m)."""
    Z = np.concatenate([np.conj(Zpos[..., :0:-1]), Zpos], axis=-1)  # m = -(M+1)..M+1
    rows = [np.asarray(nu)[..., None] * Z[..., 2:] + np.asarray(mu)[..., None] * Z[..., :-2]]
    if normaliser:
        rows.append(Z[..., 1:-1])
    return np.stack(rows, axis=-2)


def _looks(z, alpha, gamma, beta):
    """(x, ζ) of tokens z (..., c): x = β|Aᵀx_k| ≥ 0, ζ = e^{-iφ_k} (1 where x = 0)."""
    w = np.conj(alpha)[..., None] * z + np.asarray(gamma)[..., None] * np.conj(z)
    rho = np.abs(w)
    zeta = np.divide(np.conj(w), rho, out=np.ones_like(w), where=rho > 0)
    return np.asarray(beta, dtype=float)[..., None] * rho, zeta


def _sums(z, alpha, gamma, beta, C, M, lsa=False, compiled=True):
    """Σ_m u_m(x_k) ζ_k^m C_m for each row of C (..., k, 2M+1) and token z (..., n): (..., k, n), and x (..., n).
    ``lsa``: the weights u_{±1} = x/2 (h(y) = y; C then needs M = 1). ``compiled``:
    :func:`lsadyn.fields.daido_kernels.sums_kernel`, else numpy (the reference)."""
    n = z.shape[-1]
    if compiled:
        from .daido_kernels import sums_kernel

        lead = z.shape[:-1]
        zb = z.reshape(-1, n)
        B = zb.shape[0]

        def col(v, dtype=float):
            return np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=dtype).reshape(-1), (B,)))

        al, ga = col(alpha, complex), col(gamma, complex)
        Cb = C.reshape((B,) + C.shape[-2:])
        outr = np.empty((B, C.shape[-2], n))
        outi = np.empty_like(outr)
        xs = np.empty((B, n))
        sums_kernel(np.ascontiguousarray(zb.real), np.ascontiguousarray(zb.imag), al.real.copy(), al.imag.copy(),
                    ga.real.copy(), ga.imag.copy(), col(beta), np.ascontiguousarray(Cb.real),
                    np.ascontiguousarray(Cb.imag), int(M), RATIO_START, bool(lsa), outr, outi, xs)
        return (outr + 1j * outi).reshape(C.shape[:-1] + (n,)), xs.reshape(lead + (n,))
    pos = C[..., M:]  # m = 0..M
    neg = np.conj(C[..., M - 1::-1])  # conj C_{-m}, m = 1..M
    out = np.empty(C.shape[:-1] + (n,), dtype=complex)
    xs = np.empty(z.shape)
    for lo, hi in _chunks(n):
        x, zeta = _looks(z[..., lo:hi], alpha, gamma, beta)
        Q = _powers(zeta, M + 1)
        if lsa:
            Q[..., 0, :] = 0.0
            Q[..., 1, :] *= 0.5 * x
        else:
            Q *= bessel_weights(x, M)
        val = np.matmul(pos, Q)
        if M:
            val += np.conj(np.matmul(neg, Q[..., 1:, :]))  # Σ_{m>0} u_m ζ^{-m} C_{-m} = conj Σ u_m ζ^m conj C_{-m}
        out[..., lo:hi] = val
        xs[..., lo:hi] = x
    return out, xs


def _tangent(z, w) -> np.ndarray:
    """θ̇ w (..., n) -> velocities w (-sin θ, cos θ), shape (..., n, 2)."""
    return np.stack([-w * z.imag, w * z.real], axis=-1)


def _check_d2(X, p: Attention):
    if p.d != 2 or np.shape(X)[-1] != 2:
        raise ValueError(f"X: the moment form needs d = 2 tokens, got A {p.A.shape} and X {np.shape(X)}")


def _usa_overflow(x):
    top = float(np.max(x)) if np.size(x) else 0.0
    if top > USA_MAX_LOGIT:
        raise OverflowError(f"beta: USA logit bound beta*|A^T x_k| reaches {top:.4g} > {USA_MAX_LOGIT:g}; exp would "
                            f"overflow (use beta*||A||_2 <= {USA_MAX_LOGIT:g})")


def _forms(p: Attention):
    """(α, γ, ν, μ, M) of ``p`` (d = 2), cached on it."""
    cached = p.__dict__.get("_daido")
    if cached is None:
        alpha, gamma = complex_form(p.A)
        nu, mu = complex_form(p.V)
        cached = p.__dict__["_daido"] = (alpha, gamma, nu, mu, bessel_cutoff(p.beta * (abs(alpha) + abs(gamma))))
    return cached


def _field(X, p: Attention, model: str, compiled=True) -> np.ndarray:
    _check_d2(X, p)
    alpha, gamma, nu, mu, M = _forms(p)
    if model == "lsa":
        M = 1
    z = _unit_phases(X)
    C = moment_combinations(moments(z, M + 2, compiled), nu, mu, model == "sa")
    sums, x = _sums(z, alpha, gamma, p.beta, C, M, lsa=model == "lsa", compiled=compiled)
    w = (np.conj(z) * sums[0]).imag
    if model == "usa":
        _usa_overflow(x)
        return _tangent(z, np.exp(x) * w)
    if model == "lsa":
        return _tangent(z, w)
    N = sums[1].real
    out = _tangent(z, w / N)
    bad = np.nonzero(N < SA_DIRECT_BELOW)[0]
    if bad.size:
        out[bad] = _sa_rows(np.ascontiguousarray(X, dtype=float), bad, p)
    return out


def usa_field_moments(t, X: np.ndarray, p: Attention, *, compiled: bool = True) -> np.ndarray:
    """USA velocity of d = 2 tokens X (n, 2) -> (n, 2) by the moments (module docstring); O(n M)."""
    return _field(X, p, "usa", compiled)


def sa_field_moments(t, X: np.ndarray, p: Attention, *, compiled: bool = True) -> np.ndarray:
    """SA velocity of d = 2 tokens X (n, 2) -> (n, 2) by the moments; rows with a normaliser below
    :data:`SA_DIRECT_BELOW` (relative to their own bound e^{x_k}) directly (module docstring)."""
    return _field(X, p, "sa", compiled)


def lsa_field_moments(t, X: np.ndarray, p: Attention, *, compiled: bool = True) -> np.ndarray:
    """LSA velocity of d = 2 tokens by the same moment machinery with the weights u_{±1} = x_k/2 (only Z₀, Z_{±2}
    enter): the pure second harmonic; :func:`lsadyn.fields.attention.lsa_field` is the faster path."""
    return _field(X, p, "lsa", compiled)


def _sa_rows(X, rows, p: Attention) -> np.ndarray:
    """Rows ``rows`` of the direct SA field (max-shifted softmax, tangent projection), O(n) each."""
    out = np.empty((rows.size, 2))
    VX = X @ p.V.T
    for lo in range(0, rows.size, CHUNK):
        k = rows[lo:lo + CHUNK]
        W = p.beta * ((X[k] @ p.A) @ X.T)
        W -= W.max(axis=1, keepdims=True)
        np.exp(W, out=W)
        W /= W.sum(axis=1, keepdims=True)
        S = W @ VX
        out[lo:lo + k.size] = S - np.einsum("ij,ij->i", X[k], S)[:, None] * X[k]
    return out


@dataclass(frozen=True)
class BatchForms:
    """Complex forms of a batch of d = 2 members: α, γ (of A), ν, μ (of V), β, all (B,), and M (the largest)."""

    alpha: np.ndarray
    gamma: np.ndarray
    nu: np.ndarray
    mu: np.ndarray
    beta: np.ndarray
    M: int

    def take(self, idx) -> BatchForms:
        return BatchForms(self.alpha[idx], self.gamma[idx], self.nu[idx], self.mu[idx], self.beta[idx], self.M)


def batch_forms(A, V, beta) -> BatchForms:
    """:class:`BatchForms` of A, V (B, 2, 2), beta (B,)."""
    alpha, gamma = complex_form(A)
    nu, mu = complex_form(V)
    beta = np.broadcast_to(np.asarray(beta, dtype=float), alpha.shape).copy()
    M = max((bessel_cutoff(b * (abs(a) + abs(g))) for a, g, b in zip(alpha, gamma, beta)), default=0)
    return BatchForms(alpha, gamma, nu, mu, beta, M)


def usa_field_batch_moments(X, bf: BatchForms, factor) -> np.ndarray:
    """USA velocities of a stack X (B, n, 2) times ``factor`` (B,) (e.g. each member's τ): (B, n, 2)."""
    z = _unit_phases(X)
    C = moment_combinations(moments(z, bf.M + 2), bf.nu, bf.mu, False)
    sums, x = _sums(z, bf.alpha, bf.gamma, bf.beta, C, bf.M)
    _usa_overflow(x)
    w = (np.conj(z) * sums[..., 0, :]).imag
    return _tangent(z, np.asarray(factor, dtype=float)[:, None] * np.exp(x) * w)


def _use_moments(X, p: Attention) -> bool:
    if p.d != 2:
        return False
    return softmax_d2_uses_moments(np.shape(X)[0], _forms(p)[4])


def usa_field_d2(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """The USA field of d = 2 tokens as :func:`lsadyn.fields.attention.field_for` gives it: :func:`usa_field_moments`
    when :func:`lsadyn.budget.softmax_d2_uses_moments` estimates it cheaper (n beyond ~150), else the direct
    :func:`lsadyn.fields.attention.usa_field`."""
    return usa_field_moments(t, X, p) if _use_moments(X, p) else usa_field(t, X, p)


def sa_field_d2(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """The SA field of d = 2 tokens: :func:`sa_field_moments` or the direct field, as :func:`usa_field_d2`."""
    return sa_field_moments(t, X, p) if _use_moments(X, p) else sa_field(t, X, p)
