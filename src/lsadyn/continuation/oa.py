r"""The OA flow as a function of a point x = (Re R₂, Im R₂) and two parameters p = (p₁, p₂).

A *family* is a callable ``family(p) -> (A, V, beta)`` (p of shape (2,), A and V 2×2, β > 0). With the
affine coefficients of :func:`lsadyn.reductions.kuramoto.kuramoto_coefficients`,
:math:`T(R) = t_0 + t_1 a + t_2 b = \mathrm{tr}B`, :math:`C(R) = c_0 + c_1 a + c_2 b`, R = a + i b:

.. math::
    F(R) = i\beta\,T(R)\,R + \tfrac{i\beta}{2}\big(\overline{C(R)} + C(R)\,R^2\big)

and its real Jacobian :math:`J = [[\mathrm{Re}F_a, \mathrm{Re}F_b], [\mathrm{Im}F_a, \mathrm{Im}F_b]]` with

.. math::
    F_a = i\beta(t_1 R + T) + \tfrac{i\beta}{2}(\bar c_1 + c_1 R^2 + 2 C R),\qquad
    F_b = i\beta(t_2 R + iT) + \tfrac{i\beta}{2}(\bar c_2 + c_2 R^2 + 2i C R).

The unit circle :math:`|R_2|` = 1 is invariant (the clustered states). On it, :math:`R = e^{i\varphi}`,

.. math::
    g(\varphi) = \dot\varphi = \mathrm{Im}\big(e^{-i\varphi} F(e^{i\varphi})\big),\qquad
    g'(\varphi) = -\mathrm{Re}(e^{-i\varphi}F) + \mathrm{Im}\big(e^{-i\varphi}\,J\,(-\sin\varphi, \cos\varphi)\big)

(J applied to the tangent, read as a complex number). At an equilibrium on the circle the tangent is an
eigenvector of J with eigenvalue g'; the other (normal) eigenvalue is :math:`\nu = \mathrm{tr}J - g'`
(ν < 0: the circle attracts there).
"""

from __future__ import annotations

import numpy as np


def coefficients(A, V, beta):
    r"""(t₀, t₁, t₂), (c₀, c₁, c₂), β of one (A, V, β) in plain floats: :math:`B_k = \frac12 A S_k V^\top J` with
    S₀ = I, S₁ = diag(1, −1), S₂ = [[0, 1], [1, 0]]; :math:`t_k = \mathrm{tr}B_k`,
    :math:`c_k = (B_{k,11} - B_{k,22}) - i(B_{k,12} + B_{k,21})` — the values of
    :func:`lsadyn.reductions.kuramoto.kuramoto_coefficients` (a test checks it), ~20× faster for one point."""
    (a11, a12), (a21, a22) = np.asarray(A, dtype=float).tolist()
    (v11, v12), (v21, v22) = np.asarray(V, dtype=float).tolist()
    # P = Vᵀ J = [[v21, -v11], [v22, -v12]]
    p11, p12, p21, p22 = v21, -v11, v22, -v12
    tr, c = [], []
    for s11, s12, s21, s22 in ((1.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, -1.0), (0.0, 1.0, 1.0, 0.0)):
        m11, m12 = a11 * s11 + a12 * s21, a11 * s12 + a12 * s22  # A S
        m21, m22 = a21 * s11 + a22 * s21, a21 * s12 + a22 * s22
        b11, b12 = 0.5 * (m11 * p11 + m12 * p21), 0.5 * (m11 * p12 + m12 * p22)
        b21, b22 = 0.5 * (m21 * p11 + m22 * p21), 0.5 * (m21 * p12 + m22 * p22)
        tr.append(b11 + b22)
        c.append(complex(b11 - b22, -(b12 + b21)))
    return tr, c, float(beta)


def _coeffs(family, p):
    return coefficients(*family(np.asarray(p, dtype=float)))


def field_and_jacobian(family, x, p):
    """F(x; p) (2,) and its analytic Jacobian J = ∂F/∂x (2, 2) at x = (Re R₂, Im R₂)."""
    F, Fa, Fb = _field_jac_complex(*_coeffs(family, p), complex(x[0], x[1]))
    return np.array([F.real, F.imag]), np.array([[Fa.real, Fb.real], [Fa.imag, Fb.imag]])


def field(family, x, p):
    """F(x; p), shape (2,)."""
    return field_and_jacobian(family, x, p)[0]


def _field_jac_complex(tr, c, beta, R):
    """F, F_a, F_b (complex; R scalar or array) from the coefficients."""
    a, b = np.real(R), np.imag(R)
    T = tr[0] + tr[1] * a + tr[2] * b
    C = c[0] + c[1] * a + c[2] * b
    F = 1j * beta * T * R + 0.5j * beta * (np.conj(C) + C * R * R)
    Fa = 1j * beta * (tr[1] * R + T) + 0.5j * beta * (np.conj(c[1]) + c[1] * R * R + 2 * C * R)
    Fb = 1j * beta * (tr[2] * R + 1j * T) + 0.5j * beta * (np.conj(c[2]) + c[2] * R * R + 2j * C * R)
    return F, Fa, Fb


def circle_rate(family, phi, p):
    """(g, g', ν) at R₂ = e^{iφ}: angular velocity, its φ-derivative, and the normal eigenvalue tr J − g';
    ``phi`` scalar (floats returned) or an array (arrays of its shape)."""
    tr, c, beta = _coeffs(family, p)
    R = np.exp(1j * np.asarray(phi, dtype=float))
    F, Fa, Fb = _field_jac_complex(tr, c, beta, R)
    e = np.conj(R)
    dF = -np.sin(phi) * Fa + np.cos(phi) * Fb  # J (−sin φ, cos φ) as a complex number
    g = (e * F).imag
    dg = -(e * F).real + (e * dF).imag
    nu = Fa.real + Fb.imag - dg
    if np.ndim(phi) == 0:
        return float(g), float(dg), float(nu)
    return g, dg, nu


def interior_stability(J) -> str:
    """'stable' | 'unstable' | 'saddle' | 'centre' from the eigenvalues of a 2×2 Jacobian."""
    tr, det = float(np.trace(J)), float(np.linalg.det(J))
    scale = max(float(np.abs(J).max()), 1e-300)
    if det < 0:
        return "saddle"
    if abs(tr) <= 1e-9 * scale:
        return "centre"
    return "stable" if tr < 0 else "unstable"


def boundary_stability(dg, nu) -> str:
    """Stability of an equilibrium on the circle from its tangential (g') and normal (ν) eigenvalues."""
    if dg < 0 and nu < 0:
        return "stable"
    if dg > 0 and nu > 0:
        return "unstable"
    return "saddle"
