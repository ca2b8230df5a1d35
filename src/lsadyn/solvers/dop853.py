r"""DOP853 for token fields on :math:`S^{d-1}` (any n, d), state X (n, d): the default engine of
:func:`lsadyn.solvers.integrate.integrate_sphere` (the fixed-step one is :mod:`lsadyn.solvers.rk4`).

:func:`dop853_sphere` is the Dormand–Prince 8(5,3) pair with step control (the coefficients, error
norm and 7th-order dense output of :class:`scipy.integrate.DOP853`), written for a state of shape
(n, d) and kept on the sphere by projection: after an accepted step whose norm drift exceeds
``renorm_tol`` the rows are renormalised, the first stage of the next step is re-evaluated there (one
field evaluation; reusing the stage from before the projection would pollute the error estimate and
reject every other step) and the step continues with the same step size (the scipy reference
restarts its solver after every renormalisation instead, which costs two extra field evaluations and
the step-size history each time).
A trial step whose stages make the field overflow or turn non-finite (a step far too long for it, e.g.
USA logits beyond :data:`lsadyn.fields.attention.USA_MAX_LOGIT` off the sphere) is rejected and shrunk like a
step with a large error; the error is raised only when the step cannot shrink any further.
Dense output (3 extra evaluations) is computed only for steps that contain an output time, and the
last step ends exactly on the last output time, so the returned state can be continued from
(``Trajectory.state``, ``Trajectory.next_step``) without any interpolation error.

The method itself — tableau, error norm, step-size controller, initial step, dense output — is written once, in
:mod:`lsadyn.solvers.dop853_method`: this loop calls the Python bodies (``.py_func``) of the numba-compilable
functions that the compiled loops of :mod:`lsadyn.solvers.phase_points` call compiled. What is this loop's own is
the state's layout: the matrix products of the fields stay in BLAS; the stage sums, the error estimates and the
interpolant's D rows are one GEMV/GEMM over the flattened stages. The scipy DOP853 path of :func:`lsadyn.solvers.integrate.integrate_observed` is the reference the
tests compare against.
"""

from __future__ import annotations

import numpy as np

from ..fields.kernels import norm_drift, normalise_rows_inplace
from . import dop853_method as _m

_NS = _m.N_STAGES  # 12 stages; K[12] = f(t + h, y_new) (first stage of the next step)
_A_ROWS = [_m.A[s, :s] for s in range(_NS + 4)]  # stage s: y + h * (_A_ROWS[s] @ K[:s])
_C = _m.C
_B, _E3, _E5, _D = _m.B, _m.E3, _m.E5, _m.D
_MIN_FACTOR = _m.MIN_FACTOR
# the method's functions, run as Python (the roundings of Python floats and numpy arrays)
_min_step = _m.min_step.py_func
_trial_step = _m.trial_step.py_func
_error_norm = _m.error_norm.py_func
_accept_factor = _m.accept_factor.py_func
_reject_factor = _m.reject_factor.py_func
_initial_trial_step = _m.initial_trial_step.py_func
_initial_step_size = _m.initial_step_size.py_func
_dense_head = _m.dense_head.py_func
_dense_eval_column = _m.dense_eval.py_func
_UNIT = [[1.0 if r == c else 0.0 for c in range(7)] for r in range(7)]  # the 7 × 7 identity, Python floats


def _rms(x):
    return float(np.sqrt(np.dot(x, x) / x.size))


def initial_step(field, t0, y0, f0, shape, args, t_end, rtol, atol):
    """Hairer–Nørsett–Wanner starting step for an order-7 error estimator (as scipy's
    ``select_initial_step``); one field evaluation."""
    length = abs(t_end - t0)
    if length == 0.0:
        return 0.0
    scale = atol + np.abs(y0) * rtol
    d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
    h0 = _initial_trial_step(d0, d1, length)
    f1 = field(t0 + h0, (y0 + h0 * f0).reshape(shape), args).ravel()
    d2 = _rms((f1 - f0) / scale) / h0
    return _initial_step_size(h0, d1, d2, length)


def _dense_weights(x):
    """Weights w (7,) with y(x) = y_old + w @ F: the recurrence of scipy's ``Dop853DenseOutput``
    (:func:`lsadyn.solvers.dop853_method.dense_eval`) run on the unit rows, in Python floats (the same roundings as
    on a numpy array, without its per-operation overhead)."""
    return np.array([_dense_eval_column(_UNIT, k, x) for k in range(7)])


def _dense_eval(F, y_old, x):
    """Evaluate the DOP853 interpolant at the fraction x ∈ [0, 1] of the step (one GEMV)."""
    return y_old + _dense_weights(x) @ F


def _unit_rows(y, shape):
    X = y.reshape(shape).copy()
    normalise_rows_inplace(X)
    return X


