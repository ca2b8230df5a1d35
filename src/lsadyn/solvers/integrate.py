"""Integration of vector fields ``f(t, y, args)``, on the sphere and in flat space.

* :func:`integrate_sphere` (one entry point, the solver chosen by name from :data:`SPHERE_SOLVERS`) integrates
  token fields (``X`` of shape (n, d)) with DOP853 (default: the
  fast sphere-projected stepper of :mod:`lsadyn.solvers.dop853`, rows renormalised after every
  step, continuable from ``Trajectory.state`` / ``Trajectory.next_step``), fixed-step RK4, or the
  scipy reference solvers (``"scipy-DOP853"``, ``"RK45"``: tokens renormalised, and the solver
  restarted, whenever the norm drift of the internal state exceeds ``renorm_tol``). Every returned
  state is projected on the sphere, so the returned drift is at round-off level (≤ 1e-10 is tested).
* :func:`integrate_flat` integrates a small flat ODE (OA, WS variables) with dense output.

Observers are separate: pass ``observer(X) -> array`` to store only what is needed
(e.g. :func:`lsadyn.observers.order_parameter_r2`) instead of every state.

Initial conditions are in :mod:`lsadyn.sampling`.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853, RK45, solve_ivp

_ADAPTIVE = {"DOP853": DOP853, "RK45": RK45}


@dataclass
class Trajectory:
    """Times ``t`` (m,) and observations ``y`` (m, ...) (states when no observer is given); ``state``: the
    solver's state at the last output time (flat, as integrated), so a run can be continued from it."""

    t: np.ndarray
    y: np.ndarray
    n_steps: int = 0
    state: np.ndarray | None = None
    next_step: float | None = None  # integrate_sphere DOP853: step size to continue with (``first_step``)
    n_evals: int = 0  # integrate_sphere: field evaluations


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
    first_step: float | None = None,
) -> Trajectory:
    """Integrate ``dX/dt = field(t, X, args)`` for tokens on the sphere.

    Parameters
    ----------
    field : callable ``(t, X (n, d), args) -> (n, d)``, tangent to the sphere.
    X0 : (n, d) initial tokens at time ``t0`` (normalised on entry).
    t_eval : (m,) non-decreasing output times, ``t_eval[0] >= t0``. Only these are observed: to
        continue a run, or to observe only a final window, pass ``t0`` and the state reached there.
    method : ``"DOP853"`` (default; :func:`lsadyn.solvers.dop853.dop853_sphere`, adaptive with
        ``rtol``/``atol``, rows renormalised after a step whose norm drift exceeds ``renorm_tol``),
        ``"rk4"`` (fixed step ``dt``, renormalised after every step; output times are hit exactly by
        shortening the last step), or the
        scipy references ``"scipy-DOP853"`` / ``"RK45"`` (renormalise and restart when the drift exceeds
        ``renorm_tol``).
    observer : optional ``X -> array``; then ``Trajectory.y[i] = observer(X(t_eval[i]))``.
    first_step : DOP853 only: initial step size (e.g. ``Trajectory.next_step`` of the run being continued);
        default: chosen from the field at ``t0``.

    Returns
    -------
    Trajectory
        Its ``state`` is the (n, d) state at ``t_eval[-1]`` (unit rows), and for ``"DOP853"`` ``next_step``
        is the step size to continue with.

    Systems of up to :data:`SINGLE_THREAD_MAX_N` tokens run with one BLAS thread.
    """
    X = _normalise(np.array(X0, dtype=float))
    if not np.all(np.isfinite(X)):
        raise ValueError("X0: contains NaN, inf or a zero vector")
    shape = X.shape
    t_eval = _check_times(t_eval, t0)
    if method not in SPHERE_METHODS:
        raise ValueError(f"method: unknown method {method!r}; choose one of {', '.join(SPHERE_METHODS)}")
    with blas_threads_for(shape[0]):
        return SPHERE_SOLVERS[method](field, X, t_eval, args, t0=t0, method=method, rtol=rtol, atol=atol, dt=dt,
                                      observer=observer, renorm_tol=renorm_tol, first_step=first_step)


