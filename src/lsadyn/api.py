"""Public entry points: the long-time regime of (A, V, β) from the OA ODE, from WS, or from tokens.

All three integrate to ``T = horizon · τ`` with the time scale ``τ = 1 / (β ‖A‖₂ ‖V‖₂)`` on a grid of
``n_samples`` equally spaced times and classify the trajectory of R₂ (d = 2) or of
``r(t) e^{2iφ(t)}`` (d > 2, φ the angle swept by the leading axis of M) with
:func:`lsadyn.regimes.classify.classify_r2_trajectory`, through the one decision procedure of
:mod:`lsadyn.regimes.decision`:
undecided runs continue from where they stopped, up to ``budget`` × the horizon. Only the samples the
classifier reads are observed.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .budget import check_budget
from .fields.attention import attention, field_for
from .observers import pseudo_r2, state_observer
from .reductions.kuramoto import kuramoto_coefficients, oa_field
from .regimes.certify import OACertifier, certified_result
from .regimes.classify import RegimeResult, RegimeTolerances, classify_r2_trajectory
from .regimes.tokens import TokenCertifier, certified_token_result, doubled_phase_classifier
from .regimes.decision import DEFAULT_BUDGET, decide, window_tolerances
from .runs import OARun, PhasePointRun, PhasePointRunScipy, SmallRunCompiled, SphereRun, WSRun, _writable
from .sampling import initial_tokens, uniform_angles, uniform_sphere
from .solvers.integrate import integrate_flat
from .validation import as_int_at_least, as_positive_float

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


def sa_time_scale(A, V, beta) -> float:
    """τ_SA = 1 / (‖V‖₂ · min(1, β‖A‖₂)) (1 when A or V is zero): SA's time unit. The softmax weights sum to 1, so
    a token's speed is at most ‖V‖₂ however large β is; for β‖A‖₂ ≤ 1 the weights are 1 + O(β‖A‖₂) and the
    clustering part of the field is LSA's, whose unit :func:`time_scale` this then equals (docs/certification.md,
    "Time units")."""
    nv = float(np.linalg.norm(V, 2))
    s = nv * min(1.0, float(beta) * float(np.linalg.norm(A, 2)))
    return 1.0 / s if s > 0 else 1.0


def time_scales(A, V, beta) -> np.ndarray:
    """:func:`time_scale` of every point of a batch, A and V (N, d, d), ``beta`` scalar or (N,) → τ (N,): the same
    2-norms (one stacked SVD call each for A and V, LAPACK per matrix as for one) and the same arithmetic, so
    equal to it bit for bit (tests/test_api_batch.py)."""
    s = beta * np.linalg.norm(A, 2, axis=(-2, -1)) * np.linalg.norm(V, 2, axis=(-2, -1))
    return np.divide(1.0, s, out=np.ones_like(s), where=s > 0)


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
    tau = time_scales(A, V, beta)
    return A, V, beta, tau


def _rescale(res: RegimeResult, tau: float) -> RegimeResult:
    """Classification ran in s = t/τ; convert rates and periods back to physical time."""
    res.arg_R2_rate = res.arg_R2_rate / tau
    res.period = res.period * tau
    return res


def _median(values) -> float:
    """``float(np.median(values))`` of a non-empty list; one value (the atlas's single start) without numpy's
    per-call cost: np.median of one value is its mean, 0.0 + v (so −0.0 → 0.0, NaN stays NaN)."""
    return 0.0 + float(values[0]) if len(values) == 1 else float(np.median(values))


def _vote(results, method):
    labels = [r.regime for r in results]
    label, count = Counter(labels).most_common(1)[0]
    if count * 2 <= len(labels):
        label = "undetermined"
    chosen = [r for r in results if r.regime == label] or results
    details = {"start_regimes": labels}
    if label == "undetermined":  # why: the majority's own reason (the drift it measured), or the split vote
        reasons = [r.details["reason"] for r in chosen if r.regime == "undetermined" and "reason" in r.details]
        details["reason"] = reasons[0] if count * 2 > len(labels) and reasons else f"no strict majority: {labels}"
    if any("rate_from_turns" in r.details for r in chosen):
        details["rate_from_turns"] = all(r.details.get("rate_from_turns", True) for r in chosen)
    algebraic = [r for r in chosen if r.details.get("approach") == "algebraic"]
    if algebraic:
        details.update(approach="algebraic",
                       extrapolated_abs_R2=_median([r.details["extrapolated_abs_R2"] for r in algebraic]),
                       abs_R2_last=_median([r.details["abs_R2_last"] for r in algebraic]))
    return RegimeResult(
        label,
        _median([r.abs_R2 for r in chosen]),
        _median([r.arg_R2_rate for r in chosen]),
        _median([r.period for r in chosen]),
        method,
        details,
    )


def _vote_certified(results, method):
    """Strict-majority vote over certified starts: the label, the medians of the limit values and the attractor of the
    first start with that label; ``certified`` only when the majority's starts all are, ``t_certified`` the latest."""
    labels = [r.regime for r in results]
    label, count = Counter(labels).most_common(1)[0]
    details = {"start_regimes": labels}
    if count * 2 <= len(labels):
        label = "undetermined"
        details["reason"] = f"no strict majority: {labels}"
    chosen = [r for r in results if r.regime == label]
    if not chosen:
        return RegimeResult(label, _median([r.abs_R2 for r in results]), float("nan"), float("nan"), method,
                            dict(details, certified=False))
    first = chosen[0]
    details.update({key: v for key, v in first.details.items() if key not in details})
    if label != "undetermined":
        details["t_certified"] = max(r.details["t_certified"] for r in chosen)
    # limit values: medians over the starts with that label (at a centre each start has its own closed orbit, and
    # the starts sit around R₂ = 0, so the median is the orbit through the uniform state to first order)
    return RegimeResult(label, _median([r.abs_R2 for r in chosen]), _median([r.arg_R2_rate for r in chosen]),
                        _median([r.period for r in chosen]), method, details)


def _classifier(method, tol, tau):
    wtol = window_tolerances(tol)

    def classify(i, s, R2):
        return _rescale(classify_r2_trajectory(s, R2, wtol, method=method, unit="τ"), tau[i])

    return classify


def _budget(budget, retry):
    """``retry`` is the old name of ``budget`` (kept for callers of the batch APIs)."""
    return budget if retry is None else retry


def predict_regime_batch(A, V, beta=1.0, *, horizon=400.0, n_samples=8000, tol=None, chunk=128,
                         budget=DEFAULT_BUDGET, starts=None, token_start=None, engine="compiled", progress=None,
                         retry=None, max_bytes=None, max_seconds=None, certify=True):
    """OA regimes of N points, A and V of shape (N, 2, 2) (see :func:`predict_regime`), by the decision
    procedure of :mod:`lsadyn.regimes.decision` (undecided points continue up to ``budget`` × the horizon).

    ``starts`` (k,) replaces the near-uniform initial values of R₂ (default :func:`oa_start_points`); the
    label is the strict-majority vote over them. ``token_start`` (scalar or (N,)): one more start per
    point, e.g. the tokens' own R₂(0), integrated in the same batch; its label is reported in
    ``details['regime_token_start']`` (it does not vote). A point continues while any of its starts is
    undetermined (up to the budget, where the vote stands). ``engine``: ``"compiled"`` (every start its own
    DOP853 run, :func:`lsadyn.solvers.phase_points.advance_small`) or ``"scipy"`` (the reference: scipy DOP853 on
    chunks of ``chunk`` points as one system).

    ``certify`` (default True): a start is labelled only when its state lies in a checked neighbourhood of one
    attractor (:mod:`lsadyn.regimes.certify`: Newton and a Lyapunov region for equilibria, the circle's flow and
    transverse exponent, shooting and the return map for limit cycles, a conserved quantity for centres,
    Poincaré–Bendixson with Dulac's criterion); ``details`` then carries ``attractor``, ``checked`` and
    ``t_certified``, and an uncertified start stays ``undetermined`` with the nearest candidate as its reason.
    ``certify=False`` labels from the window classifier (:mod:`lsadyn.regimes.classify`) instead, the former rule.
    """
    A, V, beta, tau = _batch_inputs(A, V, beta)
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    check_budget(1, 2, "oa", horizon, n_samples, max_bytes=max_bytes, max_seconds=max_seconds, runs=A.shape[0])
    starts = oa_start_points() if starts is None else np.atleast_1d(np.asarray(starts, dtype=complex))
    N, k = A.shape[0], starts.size
    R0 = np.broadcast_to(starts, (N, k))
    if token_start is not None:
        R0 = np.concatenate([R0, np.broadcast_to(np.asarray(token_start, dtype=complex), (N,))[:, None]], axis=1)
    K = R0.shape[1]
    coeffs = kuramoto_coefficients(A[:, None], V[:, None], (beta * tau)[:, None] * np.ones(K))
    wtol = window_tolerances(tol)
    certifiers: dict = {}

    def classify(i, s, R):
        if certify:
            if i not in certifiers:
                certifiers[i] = OACertifier(A[i], V[i], beta[i])
            t = s * tau[i]
            res = [certified_result(*certifiers[i].check(t, R[:, j]), t, R[:, j], "oa") for j in range(K)]
            out = _vote_certified(res[:k], "oa")
        else:
            res = [_rescale(classify_r2_trajectory(s, R[:, j], wtol, method="oa", unit="τ"), tau[i]) for j in range(K)]
            out = _vote(res[:k], "oa")
        # a point is decided when every start is: a vote decided by the starts that decide first would bias the
        # limits (e.g. at a centre the shorter-period orbits show their 2 cycles per window half first)
        out.details["undecided_part"] = any(r.regime == "undetermined" for r in res)
        if token_start is not None:
            out.details["regime_token_start"] = res[k].regime
        return out

    if engine == "compiled":
        from .solvers.phase_points import OA_KIND

        R0f = _writable(R0).ravel()
        run = SmallRunCompiled(OA_KIND, coeffs, np.stack([R0f.real, R0f.imag], axis=1), K=K)
    elif engine == "scipy":
        run = OARun(coeffs, R0, max(1, int(chunk)))
    else:
        raise ValueError(f"engine: unknown engine {engine!r}; choose compiled or scipy")
    return decide(run, N, horizon, n_samples, _budget(budget, retry), classify, tau,
                  window=(tol or RegimeTolerances()).window, progress=progress)


def predict_regime(A, V, beta=1.0, *, horizon=400.0, n_samples=8000, tol: RegimeTolerances | None = None,
                   budget=DEFAULT_BUDGET, progress=None, max_bytes=None, max_seconds=None, certify=True):
    """Regime predicted by the Ott–Antonsen ODE (d = 2 LSA) from near-uniform starts.

    The OA ODE is integrated from the 8 points of :func:`oa_start_points` (|R₂(0)| = 0.01,
    wrapped-Cauchy states next to the uniform one) to ``horizon · τ``; the regime is the label shared by
    a strict majority of them, else ``undetermined`` (the per-start labels are in
    ``details['start_regimes']``). Each start's label is certified (``certify``, see
    :func:`predict_regime_batch`): the limit values are those of the attractor it was certified in, and
    ``details['attractor']`` says which (kind, location, exponent, multiplier, period, rate), ``['checked']`` how,
    ``['t_certified']`` when. Undecided runs continue (:mod:`lsadyn.regimes.decision`) up to ``budget`` × the horizon.

    Parameters
    ----------
    A, V : array_like, shape (2, 2)
        The key-query matrix A = QᵀK and the value matrix V, real and finite.
    beta : float, default 1.0
        Inverse temperature β > 0.
    horizon : float, default 400.0
        Base horizon in units of τ = 1/(β‖A‖₂‖V‖₂) (docs/theory.md §1).
    n_samples : int, default 8000
        Output times over the base horizon (≥ 64).
    tol : RegimeTolerances, optional
        The window rule's tolerances; read only with ``certify=False``.
    budget : float, default 16
        Undecided runs continue up to ``budget`` × ``horizon``.
    progress : callable, optional
        Called with the fraction done, in [0, 1].
    max_bytes, max_seconds : float, optional
        Limits on the estimated memory and time (:mod:`lsadyn.budget`); the run is refused above them.
    certify : bool, default True
        Label only a checked attractor (``False``: the window rule).

    Returns
    -------
    RegimeResult
        ``regime`` (one of :data:`lsadyn.regimes.classify.LABELS`), ``abs_R2`` and ``arg_R2_rate`` (the
        attractor's |R₂| and rate of arg R₂ per unit time), ``period`` (NaN unless periodic), ``method``
        (``"oa"``) and ``details`` (above; ``details['certified']`` is ``result.certified``).

    Raises
    ------
    ValueError
        One line naming the argument: A or V not 2 × 2, not finite, or out of range; beta ≤ 0; a run over
        the limits.

    Examples
    --------
    >>> import numpy as np
    >>> res = predict_regime(np.eye(2), np.array([[1.0, -1.0], [1.0, 1.0]]))
    >>> res.regime, round(res.arg_R2_rate, 6), res.certified
    ('cluster_rotate', 2.0, True)
    >>> predict_regime(np.eye(2), -np.eye(2)).regime
    'interior_converge'
    """
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the OA reduction needs d = 2, got {p.d}x{p.d}")
    return predict_regime_batch(p.A[None], p.V[None], p.beta, horizon=horizon, n_samples=n_samples, tol=tol,
                                budget=budget, progress=progress, max_bytes=max_bytes, max_seconds=max_seconds,
                                certify=certify)[0]


def particles_regime_batch(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=4000, tol=None,
                           rtol=1e-7, atol=1e-9, chunk=16, budget=DEFAULT_BUDGET, engine="compiled", z0=None,
                           progress=None, retry=None, max_bytes=None, max_seconds=None, certify=True):
    """Regimes of N d = 2 LSA token systems, one per (A, V) in the batch, integrated in the
    doubled-phase points z_k = e^{2iθ_k} (:func:`lsadyn.reductions.kuramoto.phase_point_field`, exact for d = 2).

    Every point starts from the same n i.i.d. uniform angles drawn with ``seed`` (common random
    numbers), or from ``z0`` (n,) doubled-phase points; time is rescaled per point as in
    :func:`predict_regime_batch`; undecided points continue up to ``budget`` × the horizon.
    ``engine``: ``"compiled"`` (:mod:`lsadyn.solvers.phase_points`, each point with its own DOP853 step) or
    ``"scipy"`` (the reference: scipy DOP853 over chunks of ``chunk`` points).

    ``certify`` (default True): a point is labelled only when :class:`lsadyn.regimes.tokens.TokenCertifier` checks
    its attractor, fed from the points' own state (see :func:`ws_regime_batch`); ``certify=False``: the window
    classifier.
    """
    A, V, beta, tau = _batch_inputs(A, V, beta)
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    # the cost check comes before any allocation of the n tokens
    check_budget(as_int_at_least(n, "n", 2) if z0 is None else np.shape(z0)[-1], 2, "lsa", horizon, n_samples,
                 max_bytes=max_bytes, max_seconds=max_seconds, runs=A.shape[0])
    if z0 is None:
        z0 = np.exp(2j * uniform_angles(as_int_at_least(n, "n", 2), as_int_at_least(seed, "seed", 0)))
    coeffs = kuramoto_coefficients(A, V, beta * tau)
    if engine == "compiled":
        run = PhasePointRun(coeffs, z0, rtol, atol)
    elif engine == "scipy":
        run = PhasePointRunScipy(coeffs, z0, rtol, atol, chunk)
    else:
        raise ValueError(f"engine: unknown engine {engine!r}; choose compiled or scipy")
    budget = _budget(budget, retry)
    classify = _classifier("particles", tol, tau)
    if certify:
        classify = doubled_phase_classifier(run.points, A, V, beta, tau, np.asarray(z0).reshape(-1), horizon * budget,
                                            rtol, atol, "particles")
    res = decide(run, A.shape[0], horizon, n_samples, budget, classify, tau,
                 window=(tol or RegimeTolerances()).window, progress=progress)
    if engine == "compiled":
        for r, f, st in zip(res, run.nfev, run.nsteps):
            r.details["n_fev"] = int(f)
            r.details["n_steps"] = int(st)
    return res


def token_r2_batch(A, V, beta, z0, t_eval, *, rtol=1e-8, atol=1e-10, states=False):
    """R₂(t) of P populations of d = 2 LSA tokens under one (A, V, β), from doubled-phase points
    (z = e^{2iθ}) ``z0``: an array (P, n), or a sequence of P 1-D arrays whose sizes may differ (each size
    one batch). Times ``t_eval`` (m,) ascending from 0 on the field's own clock (pass β·τ as ``beta`` for time
    in units of τ). Compiled DOP853 (:mod:`lsadyn.solvers.phase_points`), each population with its own step size: per
    population the algorithm of scipy's DOP853 on :func:`~lsadyn.reductions.kuramoto.phase_point_field`, the
    reference path. Returns (P, m) complex; with ``states``, also the list of the P final populations (doubled-phase
    points)."""
    pops = [np.asarray(z, dtype=complex).ravel() for z in z0]
    t_eval = np.asarray(t_eval, dtype=float)
    out = np.empty((len(pops), t_eval.size), dtype=complex)
    final = [None] * len(pops)
    sizes = np.array([z.size for z in pops])
    for n in np.unique(sizes):
        idx = np.nonzero(sizes == n)[0]
        P = idx.size
        coeffs = kuramoto_coefficients(np.broadcast_to(np.asarray(A, dtype=float), (P, 2, 2)),
                                       np.broadcast_to(np.asarray(V, dtype=float), (P, 2, 2)), np.full(P, float(beta)))
        run = PhasePointRun(coeffs, np.stack([pops[i] for i in idx]), rtol, atol)
        out[idx] = run.advance(np.arange(P), t_eval)
        for j, i in enumerate(idx):
            final[i] = run.points(j)
    return (out, final) if states else out


def ws_regime_batch(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=4000, tol=None,
                    rtol=1e-8, atol=1e-10, chunk=16, budget=DEFAULT_BUDGET, engine="compiled", progress=None,
                    retry=None, max_bytes=None, max_seconds=None, certify=True):
    """Regimes from the WS reduction (3 variables per point, R₂ by the exact sum over the n constants of
    motion) of the populations of :func:`particles_regime_batch` (same seed, same angles, same decision
    procedure). ``engine``: ``"compiled"`` (:func:`lsadyn.solvers.phase_points.advance_small`, each point its own
    step) or ``"scipy"`` (reference, chunks of ``chunk`` points).

    ``certify`` (default True): a point is labelled only when :class:`lsadyn.regimes.tokens.TokenCertifier` checks
    its attractor, from the WS state: the tokens z_k = Φ(w_k) rebuilt from (α, η) at each checkpoint, r = |R₂|,
    the axis arg R₂ / 2, and as the token speed the largest speed of any point of the circle in the common field,
    (|ω(R₂)| + |H(R₂)|)/2 (an upper bound of every token's, zero exactly when the field vanishes).
    ``certify=False``: the window classifier."""
    A, V, beta, tau = _batch_inputs(A, V, beta)
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    n = as_int_at_least(n, "n", 2)
    check_budget(n, 2, "ws", horizon, n_samples, max_bytes=max_bytes, max_seconds=max_seconds, runs=A.shape[0])
    theta0 = uniform_angles(n, as_int_at_least(seed, "seed", 0))  # after the cost check: n may be huge
    coeffs = kuramoto_coefficients(A, V, beta * tau)
    if engine == "compiled":
        from .solvers.phase_points import WS_KIND

        run = SmallRunCompiled(WS_KIND, coeffs, np.zeros((A.shape[0], 3)), w=np.exp(2j * theta0), rtol=rtol,
                                atol=atol)
    elif engine == "scipy":
        run = WSRun(coeffs, theta0, max(1, int(chunk)), rtol, atol)
    else:
        raise ValueError(f"engine: unknown engine {engine!r}; choose compiled or scipy")
    budget = _budget(budget, retry)
    classify = _classifier("ws", tol, tau)
    if certify:
        classify = _ws_certified(run, A, V, beta, tau, theta0, horizon * budget, rtol, atol)
    return decide(run, A.shape[0], horizon, n_samples, budget, classify, tau,
                  window=(tol or RegimeTolerances()).window, progress=progress)


def _ws_certified(run, A, V, beta, tau, theta0, s_end, rtol, atol):
    """The certified classify of :func:`ws_regime_batch` (see there): the tokens z_k = Φ(w_k) from (α, η)."""
    from .reductions.watanabe_strogatz import ws_points

    w = np.exp(2j * theta0)
    return doubled_phase_classifier(lambda i: ws_points(run.Y[i], w), A, V, beta, tau, w, s_end, rtol, atol, "ws")


def ws_regime(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=8000, tol=None, budget=DEFAULT_BUDGET,
              progress=None, max_bytes=None, max_seconds=None, certify=True):
    """Regime from the Watanabe–Strogatz reduction of n tokens with i.i.d. uniform seeded angles (d = 2), certified
    as in :func:`ws_regime_batch` (``certify=False``: the window classifier)."""
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the WS reduction needs d = 2, got {p.d}x{p.d}")
    return ws_regime_batch(p.A[None], p.V[None], p.beta, n=n, seed=seed, horizon=horizon, n_samples=n_samples,
                           tol=tol, budget=budget, progress=progress, max_bytes=max_bytes, max_seconds=max_seconds,
                           certify=certify)[0]


def softmax_harmonics(A, beta, model):
    """L of the d = 2 softmax moment form (:func:`lsadyn.fields.kuramoto_daido.harmonics`) for the budget, or None
    (not d = 2 USA/SA, or A, beta not yet valid: :func:`lsadyn.fields.attention.attention` then says why)."""
    if model not in ("usa", "sa") or np.shape(A) != (2, 2):
        return None
    try:
        A = np.asarray(A, dtype=float)
        beta = float(beta)
    except (TypeError, ValueError):
        return None
    if not (np.all(np.isfinite(A)) and np.isfinite(beta) and beta > 0):
        return None
    from .fields.kuramoto_daido import harmonics

    return harmonics(A, beta)


def simulate_regime(
    A,
    V,
    beta=1.0,
    *,
    n=None,
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
    X0=None,
    budget=DEFAULT_BUDGET,
    progress=None,
    max_bytes=None,
    max_seconds=None,
    direct=False,
    certify=True,
):
    """Regime from n tokens for model 'lsa', 'usa' or 'sa': i.i.d. uniform on S^{d-1} (seeded, n = 1000 by
    default) or the user's ``X0`` ((n, d) unit vectors, or angles (n,) in d = 2).

    ``d`` defaults to the size of A (and must match it). In d = 2 the classified signal is R₂(t);
    in d > 2 it is r(t)·e^{2iφ(t)} with φ the (unsigned) angle swept by the leading axis of M.
    d = 2 LSA with ``method="DOP853"`` and ``certify=False`` runs in the doubled-phase points (:mod:`lsadyn.solvers.phase_points`, exact);
    everything else through :func:`lsadyn.solvers.integrate.integrate_sphere`, with the field of
    :func:`lsadyn.fields.attention.field_for` (d = 2 USA/SA: the moment form of :mod:`lsadyn.fields.kuramoto_daido`
    when it is the cheaper; ``direct=True`` keeps the O(n²) kernel). Undecided runs continue
    (:mod:`lsadyn.regimes.decision`) up to ``budget`` × the horizon; ``details['t_decide']``, ``['budget_factor']``.

    ``certify`` (default True; d = 2 LSA then runs on the sphere integrator, not in the doubled-phase points, and adds
    the checks of :mod:`lsadyn.regimes.ws_trap` and the degenerate-cluster normal form): a label is given only when :class:`lsadyn.regimes.tokens.TokenCertifier` checks the attractor
    (a cluster at rest or rotating by Newton or shooting on its centre's flow and its contraction exponent, an
    equilibrium by the decay of the token speed, a cycle by the return map of r); ``details`` then carries
    ``attractor``, ``checked``, ``t_certified``, and always ``cluster_shape``. A run the certifier finds cannot be
    decided within the budget (a return map converging too slowly, a metastable USA oscillation whose projected exit
    lies past it) ends early as ``undetermined`` with that reason. ``certify=False``: the window classifier.

    Parameters
    ----------
    A, V : array_like, shape (d, d)
        The key-query matrix A = QᵀK and the value matrix V, real and finite.
    beta : float, default 1.0
        Inverse temperature β > 0.
    n : int, optional
        Tokens (default 1000, or the rows of ``X0``).
    d : int, optional
        Token dimension; must equal A's size.
    model : {"lsa", "usa", "sa"}, default "lsa"
        Linear, unnormalised softmax or softmax attention (docs/theory.md §1).
    seed : int, default 0
        Seed of the i.i.d. uniform tokens.
    horizon : float, default 400.0
        Base horizon in units of the model's τ (LSA, USA: 1/(β‖A‖₂‖V‖₂); SA: :func:`sa_time_scale`).
    n_samples : int, default 4000
        Output times over the base horizon (≥ 64).
    tol : RegimeTolerances, optional
        The window rule's tolerances.
    method : {"DOP853", "rk4"}, default "DOP853"
        The integrator; ``dt`` sets RK4's step (in τ).
    rtol, atol : float
        DOP853's tolerances.
    X0 : array_like, optional
        Start: (n, d) unit vectors, or n angles in d = 2.
    budget : float, default 16
        Undecided runs continue up to ``budget`` × ``horizon``.
    progress : callable, optional
        Called with the fraction done, in [0, 1].
    max_bytes, max_seconds : float, optional
        Limits on the estimated memory and time, checked before anything is allocated (:mod:`lsadyn.budget`).
    direct : bool, default False
        d = 2 softmax: keep the O(n²) kernel instead of the moment form.
    certify : bool, default True
        Label only a checked attractor (``False``: the window rule).

    Returns
    -------
    RegimeResult
        ``regime``, ``abs_R2`` (|R₂| in d = 2, r in d > 2), ``arg_R2_rate`` (per unit time; d > 2 unsigned),
        ``period``, ``method`` (``"particles-<model>"``) and ``details`` (above).

    Raises
    ------
    ValueError
        One line naming the argument: a bad shape, a NaN, an unknown model, a run over the limits.

    Examples
    --------
    >>> import numpy as np
    >>> res = simulate_regime(np.eye(2), np.array([[1.0, -1.0], [1.0, 1.0]]), n=200, seed=0)
    >>> res.regime, res.certified, res.details["cluster_shape"]
    ('cluster_rotate', True, 'antipodal_pair')
    """
    field_for(model)  # an unknown model is named before anything else
    seed = as_int_at_least(seed, "seed", 0)
    if dt is not None:
        dt = as_positive_float(dt, "dt")
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    if X0 is not None:
        if n is not None and as_int_at_least(n, "n", 2) != np.shape(X0)[0]:
            raise ValueError(f"n: X0 holds {np.shape(X0)[0]} tokens but n = {n}")
        n_tok = np.shape(X0)[0]
    else:
        n_tok = as_int_at_least(1000 if n is None else n, "n", 2)
    # the cost check comes first: checking a large A (its 2-norm) already takes seconds
    d_A = np.shape(A)[-1] if np.ndim(A) == 2 else 2
    check_budget(n_tok, d_A, model, horizon, n_samples, max_bytes=max_bytes, max_seconds=max_seconds,
                 dt=None if dt is None or method != "rk4" else dt,
                 harmonics=None if direct else softmax_harmonics(A, beta, model))
    p = attention(A, V, beta)
    if d is not None and as_int_at_least(d, "d", 2) != p.d:
        raise ValueError(f"d: A and V are {p.d}x{p.d} but d = {d}")
    field = field_for(model, p.d, direct=direct)
    X = initial_tokens(X0, p.d) if X0 is not None else uniform_sphere(n_tok, p.d, seed)
    tau = sa_time_scale(p.A, p.V, p.beta) if model == "sa" else time_scale(p.A, p.V, p.beta)
    window = (tol or RegimeTolerances()).window
    if p.d == 2 and model == "lsa" and method == "DOP853" and not certify:
        z0 = (X[:, 0] + 1j * X[:, 1]) ** 2
        res = particles_regime_batch(p.A[None], p.V[None], p.beta, z0=z0, horizon=horizon, n_samples=n_samples,
                                     tol=tol, rtol=rtol, atol=atol, budget=budget, progress=progress,
                                     certify=False)[0]
        res.method = f"particles-{model}"
        return res
    wtol = window_tolerances(tol)
    if certify:
        run = SphereRun(field, X, p, method, rtol, atol, dt, tau, observer=state_observer(field, p))
        certifier = TokenCertifier(model, p, t_end=tau * horizon * budget, speed_floor=100 * atol / tau, X0=X)

        def classify(i, s, obs):
            t = s * tau
            r, axes = obs[:, 0], obs[:, 1:p.d + 1]
            return certified_token_result(*certifier.check(t, obs, run.X), t, r, axes, run.X, f"particles-{model}")
    else:
        run = SphereRun(field, X, p, method, rtol, atol, dt, tau)

        def classify(i, s, obs):
            signal = obs if p.d == 2 else pseudo_r2(obs[:, 0], obs[:, 1:])
            return _rescale(classify_r2_trajectory(s, signal, wtol, method=f"particles-{model}", unit="τ"), tau)

    res = decide(run, 1, horizon, n_samples, budget, classify, [tau], window=window, progress=progress)[0]
    res.details["n_steps"] = run.n_steps
    return res
