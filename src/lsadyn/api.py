"""Public entry points: the long-time regime of (A, V, β) from the OA ODE, from WS, or from tokens.

All three integrate to ``T = horizon · τ`` with the time scale ``τ = 1 / (β ‖A‖₂ ‖V‖₂)``, sample
``n_samples`` equally spaced times and classify the trajectory of R₂ (d = 2) or of
``r(t) e^{2iφ(t)}`` (d > 2, φ the angle swept by the leading axis of M) with
:func:`lsadyn.regimes.classify_r2_trajectory`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from .dynamics import attention, field_for
from .integrate import integrate_flat, integrate_observed, integrate_sphere, uniform_angles, uniform_sphere
from .kuramoto import kuramoto_coefficients, oa_field, phase_point_field
from .metrics import axis_observer, order_parameter_r2_tokens, pseudo_r2
from .regimes import RegimeResult, RegimeTolerances, classify_r2_trajectory
from .validation import as_int_at_least, as_positive_float
from .watanabe_strogatz import ws_field_batch, ws_from_angles, ws_order_parameter_exact

#: Initial points of :func:`predict_regime`: R₂(0) = 0.01·exp(i(π/8 + kπ/4)), k = 0..7,
#: i.e. wrapped-Cauchy (OA) states close to the uniform measure (R₂ = 0), around it on a circle.
OA_START_RADIUS = 1e-2
OA_N_STARTS = 8


def oa_start_points(radius: float = OA_START_RADIUS, count: int = OA_N_STARTS) -> np.ndarray:
    """The near-uniform initial values of R₂ used by :func:`predict_regime`, shape (count,)."""
    return radius * np.exp(1j * (np.pi / 8 + 2 * np.pi * np.arange(count) / count))


def time_scale(A, V, beta) -> float:
    """τ = 1 / (β ‖A‖₂ ‖V‖₂) (1 when A or V is zero)."""
    s = beta * np.linalg.norm(A, 2) * np.linalg.norm(V, 2)
    return 1.0 / s if s > 0 else 1.0


def _times(A, V, beta, horizon, n_samples):
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    return np.linspace(0.0, horizon * time_scale(A, V, beta), n_samples)


def integrate_oa(A, V, beta, R2_0, t_eval, rtol=1e-10, atol=1e-12):
    """Integrate the OA ODE for a batch of initial values ``R2_0`` (N,) → R₂(t) of shape (m, N)."""
    R2_0 = np.atleast_1d(np.asarray(R2_0, dtype=complex))
    coeffs = kuramoto_coefficients(np.broadcast_to(A, R2_0.shape + (2, 2)), V, beta)
    traj = integrate_flat(oa_field, np.concatenate([R2_0.real, R2_0.imag]), t_eval, coeffs, rtol=rtol, atol=atol)
    N = R2_0.size
    return traj.y[:, :N] + 1j * traj.y[:, N:]


def _batch_inputs(A, V, beta):
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    if A.ndim != 3 or A.shape[1:] != (2, 2):
        raise ValueError(f"A: expected a batch of 2x2 matrices of shape (N, 2, 2), got {A.shape}")
    if V.shape != A.shape:
        raise ValueError(f"V: expected shape {A.shape}, got {V.shape}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(V))):
        raise ValueError("A, V: contain NaN or inf")
    beta = np.broadcast_to(np.asarray(beta, dtype=float), A.shape[:1])
    if not np.all(beta > 0):
        raise ValueError("beta: must be > 0")
    tau = np.array([time_scale(a, v, b) for a, v, b in zip(A, V, beta)])
    return A, V, beta, tau


def _rescale(res: RegimeResult, tau: float) -> RegimeResult:
    """Classification ran in s = t/τ; convert rates and periods back to physical time."""
    res.arg_R2_rate = res.arg_R2_rate / tau
    res.period = res.period * tau
    return res


def _vote(results, method):
    labels = [r.regime for r in results]
    label, count = Counter(labels).most_common(1)[0]
    if count * 2 <= len(labels):
        label = "undetermined"
    chosen = [r for r in results if r.regime == label] or results
    details = {"start_regimes": labels}
    if any("rate_from_turns" in r.details for r in chosen):
        details["rate_from_turns"] = all(r.details.get("rate_from_turns", True) for r in chosen)
    return RegimeResult(
        label,
        float(np.median([r.abs_R2 for r in chosen])),
        float(np.median([r.arg_R2_rate for r in chosen])),
        float(np.median([r.period for r in chosen])),
        method,
        details,
    )


#: Points left ``undetermined`` are integrated once more with this factor on horizon and samples.
RETRY_FACTOR = 10


def _with_retry(run, A, V, beta, horizon, n_samples, retry):
    """Run ``run(A, V, beta, horizon, n_samples)``; re-run once, with ``retry``× the horizon (and
    samples, same resolution), the points left undetermined or rotating too slowly for two whole
    turns in the window. Marks ``details['horizon_factor']``."""
    out = run(A, V, beta, horizon, n_samples)
    for r in out:
        r.details["horizon_factor"] = 1
    redo = [i for i, r in enumerate(out) if r.regime == "undetermined" or r.details.get("rate_from_turns") is False]
    if retry and retry > 1 and redo:
        again = run(A[redo], V[redo], np.asarray(beta)[redo], horizon * retry, int(n_samples * retry))
        for i, r in zip(redo, again):
            r.details["horizon_factor"] = retry
            out[i] = r
    return out


def predict_regime_batch(A, V, beta=1.0, *, horizon=400.0, n_samples=8000, tol=None, chunk=32,
                         retry=RETRY_FACTOR, starts=None):
    """OA regimes of N points, A and V of shape (N, 2, 2) (see :func:`predict_regime`); points left
    ``undetermined`` are re-run once with ``retry`` × the horizon. ``starts`` (k,) replaces the
    near-uniform initial values of R₂ (default :func:`oa_start_points`)."""
    A, V, beta, _ = _batch_inputs(A, V, beta)
    starts = oa_start_points() if starts is None else np.atleast_1d(np.asarray(starts, dtype=complex))
    return _with_retry(lambda a, v, b, h, m: _predict_regime_batch(a, v, b, h, m, tol, chunk, starts),
                       A, V, beta, horizon, n_samples, retry)


def _predict_regime_batch(A, V, beta, horizon, n_samples, tol, chunk, starts):
    """OA regimes for N parameter points at once: ``A``, ``V`` of shape (N, 2, 2).

    Each point's OA ODE runs in its own time unit s = t/τ (so one common grid s ∈ [0, horizon]
    serves all); the N × 8 ODEs of a chunk are integrated as one vectorised system.
    Returns a list of N :class:`RegimeResult` (rates and periods in physical time).
    """
    A, V, beta, tau = _batch_inputs(A, V, beta)
    s = _times(np.eye(2), np.eye(2), 1.0, horizon, n_samples)
    chunk = max(1, min(chunk, int(2e7 // (len(s) * starts.size))))  # bound the stored samples (~320 MB)
    out = []
    for lo in range(0, A.shape[0], chunk):
        sl = slice(lo, lo + chunk)
        Nc = A[sl].shape[0]
        coeffs = kuramoto_coefficients(A[sl, None], V[sl, None], (beta[sl] * tau[sl])[:, None] * np.ones(starts.size))
        R0 = np.broadcast_to(starts, (Nc, starts.size)).ravel()
        traj = integrate_observed(
            oa_field, np.concatenate([R0.real, R0.imag]), s, coeffs, rtol=1e-10, atol=1e-12,
            observer=lambda y: (y[: y.size // 2] + 1j * y[y.size // 2:]),
        )
        R = traj.y.reshape(len(s), Nc, starts.size)
        for i in range(Nc):
            res = [classify_r2_trajectory(s, R[:, i, k], tol, method="oa") for k in range(starts.size)]
            r = _rescale(_vote(res, "oa"), tau[lo + i])
            r.details["horizon_time"] = float(s[-1] * tau[lo + i])
            out.append(r)
    return out


def predict_regime(A, V, beta=1.0, *, horizon=400.0, n_samples=8000, tol: RegimeTolerances | None = None,
                   retry=RETRY_FACTOR):
    """Regime predicted by the Ott–Antonsen ODE (d = 2 LSA) from near-uniform starts.

    The OA ODE is integrated to ``horizon · τ`` from the 8 points of :func:`oa_start_points`
    (|R₂(0)| = 0.01, wrapped-Cauchy states next to the uniform one); the regime is the label
    shared by a strict majority of them, else ``undetermined`` (the per-start labels are in
    ``details['start_regimes']``). Limit values are medians over the starts with that label.
    If the result is ``undetermined`` the integration is repeated once with ``retry`` × the horizon.
    """
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the OA reduction needs d = 2, got {p.d}x{p.d}")
    return predict_regime_batch(p.A[None], p.V[None], p.beta, horizon=horizon, n_samples=n_samples, tol=tol,
                                retry=retry)[0]


def particles_regime_batch(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=4000, tol=None,
                           rtol=1e-7, atol=1e-9, chunk=16, retry=RETRY_FACTOR):
    """Regimes of N d = 2 LSA token systems, one per (A, V) in the batch, integrated in the
    doubled-phase points z_k = e^{2iθ_k} (:func:`lsadyn.kuramoto.phase_point_field`, exact for d = 2).

    Every point starts from the same n i.i.d. uniform angles drawn with ``seed`` (common random
    numbers); time is rescaled per point as in :func:`predict_regime_batch`; undetermined points
    are re-run once with ``retry`` × the horizon.
    """
    A, V, beta, _ = _batch_inputs(A, V, beta)
    n = as_int_at_least(n, "n", 2)
    return _with_retry(lambda a, v, b, h, m: _particles_batch(a, v, b, n, seed, h, m, tol, rtol, atol, chunk),
                       A, V, beta, horizon, n_samples, retry)


def _chunked_regimes(A, V, beta, horizon, n_samples, tol, chunk, method, integrate_chunk):
    """Shared loop of the batched token runs: per chunk of parameter points, ``integrate_chunk(coeffs, s)``
    returns R₂ samples of shape (m, Nc) in the rescaled time s = t/τ; each column is classified."""
    A, V, beta, tau = _batch_inputs(A, V, beta)
    s = _times(np.eye(2), np.eye(2), 1.0, horizon, n_samples)
    out = []
    for lo in range(0, A.shape[0], chunk):
        sl = slice(lo, lo + chunk)
        R2 = integrate_chunk(kuramoto_coefficients(A[sl], V[sl], beta[sl] * tau[sl]), s)
        for i in range(R2.shape[1]):
            out.append(_rescale(classify_r2_trajectory(s, R2[:, i], tol, method=method), tau[lo + i]))
    return out


def _particles_batch(A, V, beta, n, seed, horizon, n_samples, tol, rtol, atol, chunk):
    z0 = np.exp(2j * uniform_angles(n, seed))

    def run(coeffs, s):
        Nc = coeffs.shape[0]
        half = Nc * n
        y0 = np.concatenate([np.tile(z0.real, Nc), np.tile(z0.imag, Nc)])
        return integrate_observed(
            phase_point_field, y0, s, coeffs, rtol=rtol, atol=atol,
            observer=lambda y: y[:half].reshape(Nc, n).mean(axis=1) + 1j * y[half:].reshape(Nc, n).mean(axis=1),
        ).y

    return _chunked_regimes(A, V, beta, horizon, n_samples, tol, chunk, "particles", run)


def ws_regime_batch(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=4000, tol=None,
                    rtol=1e-8, atol=1e-10, chunk=16, retry=RETRY_FACTOR):
    """Regimes from the WS reduction (3 variables per point) of the populations of
    :func:`particles_regime_batch` (same seed, same angles, same retry rule)."""
    A, V, beta, _ = _batch_inputs(A, V, beta)
    n = as_int_at_least(n, "n", 2)
    return _with_retry(lambda a, v, b, h, m: _ws_batch(a, v, b, n, seed, h, m, tol, rtol, atol, chunk),
                       A, V, beta, horizon, n_samples, retry)


def _ws_batch(A, V, beta, n, seed, horizon, n_samples, tol, rtol, atol, chunk):
    theta0 = uniform_angles(n, seed)

    def run(coeffs, s):
        Nc = coeffs.shape[0]
        _, const = ws_from_angles(theta0, coeffs, k_max=1)
        const = replace(const, w=np.broadcast_to(const.w, (Nc, n)))
        return integrate_observed(
            ws_field_batch, np.zeros(3 * Nc), s, const, rtol=rtol, atol=atol,
            observer=lambda y: ws_order_parameter_exact(y.reshape(3, Nc).T, const.w),
        ).y

    return _chunked_regimes(A, V, beta, horizon, n_samples, tol, chunk, "ws", run)


def ws_regime(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=8000, tol=None):
    """Regime from the Watanabe–Strogatz reduction of n tokens with i.i.d. uniform seeded angles (d = 2)."""
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the WS reduction needs d = 2, got {p.d}x{p.d}")
    return ws_regime_batch(p.A[None], p.V[None], p.beta, n=n, seed=seed, horizon=horizon, n_samples=n_samples,
                           tol=tol)[0]


def simulate_regime(
    A,
    V,
    beta=1.0,
    *,
    n=1000,
    d=None,
    model="lsa",
    seed=0,
    horizon=400.0,
    n_samples=4000,
    tol=None,
    method="DOP853",
    rtol=1e-8,
    atol=1e-10,
    dt=None,
):
    """Regime from n tokens i.i.d. uniform on S^{d-1} (seeded), for model 'lsa', 'usa' or 'sa'.

    ``d`` defaults to the size of A (and must match it). In d = 2 the classified signal is R₂(t);
    in d > 2 it is r(t)·e^{2iφ(t)} with φ the (unsigned) angle swept by the leading axis of M.
    """
    p = attention(A, V, beta)
    if d is not None and as_int_at_least(d, "d", 2) != p.d:
        raise ValueError(f"d: A and V are {p.d}x{p.d} but d = {d}")
    n = as_int_at_least(n, "n", 2)
    field = field_for(model)
    t = _times(p.A, p.V, p.beta, horizon, n_samples)
    X0 = uniform_sphere(n, p.d, seed)
    if p.d == 2:
        traj = integrate_sphere(field, X0, t, p, method=method, rtol=rtol, atol=atol, dt=dt,
                                observer=order_parameter_r2_tokens)
        signal = traj.y
    else:
        traj = integrate_sphere(field, X0, t, p, method=method, rtol=rtol, atol=atol, dt=dt, observer=axis_observer)
        signal = pseudo_r2(traj.y[:, 0], traj.y[:, 1:])
    res = classify_r2_trajectory(t, signal, tol, method=f"particles-{model}")
    res.details["n_steps"] = traj.n_steps
    return res