#: Token systems up to this n are integrated with one BLAS thread: their matrix products (n ≤ 2000,
#: d ≤ a few hundred) are too small to share between cores, and a multithreaded BLAS pool on a busy
#: machine then costs 10–20× (measured: simulate_regime at d = 100, n = 200 took 86–120 s instead of 2–6 s).
SINGLE_THREAD_MAX_N = 2000


def blas_threads_for(n: int):
    """Context: BLAS limited to one thread for n ≤ :data:`SINGLE_THREAD_MAX_N`, else unchanged."""
    if n > SINGLE_THREAD_MAX_N:
        return contextlib.nullcontext()
    return one_blas_thread()


def one_blas_thread():
    """Context: this process's BLAS pools limited to one thread, restored on exit. The pools are found once
    per process (``threadpool_limits`` looks for them anew on each call: ~4.5 ms with the pipeline's
    libraries loaded, 61 times in one robustness job); a BLAS loaded later is not limited."""
    return thread_pools().limit(limits=1, user_api="blas")


@functools.cache
def thread_pools():
    """This process's BLAS/OpenMP thread pools (a ``threadpoolctl.ThreadpoolController``), found on the first
    call; their sizes are read and set live through it. A library loaded after the first call is not in it, so
    SciPy's LAPACK is loaded first: SciPy ships its own OpenBLAS, which :func:`lsadyn.observers.top_eigenpair`
    calls at d > 8 (left at its default pool of one thread per core, a batched d = 100 run took 3.7× as long on
    2 cores, 346 s against 94 s for one persistence chunk, measured 2026-12-03)."""
    import scipy.linalg.lapack  # noqa: F401  (loads SciPy's OpenBLAS, so that its pool is found)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _sphere_dop853(field, X, t_eval, args, *, t0, method, rtol, atol, dt, observer, renorm_tol, first_step):
    from .dop853 import dop853_sphere

    out, X_end, h_next, n_steps, n_evals = dop853_sphere(field, X, t_eval, args, t0=t0, rtol=rtol, atol=atol,
                                                         observer=observer, first_step=first_step,
                                                         renorm_tol=renorm_tol)
    return Trajectory(t_eval, np.asarray(out), n_steps, X_end, h_next, n_evals)


def _sphere_rk4(field, X, t_eval, args, *, t0, method, rtol, atol, dt, observer, renorm_tol, first_step):
    from .rk4 import rk4_sphere

    if dt is None or not dt > 0:
        raise ValueError("dt: fixed-step rk4 needs dt > 0")
    out, X_end, n_steps = rk4_sphere(field, X, t_eval, args, t0=t0, dt=dt, observer=observer)
    return Trajectory(t_eval, np.asarray(out), n_steps, X_end, None, 4 * n_steps)


def _sphere_scipy(field, X, t_eval, args, *, t0, method, rtol, atol, dt, observer, renorm_tol, first_step):
    shape = X.shape
    obs = observer if observer is not None else (lambda Z: Z.copy())
    last = {}

    def observe(y):
        last["X"] = _normalise(y.reshape(shape))
        return obs(last["X"])

    def flat(t, y, a):
        return field(t, y.reshape(shape), a).ravel()

    def restart(y):
        Y = y.reshape(shape)
        drift = np.max(np.abs(np.einsum("ij,ij->i", Y, Y) - 1.0))
        return _normalise(Y).ravel() if drift > renorm_tol else None

    traj = integrate_observed(
        flat, X.ravel(), t_eval, args, t0=t0, method=method.removeprefix("scipy-"), rtol=rtol, atol=atol,
        observer=observe, restart=restart,
    )
    return Trajectory(t_eval, traj.y, traj.n_steps, last.get("X"), None, 0)


#: The method registry of :func:`integrate_sphere`: name -> solver ``(field, X, t_eval, args, **options) ->
#: Trajectory`` (options: t0, method, rtol, atol, dt, observer, renorm_tol, first_step; each uses those it needs).
SPHERE_SOLVERS = {"DOP853": _sphere_dop853, "rk4": _sphere_rk4, "scipy-DOP853": _sphere_scipy, "RK45": _sphere_scipy}
#: Methods of :func:`integrate_sphere`: the fast steppers and the scipy references.
SPHERE_METHODS = tuple(SPHERE_SOLVERS)


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
    state = solver.y.copy() if n_steps else y
    return Trajectory(t_eval, np.asarray(out), n_steps, state)


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
