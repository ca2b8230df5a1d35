r"""The d = 2 softmax fields (USA, SA) as a Kuramoto–Daido model: every velocity through the empirical moments
:math:`Z_m = \frac1n\sum_j e^{im\theta_j}`, O(n L + L²) per evaluation instead of the O(n²) kernel matrix
(SCIENCE.md §6).

**Complex form.** A token is :math:`x = (\cos\theta, \sin\theta)`, :math:`z = e^{i\theta}`. A real 2×2 matrix acts
on :math:`z = x_1 + i x_2` as :math:`Az = \alpha z + \gamma\bar z` with (:func:`complex_form`)

.. math::
    \alpha = \tfrac12[(A_{11}+A_{22}) + i(A_{21}-A_{12})],\qquad
    \gamma = \tfrac12[(A_{11}-A_{22}) + i(A_{21}+A_{12})],

and :math:`\|A\|_2 = |\alpha| + |\gamma|`. Since :math:`\langle x, y\rangle = \mathrm{Re}(\bar z_x z_y)`,

.. math::
    \beta\langle x_k, A x_j\rangle = \mathrm{Re}\big(\beta\alpha\, e^{i(\theta_j-\theta_k)}
        + \beta\gamma\, e^{-i(\theta_j+\theta_k)}\big)
    = a\cos(\theta_j-\theta_k+\arg\alpha) + g\cos(\theta_j+\theta_k-\arg\gamma),
    \quad a = \beta|\alpha|,\ g = \beta|\gamma| .

**Kernel as a double Fourier series.** Jacobi–Anger, :math:`e^{a\cos\phi} = \sum_{p\in\mathbb Z} I_p(a)e^{ip\phi}`,
applied to both cosines gives, with :math:`r = q - p` and :math:`s = p + q` (same parity),

.. math::
    e^{\beta\langle x_k, A x_j\rangle} = e^{a+g}\sum_{r,s} F_{rs}\, e^{ir\theta_k} e^{is\theta_j},\qquad
    F_{q-p,\,p+q} = \tilde I_p(a)\,e^{ip\arg\alpha}\;\tilde I_q(g)\,e^{-iq\arg\gamma},

:math:`\tilde I_p(a) = e^{-a} I_p(a)` (``scipy.special.ive``; :math:`\sum_p \tilde I_p(a) = 1`, so
:math:`\sum|F| \le 1` whatever β is). LSA's kernel :math:`h(y) = y` has the four entries
:math:`F_{-1,1} = \beta\alpha/2`, :math:`F_{1,-1} = \beta\bar\alpha/2`, :math:`F_{1,1} = \beta\bar\gamma/2`,
:math:`F_{-1,-1} = \beta\gamma/2` (no :math:`e^{a+g}`): only :math:`s = \pm1` (:func:`lsa_fourier`).

**Velocities.** With :math:`Vz = \nu z + \mu\bar z` (the complex form of V) the attention sum of token k is

.. math::
    S_k = \frac1n\sum_j e^{\beta\langle x_k,Ax_j\rangle}(\nu z_j + \mu\bar z_j)
        = e^{a+g}\sum_r b_r z_k^r,\qquad b_r = \sum_s F_{rs}\,(\nu Z_{s+1} + \mu Z_{s-1}),

and the tangent projection keeps :math:`\dot\theta_k = \mathrm{Im}(\bar z_k S_k)`, i.e.
:math:`\dot x_k = \dot\theta_k(-\sin\theta_k, \cos\theta_k)`. SA divides by the normaliser
:math:`N_k = \frac1n\sum_j e^{\beta\langle x_k,Ax_j\rangle} = e^{a+g}\sum_r d_r z_k^r`,
:math:`d_r = \sum_s F_{rs} Z_s` (real): :math:`\dot\theta_k = \mathrm{Im}(\bar z_k S_k)/N_k`, the :math:`e^{a+g}`
cancels. For LSA only :math:`Z_0 = 1` and :math:`Z_{\pm2}` enter and :math:`\dot\theta_k` holds only the
harmonics 0 and ±2 of :math:`\theta_k`: the pure second-harmonic coupling of SCIENCE.md §2. The softmax kernel
adds every harmonic, the first included.

**Cutoff rule** (:func:`bessel_cutoff`). The series are cut at :math:`|p| \le M_a`, :math:`|q| \le M_g`, with
:math:`M_a` the smallest M such that :math:`2\sum_{p>M}\tilde I_p(a) \le` :data:`BESSEL_TAIL` (1e-17): the dropped
part of :math:`e^{a\cos\phi}` is below 1e-17·e^a for every φ, so the truncated kernel is within 2e-17·e^{a+g} of
the exact one for every pair. For large a, :math:`\tilde I_p(a) \approx e^{-p^2/2a}/\sqrt{2\pi a}`, so
:math:`M_a \approx 9\sqrt a` (a = 5: 26; a = 700: ~ 230); a = 0 (A = αI + rotation, e.g. A = I, has γ = 0)
gives :math:`M_g = 0`. With :math:`L = M_a + M_g`: moments :math:`|m| \le L + 1`, harmonics :math:`|r| \le L`.

**Cost and shapes.** Tokens X (n, 2) → velocities (n, 2). The moments take one pass over the tokens (powers
:math:`z^m`, m = 0..L+1, built by doubling in chunks of tokens), the coefficients :math:`b, d` one
(2L+1)×(2L+1) matrix–vector product, the evaluation a second pass (the same powers, a matrix product with
(L+1)×2 coefficients): O(n L + L²) time, O(n + L²) memory. Batches X (B, n, 2) with per-member (A, V, β) run the
same way with F padded to the largest L (:func:`usa_field_batch_moments`).

**Accuracy.** Rounding is relative to the kernel's scale :math:`e^{\beta\|A\|_2}` (|F| sums to ≤ 1): USA velocities
are exact to ~1e-15 of :math:`e^{\beta\|A\|_2}\|V\|_2`. An SA row whose normaliser is far below that scale
(:math:`N_k e^{-(a+g)}` < :data:`SA_DIRECT_BELOW`: token k sees only small logits, e.g. a token opposite a tight
cluster at large β) would lose digits in the division; those rows are evaluated directly (O(n) each, the rows of
:func:`lsadyn.fields.attention.sa_field`). USA raises ``OverflowError`` (naming ``beta``) when
:math:`\beta\|A\|_2 >` :data:`~lsadyn.fields.attention.USA_MAX_LOGIT` (the direct field raises when the largest
logit of the actual tokens does; for tokens spread around the circle the two agree).

**When it is used** (:func:`use_moments`): :func:`lsadyn.fields.attention.field_for` with ``d = 2`` (and
:class:`lsadyn.batch.BatchField` for d = 2 USA stacks) pick it when its estimated cost is below the direct
field's, i.e. from a few hundred tokens on (``direct=True`` asks for the O(n²) field);
:mod:`lsadyn.budget` estimates it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ive

from ..budget import softmax_d2_uses_moments
from .attention import USA_MAX_LOGIT, Attention, sa_field, usa_field

#: Relative weight of the dropped Jacobi–Anger terms: M is the smallest with 2 Σ_{p>M} e^{-a} I_p(a) ≤ this.
BESSEL_TAIL = 1e-17
#: SA rows whose normaliser e^{-β‖A‖} (1/n) Σ_j e^{β⟨x_k, A x_j⟩} is below this are evaluated directly.
SA_DIRECT_BELOW = 1e-3
#: Tokens per chunk of the power matrices (a chunk holds CHUNK × (L + 2) complex numbers).
CHUNK = 2048

def complex_form(M) -> tuple:
    """(α, γ) with M z = α z + γ z̄ for a real (..., 2, 2) matrix M (complex arrays of shape (...))."""
    M = np.asarray(M, dtype=float)
    a11, a12, a21, a22 = M[..., 0, 0], M[..., 0, 1], M[..., 1, 0], M[..., 1, 1]
    return 0.5 * ((a11 + a22) + 1j * (a21 - a12)), 0.5 * ((a11 - a22) + 1j * (a21 + a12))


def bessel_cutoff(a: float, tail: float = BESSEL_TAIL) -> int:
    """Smallest M ≥ 0 with 2 Σ_{p>M} e^{-a} I_p(a) ≤ ``tail`` (the Jacobi–Anger cutoff; module docstring)."""
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
    """L = M_a + M_g for β, A (2, 2): the kernel's harmonics |r|, |s| ≤ L, moments |m| ≤ L + 1."""
    alpha, gamma = complex_form(A)
    return bessel_cutoff(beta * abs(alpha)) + bessel_cutoff(beta * abs(gamma))


