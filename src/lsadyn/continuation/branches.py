r"""Equilibrium branches of the OA flow, their bifurcations, and two-parameter curves of those bifurcations.

Unknowns and defining systems (x = (Re R₂, Im R₂), p = (p₁, p₂), F, J, g, g', ν of :mod:`lsadyn.continuation.oa`):

=====================  ==========================  =====================================================
object                 unknowns u                  H(u) = 0
=====================  ==========================  =====================================================
interior equilibria    (x, p_free)                 F(x; p) = 0
circle equilibria      (φ, p_free)                 g(φ; p) = 0            (R₂ = e^{iφ} on :math:`|R_2|` = 1)
interior fold          (x, p₁, p₂)                 F = 0, det J = 0
interior Hopf          (x, p₁, p₂)                 F = 0, tr J = 0        (and det J > 0)
circle fold            (φ, p₁, p₂)                 g = 0, g' = 0          (two circle equilibria merge)
circle transcritical   (φ, p₁, p₂)                 g = 0, ν = 0           (an interior branch meets the circle)
=====================  ==========================  =====================================================

On a one-parameter branch a fold shows as a sign change of the tangent's parameter component (and of det J,
resp. g'), a Hopf point as a sign change of tr J with det J > 0, a boundary transcritical point as a sign
change of ν. Each is located by Newton on its square defining system (one parameter fixed) from the
bracketing branch point, then continued in both parameters by :func:`.arclength.continue_curve`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .arclength import continue_curve, fd_jacobian, newton, sign_changes
from .oa import boundary_stability, circle_rate, field_and_jacobian, interior_stability

TWO_PI = 2 * np.pi


def _p_with(p, free, value):
    q = np.array(p, dtype=float)
    q[free] = value
    return q


def _in_box(q, box):
    return box[0][0] <= q[0] <= box[0][1] and box[1][0] <= q[1] <= box[1][1]


# ---------------------------------------------------------------- equilibria at one parameter point
def interior_equilibria(family, p, n_grid=7, r_max=0.995):
    """Equilibria of the OA flow with :math:`|R_2|` < r_max at p, by Newton from an n_grid × n_grid grid in the disc;
    array (k, 2) of distinct points."""
    found = []
    s = np.linspace(-0.95, 0.95, n_grid)
    for a in s:
        for b in s:
            if a * a + b * b >= 0.95**2:
                continue

            def F(x):
                return field_and_jacobian(family, x, p)[0]

            x, ok = newton(F, [a, b], jac=lambda x: field_and_jacobian(family, x, p)[1], max_iter=30)
            if ok and np.hypot(*x) < r_max and not any(np.linalg.norm(x - y) < 1e-7 for y in found):
                found.append(x)
    return np.array(found).reshape(-1, 2)


def circle_degenerate(family, p, n_grid=64, tol=1e-12):
    """True when g ≡ 0 on the circle at p (every clustered state fixed, e.g. V = I, or case 3 at μ = 0)."""
    g = circle_rate(family, np.linspace(0, TWO_PI, n_grid, endpoint=False), p)[0]
    return bool(np.abs(g).max() <= tol)


def boundary_equilibria(family, p, n_grid=720, degenerate_tol=1e-12):
    """Angles φ ∈ [0, 2π) of the equilibria R₂ = e^{iφ} on the circle at p (roots of g, bracketed on a grid and
    refined by Newton); empty if g vanishes identically (every point of the circle fixed: a degenerate family)."""
    phis = np.linspace(0, TWO_PI, n_grid, endpoint=False)
    g = circle_rate(family, phis, p)[0]
    if np.abs(g).max() <= degenerate_tol:
        return np.array([])
    roots = []
    for k in np.nonzero(np.sign(g) * np.sign(np.roll(g, -1)) <= 0)[0]:
        phi, ok = newton(lambda u: [circle_rate(family, u[0], p)[0]], [phis[k]],
                         jac=lambda u: np.array([[circle_rate(family, u[0], p)[1]]]))
        phi = float(phi[0]) % TWO_PI
        if ok and not any(abs((phi - r + np.pi) % TWO_PI - np.pi) < 1e-7 for r in roots):
            roots.append(phi)
    return np.sort(np.array(roots))


# ---------------------------------------------------------------- defining systems
def _interior_H(family, p, free):
    def H(u):
        return field_and_jacobian(family, u[:2], _p_with(p, free, u[2]))[0]

    def jac(u):
        q = _p_with(p, free, u[2])
        J = field_and_jacobian(family, u[:2], q)[1]
        h = 1e-6 * max(1.0, abs(u[2]))
        dp = (field_and_jacobian(family, u[:2], _p_with(q, free, u[2] + h))[0]
              - field_and_jacobian(family, u[:2], _p_with(q, free, u[2] - h))[0]) / (2 * h)
        return np.column_stack([J, dp])

    return H, jac


def _boundary_H(family, p, free):
    def H(u):
        return [circle_rate(family, u[0], _p_with(p, free, u[1]))[0]]

    def jac(u):
        q = _p_with(p, free, u[1])
        dg = circle_rate(family, u[0], q)[1]
        h = 1e-6 * max(1.0, abs(u[1]))
        dp = (circle_rate(family, u[0], _p_with(q, free, u[1] + h))[0]
              - circle_rate(family, u[0], _p_with(q, free, u[1] - h))[0]) / (2 * h)
        return np.array([[dg, dp]])

    return H, jac


def _fold_system(family):
    def H(u):
        F, J = field_and_jacobian(family, u[:2], u[2:])
        return np.array([F[0], F[1], np.linalg.det(J)])

    return H


def _hopf_system(family):
    def H(u):
        F, J = field_and_jacobian(family, u[:2], u[2:])
        return np.array([F[0], F[1], np.trace(J)])

    return H


def _boundary_fold_system(family):
    def H(u):
        g, dg, _ = circle_rate(family, u[0], u[1:])
        return np.array([g, dg])

    return H


def _boundary_transcritical_system(family):
    def H(u):
        g, _, nu = circle_rate(family, u[0], u[1:])
        return np.array([g, nu])

    return H


SYSTEMS = {"fold": _fold_system, "hopf": _hopf_system, "boundary_fold": _boundary_fold_system,
           "boundary_transcritical": _boundary_transcritical_system}


def locate(kind, family, u_guess, free):
    """Newton on the square defining system of ``kind`` (``SYSTEMS``) with the parameter not ``free`` held
    fixed. ``u_guess`` is (x, p₁, p₂) for interior kinds, (φ, p₁, p₂) for boundary ones. Returns (u, ok)."""
    H = SYSTEMS[kind](family)
    n_state = 1 if kind.startswith("boundary") else 2
    fixed = n_state + (1 - free)
    return newton(H, u_guess, fix=fixed, tol=1e-13, max_iter=30)


# ---------------------------------------------------------------- one-parameter branches
def equilibrium_branch(family, x0, p, free, p_range, direction=1.0, ds_max=0.05, max_steps=800):
    """Continue the interior equilibrium x0 at p in p[free] over ``p_range`` (direction ±1), stopping where it
    reaches :math:`|R_2|` = 1. Returns (frame of points: re, im, p1, p2, det, tr, stability; list of located events)."""
    H, jac = _interior_H(family, p, free)
    u0 = np.array([x0[0], x0[1], p[free]])
    lo, hi = p_range
    curve = continue_curve(H, u0, [0, 0, direction], jac=jac, ds=0.2 * ds_max, ds_max=ds_max, max_steps=max_steps,
                           inside=lambda u: lo <= u[2] <= hi and u[0] ** 2 + u[1] ** 2 < 1.0)
    rows, events = [], []
    for u in curve.u:
        q = _p_with(p, free, u[2])
        J = field_and_jacobian(family, u[:2], q)[1]
        rows.append((u[0], u[1], q[0], q[1], np.linalg.det(J), np.trace(J), interior_stability(J)))
    df = pd.DataFrame(rows, columns=["re", "im", "p1", "p2", "det", "tr", "stability"])
    tests = {"fold": curve.tangent[:, 2], "hopf": np.where(df["det"] > 0, df["tr"], np.nan)}
    for kind, values in tests.items():
        for k in sign_changes(values):
            w = abs(values[k]) / (abs(values[k]) + abs(values[k + 1]))
            guess = (1 - w) * curve.u[k] + w * curve.u[k + 1]
            q = _p_with(p, free, guess[2])
            u, ok = locate(kind, family, np.array([guess[0], guess[1], q[0], q[1]]), free)
            if ok and u[0] ** 2 + u[1] ** 2 < 1 and lo <= u[2 + free] <= hi:
                events.append({"kind": kind, "u": u, "free": free})
    return df, events


def boundary_branch(family, phi0, p, free, p_range, direction=1.0, ds_max=0.05, max_steps=800):
    """Continue the circle equilibrium R₂ = e^{iφ0} at p in p[free] over ``p_range``. Returns (frame: phi, p1,
    p2, dg, nu, stability; list of located events: boundary_fold, boundary_transcritical)."""
    H, jac = _boundary_H(family, p, free)
    u0 = np.array([phi0, p[free]])
    lo, hi = p_range
    curve = continue_curve(H, u0, [0, direction], jac=jac, ds=0.2 * ds_max, ds_max=ds_max, max_steps=max_steps,
                           inside=lambda u: lo <= u[1] <= hi, period=[TWO_PI, 0])
    rows = []
    for u in curve.u:
        q = _p_with(p, free, u[1])
        _, dg, nu = circle_rate(family, u[0], q)
        rows.append((u[0], q[0], q[1], dg, nu, boundary_stability(dg, nu)))
    df = pd.DataFrame(rows, columns=["phi", "p1", "p2", "dg", "nu", "stability"])
    events = []
    for kind, values in {"boundary_fold": curve.tangent[:, 1], "boundary_transcritical": df["nu"].to_numpy()}.items():
        for k in sign_changes(values):
            w = abs(values[k]) / (abs(values[k]) + abs(values[k + 1]))
            guess = (1 - w) * curve.u[k] + w * curve.u[k + 1]
            q = _p_with(p, free, guess[1])
            u, ok = locate(kind, family, np.array([guess[0], q[0], q[1]]), free)
            if ok and lo <= u[1 + free] <= hi:
                u[0] %= TWO_PI
                events.append({"kind": kind, "u": u})
    return df, events


# ---------------------------------------------------------------- two-parameter curves
def _onto_edge(H, u_in, u_out, n_state, box):
    """The point of H = 0 between u_in (inside the box) and u_out (outside) on the box edge it crossed: Newton
    with that parameter fixed at the edge (None if it does not converge or no edge was crossed)."""
    for j in range(2):
        lo, hi = box[j]
        k = n_state + j
        for edge in (lo, hi):
            if (u_in[k] - edge) * (u_out[k] - edge) < 0:
                w = (edge - u_in[k]) / (u_out[k] - u_in[k])
                guess = (1 - w) * u_in + w * u_out
                guess[k] = edge
                u, ok = newton(H, guess, fix=k, tol=1e-13, max_iter=30)
                if ok and abs(u[k] - edge) < 1e-12 and np.linalg.norm(u - guess) < 2 * np.linalg.norm(u_out - u_in):
                    return u
    return None


def bifurcation_curve(kind, family, u0, box, ds_max=0.05, max_steps=2000):
    """Continue a located bifurcation point u0 (see :func:`locate`) in both parameters inside ``box`` =
    ((p1_lo, p1_hi), (p2_lo, p2_hi)), both directions. Interior kinds stay in :math:`|R_2|` < 1 (Hopf: also det J > 0).
    A half that leaves the box ends exactly on the box edge. Returns the points (m, len(u0)) ordered along the
    curve, and the two stop reasons."""
    H = SYSTEMS[kind](family)
    boundary = kind.startswith("boundary")
    n_state = 1 if boundary else 2

    def inside(u):
        if not _in_box(u[n_state:], box):
            return False
        if boundary:
            return True
        if u[0] ** 2 + u[1] ** 2 >= 1:
            return False
        return kind != "hopf" or np.linalg.det(field_and_jacobian(family, u[:2], u[2:])[1]) > 0

    u0 = np.asarray(u0, dtype=float)
    t0 = np.linalg.svd(fd_jacobian(H, u0))[2][-1]
    period = [TWO_PI] + [0] * (len(u0) - 1) if boundary else None
    halves, stops = [], []
    for sgn in (1.0, -1.0):
        c = continue_curve(H, u0, sgn * t0, ds=0.2 * ds_max, ds_max=ds_max, max_steps=max_steps, inside=inside,
                           period=period)
        pts = c.u
        if c.stop == "left_domain":
            pts = pts[:-1]
            edge = _onto_edge(H, c.u[-2], c.u[-1], n_state, box)
            if edge is not None and (boundary or edge[0] ** 2 + edge[1] ** 2 < 1):
                pts = np.vstack([pts, edge])
        halves.append(pts)
        stops.append(c.meta["stall"] if c.stop == "stalled" else c.stop)
        if c.stop == "closed":
            break
    pts = halves[0] if len(halves) == 1 else np.concatenate([halves[1][::-1], halves[0][1:]])
    return pts, tuple(stops)


#: |other eigenvalue| at or below which a fold is degenerate (relative to the Jacobian's scale, or absolute at
#: J = 0): its sign is rounding, and no eigenvalue decides the fold's stability
DEGENERATE_TOL = 1e-9

#: the normal forms named for degenerate folds (in :data:`DEGENERATE_FORMS` order of kind)
DEGENERATE_FORMS = {
    "fold": "J = 0 at the fold: both eigenvalues vanish (a nilpotent or zero linear part, codimension >= 2); a stable "
            "and an unstable node meet, and the fold's side of stability is decided by higher-order terms",
    "boundary_fold": "g = g' = nu = 0: the circle fold at which the transverse rate vanishes too (a stable and an "
                     "unstable node of the circle flow meet, both neutral off the circle); higher-order terms decide",
}


def curve_stability_rows(kind, family, pts):
    """Stability label of each point of a two-parameter curve: for folds the sign of the other eigenvalue
    ('stable' if it is < 0: the saddle-node of a stable node and a saddle), ``'degenerate'`` where that eigenvalue
    is zero to :data:`DEGENERATE_TOL` (its normal form: :data:`DEGENERATE_FORMS`); for Hopf points the sign of the
    first derivative of tr J is not computed: 'neutral'."""
    out = []
    for u in pts:
        if kind == "fold":
            J = field_and_jacobian(family, u[:2], u[2:])[1]
            other = np.trace(J)
            scale = max(float(np.abs(J).max()), 1.0)
            out.append("degenerate" if abs(other) <= DEGENERATE_TOL * scale else
                       "stable" if other < 0 else "unstable")
        elif kind == "boundary_fold":
            nu = circle_rate(family, u[0], u[1:])[2]
            out.append("degenerate" if abs(nu) <= DEGENERATE_TOL else "stable" if nu < 0 else "unstable")
        else:
            out.append("neutral")
    return out
