r"""Runs: token or reduced systems that can be continued, the objects the decision procedure drives.

A :class:`Run` holds the state of ``n_points`` systems (one per parameter point, each in its own rescaled time
s = t/τ) and advances any subset of them from where they stopped::

    samples = run.advance(idx, times)   # idx (k,) int, times (m,) ascending s  ->  samples (k, m, ...)

:func:`lsadyn.regimes.decision.decide` calls it with the window samples of each horizon multiple, classifies, and
calls it again only for the undecided points (so each point is integrated once over [0, s_max]). A run whose
points step independently of each other sets ``independent_points = True``: it may then be advanced in groups of
points with the same results (the decision procedure uses that to report progress).

The implementations (each: the systems, the solver, what is observed):

* :class:`OARun`: OA ODE of N points × K starts, scipy DOP853 on chunks; R₂ (k, m, K) complex
* :class:`SmallRunCompiled`: OA (K starts) or WS systems, compiled per-system DOP853
  (:func:`lsadyn.solvers.phase_points.advance_small`); R₂ (k, m[, K])
* :class:`WSRun`: WS variables (α, η) of N points, scipy DOP853 on chunks; R₂ (k, m)
* :class:`PhasePointRun`: d = 2 LSA tokens as phase points z (N, n), compiled per-point DOP853
  (:func:`lsadyn.solvers.phase_points.advance_phase_points`); R₂ (k, m)
* :class:`PhasePointRunScipy`: the same on scipy DOP853 (reference); R₂ (k, m)
* :class:`SphereRun`: one token system X (n, d) through :func:`lsadyn.solvers.integrate.integrate_sphere`;
  R₂ (1, m) (d = 2) or [r, leading axis] (1, m, d + 1)
* :class:`BatchTokenRun`: a stack X (B, n, d), vectorised RK4 (:func:`lsadyn.solvers.rk4.rk4_stack_step`);
  [r, leading axis] (k, m, d + 1)
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from .observers import axis_observer, batch_axis_observer, order_parameter_r2_tokens
from .reductions.kuramoto import KuramotoCoefficients, oa_field, phase_point_field
from .reductions.watanabe_strogatz import WSConstants, ws_field_batch, ws_order_parameter_exact
from .solvers.integrate import blas_threads_for, integrate_observed, integrate_sphere
from .solvers.rk4 import rk4_stack_step


@runtime_checkable
class Run(Protocol):
    """What :func:`lsadyn.regimes.decision.decide` needs of a run (see the module docstring).

    ``independent_points`` (optional class attribute, default False): True when the points step independently, so
    that advancing them in groups gives the same numbers as advancing them together."""

    def advance(self, idx: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Integrate the points ``idx`` (k,) from where they stopped to ``times[-1]`` and return their observations
        at ``times`` (m,) (ascending rescaled time, none before where they stopped): shape (k, m, ...)."""
        ...


class OARun:
    """OA ODEs of N points × K starts (scipy DOP853, chunks of ``chunk`` points integrated as one system)."""

    def __init__(self, coeffs, R0, chunk):
        self.coeffs = coeffs  # shape (N, K)
        self.R = np.array(R0, dtype=complex)  # (N, K)
        self.s = 0.0
        self.chunk = chunk

    def advance(self, idx, times):
        K = self.R.shape[1]
        out = np.empty((idx.size, times.size, K), dtype=complex)
        for lo in range(0, idx.size, self.chunk):
            sub = idx[lo:lo + self.chunk]
            co = _take(self.coeffs, sub)
            R0 = self.R[sub].ravel()
            Nc = sub.size * K
            traj = integrate_observed(oa_field, np.concatenate([R0.real, R0.imag]), times, co, t0=self.s,
                                      rtol=1e-10, atol=1e-12, observer=lambda y: y[:Nc] + 1j * y[Nc:])
            out[lo:lo + sub.size] = traj.y.reshape(times.size, sub.size, K).transpose(1, 0, 2)
            self.R[sub] = (traj.state[:Nc] + 1j * traj.state[Nc:]).reshape(sub.size, K)
        self.s = float(times[-1])
        return out


def _writable(a, dtype=None) -> np.ndarray:
    """A C-contiguous, writeable copy (numba compiles read-only arrays, e.g. broadcast views, separately:
    every kernel call must see the same array types as :func:`lsadyn.solvers.phase_points.warm_up`)."""
    return np.array(a, dtype=dtype, order="C", copy=True)


def _coeff_rows(coeffs) -> np.ndarray:
    """(P, 10) rows [tr (3), Re c (3), Im c (3), β] of flattened :class:`KuramotoCoefficients`."""
    P = int(np.prod(coeffs.shape))
    return _writable(np.concatenate([
        coeffs.tr.reshape(P, 3), coeffs.c.real.reshape(P, 3), coeffs.c.imag.reshape(P, 3),
        np.reshape(coeffs.beta, (P, 1))], axis=1), dtype=float)


def _init_stepper_state(run, P, rtol, atol):
    """Per-system state of the compiled steppers: time, next step, evaluation and step counts, status."""
    run.t, run.h = np.zeros(P), np.zeros(P)
    run.nfev, run.nsteps, run.status = (np.zeros(P, dtype=np.int64) for _ in range(3))
    run.rtol, run.atol = float(rtol), float(atol)


