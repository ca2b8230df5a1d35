r"""d = 2 linear attention as a Kuramoto model with pure second-harmonic coupling (docs/theory.md §2).

With :math:`x_k = (\cos\theta_k, \sin\theta_k)`, :math:`J = [[0,-1],[1,0]]`:

.. math::
    \dot\theta_k = \beta\, x_k^\top B x_k,\quad B = A M V^\top J,\quad
    M = \tfrac12 (I + S),\quad S = [[a, b],[b, -a]],\quad R_2 = a + i b = \tfrac1n\sum_j e^{2i\theta_j}.

Doubled phases :math:`\xi_k = 2\theta_k` obey :math:`\dot\xi_k = \omega + \mathrm{Im}(H e^{-i\xi_k})` with
:math:`\omega = \beta\,\mathrm{tr} B`, :math:`H = i\beta\bar c`,
:math:`c = (B_{11}-B_{22}) - i(B_{12}+B_{21})`. Since B is affine in (a, b), so are tr B and c:
:class:`KuramotoCoefficients` stores them, batched over any leading shape of (A, V, β)
so that parameter grids are evaluated in one vectorised call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

J = np.array([[0.0, -1.0], [1.0, 0.0]])
_SX = np.array([[1.0, 0.0], [0.0, -1.0]])
_SY = np.array([[0.0, 1.0], [1.0, 0.0]])


def _as_batch(A, V, beta):
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    if A.shape[-2:] != (2, 2) or V.shape[-2:] != (2, 2):
        raise ValueError(f"A, V: d = 2 reductions need 2x2 matrices, got {A.shape} and {V.shape}")
    beta = np.asarray(beta, dtype=float)
    return A, V, beta


def coupling_matrix_B(R2, A, V) -> np.ndarray:
    """:math:`B = A M V^\\top J` with :math:`M = \\frac12(I + S(R_2))`; shape (..., 2, 2).

    ``R2`` complex (...,); ``A``, ``V`` (..., 2, 2), broadcast together.
    """
    A, V, _ = _as_batch(A, V, 1.0)
    R2 = np.asarray(R2, dtype=complex)
    M = 0.5 * (np.eye(2) + R2.real[..., None, None] * _SX + R2.imag[..., None, None] * _SY)
    return A @ M @ np.swapaxes(V, -1, -2) @ J


@dataclass(frozen=True)
class KuramotoCoefficients:
    r"""Affine coefficients: :math:`\mathrm{tr}B = t_0 + t_1 a + t_2 b`, :math:`c = c_0 + c_1 a + c_2 b`.

    All arrays have the batch shape of (A, V, β); ``beta`` is stored separately.
    """

    tr: np.ndarray  # (..., 3) real
    c: np.ndarray  # (..., 3) complex
    beta: np.ndarray  # (...)

    @property
    def shape(self):
        return self.beta.shape

    def tr_B(self, R2):
        return self.tr[..., 0] + self.tr[..., 1] * np.real(R2) + self.tr[..., 2] * np.imag(R2)

    def c_of(self, R2):
        return self.c[..., 0] + self.c[..., 1] * np.real(R2) + self.c[..., 2] * np.imag(R2)

    def omega_H(self, R2):
        r""":math:`\omega(R_2) = \beta\,\mathrm{tr}B`, :math:`H(R_2) = i\beta\,\overline{c}`."""
        return self.beta * self.tr_B(R2), 1j * self.beta * np.conj(self.c_of(R2))


def _tr_c(B):
    tr = B[..., 0, 0] + B[..., 1, 1]
    c = (B[..., 0, 0] - B[..., 1, 1]) - 1j * (B[..., 0, 1] + B[..., 1, 0])
    return tr, c


def kuramoto_coefficients(A, V, beta=1.0) -> KuramotoCoefficients:
    """Common-field coefficients of the d = 2 LSA dynamics for (A, V, β), batched over leading axes."""
    A, V, beta = _as_batch(A, V, beta)
    P = np.swapaxes(V, -1, -2) @ J
    B0 = 0.5 * A @ P
    Bx = 0.5 * A @ _SX @ P
    By = 0.5 * A @ _SY @ P
    parts = [_tr_c(B) for B in (B0, Bx, By)]
    tr = np.stack([p[0] for p in parts], axis=-1)
    c = np.stack([p[1] for p in parts], axis=-1)
    shape = np.broadcast_shapes(tr.shape[:-1], beta.shape)
    return KuramotoCoefficients(
        tr=np.broadcast_to(tr, shape + (3,)), c=np.broadcast_to(c, shape + (3,)), beta=np.broadcast_to(beta, shape)
    )


def angle_field(t, theta, coeffs: KuramotoCoefficients):
    r"""Angle form :math:`\dot\theta_k = \frac12(\omega + \mathrm{Re}(\beta c\, e^{2i\theta_k}))` (= β x_kᵀ B x_k).

    ``theta`` (..., n) with ``coeffs`` of batch shape (...) (one population of n tokens per
    parameter point); :math:`R_2` is the empirical mean of :math:`e^{2i\theta_j}` over the last
    axis. Cost O(n) per population. A flat ``theta`` of size N·n is reshaped to (N, n).
    """
    flat = theta.ndim == 1 and coeffs.shape != ()
    if flat:
        theta = theta.reshape(coeffs.shape + (-1,))
    z = np.exp(2j * theta)
    R2 = z.mean(axis=-1)
    omega = coeffs.beta * coeffs.tr_B(R2)
    c = coeffs.c_of(R2)
    out = 0.5 * (omega[..., None] + coeffs.beta[..., None] * np.real(c[..., None] * z))
    return out.ravel() if flat else out


def phase_point_field(t, y, coeffs: KuramotoCoefficients):
    r"""The n-token system in doubled-phase points :math:`z_k = e^{2i\theta_k}` on the unit circle:
    :math:`\dot z_k = i\omega z_k + \frac12(H - \bar H z_k^2)` with :math:`R_2 = \frac1n\sum_k z_k`.

    Identical to :func:`angle_field` (it is :math:`\dot\xi_k = \omega + \mathrm{Im}(He^{-i\xi_k})` for
    :math:`z_k = e^{i\xi_k}`) but polynomial: no exp per token and step. ``y`` is flat
    ``[Re z (N·n), Im z (N·n)]`` for a batch of N populations of n tokens (coeffs of shape (N,)),
    or ``[Re z (n), Im z (n)]`` for one population.
    """
    N = int(np.prod(coeffs.shape))
    half = y.size // 2
    x = y[:half].reshape(N, -1)
    v = y[half:].reshape(N, -1)
    R2 = x.mean(axis=1) + 1j * v.mean(axis=1)
    omega, H = coeffs.omega_H(R2.reshape(coeffs.shape))
    omega = np.ravel(omega)[:, None]
    hr = np.ravel(H.real)[:, None] * 0.5
    hi = np.ravel(H.imag)[:, None] * 0.5
    # iωz + H/2 − H̄ z²/2, with z² = (x² − v²) + 2i x v and H̄ = hr − i hi (halves folded in)
    zz_r = x * x - v * v
    zz_i = 2 * x * v
    dx = -omega * v + hr - (hr * zz_r + hi * zz_i)
    dv = omega * x + hi - (hr * zz_i - hi * zz_r)
    return np.concatenate([dx.ravel(), dv.ravel()])


def oa_rhs_complex(R2, coeffs: KuramotoCoefficients):
    r"""OA right-hand side :math:`\dot R_2 = i\omega R_2 + \frac12(H - \bar H R_2^2)`, complex, batched."""
    omega, H = coeffs.omega_H(R2)
    return 1j * omega * R2 + 0.5 * (H - np.conj(H) * R2 * R2)


def oa_field(t, y, coeffs: KuramotoCoefficients):
    r"""Ott–Antonsen field on real coordinates: ``y = [Re R₂ (N), Im R₂ (N)]`` flattened, N = batch size.

    Implements :math:`\dot R_2 = i\beta\,\mathrm{tr}B\,R_2 + \frac{i\beta}2(\bar c + c R_2^2)`.
    """
    N = y.size // 2
    R2 = (y[:N] + 1j * y[N:]).reshape(coeffs.shape)
    # oa_rhs_complex(R2, coeffs) written out (the same numpy operations in the same order, without the calls of
    # omega_H, tr_B and c_of): the integrators call this field tens of thousands of times per job
    re, im, tr, c, beta = R2.real, R2.imag, coeffs.tr, coeffs.c, coeffs.beta
    omega = beta * (tr[..., 0] + tr[..., 1] * re + tr[..., 2] * im)
    H = 1j * beta * np.conj(c[..., 0] + c[..., 1] * re + c[..., 2] * im)
    dR = (1j * omega * R2 + 0.5 * (H - np.conj(H) * R2 * R2)).ravel()
    return np.concatenate([dR.real, dR.imag])


def case4_hamiltonian(R2, v11, v12):
    r"""Conserved quantity of the OA flow for A = I, V = [[v11, v12], [−v12, −v11]] (case 4).

    .. math:: \mathcal H(R_2) = \frac{v_{12}(1 + |R_2|^2) + 2 v_{11}\,\mathrm{Im}R_2}{(1 - |R_2|^2)^2}

    The OA field is Hamiltonian for the area form :math:`(1-|R_2|^2)^{-3}\,da\wedge db`:
    :math:`\rho\dot a = \frac14\partial_b\mathcal H`, :math:`\rho\dot b = -\frac14\partial_a\mathcal H`
    (β rescales time). Interior centre iff |v12| > |v11| (closed orbits ⇒ oscillation).

    On the unit circle |R₂| = 1 (the clustered states, which converging orbits reach to rounding) 𝓗 is
    infinite: returned as ±inf (the numerator's sign; NaN where the numerator vanishes too), without a
    divide-by-zero warning.
    """
    R2 = np.asarray(R2, dtype=complex)
    r2 = np.abs(R2) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):  # |R2| = 1: explicit ±inf / NaN, see above
        return (v12 * (1 + r2) + 2 * v11 * R2.imag) / (1 - r2) ** 2