def dop853_sphere(field, X0, t_eval, args, *, t0=0.0, rtol=1e-9, atol=1e-11, observer=None, first_step=None,
                  max_step=np.inf, renorm_tol=1e-12):
    """Integrate ``dX/dt = field(t, X, args)`` on the sphere with DOP853 + row renormalisation.

    ``X0`` (n, d) unit rows at time ``t0``; ``t_eval`` (m,) non-decreasing, ≥ t0 (checked by the
    caller). Returns ``(obs, X_end, h_next, n_steps, n_evals)``: observations ``observer(X(t_eval[i]))``
    (list, states normalised), the unit-row state at ``t_eval[-1]``, the step size the controller would
    try next (pass it back as ``first_step`` to continue), accepted steps, field evaluations.
    """
    shape = X0.shape
    y = np.ascontiguousarray(X0, dtype=float).ravel().copy()
    N = y.size
    obs = observer if observer is not None else (lambda Z: Z.copy())
    m = len(t_eval)
    out = []
    i = 0
    while i < m and t_eval[i] <= t0:
        out.append(obs(y.reshape(shape).copy()))
        i += 1
    t_end = float(t_eval[-1])
    K = np.empty((_NS + 4, N))
    n_steps = n_evals = 0
    h_abs = float(first_step) if first_step else 0.0
    if i == m:
        return out, y.reshape(shape).copy(), (h_abs or None), 0, 0
    f = field(t0, y.reshape(shape), args).ravel()
    n_evals += 1
    if not h_abs:
        h_abs = initial_step(field, t0, y, f, shape, args, t_end, rtol, atol)
        n_evals += 1
    t = float(t0)
    while i < m:
        min_step = _min_step(t)
        h_abs = min(max(h_abs, min_step), max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                raise RuntimeError(f"integration failed at t={t:.6g}: required step size is less than spacing "
                                   "between numbers")
            t_new, h = _trial_step(t, h_abs, t_end)
            h_abs = abs(h)
            K[0] = f
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # a failed trial is handled below
                    for s in range(1, _NS):
                        dy = _A_ROWS[s] @ K[:s]
                        dy *= h
                        dy += y  # y + h (a_s · K), as written out
                        K[s] = field(t + _C[s] * h, dy.reshape(shape), args).ravel()
                        n_evals += 1
                    y_new = y + h * (_B @ K[:_NS])
                    K[_NS] = field(t + h, y_new.reshape(shape), args).ravel()
                    n_evals += 1
                if not np.all(np.isfinite(K[_NS])) or not np.all(np.isfinite(y_new)):
                    raise FloatingPointError(f"integration produced NaN/inf at t={t_new:.6g}")
            except (OverflowError, FloatingPointError):
                # a trial step too long for the field: its stages leave the sphere far enough that the field
                # overflows (USA logits) or turns non-finite. Reject it like a step with a large error (as
                # scipy does with a NaN error norm); the error is real only if the step cannot shrink further.
                if h_abs * _MIN_FACTOR < min_step:
                    raise
                h_abs *= _MIN_FACTOR
                rejected = True
                continue
            scale = atol + np.maximum(np.abs(y), np.abs(y_new)) * rtol
            e5 = (_E5 @ K[:_NS + 1]) / scale
            e3 = (_E3 @ K[:_NS + 1]) / scale
            n5, n3 = float(np.dot(e5, e5)), float(np.dot(e3, e3))
            err = _error_norm(h_abs, n5, n3, N)
            if err < 1:
                h_next = h_abs * _accept_factor(err, rejected)
                break
            h_abs *= _reject_factor(err)
            rejected = True
        n_steps += 1
        if i < m and t_eval[i] < t_new:  # output times inside the step: 7th-order dense output
            for s in range(_NS + 1, _NS + 4):
                K[s] = field(t + _C[s] * h, (y + (_A_ROWS[s] @ K[:s]) * h).reshape(shape), args).ravel()
            n_evals += 3
            F = np.empty((7, N))
            F[0], F[1], F[2] = _dense_head(y_new - y, K[0], K[_NS], h)
            F[3:] = h * (_D @ K[:_NS + 4])
            while i < m and t_eval[i] < t_new:
                out.append(obs(_unit_rows(_dense_eval(F, y, (t_eval[i] - t) / h), shape)))
                i += 1
        X_new = y_new.reshape(shape)
        f = K[_NS].copy()  # first stage of the next step (FSAL) ...
        if norm_drift(X_new) > renorm_tol:
            normalise_rows_inplace(X_new)  # ... unless the state is projected back on the sphere
            f = field(t_new, X_new, args).ravel()
            n_evals += 1
        while i < m and t_eval[i] <= t_new:
            out.append(obs(_unit_rows(y_new, shape)))
            i += 1
        y, t, h_abs = y_new, t_new, h_next
    return out, _unit_rows(y, shape), h_abs, n_steps, n_evals