def _fourier_from(alpha, gamma, beta):
    """F (2L+1, 2L+1) of the scaled softmax kernel (module docstring), index [r + L, s + L], and log scale a + g."""
    a, g = beta * abs(alpha), beta * abs(gamma)
    Ma, Mg = bessel_cutoff(a), bessel_cutoff(g)
    L = Ma + Mg
    p = np.arange(-Ma, Ma + 1)
    q = np.arange(-Mg, Mg + 1)
    fp = ive(np.abs(p), a) * np.exp(1j * p * np.angle(alpha))
    fq = ive(np.abs(q), g) * np.exp(-1j * q * np.angle(gamma))
    F = np.zeros((2 * L + 1, 2 * L + 1), dtype=complex)
    P, Q = np.meshgrid(p, q, indexing="ij")
    F[Q - P + L, P + Q + L] = fp[:, None] * fq[None, :]  # (p, q) -> (r, s) is one to one
    return F, a + g


def softmax_fourier(p: Attention):
    """(F, log_scale) of the softmax kernel of ``p`` (d = 2): e^{β⟨x_k,Ax_j⟩} = e^{log_scale} Σ F[r, s] e^{irθ_k}
    e^{isθ_j}, F of shape (2L+1, 2L+1) indexed [r + L, s + L]; cached on ``p``."""
    cached = p.__dict__.get("_softmax_fourier")
    if cached is None:
        alpha, gamma = complex_form(p.A)
        cached = p.__dict__["_softmax_fourier"] = _fourier_from(alpha, gamma, p.beta)
    return cached


