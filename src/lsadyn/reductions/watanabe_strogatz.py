r"""Watanabe–Strogatz reduction of the d = 2 LSA dynamics (docs/theory.md §2).

Each :math:`z_k = e^{i\xi_k}` (:math:`\xi_k = 2\theta_k`) obeys the same Riccati equation
:math:`\dot z = i\omega z + \frac12(H - \bar H z^2)` with common :math:`\omega(R_2), H(R_2)`,
so :math:`z_k(t) = \Phi_t(w_k)` for one disk automorphism

.. math:: \Phi(w) = \frac{\alpha + e^{i\eta} w}{1 + \bar\alpha e^{i\eta} w},\qquad |\alpha| < 1,

and constants of motion :math:`w_k = e^{i\xi_k(0)}` (here with :math:`\alpha(0) = 0, \eta(0) = 0`).
Since :math:`\alpha = \Phi_t(0)` and :math:`\Phi_t'(0) = e^{i\eta}(1-|\alpha|^2)`:

.. math:: \dot\alpha = i\omega\alpha + \tfrac12(H - \bar H\alpha^2),\qquad \dot\eta = \omega - \mathrm{Im}(\bar H\alpha).

The order parameter is :math:`R_2 = \frac1n\sum_k \Phi(w_k)
= \alpha + (1-|\alpha|^2)\,e^{i\eta}\sum_{m\ge1} q^{m-1} Z_m`, :math:`q = -\bar\alpha e^{i\eta}`,
:math:`Z_m = \frac1n\sum_k w_k^m`. The series is truncated where its tail bound
:math:`(1+|\alpha|)|\alpha|^K` is below ``tol``; the moments :math:`Z_1..Z_{K_{max}}` are computed once,
so a step costs O(K(|α|)), independent of n, while :math:`K(|\alpha|) \le \min(n, K_{max})`;
beyond that the exact O(n) sum is used.

Angles are recovered with a continuous lift:
:math:`\theta_k(t) = \theta_k(0) + \frac12\big(\eta + 2\arg(1 + \alpha e^{-i\eta}\bar w_k)\big)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kuramoto import KuramotoCoefficients


@dataclass(frozen=True)
class WSConstants:
    """Constants of motion (w_k, their moments Z_1..Z_Kmax) and the field coefficients."""

    theta0: np.ndarray  # (n,) initial angles
    w: np.ndarray  # (n,) complex, e^{2 i theta0}
    moments: np.ndarray  # (Kmax,) complex, Z_m = mean(w^m), m = 1..Kmax
    coeffs: KuramotoCoefficients
    tol: float = 1e-15


def ws_from_angles(theta0, coeffs: KuramotoCoefficients, k_max: int = 512, tol: float = 1e-15):
    """Map n angles to WS form: returns (initial WS state ``[Re α, Im α, η] = 0``, constants)."""
    theta0 = np.asarray(theta0, dtype=float)
    w = np.exp(2j * theta0)
    k_max = int(min(k_max, w.size))
    moments = np.empty(k_max, dtype=complex)
    p = np.ones_like(w)
    for m in range(k_max):  # loop over harmonics (not particles): k_max vectorised passes
        p *= w
        moments[m] = p.mean()
    return np.zeros(3), WSConstants(theta0=theta0, w=w, moments=moments, coeffs=coeffs, tol=tol)


def ws_order_parameter(y, const: WSConstants) -> complex:
    """:math:`R_2` from the WS state ``y = [Re α, Im α, η]`` (series or exact sum, see module doc)."""
    alpha = y[0] + 1j * y[1]
    eta = y[2]
    rho = abs(alpha)
    e = np.exp(1j * eta)
    if rho == 0.0:
        return e * const.moments[0] if const.moments.size else alpha
    K = int(np.ceil(np.log(const.tol / 2.0) / np.log(rho))) if rho < 1 else np.inf
    if K <= const.moments.size and K < const.w.size:
        q = -np.conj(alpha) * e
        powers = q ** np.arange(K)
        return alpha + (1 - rho * rho) * e * np.dot(powers, const.moments[:K])
    return ws_order_parameter_exact(y, const.w)


def _ws_rhs(alpha, R2, coeffs):
    omega, H = coeffs.omega_H(R2)
    da = 1j * omega * alpha + 0.5 * (H - np.conj(H) * alpha * alpha)
    deta = omega - np.imag(np.conj(H) * alpha)
    return da, np.real(deta)


def ws_field(t, y, const: WSConstants):
    r"""WS field: ``y = [Re α, Im α, η]`` → :math:`(\dot\alpha, \dot\eta)` (see module doc)."""
    alpha = y[0] + 1j * y[1]
    da, deta = _ws_rhs(alpha, ws_order_parameter(y, const), const.coeffs)
    return np.array([da.real, da.imag, float(deta)])


def ws_points(y, w) -> np.ndarray:
    r"""The tokens' doubled-phase points :math:`z_k = \Phi(w_k)` of WS states ``y`` (..., 3), ``w`` (..., n) → (..., n)."""
    alpha = (y[..., 0] + 1j * y[..., 1])[..., None]
    u = np.exp(1j * y[..., 2])[..., None] * w
    return (alpha + u) / (1 + np.conj(alpha) * u)


def ws_order_parameter_exact(y, w) -> np.ndarray:
    r"""Exact O(n) :math:`R_2 = \frac1n\sum_k\Phi(w_k)`; ``y`` (..., 3), ``w`` (..., n) → (...)."""
    return np.mean(ws_points(y, w), axis=-1)


def ws_field_batch(t, y, const: WSConstants):
    """WS field for a batch of parameter points: ``y`` flat (N·3,) ordered as ``[α_re (N), α_im (N), η (N)]``,
    ``const.w`` (N, n), ``const.coeffs`` of shape (N,). R₂ by the exact sum (the batch is for
    agreement studies at moderate n; use :func:`ws_field` for the n-independent step)."""
    N = const.coeffs.shape[0]
    Y = y.reshape(3, N).T
    alpha = Y[:, 0] + 1j * Y[:, 1]
    da, deta = _ws_rhs(alpha, ws_order_parameter_exact(Y, const.w), const.coeffs)
    return np.concatenate([da.real, da.imag, deta])


def ws_to_angles(y, const: WSConstants) -> np.ndarray:
    """WS states ``y`` (..., 3) to token angles (..., n), continuous in time (lifted, not wrapped)."""
    y = np.asarray(y, dtype=float)
    alpha = (y[..., 0] + 1j * y[..., 1])[..., None]
    eta = y[..., 2][..., None]
    lift = eta + 2 * np.angle(1 + alpha * np.exp(-1j * eta) * np.conj(const.w))
    return const.theta0 + 0.5 * lift
