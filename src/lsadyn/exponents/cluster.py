r"""How fast a single cluster tightens: its differential exponent in theory, and as measured from a run's r(t).

All n tokens at one point x of :math:`S^{d-1}` (a single cluster, :func:`lsadyn.observers.cluster_shape`) move as one
particle, :math:`\dot x = P^\perp_x u(x)`, :math:`u(x) = h(\beta\langle x, A x\rangle)\,V x` (LSA h(y) = y, USA
h(y) = eʸ, SA h(y) = 1: the softmax weights of a consensus are 1/n whatever the logit). Perturb token k by δ_k, tangent at x, with :math:`\sum_k\delta_k = 0` (a *differential* mode: it changes
the cluster's spread, not its centre). At consensus every other token enters :math:`\dot x_k` through the same matrix,
so their contributions cancel and each δ_k follows the token's own derivative along the particle's orbit x(t):

.. math:: \dot\delta = D(x)\,\delta,\qquad
          D(x)\,\delta = \beta h'(\beta a)\,\langle\delta, A x\rangle\, P^\perp_x V x
          - h(\beta a)\,\big(\langle\delta, V x\rangle\, x + v\,\delta\big),\qquad a = \langle x, A x\rangle,\;
          v = \langle x, V x\rangle,

(D keeps δ tangent). The cluster's *differential exponent* is the largest Lyapunov exponent
:math:`\lambda_{diff} = \lim_T \frac1T\log|\delta(T)|` of this d-dimensional linear system
(:func:`differential_exponent`). At a cluster at rest (x an eigenvector of V, P⊥Vx = 0) D = −h(βa) v on the whole
tangent space: :math:`\lambda_{diff} = -h(\beta a)\,v`, in the plane and off it alike. For clusters rotating in the
invariant plane of an embedded block A = diag(A₂, a⊥I), V = diag(V₂, v⊥I), D maps the complement to itself as
−h(βa)v, so the off-plane exponent is the orbit average :math:`-\langle h(\beta a)\,v\rangle_t`, beside the in-plane
one (for LSA in d = 2 the OA flow's normal Floquet exponent λ⊥); λ_diff is the larger. In the plane
:math:`\langle\delta, Jx\rangle` grows at :math:`\beta\frac{h'}{h}(\beta a)\langle Jx, Ax\rangle\,\dot\theta - h v`,
and for symmetric A₂ the first term is :math:`\tfrac12\,d\log h(\beta a)/dt`, which averages to 0 over a turn: the
plane and the complement then contract alike, and an antisymmetric part of A₂ makes them differ.

Measured: the spread of a tight cluster is :math:`1 - r \approx c\,\langle|\delta|^2\rangle` (r of
:func:`lsadyn.observers.order_parameter_r`; at d = 2 r = |R₂|), so :math:`1 - r \propto e^{2\lambda_{diff} t}` once the
slowest differential mode dominates: :func:`contraction_exponent` is half the least-squares slope of log(1 − r)
over the samples where the cluster is tight and above rounding — for rotating clusters stroboscopically, once per
period — and only when it is settled: the slopes of the fit's two halves agree within :data:`SLOPE_RTOL` (a slope
still drifting is a transient's, not the limit's; shapes: t, r of shape (N,)).
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import Attention
from ..observers import order_parameter_r

#: 1 − r at or below which a sample is rounding, not spread (r is computed from an eigenvalue of a mean of d × d
#: outer products: ~1e-13 relative error at d = 100)
R_FLOOR = 1e-11
#: 1 − r at or above which a cluster is not yet tight (the linearisation does not hold)
R_TIGHT = 1e-3

#: relative agreement of the slopes of the fit's two halves for a settled measurement
SLOPE_RTOL = 0.05

#: the kernel h of a single cluster's motion and its derivative h', per model: LSA h(y) = y, USA h(y) = eʸ, SA h = 1
#: (softmax's weights sum to one; at consensus a token's own logit shift is common to every j and cancels, so h' = 0)
_H = {"lsa": (lambda y: y, lambda y: np.ones_like(y)), "usa": (np.exp, np.exp),
      "sa": (lambda y: np.ones_like(y), lambda y: np.zeros_like(y))}


def _kernel(model: str):
    try:
        return _H[model]
    except KeyError:
        raise ValueError(f"model: expected one of {sorted(_H)}, got {model!r}") from None


def cluster_velocity(model: str, x: np.ndarray, p: Attention) -> np.ndarray:
    """:math:`P^\\perp_x h(\\beta\\langle x, Ax\\rangle) V x` (d,): the velocity of a single cluster at x (d,)."""
    h, _ = _kernel(model)
    Vx = p.V @ x
    return h(p.beta * (x @ p.A @ x)) * (Vx - (x @ Vx) * x)


def differential_map(model: str, x: np.ndarray, delta: np.ndarray, p: Attention) -> np.ndarray:
    """D(x) δ (shape of δ: (d,) or (d, m)): the linearised motion of a differential mode δ of a single cluster at x
    (see the module)."""
    h, dh = _kernel(model)
    y = p.beta * (x @ p.A @ x)
    Vx = p.V @ x
    v = x @ Vx
    w = Vx - v * x
    dlt = np.asarray(delta, dtype=float)
    Ax = p.A @ x
    return (p.beta * dh(y) * np.outer(w, Ax @ dlt).reshape(w.shape + dlt.shape[1:])
            - h(y) * (np.outer(x, Vx @ dlt).reshape(x.shape + dlt.shape[1:]) + v * dlt))


def differential_exponent(model: str, x0, p: Attention, *, t_transient: float, t_measure: float, dt: float,
                          seed: int = 0) -> float:
    """The largest Lyapunov exponent λ_diff of the differential modes of a single cluster started at x0 (d,) (see
    the module): x and one tangent vector δ advanced together by RK4 at step ``dt`` (x renormalised, δ projected
    onto the tangent space and normalised after every step), log|δ| accumulated over ``t_measure`` after
    ``t_transient`` (times in the field's time units). ``seed`` draws δ(0)."""
    from ..solvers.rk4 import rk4_step

    if not (dt > 0 and t_measure > 0 and t_transient >= 0):
        raise ValueError(f"dt, t_measure > 0 and t_transient >= 0, got {dt}, {t_measure}, {t_transient}")
    x = np.asarray(x0, dtype=float).copy()
    if x.ndim != 1 or x.shape[0] != p.d or not np.all(np.isfinite(x)) or not np.linalg.norm(x) > 0:
        raise ValueError(f"x0: a finite nonzero point of R^{p.d}, got shape {x.shape}")
    x /= np.linalg.norm(x)
    d = x.shape[0]
    delta = np.random.default_rng(seed).standard_normal(d)
    delta -= (delta @ x) * x
    delta /= np.linalg.norm(delta)
    y = np.concatenate([x, delta])

    def rhs(_t, z):
        xx, dd = z[:d], z[d:]
        return np.concatenate([cluster_velocity(model, xx, p), differential_map(model, xx, dd, p)])

    n_tr, n_ms = int(np.ceil(t_transient / dt)), int(np.ceil(t_measure / dt))
    log_growth = 0.0
    for i in range(n_tr + n_ms):
        y = rk4_step(rhs, i * dt, y, dt)
        xx = y[:d] / np.linalg.norm(y[:d])
        dd = y[d:] - (y[d:] @ xx) * xx
        g = np.linalg.norm(dd)
        if i >= n_tr:
            log_growth += np.log(g)
        y = np.concatenate([xx, dd / g])
    return float(log_growth / (n_ms * dt))


def _settled_slope(x, y, rtol):
    """Least-squares slope of y(x), or NaN when the slopes of the first and the second half of the points differ by
    more than ``rtol`` of it."""
    slope = np.polyfit(x, y, 1)[0]
    h = len(x) // 2
    early = np.polyfit(x[:h + 1], y[:h + 1], 1)[0]
    late = np.polyfit(x[h:], y[h:], 1)[0]
    return float("nan") if abs(late - early) > rtol * abs(slope) else float(slope)


def contraction_exponent(t, r, period: float | None = None, *, floor: float = R_FLOOR, tight: float = R_TIGHT,
                         min_samples: int = 16) -> float:
    """The measured differential exponent of a clustered run (see the module), in the units of 1/t: half the slope
    of log(1 − r) against t over the samples with ``floor`` < 1 − r < ``tight``.

    * Clusters at rest (``period`` None or NaN): the least-squares slope over the later half of those samples (the
      earlier half still carries faster modes).
    * Rotating clusters (``period`` P finite): the contraction is modulated along the orbit, so the slope is read
      stroboscopically, from log(1 − r) interpolated at t_last − jP, j = 0 … k, over the k ≥ 2 whole periods the
      tight samples span (a Floquet exponent is the growth per period).

    Settled only: NaN when the slopes of the first and the second half of the fit differ by more than
    :data:`SLOPE_RTOL` of the whole fit's (still drifting: a transient's, not the limit's), with fewer than
    ``min_samples`` samples in the fit (a cluster tight to rounding before the samples begin, or never tight), or
    with fewer than two periods or eight samples per period."""
    t = np.asarray(t, dtype=float)
    r = np.asarray(r, dtype=float)
    if t.shape != r.shape or t.ndim != 1:
        raise ValueError(f"t, r: equal 1-D shapes, got {t.shape} and {r.shape}")
    gap = 1.0 - r
    idx = np.flatnonzero((gap > floor) & (gap < tight) & np.isfinite(gap))
    if period is None or not np.isfinite(period):
        idx = idx[len(idx) // 2:]  # the later half: the slowest mode dominates
        if len(idx) < min_samples or np.ptp(t[idx]) <= 0:
            return float("nan")
        return _settled_slope(t[idx], np.log(gap[idx]), SLOPE_RTOL) / 2
    P = abs(float(period))
    if len(idx) < min_samples or not P > 0:
        return float("nan")
    ts, lg = t[idx], np.log(gap[idx])
    k = int(np.floor((ts[-1] - ts[0]) / P))
    if k < 2 or len(idx) < 8 * k:
        return float("nan")
    strobe = ts[-1] - P * np.arange(k, -1, -1)
    return _settled_slope(strobe, np.interp(strobe, ts, lg), SLOPE_RTOL) / 2


#: the regimes whose runs end in clusters (r → 1), the only ones with a differential exponent
CLUSTERED = ("cluster_converge", "cluster_rotate")

#: the horizon of :func:`cluster_state_exponent`, in units of τ: transient, measured time, RK4 step; and for rotating
#: clusters at least ``turns`` periods (a partial turn biases the orbit average by up to the modulation / turns)
STATE_EXPONENT_TIMES = {"t_transient": 5.0, "t_measure": 50.0, "dt": 0.1, "turns": 20}


def cluster_centre(model: str, X) -> np.ndarray | None:
    """The point (d,) a clustered state X (n, d) collapses to, or None when the theory of the module does not apply:
    the normalised mean token of a single cluster; for LSA also the leading axis of an antipodal pair (LSA is odd in
    every token, h(βa)·V x_j unchanged by x_j → −x_j, so a pair moves and tightens as one cluster); None for a USA
    pair and for an unclustered state."""
    from ..observers import cluster_shape, leading_axis

    _kernel(model)
    X = np.asarray(X, dtype=float)
    shape = cluster_shape(X)
    if shape == "single":
        m = X.mean(axis=0)
        return m / np.linalg.norm(m)
    if shape == "antipodal_pair" and model == "lsa":
        return leading_axis(X)
    return None


def cluster_state_exponent(model: str, X, p: Attention, tau: float, period: float | None = None,
                           times: dict | None = None) -> float:
    """λ_diff (1 / time) of the cluster a clustered state X (n, d) forms (:func:`cluster_centre`), by
    :func:`differential_exponent` from its centre with :data:`STATE_EXPONENT_TIMES` (in units of ``tau``; measured
    over at least ``turns`` × ``period`` for a rotating cluster of that period, in the units of time); NaN where
    :func:`cluster_centre` is None or the state is not tight (1 − r ≥ :data:`R_TIGHT`)."""
    x = cluster_centre(model, X)
    if x is None or 1.0 - float(order_parameter_r(np.asarray(X, dtype=float))) >= R_TIGHT:
        return float("nan")  # no single cluster, or not yet tight: the linearisation does not describe it
    ts = {**STATE_EXPONENT_TIMES, **(times or {})}
    t_measure = ts["t_measure"] * tau
    if period is not None and np.isfinite(period):
        t_measure = max(t_measure, ts["turns"] * abs(float(period)))
    return differential_exponent(model, x, p, t_transient=ts["t_transient"] * tau, t_measure=t_measure,
                                 dt=ts["dt"] * tau)


def _rotation_period(regime: str, period):
    """The period a run's exponents are read over: its rotation period for rotating clusters, None otherwise."""
    return period if regime == "cluster_rotate" else None


def run_contraction_exponent(regime: str, t, r, period) -> float:
    """:func:`contraction_exponent` of a decided run's r(t) at times t (stroboscopic at ``period``, in the units of
    t, for rotating clusters); NaN for a regime not in :data:`CLUSTERED`."""
    if regime not in CLUSTERED:
        return float("nan")
    return contraction_exponent(t, r, _rotation_period(regime, period))


def run_state_exponent(model: str, regime: str, X, p: Attention, tau: float, period) -> float:
    """:func:`cluster_state_exponent` of a decided run's final tokens X (``period`` in the units of time, used for
    rotating clusters); NaN for a regime not in :data:`CLUSTERED`."""
    if regime not in CLUSTERED:
        return float("nan")
    return cluster_state_exponent(model, X, p, tau, _rotation_period(regime, period))