def lsa_fourier(p: Attention) -> np.ndarray:
    """F (3, 3) of the LSA kernel β⟨x_k, A x_j⟩ = Σ F[r, s] e^{irθ_k} e^{isθ_j} (r, s ∈ {-1, 0, 1}; only s = ±1)."""
    alpha, gamma = complex_form(p.A)
    F = np.zeros((3, 3), dtype=complex)
    b = p.beta / 2
    F[0, 2], F[2, 0] = b * alpha, b * np.conj(alpha)  # (r, s) = (-1, 1), (1, -1)
    F[2, 2], F[0, 0] = b * np.conj(gamma), b * gamma  # (1, 1), (-1, -1)
    return F


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


def moments(z, K) -> np.ndarray:
    """Z_m = (1/n) Σ_j z_j^m for m = 0..K-1, z (..., n) unit complex -> (..., K)."""
    n = z.shape[-1]
    Z = np.zeros(z.shape[:-1] + (K,), dtype=complex)
    for lo, hi in _chunks(n):
        Z += _powers(z[..., lo:hi], K).sum(axis=-1)
    return Z / n


def _all_moments(Zpos):
    """Z_m for m = -(K-1)..K-1 from m = 0..K-1 (Z_{-m} = conj Z_m), (..., K) -> (..., 2K-1), index m + K - 1."""
    return np.concatenate([np.conj(Zpos[..., :0:-1]), Zpos], axis=-1)