class SmallRunCompiled:
    """OA (K starts per point) or WS systems stepped one by one by :func:`lsadyn.solvers.phase_points.advance_small`."""

    independent_points = True

    def __init__(self, kind, coeffs, Y0, K=1, w=None, rtol=1e-10, atol=1e-12):
        self.kind, self.K = kind, K
        self.Y = _writable(Y0, dtype=float)
        self.cf = _coeff_rows(coeffs)
        w = np.zeros(1, complex) if w is None else np.asarray(w, dtype=complex)
        self.w_re, self.w_im = _writable(w.real), _writable(w.imag)
        _init_stepper_state(self, self.Y.shape[0], rtol, atol)

    def advance(self, idx, times):
        from .solvers.phase_points import OK, advance_small

        active = (np.asarray(idx, dtype=np.int64)[:, None] * self.K + np.arange(self.K)).ravel()
        times = _writable(times, dtype=float)
        obs = np.empty((active.size, times.size), dtype=complex)
        advance_small(self.kind, self.Y, self.t, self.h, self.cf, self.w_re, self.w_im, float(times[-1]), times, obs,
                      active, self.rtol, self.atol, self.nfev, self.nsteps, self.status)
        bad = active[self.status[active] != OK]
        if bad.size:
            raise FloatingPointError(f"integration failed at s={self.t[bad[0]]:.6g} for system {bad[0]}")
        out = obs.reshape(len(idx), self.K, times.size).transpose(0, 2, 1)
        return out if self.K > 1 or self.kind == 0 else out[..., 0]


def _take(coeffs, idx):
    return KuramotoCoefficients(tr=coeffs.tr[idx], c=coeffs.c[idx], beta=coeffs.beta[idx])


class WSRun:
    """WS variables (α, η) of N points sharing the constants of motion w_k (scipy DOP853, chunks)."""

    def __init__(self, coeffs, theta0, chunk, rtol, atol):
        self.coeffs = coeffs
        self.w = np.exp(2j * np.asarray(theta0, dtype=float))
        self.theta0 = np.asarray(theta0, dtype=float)
        self.Y = np.zeros((coeffs.shape[0], 3))
        self.s = 0.0
        self.chunk, self.rtol, self.atol = chunk, rtol, atol

    def advance(self, idx, times):
        out = np.empty((idx.size, times.size), dtype=complex)
        for lo in range(0, idx.size, self.chunk):
            sub = idx[lo:lo + self.chunk]
            Nc = sub.size
            const = WSConstants(theta0=self.theta0, w=np.broadcast_to(self.w, (Nc, self.w.size)),
                                moments=np.empty(0, complex), coeffs=_take(self.coeffs, sub))
            traj = integrate_observed(ws_field_batch, self.Y[sub].T.ravel(), times, const, t0=self.s, rtol=self.rtol,
                                      atol=self.atol,
                                      observer=lambda y: ws_order_parameter_exact(y.reshape(3, Nc).T, const.w))
            out[lo:lo + Nc] = traj.y.T
            self.Y[sub] = traj.state.reshape(3, Nc).T
        self.s = float(times[-1])
        return out


class PhasePointRun:
    """d = 2 LSA tokens of N points in doubled-phase points z_k (:mod:`lsadyn.solvers.phase_points`, per-point
    DOP853)."""

    independent_points = True

    def __init__(self, coeffs, z0, rtol, atol):
        N = coeffs.shape[0]
        z0 = np.broadcast_to(np.asarray(z0, dtype=complex), (N, np.shape(z0)[-1]))
        self.X = _writable(z0.real, dtype=float)
        self.Y = _writable(z0.imag, dtype=float)
        self.tr = _writable(coeffs.tr, dtype=float)
        self.cre = _writable(coeffs.c.real, dtype=float)
        self.cim = _writable(coeffs.c.imag, dtype=float)
        self.beta = _writable(coeffs.beta, dtype=float)
        _init_stepper_state(self, N, rtol, atol)

    def points(self, i):
        """The doubled-phase points (n,) of system i at the last advance."""
        return self.X[i] + 1j * self.Y[i]

    def advance(self, idx, times):
        from .solvers.phase_points import OK, STEP_TOO_SMALL, advance_phase_points

        idx = _writable(idx, dtype=np.int64)
        times = _writable(times, dtype=float)
        obs = np.empty((idx.size, times.size), dtype=complex)
        advance_phase_points(self.X, self.Y, self.t, self.h, self.tr, self.cre, self.cim, self.beta, float(times[-1]),
                             times, obs, idx, self.rtol, self.atol, self.nfev, self.nsteps, self.status)
        bad = idx[self.status[idx] != OK]
        if bad.size:
            p = bad[0]
            why = "step size too small" if self.status[p] == STEP_TOO_SMALL else "NaN/inf"
            raise FloatingPointError(f"integration failed ({why}) at s={self.t[p]:.6g} for parameter point {p}")
        return obs


