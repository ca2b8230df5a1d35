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

The matrix products of the fields stay in BLAS; the stage sums are one GEMV over the flattened
stages. The scipy DOP853 path of :func:`lsadyn.solvers.integrate.integrate_observed` is the reference the
tests compare against.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _dop

from ..fields.kernels import norm_drift, normalise_rows_inplace

_NS = _dop.N_STAGES  # 12 stages; K[12] = f(t + h, y_new) (first stage of the next step)
_A = np.ascontiguousarray(_dop.A[:_NS, :_NS])
_B = np.ascontiguousarray(_dop.B)
_C = np.ascontiguousarray(_dop.C[:_NS])
_E3 = np.ascontiguousarray(_dop.E3)
_E5 = np.ascontiguousarray(_dop.E5)
_D = np.ascontiguousarray(_dop.D)
_A_ROWS = [_A[s, :s] for s in range(_NS)]  # stage s: y + h * (_A_ROWS[s] @ K[:s])
_A_EXTRA = np.ascontiguousarray(_dop.A[_NS + 1:])
_C_EXTRA = np.ascontiguousarray(_dop.C[_NS + 1:])
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0  # error estimator of order 7


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
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, length)
    f1 = field(t0 + h0, (y0 + h0 * f0).reshape(shape), args).ravel()
    d2 = _rms((f1 - f0) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100 * h0, h1, length)


def _dense_weights(x):
    """Weights w (7,) with y(x) = y_old + w @ F: the recurrence of scipy's ``Dop853DenseOutput``
    (y += F[j]; y *= x or 1 − x, alternately, from the last F down) run on the coefficients (in Python
    floats: the same roundings as on a numpy array, without its per-operation overhead)."""
    w = [0.0] * 7
    y = 1.0 - x
    for j, k in enumerate(range(6, -1, -1)):
        w[k] += 1.0
        f = x if j % 2 == 0 else y
        w = [v * f for v in w]
    return np.array(w)


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
        min_step = 10 * abs(math.nextafter(t, math.inf) - t)
        h_abs = min(max(h_abs, min_step), max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                raise RuntimeError(f"integration failed at t={t:.6g}: required step size is less than spacing "
                                   "between numbers")
            t_new = t + h_abs
            if t_new > t_end:
                t_new = t_end
            h = t_new - t
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
            err = 0.0 if n5 == 0 and n3 == 0 else h_abs * n5 / np.sqrt((n5 + 0.01 * n3) * N)
            if err < 1:
                factor = _MAX_FACTOR if err == 0 else min(_MAX_FACTOR, _SAFETY * err ** _EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                h_next = h_abs * factor
                break
            h_abs *= max(_MIN_FACTOR, _SAFETY * err ** _EXPONENT)
            rejected = True
        n_steps += 1
        if i < m and t_eval[i] < t_new:  # output times inside the step: 7th-order dense output
            for s in range(_NS + 1, _NS + 4):
                a = _A_EXTRA[s - _NS - 1, :s]
                K[s] = field(t + _C_EXTRA[s - _NS - 1] * h, (y + (a @ K[:s]) * h).reshape(shape), args).ravel()
            n_evals += 3
            delta = y_new - y
            F = np.empty((7, N))
            F[0] = delta
            F[1] = h * K[0] - delta
            F[2] = 2 * delta - h * (K[_NS] + K[0])
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