def fourier_coefficients(F, Z, nu, mu, normaliser: bool):
    """(b, d) of S_k = Σ_r b_r z_k^r and N_k = Σ_r d_r z_k^r for F (..., 2L+1, 2L+1), Z (..., 2L+3) (index
    m + L + 1), ν, μ (...): b_r = Σ_s F_rs (ν Z_{s+1} + μ Z_{s-1}), d_r = Σ_s F_rs Z_s; shapes (..., 2L+1)
    (d is None unless ``normaliser``)."""
    W = nu[..., None] * Z[..., 2:] + mu[..., None] * Z[..., :-2]  # index s + L
    b = np.einsum("...rs,...s->...r", F, W)
    d = np.einsum("...rs,...s->...r", F, Z[..., 1:-1]) if normaliser else None
    return b, d


def _evaluate(z, coeffs, L) -> np.ndarray:
    """Σ_r c_r z^r for r = -L..L, several coefficient vectors: z (..., n), coeffs (..., k, 2L+1) -> (..., k, n)."""
    n = z.shape[-1]
    pos = coeffs[..., L:]  # r = 0..L
    neg = np.conj(coeffs[..., L - 1::-1])  # conj c_{-r}, r = 1..L
    out = np.empty(coeffs.shape[:-1] + (n,), dtype=complex)
    for lo, hi in _chunks(n):
        P = _powers(z[..., lo:hi], L + 1)
        val = np.matmul(pos, P)
        if L:
            val += np.conj(np.matmul(neg, P[..., 1:, :]))  # Σ_{r>0} c_{-r} z̄^r = conj(Σ conj(c_{-r}) z^r)
        out[..., lo:hi] = val
    return out


def _tangent(z, w) -> np.ndarray:
    """θ̇ w (..., n) -> velocities w (-sin θ, cos θ), shape (..., n, 2)."""
    return np.stack([-w * z.imag, w * z.real], axis=-1)


def _moment_sums(z, F, nu, mu, normaliser):
    """(S/scale, N/scale) (..., n) of tokens z (..., n) under the kernel F (..., 2L+1, 2L+1)."""
    L = (F.shape[-1] - 1) // 2
    Z = _all_moments(moments(z, L + 2))
    b, d = fourier_coefficients(F, Z, nu, mu, normaliser)
    coeffs = b[..., None, :] if d is None else np.stack([b, d], axis=-2)
    vals = _evaluate(z, coeffs, L)
    return vals[..., 0, :], (None if d is None else vals[..., 1, :].real)


def _check_d2(X, p: Attention):
    if p.d != 2 or np.shape(X)[-1] != 2:
        raise ValueError(f"X: the moment form needs d = 2 tokens, got A {p.A.shape} and X {np.shape(X)}")


def _usa_overflow(beta_norm):
    if beta_norm > USA_MAX_LOGIT:
        raise OverflowError(f"beta: USA logit bound beta*||A||_2 = {beta_norm:.4g} > {USA_MAX_LOGIT:g}; exp would "
                            f"overflow (use beta*||A||_2 <= {USA_MAX_LOGIT:g})")


