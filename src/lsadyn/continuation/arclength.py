r"""Pseudo-arclength continuation of a curve :math:`H(u) = 0`, :math:`H: \mathbb R^{n+1} \to \mathbb R^n`.

From a solution :math:`u_k` with unit tangent :math:`\tau_k` (:math:`H_u(u_k)\tau_k = 0`):

* predictor :math:`u^{(0)} = u_k + \Delta s\,\tau_k`;
* Newton corrector on the bordered system
  :math:`\begin{pmatrix} H(u) \\ \tau_k\cdot(u - u_k) - \Delta s \end{pmatrix} = 0`, Jacobian
  :math:`\begin{pmatrix} H_u \\ \tau_k^\top \end{pmatrix}` ((n+1)×(n+1));
* new tangent from :math:`\begin{pmatrix} H_u(u_{k+1}) \\ \tau_k^\top \end{pmatrix}\tau = e_{n+1}`, normalised
  (this keeps the orientation through folds: the tangent's parameter component changes sign there);
* step control: halve Δs when Newton fails, grow it by 1.3 (up to ``ds_max``) after fast convergence;
* stall: over the last :data:`STALL_WINDOW` accepted steps the curve must move; when their points span less than
  :data:`STALL_SPAN` × ``ds_max`` (steps shrunk to nothing, or back and forth about one point, as at a nilpotent
  point of the curve) the continuation stops with ``stop = "stalled"`` and ``meta['stall']`` says where.

Natural continuation is the special case of fixing the parameter of the predictor; it fails at folds, which
is why the bordered system is used throughout. ``jac`` may be analytic; by default it is the central
difference :math:`H_u e_j \approx (H(u + h e_j) - H(u - h e_j))/2h`, :math:`h = 10^{-6}\max(1, |u_j|)`
(Newton's limit is set by the residual, not by the Jacobian's accuracy).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def fd_jacobian(H, u, h=1e-6):
    """Central-difference Jacobian of H at u, shape (len(H(u)), len(u))."""
    u = np.asarray(u, dtype=float)
    cols = []
    for j in range(u.size):
        step = h * max(1.0, abs(u[j]))
        e = np.zeros_like(u)
        e[j] = step
        cols.append((np.asarray(H(u + e)) - np.asarray(H(u - e))) / (2 * step))
    return np.stack(cols, axis=1)


def newton(H, u0, jac=None, tol=1e-12, max_iter=20, fix=None):
    """Newton's method for a square system H(u) = 0 (len(H) = len(u)), or for H with one equation fewer
    than unknowns and component ``fix`` held at its start value. Returns (u, converged)."""
    jac = jac or (lambda v: fd_jacobian(H, v))
    u = np.array(u0, dtype=float)
    for _ in range(max_iter):
        r = np.asarray(H(u), dtype=float)
        Ju = jac(u)
        if fix is not None:
            r = np.append(r, 0.0)
            row = np.zeros(u.size)
            row[fix] = 1.0
            Ju = np.vstack([Ju, row])
        try:
            du = np.linalg.solve(Ju, -r)
        except np.linalg.LinAlgError:
            return u, False
        u = u + du
        if not np.all(np.isfinite(u)):
            return u, False
        if np.linalg.norm(du) <= tol * max(1.0, np.linalg.norm(u)):
            return u, bool(np.linalg.norm(np.asarray(H(u))) < 1e3 * tol * max(1.0, np.linalg.norm(u)) + 1e-10)
    return u, bool(np.linalg.norm(np.asarray(H(u))) < 1e-9)


def null_tangent(Hu, sign_ref=None):
    """Unit vector spanning the null space of the n×(n+1) matrix Hu (last right singular vector),
    oriented so that its dot product with ``sign_ref`` is positive."""
    t = np.linalg.svd(Hu)[2][-1]
    if sign_ref is not None and np.dot(t, sign_ref) < 0:
        t = -t
    return t / np.linalg.norm(t)


#: accepted steps over which a curve must move (see the module)
STALL_WINDOW = 20
#: the least span of those steps' points, in units of ``ds_max``
STALL_SPAN = 0.05


@dataclass
class Curve:
    """Points ``u`` (m, n+1) of a continued curve with their unit tangents, and why it stopped."""

    u: np.ndarray
    tangent: np.ndarray
    stop: str
    n_newton: int = 0
    meta: dict = field(default_factory=dict)


def continue_curve(H, u0, direction, *, jac=None, ds=0.02, ds_min=1e-6, ds_max=0.1, max_steps=2000,
                   inside=None, tol=1e-11, max_iter=8, closed_tol=None, period=None):
    """Pseudo-arclength continuation of H(u) = 0 from the solution ``u0``, starting along the tangent with a
    positive dot product with ``direction`` (n+1,). Stops when ``inside(u)`` turns False (the last point is
    then the first one outside, kept so that crossings can be bracketed), after ``max_steps``, when Δs drops
    below ``ds_min``, when the curve closes (returns within ``closed_tol`` of u0, default 0.5·ds_max;
    ``period`` (n+1,) gives per-component periods, e.g. 2π for an angle, 0 for none), or when it stalls (see the
    module; the stalled steps are dropped but the first, and ``meta['stall']`` names the point).
    """
    jac = jac or (lambda v: fd_jacobian(H, v))
    u = np.asarray(u0, dtype=float)
    t = null_tangent(jac(u), np.asarray(direction, dtype=float))
    us, ts = [u.copy()], [t.copy()]
    closed_tol = 0.5 * ds_max if closed_tol is None else closed_tol
    per = None if period is None else np.asarray(period, dtype=float)
    n_newton, travelled, stop = 0, 0.0, "max_steps"
    for _ in range(max_steps):
        ok = False
        while ds >= ds_min:
            v = u + ds * t
            it = 0
            for it in range(1, max_iter + 1):
                Hu = jac(v)
                r = np.append(np.asarray(H(v), dtype=float), np.dot(t, v - u) - ds)
                try:
                    dv = np.linalg.solve(np.vstack([Hu, t]), -r)
                except np.linalg.LinAlgError:
                    break
                v = v + dv
                if not np.all(np.isfinite(v)):
                    break
                if np.linalg.norm(dv) <= tol * max(1.0, np.linalg.norm(v)):
                    ok = np.linalg.norm(np.asarray(H(v))) < 1e-8
                    break
            n_newton += it
            if ok:
                break
            ds *= 0.5
        if not ok:
            stop = "ds_min"
            break
        Hu = jac(v)
        try:
            t_new = np.linalg.solve(np.vstack([Hu, t]), np.eye(v.size)[-1])
        except np.linalg.LinAlgError:
            t_new = null_tangent(Hu, t)
        t_new /= np.linalg.norm(t_new)
        travelled += np.linalg.norm(v - u)
        u, t = v, t_new
        us.append(u.copy())
        ts.append(t.copy())
        if inside is not None and not inside(u):
            stop = "left_domain"
            break
        diff = u - us[0]
        if per is not None:
            m = per > 0
            diff[m] = (diff[m] + per[m] / 2) % per[m] - per[m] / 2
        if travelled > 4 * closed_tol and np.linalg.norm(diff) < closed_tol:
            stop = "closed"
            break
        if len(us) > STALL_WINDOW:
            last = np.array(us[-STALL_WINDOW - 1:])
            span = float(np.max(np.linalg.norm(last - last.mean(axis=0), axis=1)))
            if span < STALL_SPAN * ds_max:
                del us[-STALL_WINDOW:], ts[-STALL_WINDOW:]
                return Curve(np.array(us), np.array(ts), "stalled", n_newton,
                             meta={"stall": f"stalled at u = {np.array2string(us[-1], precision=6)}: "
                                            f"{STALL_WINDOW} steps within {span:.2g} (ds_max {ds_max:g})"})
        if it <= 3:
            ds = min(ds * 1.3, ds_max)
    return Curve(np.array(us), np.array(ts), stop, n_newton)


def sign_changes(values):
    """Indices k with values[k] and values[k + 1] of strictly opposite signs (NaNs skipped)."""
    v = np.asarray(values, dtype=float)
    s = np.sign(v)
    return np.nonzero((s[:-1] * s[1:] < 0) & np.isfinite(v[:-1]) & np.isfinite(v[1:]))[0]
