r"""Periodic orbits on the invariant circle :math:`|R_2|` = 1: rotating clusters.

Where g(φ) = φ̇ has no root on the circle (and does not vanish identically) the circle itself is a periodic
orbit of the OA flow with period and normal Floquet exponent

.. math::
    T = \oint \frac{d\varphi}{|g(\varphi)|},\qquad
    \lambda_\perp = \frac1T \oint \frac{\rho(\varphi)}{|g(\varphi)|}\,d\varphi,\qquad
    \rho(\varphi) = \partial_r \dot r\big|_{r=1} = \mathrm{Re}\big(e^{-i\varphi}(\cos\varphi\,F_a + \sin\varphi\,F_b)\big)

(the variation δr normal to the circle obeys :math:`\dot{\delta r} = \rho(\varphi(t))\,\delta r`; the orbit's
multipliers are 1 and :math:`e^{\lambda_\perp T}`: λ⊥ < 0 means the rotating clusters attract). At a circle
equilibrium ρ = ν of :mod:`lsadyn.continuation.oa`. Both integrands are smooth and 2π-periodic, so the trapezoid rule on n equal
points converges geometrically; n doubles until T changes by less than ``rtol`` (adaptive quadrature takes
over when the integrand is too peaked for 4096 points). As a circle fold is approached
(a saddle-node on the invariant circle) T diverges like :math:`\pi/\sqrt{g_{\min}|g''|/2}`.
"""

from __future__ import annotations

import numpy as np

from .oa import _coeffs, _field_jac_complex

TWO_PI = 2 * np.pi


def _rates(family, phi, p):
    tr, c, beta = _coeffs(family, p)
    R = np.exp(1j * phi)
    F, Fa, Fb = _field_jac_complex(tr, c, beta, R)
    g = (np.conj(R) * F).imag
    rho = (np.conj(R) * (np.cos(phi) * Fa + np.sin(phi) * Fb)).real
    return g, rho


def circle_cycle(family, p, rtol=1e-12, n0=256, n_trapezoid=4096, fold_tol=1e-10):
    """(T, λ⊥, sense) of the rotation on the circle at p, sense = ±1 the sign of φ̇; None where g has a root
    on the circle (circle equilibria) or vanishes identically. ``T`` is the period of R₂ = e^{iφ}.

    The trapezoid rule doubles n up to ``n_trapezoid``; where the integrand is still too peaked (near a circle
    fold) both integrals go to adaptive Gauss–Kronrod (scipy ``quad``) over one turn centred on the minimum of
    |g|, with a breakpoint there. A minimum of |g| below ``fold_tol`` · max |g| counts as a root (the point is on
    a circle fold, where T diverges): None."""
    n, T_old = n0, None
    while n <= n_trapezoid:
        phi = np.linspace(0, TWO_PI, n, endpoint=False)
        g, rho = _rates(family, phi, p)
        if np.abs(g).max() <= 1e-12 or np.sign(g).min() != np.sign(g).max() or np.any(g == 0):
            return None
        w = TWO_PI / n / np.abs(g)
        T = float(w.sum())
        if T_old is not None and abs(T - T_old) <= rtol * T:
            return T, float((w * rho).sum() / T), int(np.sign(g[0]))
        T_old, n = T, 2 * n
    from scipy.integrate import quad
    from scipy.optimize import minimize_scalar

    k = int(np.argmin(np.abs(g)))
    res = minimize_scalar(lambda f: abs(_rates(family, np.array([f]), p)[0][0]), method="bounded",
                          bounds=(phi[k] - TWO_PI / n, phi[k] + TWO_PI / n), options={"xatol": 1e-12})
    if res.fun <= fold_tol * np.abs(g).max():  # a circle fold to rounding: a double root, no rotation
        return None
    peak = float(res.x)

    def inv(f):
        return 1.0 / abs(_rates(family, np.array([f]), p)[0][0])

    def rho_inv(f):
        gg, rr = _rates(family, np.array([f]), p)
        return rr[0] / abs(gg[0])

    kw = {"epsabs": 0.0, "epsrel": 1e-10, "limit": 400}
    T = sum(quad(inv, a, b, **kw)[0] for a, b in ((peak - np.pi, peak), (peak, peak + np.pi)))
    num = sum(quad(rho_inv, a, b, **kw)[0] for a, b in ((peak - np.pi, peak), (peak, peak + np.pi)))
    return float(T), float(num / T), int(np.sign(g[0]))


def cycle_stability(exponent, tol=1e-9) -> str:
    """'stable' (λ⊥ < 0), 'unstable' (> 0) or 'neutral' for the rotation on the circle."""
    return "neutral" if abs(exponent) <= tol else ("stable" if exponent < 0 else "unstable")