def usa_field_moments(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """USA velocity of d = 2 tokens X (n, 2) -> (n, 2) by the moments (module docstring); O(n L + L²)."""
    _check_d2(X, p)
    F, log_scale = softmax_fourier(p)
    _usa_overflow(log_scale)
    z = _unit_phases(X)
    nu, mu = complex_form(p.V)
    S, _ = _moment_sums(z, F, np.asarray(nu), np.asarray(mu), False)
    return _tangent(z, np.exp(log_scale) * (np.conj(z) * S).imag)


def sa_field_moments(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """SA velocity of d = 2 tokens X (n, 2) -> (n, 2) by the moments; rows with a normaliser below
    :data:`SA_DIRECT_BELOW` (relative to e^{β‖A‖₂}) directly (module docstring)."""
    _check_d2(X, p)
    F, _ = softmax_fourier(p)
    z = _unit_phases(X)
    nu, mu = complex_form(p.V)
    S, N = _moment_sums(z, F, np.asarray(nu), np.asarray(mu), True)
    out = _tangent(z, (np.conj(z) * S).imag / N)
    bad = np.nonzero(N < SA_DIRECT_BELOW)[0]
    if bad.size:
        out[bad] = _sa_rows(np.ascontiguousarray(X, dtype=float), bad, p)
    return out


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


def lsa_field_moments(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """LSA velocity of d = 2 tokens by the same moment machinery with :func:`lsa_fourier` (only Z₀, Z_{±2} enter):
    the reference that shows LSA is the pure second harmonic; :func:`lsadyn.fields.attention.lsa_field` is faster."""
    _check_d2(X, p)
    z = _unit_phases(X)
    nu, mu = complex_form(p.V)
    S, _ = _moment_sums(z, lsa_fourier(p), np.asarray(nu), np.asarray(mu), False)
    return _tangent(z, (np.conj(z) * S).imag)


@dataclass(frozen=True)
class BatchFourier:
    """The softmax kernels of a batch of d = 2 members, padded to the largest L: F (B, 2L+1, 2L+1), log scales
    (B,), ν, μ (B,) of V."""

    F: np.ndarray
    log_scale: np.ndarray
    nu: np.ndarray
    mu: np.ndarray

    def take(self, idx) -> BatchFourier:
        return BatchFourier(self.F[idx], self.log_scale[idx], self.nu[idx], self.mu[idx])


def batch_fourier(A, V, beta) -> BatchFourier:
    """:class:`BatchFourier` of A, V (B, 2, 2), beta (B,)."""
    alpha, gamma = complex_form(A)
    nu, mu = complex_form(V)
    beta = np.broadcast_to(np.asarray(beta, dtype=float), alpha.shape)
    parts = [_fourier_from(a, g, b) for a, g, b in zip(alpha, gamma, beta)]
    L = max((F.shape[0] - 1) // 2 for F, _ in parts)
    F = np.zeros((len(parts), 2 * L + 1, 2 * L + 1), dtype=complex)
    for i, (Fi, _) in enumerate(parts):
        off = L - (Fi.shape[0] - 1) // 2
        F[i, off:off + Fi.shape[0], off:off + Fi.shape[0]] = Fi
    return BatchFourier(F, np.array([s for _, s in parts]), np.asarray(nu), np.asarray(mu))


def usa_field_batch_moments(X, bf: BatchFourier, factor) -> np.ndarray:
    """USA velocities of a stack X (B, n, 2) times ``factor`` (B,) (e.g. each member's τ): (B, n, 2)."""
    for s in bf.log_scale:
        _usa_overflow(s)
    z = _unit_phases(X)
    S, _ = _moment_sums(z, bf.F, bf.nu, bf.mu, False)
    scale = np.asarray(factor, dtype=float) * np.exp(bf.log_scale)
    return _tangent(z, scale[:, None] * (np.conj(z) * S).imag)


def _use_moments(X, p: Attention) -> bool:
    if p.d != 2:
        return False
    cached = p.__dict__.get("_harmonics")
    if cached is None:
        cached = p.__dict__["_harmonics"] = harmonics(p.A, p.beta)
    return softmax_d2_uses_moments(np.shape(X)[0], cached)


def usa_field_d2(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """The USA field of d = 2 tokens as :func:`lsadyn.fields.attention.field_for` gives it: :func:`usa_field_moments`
    when :func:`lsadyn.budget.softmax_d2_uses_moments` estimates it cheaper (n beyond ~150), else the direct
    :func:`lsadyn.fields.attention.usa_field`."""
    return usa_field_moments(t, X, p) if _use_moments(X, p) else usa_field(t, X, p)


def sa_field_d2(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """The SA field of d = 2 tokens: :func:`sa_field_moments` or the direct field, as :func:`usa_field_d2`."""
    return sa_field_moments(t, X, p) if _use_moments(X, p) else sa_field(t, X, p)
