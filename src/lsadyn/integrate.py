"""Integration of vector fields ``f(t, y, args)``, on the sphere and in flat space.

* :func:`integrate_sphere` integrates token fields (``X`` of shape (n, d)) with either an
  adaptive Runge–Kutta method from :mod:`scipy.integrate` (default DOP853) or fixed-step RK4;
  tokens are renormalised whenever the norm drift of the internal state exceeds
  ``renorm_tol`` and every returned state is projected on the sphere, so the returned
  drift is at round-off level (≤ 1e-10 is tested).
* :func:`integrate_flat` integrates a small flat ODE (OA, WS variables) with dense output.

Observers are separate: pass ``observer(X) -> array`` to store only what is needed
(e.g. :func:`lsadyn.metrics.order_parameter_r2`) instead of every state.

Initial conditions are deterministic functions of a seed (:func:`uniform_sphere`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853, RK45, solve_ivp

_ADAPTIVE = {"DOP853": DOP853, "RK45": RK45}


@dataclass
class Trajectory:
    """Times ``t`` (m,) and observations ``y`` (m, ...) (states when no observer is given)."""

    t: np.ndarray
    y: np.ndarray
    n_steps: int = 0


def uniform_sphere(n: int, d: int, seed: int) -> np.ndarray:
    """``n`` points i.i.d. uniform on :math:`S^{d-1}` from ``numpy.random.default_rng(seed)``, shape (n, d)."""
    g = np.random.default_rng(seed).standard_normal((n, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def uniform_angles(n: int, seed: int) -> np.ndarray:
    """``n`` angles i.i.d. uniform on [0, 2π) from ``default_rng(seed)``, shape (n,)."""
    return np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n)


def tokens_from_angles(theta) -> np.ndarray:
    """Angles θ (n,) to tokens x_k = (cos θ_k, sin θ_k), shape (n, 2)."""
    theta = np.asarray(theta, dtype=float)
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def angles_from_tokens(X) -> np.ndarray:
    """Tokens (…, 2) to angles θ = atan2(x₂, x₁) in (−π, π]."""
    X = np.asarray(X)
    return np.arctan2(X[..., 1], X[..., 0])


def _normalise(X):
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


def _check_times(t_eval, t0):
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval.ndim != 1 or t_eval.size == 0:
        raise ValueError("t_eval: expected a non-empty 1-D array of times")
    if not np.all(np.isfinite(t_eval)):
        raise ValueError("t_eval: contains NaN or inf")
    if np.any(np.diff(t_eval) < 0) or t_eval[0] < t0:
        raise ValueError("t_eval: times must be non-decreasing and >= t0")
    return t_eval


def integrate_sphere(
    field,
    X0,
    t_eval,
    args,
    *,
    t0: float = 0.0,
    method: str = "DOP853",
    rtol: float = 1e-9,
    atol: float = 1e-11,
    dt: float | None = None,
    observer=None,
    renorm_tol: float = 1e-12,
) -> Trajectory:
    """Integrate ``dX/dt = field(t, X, args)`` for tokens on the sphere.

    Parameters
    ----------
    field : callable ``(t, X (n, d), args) -> (n, d)``, tangent to the sphere.
    X0 : (n, d) initial tokens (normalised on entry).
    t_eval : (m,) non-decreasing output times, ``t_eval[0] >= t0``.
    method : ``"DOP853"`` / ``"RK45"`` (adaptive, ``rtol``/``atol``) or ``"rk4"`` (fixed step ``dt``,
        renormalised after every step; output times are hit exactly by shortening the last step).
    observer : optional ``X -> array``; then ``Trajectory.y[i] = observer(X(t_eval[i]))``.
    """
    X = _normalise(np.array(X0, dtype=float))
    if not np.all(np.isfinite(X)):
        raise ValueError("X0: contains NaN, inf or a zero vector")
    shape = X.shape
    t_eval = _check_times(t_eval, t0)
    obs = observer if observer is not None else (lambda Z: Z.copy())
    out = []
    n_steps = 0
    if method == "rk4":
        if dt is None or not dt > 0:
            raise ValueError("dt: fixed-step rk4 needs dt > 0")
        t = t0
        for te in t_eval:
            while t < te - 1e-14 * max(1.0, abs(te)):
                h = min(dt, te - t)
                k1 = field(t, X, args)
                k2 = field(t + h / 2, X + h / 2 * k1, args)
                k3 = field(t + h / 2, X + h / 2 * k2, args)
                k4 = field(t + h, X + h * k3, args)
                X = _normalise(X + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
                t += h
                n_steps += 1
            out.append(obs(X))
        return Trajectory(t_eval, np.asarray(out), n_steps)
    if method not in _ADAPTIVE:
        raise ValueError(f"method: unknown method {method!r}; choose rk4, DOP853 or RK45")

    def flat(t, y, a):
        return field(t, y.reshape(shape), a).ravel()

    def restart(y):
        Y = y.reshape(shape)
        drift = np.max(np.abs(np.einsum("ij,ij->i", Y, Y) - 1.0))
        return _normalise(Y).ravel() if drift > renorm_tol else None

    return integrate_observed(
        flat, X.ravel(), t_eval, args, t0=t0, method=method, rtol=rtol, atol=atol,
        observer=lambda y: obs(_normalise(y.reshape(shape))), restart=restart,
    )


def integrate_observed(field, y0, t_eval, args, *, t0=0.0, method="DOP853", rtol=1e-9, atol=1e-11,
                       observer=None, restart=None) -> Trajectory:
    """Step an adaptive scipy solver over a flat ODE ``dy/dt = field(t, y, args)`` and store only
    ``observer(y(t_eval[i]))`` (from the solver's dense output), so memory is O(len(y) + m · obs).

    ``restart(y) -> y' | None``: after each step, a non-None return restarts the solver from y'
    (used to project back on a constraint manifold).
    """
    t_eval = _check_times(t_eval, t0)
    if method not in _ADAPTIVE:
        raise ValueError(f"method: unknown method {method!r}; choose DOP853 or RK45")
    obs = observer if observer is not None else (lambda y: y.copy())
    t_end = t_eval[-1] if t_eval[-1] > t0 else t0 + 1.0

    def make(t, y):
        return _ADAPTIVE[method](lambda tt, yy: field(tt, yy, args), t, y, t_end, rtol=rtol, atol=atol)

    y = np.asarray(y0, dtype=float).copy()
    solver = make(t0, y)
    out = []
    n_steps = 0
    i = 0
    while i < len(t_eval) and t_eval[i] <= t0:
        out.append(obs(y))
        i += 1
    while i < len(t_eval):
        msg = solver.step()
        n_steps += 1
        if solver.status == "failed":
            raise RuntimeError(f"integration failed at t={solver.t:.6g}: {msg}")
        if not np.all(np.isfinite(solver.y)):
            raise FloatingPointError(f"integration produced NaN/inf at t={solver.t:.6g}")
        dense = None
        while i < len(t_eval) and t_eval[i] <= solver.t:
            dense = dense or solver.dense_output()
            out.append(obs(dense(t_eval[i])))
            i += 1
        if restart is not None and i < len(t_eval):
            y_new = restart(solver.y)
            if y_new is not None:
                solver = make(solver.t, y_new)
    return Trajectory(t_eval, np.asarray(out), n_steps)


def integrate_flat(field, y0, t_eval, args, *, t0=0.0, method="DOP853", rtol=1e-10, atol=1e-12):
    """Integrate a flat ODE ``dy/dt = field(t, y, args)`` with :func:`scipy.integrate.solve_ivp`.

    Returns a :class:`Trajectory` with ``y`` of shape (m, len(y0)).
    """
    t_eval = _check_times(t_eval, t0)
    y0 = np.asarray(y0, dtype=float)
    if t_eval[-1] == t0:
        return Trajectory(t_eval, np.repeat(y0[None], len(t_eval), axis=0))
    sol = solve_ivp(field, (t0, t_eval[-1]), y0, method=method, t_eval=t_eval, args=(args,), rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"integration failed: {sol.message}")
    return Trajectory(sol.t, sol.y.T, int(sol.nfev))
