r"""Exponents of the attractors of the d = 2 OA flow (docs/theory.md §2) at one point (A, V, β).

The flow :math:`\dot R_2 = F(R_2)` in x = (Re R₂, Im R₂) and its Jacobian J (2, 2) are those of
:mod:`lsadyn.continuation.oa`. Its attractors and the *leading exponent* of each (the largest real part of the
linearisation transverse to the attractor; negative = attracting):

* an interior equilibrium x* (|R₂| < 1, ``interior_converge``): :math:`\max \mathrm{Re}\,\mathrm{eig}\,J(x^*)`;
* an equilibrium :math:`e^{i\varphi^*}` on the invariant circle (``cluster_converge``):
  :math:`\max(g'(\varphi^*), \nu(\varphi^*))`, tangential and normal eigenvalues;
* the circle as a periodic orbit (rotating clusters, ``cluster_rotate``): the normal Floquet exponent λ⊥ (the other
  exponent, along the flow, is 0). :func:`circle_floquet` measures it from the variational equation

  .. math:: \dot\varphi = g(\varphi),\qquad \dot\Phi = J(e^{i\varphi})\,\Phi,\quad \Phi(0) = I,

  integrated (DOP853) over one turn of φ: the monodromy matrix Φ(T) (2, 2) has multipliers 1 and
  :math:`e^{\lambda_\perp T}`; the closed form is :func:`lsadyn.continuation.circle_cycle`;
* a circle on which every point is fixed (g ≡ 0, e.g. V = I): a continuum of clustered states, leading exponent 0.

Interior limit cycles (``oscillate``) are not found here (their multipliers need shooting): no exponent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..continuation import boundary_equilibria, circle_cycle, circle_degenerate, circle_rate, field_and_jacobian
from ..continuation import interior_equilibria as _interior_equilibria
from ..continuation.oa import coefficients

TWO_PI = 2 * np.pi


def constant_family(A, V, beta):
    """The family ``p -> (A, V, β)`` of lsadyn.continuation with no parameter: one fixed point (A, V, β)."""
    A, V, beta = np.asarray(A, dtype=float), np.asarray(V, dtype=float), float(beta)
    return lambda p: (A, V, beta)


P0 = np.zeros(2)
REGIMES = ("interior_converge", "cluster_converge", "cluster_rotate")


@dataclass(frozen=True)
class Attractor:
    """One attractor of the OA flow: ``regime`` (the label of docs/theory.md §3), ``exponent`` (leading, see the
    module), ``R2`` (complex; the equilibrium, NaN for the rotating circle), ``period`` (rotation; NaN otherwise)."""

    regime: str
    exponent: float
    R2: complex
    period: float = float("nan")


def _double_roots(fam, tol, n_grid=720):
    """Angles where g touches 0 (a circle fold, where two clustered states have merged; the sign-change search of
    :func:`lsadyn.continuation.boundary_equilibria` misses them, or its Newton step does not converge on a double
    root): the refined local minima of |g| with |g| ≤ tol · max|g|."""
    phis = np.linspace(0, TWO_PI, n_grid, endpoint=False)
    g = circle_rate(fam, phis, P0)[0]
    from scipy.optimize import minimize_scalar

    a = np.abs(g)
    out = []
    for k in np.nonzero((a <= np.roll(a, 1)) & (a <= np.roll(a, -1)))[0]:
        h = TWO_PI / n_grid
        res = minimize_scalar(lambda f: abs(circle_rate(fam, f, P0)[0]), bounds=(phis[k] - h, phis[k] + h),
                              method="bounded", options={"xatol": 1e-12})
        if res.fun <= tol * a.max():
            out.append(float(res.x) % TWO_PI)
    return out


def oa_rhs(R2, A, V, beta):
    r"""F(R₂) (complex, any shape of R₂) for one (A, V, β): :math:`i\beta T R + \frac{i\beta}2(\bar C + C R^2)`."""
    tr, c, beta = coefficients(A, V, beta)
    R2 = np.asarray(R2, dtype=complex)
    a, b = R2.real, R2.imag
    T = tr[0] + tr[1] * a + tr[2] * b
    C = c[0] + c[1] * a + c[2] * b
    return 1j * beta * T * R2 + 0.5j * beta * (np.conj(C) + C * R2 * R2)


def attractors(A, V, beta, r_max=0.995, regimes=REGIMES, tol=1e-7) -> list[Attractor]:
    """Every attractor of the OA flow at (A, V, β) of the kinds ``regimes`` that this module can find: interior and
    circle equilibria whose eigenvalues have real parts ≤ ``tol`` · scale, scale = β‖A‖₂‖V‖₂ (negative, or zero at
    a non-hyperbolic point such as a boundary of the paper's cases: leading exponent ≈ 0; a double root of g is
    located only to ~√ε, so its g′ is ~1e-8 · scale, hence the default), the rotating circle with λ⊥ < 0, and a
    circle of fixed points (g ≡ 0) with an attracting arc (ν < 0 somewhere; leading exponent 0, along the circle).
    Interior limit cycles are not searched."""
    fam = constant_family(A, V, beta)
    scale = float(beta) * max(1e-300, np.linalg.norm(A, 2) * np.linalg.norm(V, 2))
    out = []
    if "interior_converge" in regimes:
        for x in _interior_equilibria(fam, P0, r_max=r_max):
            lam = np.linalg.eigvals(field_and_jacobian(fam, x, P0)[1])
            if lam.real.max() <= tol * scale:
                out.append(Attractor("interior_converge", float(lam.real.max()), complex(x[0], x[1])))
    if not {"cluster_converge", "cluster_rotate"} & set(regimes):
        return out
    if circle_degenerate(fam, P0):
        nu = circle_rate(fam, np.linspace(0, TWO_PI, 64, endpoint=False), P0)[2]
        if "cluster_converge" in regimes and nu.min() < 0:
            out.append(Attractor("cluster_converge", 0.0, complex("nan")))
        return out
    if "cluster_converge" in regimes:
        roots = list(boundary_equilibria(fam, P0))
        roots += [f for f in _double_roots(fam, 1e-10) if all(abs((f - r + np.pi) % TWO_PI - np.pi) > 1e-6 for r in roots)]
        for phi in roots:
            _, dg, nu = circle_rate(fam, phi, P0)
            if max(dg, nu) <= tol * scale:
                out.append(Attractor("cluster_converge", float(max(dg, nu)), complex(np.exp(1j * phi))))
    if "cluster_rotate" in regimes:
        cyc = circle_cycle(fam, P0)
        if cyc is not None and cyc[1] < 0:
            out.append(Attractor("cluster_rotate", float(cyc[1]), complex("nan"), float(cyc[0])))
    return out


def leading_exponent(A, V, beta, regime: str, abs_R2: float = float("nan"), starts=None, horizon: float = 400.0,
                     rtol: float = 1e-9) -> float:
    """The leading exponent of the OA attractor a run labelled ``regime`` reached at (A, V, β) (NaN for
    ``oscillate``/``undetermined`` or when no attractor of that kind is found). Several candidates of the kind whose
    exponents differ by more than ``rtol`` (relative): the interior one nearest ``abs_R2``; clustered states by
    integrating the OA flow from ``starts`` (complex R₂(0), e.g. :func:`lsadyn.api.oa_start_points`) for ``horizon``
    time units τ = 1/(β‖A‖‖V‖), each start going to the candidate it ends nearest to: the largest exponent of the
    candidates reached (the starts of one run may reach different clustered states; the largest is the slowest
    approach). NaN without ``starts``."""
    if regime not in ("interior_converge", "cluster_converge", "cluster_rotate"):
        return float("nan")
    cand = attractors(A, V, beta, regimes=(regime,))
    if not cand:
        return float("nan")
    ex = np.array([a.exponent for a in cand])
    if np.ptp(ex) <= rtol * max(1e-300, np.abs(ex).max()):
        return float(ex[0])
    if regime == "interior_converge" and np.isfinite(abs_R2):
        return min(cand, key=lambda a: abs(abs(a.R2) - abs_R2)).exponent
    if starts is None or regime != "cluster_converge":
        return float("nan")
    from ..api import integrate_oa, time_scale

    end = integrate_oa(A, V, beta, np.asarray(starts, dtype=complex),
                       np.array([0.0, horizon * time_scale(A, V, beta)]))[-1]
    where = np.array([a.R2 for a in cand])
    if np.isnan(where).any():
        return float("nan")
    pick = np.argmin(np.abs(end[:, None] - where[None, :]), axis=1)
    return float(ex[np.unique(pick)].max())


def circle_floquet(A, V, beta, phi0: float = 0.0, rtol: float = 1e-12, atol: float = 1e-13):
    """Numerical (T, λ⊥, multipliers) of the rotation on the circle at (A, V, β) from the monodromy matrix of the
    variational equation over one turn from φ₀ (see the module); None where the circle has equilibria.
    ``multipliers`` (2,) complex, sorted by distance from 1 (the first is the trivial one, ≈ 1)."""
    from scipy.integrate import solve_ivp

    fam = constant_family(A, V, beta)
    g0 = circle_rate(fam, phi0, P0)[0]
    phis = np.linspace(0, TWO_PI, 720, endpoint=False)
    g = circle_rate(fam, phis, P0)[0]
    if np.sign(g).min() != np.sign(g).max() or np.any(g == 0):
        return None
    sense = float(np.sign(g0))

    def rhs(t, y):
        R = np.exp(1j * y[0])
        gg = circle_rate(fam, y[0], P0)[0]
        Jm = field_and_jacobian(fam, np.array([R.real, R.imag]), P0)[1]
        return np.concatenate([[gg], (Jm @ y[1:].reshape(2, 2)).ravel()])

    def turn(t, y):
        return y[0] - phi0 - sense * TWO_PI

    turn.terminal = True
    T_max = 10 * TWO_PI / np.abs(g).min()
    sol = solve_ivp(rhs, (0.0, T_max), np.concatenate([[phi0], np.eye(2).ravel()]), method="DOP853",
                    rtol=rtol, atol=atol, events=turn)
    if not sol.t_events[0].size:
        raise RuntimeError("circle_floquet: no full turn within 10 times the slowest turn")
    T = float(sol.t_events[0][0])
    mono = sol.y_events[0][0][1:].reshape(2, 2)
    mult = np.linalg.eigvals(mono)
    mult = mult[np.argsort(np.abs(mult - 1))]
    return T, float(np.log(np.abs(mult[1])) / T), mult