class PhasePointRunScipy:
    """The reference path of :class:`PhasePointRun`: scipy DOP853 on :func:`phase_point_field`, chunks of
    points integrated as one system (the step size is shared within a chunk)."""

    def __init__(self, coeffs, z0, rtol, atol, chunk):
        N = coeffs.shape[0]
        z0 = np.broadcast_to(np.asarray(z0, dtype=complex), (N, np.shape(z0)[-1]))
        self.Z = np.array(z0)
        self.coeffs, self.rtol, self.atol, self.chunk = coeffs, rtol, atol, chunk
        self.s = 0.0

    def points(self, i):
        """The doubled-phase points (n,) of system i at the last advance."""
        return self.Z[i]

    def advance(self, idx, times):
        out = np.empty((idx.size, times.size), dtype=complex)
        n = self.Z.shape[1]
        for lo in range(0, idx.size, self.chunk):
            sub = idx[lo:lo + self.chunk]
            half = sub.size * n
            Zc = self.Z[sub]
            traj = integrate_observed(
                phase_point_field, np.concatenate([Zc.real.ravel(), Zc.imag.ravel()]), times, _take(self.coeffs, sub),
                t0=self.s, rtol=self.rtol, atol=self.atol,
                observer=lambda y: y[:half].reshape(-1, n).mean(axis=1) + 1j * y[half:].reshape(-1, n).mean(axis=1))
            out[lo:lo + sub.size] = traj.y.T
            self.Z[sub] = (traj.state[:half] + 1j * traj.state[half:]).reshape(sub.size, n)
        self.s = float(times[-1])
        return out


class SphereRun:
    """One token system on the sphere (any d, any model) through :func:`integrate_sphere`, continued from
    ``Trajectory.state`` (and ``next_step``); observes R₂ (d = 2) or [r, leading axis] (d > 2), or what
    ``observer(X)`` returns."""

    def __init__(self, field, X0, p, method, rtol, atol, dt, tau, observer=None):
        self.field, self.X, self.p = field, np.array(X0, dtype=float), p
        self.method, self.rtol, self.atol, self.dt, self.tau = method, rtol, atol, dt, tau
        self.t = 0.0
        self.h = None
        self.n_steps = 0
        self.observer = observer

    def advance(self, idx, times):
        observer = self.observer or (order_parameter_r2_tokens if self.p.d == 2 else axis_observer)
        kw = {"first_step": self.h} if self.method == "DOP853" else {}
        traj = integrate_sphere(self.field, self.X, times * self.tau, self.p, t0=self.t, method=self.method,
                                rtol=self.rtol, atol=self.atol, dt=self.dt, observer=observer, **kw)
        self.X = np.asarray(traj.state, dtype=float).reshape(self.X.shape)
        self.h = traj.next_step
        self.t = float(times[-1] * self.tau)
        self.n_steps += traj.n_steps
        return traj.y[None]


class BatchTokenRun:
    """A stack of token systems X (B, n, d) advanced together under a :class:`lsadyn.batch.BatchField` ``fld``
    (time s = t/τ per member, RK4 step ``h``, :func:`lsadyn.solvers.rk4.rk4_stack_step`); observes ``[r, leading
    axis]`` (:func:`lsadyn.observers.batch_axis_observer`), samples (len(idx), len(times), d + 1).

    Every member advanced in one call is at the same rescaled time (the decision procedure only drops
    members), so one step sequence serves them all. ``h``: RK4 step in s. ``moments=True`` appends the first harmonic
    |mean token| and the largest token speed (in s; one more field evaluation per sample) to each observation
    (d + 3), what :class:`lsadyn.regimes.tokens.TokenCertifier` reads."""

    independent_points = False

    def __init__(self, fld, X0, h: float, moments: bool = False):
        self.field = fld
        self.X = np.array(X0, dtype=float, order="C")
        self.h = float(h)
        self.s = 0.0
        self.n_steps = 0
        self.moments = bool(moments)

    def advance(self, idx, times):
        idx = np.asarray(idx)
        X = self.X[idx]
        f = self.field.take(idx)
        out = np.empty((idx.size, len(times), X.shape[2] + (3 if self.moments else 1)))
        s = self.s
        with blas_threads_for(X.shape[1]):  # small products and eigenproblems: one BLAS thread, as integrate_sphere
            for j, te in enumerate(times):
                steps = int(round((te - s) / self.h))
                if steps > 0:
                    h = (te - s) / steps  # = self.h up to rounding: the step divides the sample spacing
                    for _ in range(steps):
                        rk4_stack_step(f, X, h)
                    self.n_steps += steps
                    if not np.all(np.isfinite(X)):
                        raise FloatingPointError(f"batch integration produced NaN/inf before s = {te:.6g}")
                s = te
                if self.moments:
                    d = X.shape[2]
                    out[:, j, :d + 1] = batch_axis_observer(X)
                    out[:, j, d + 1] = np.linalg.norm(X.mean(axis=1), axis=1)
                    out[:, j, d + 2] = np.max(np.linalg.norm(f(X), axis=2), axis=1)
                else:
                    out[:, j] = batch_axis_observer(X)
        self.X[idx] = X
        self.s = float(times[-1])
        return out
