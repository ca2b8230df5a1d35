r"""Certified long-time labels of token runs in any d (LSA, USA, SA): find the attractor and check it.

A run observes, per sample, ``[r, a (d), |m|, ‖ẋ‖_∞]`` (:func:`lsadyn.observers.state_observer`): the order
parameter r, the leading axis a of M, the first harmonic |m| = |mean token| and the largest token speed. At a
checkpoint :meth:`TokenCertifier.check` reads the window (t (k,), samples (k, d + 3)) and the tokens X (n, d) at its
end, and labels the run only when one of these holds:

=========================  ============================================================================================
attractor (``kind``)       check
=========================  ============================================================================================
cluster at rest            1 − r < :data:`~lsadyn.exponents.cluster.R_TIGHT`; Newton on the centre flow
(``cluster_rest``)         (:func:`.centre.rest_point`) from the cluster's centre finds a sink (every tangent Re λ < 0),
                           whose Lyapunov function decreases on sampled shells through the centre; the differential
                           exponent λ_diff = −h(βa)v < 0, and the measured contraction of 1 − r
                           (:func:`~lsadyn.exponents.cluster.contraction_exponent`, settled over the window) equals it
                           within :data:`EXPONENT_RTOL`, or 1 − r is at rounding (≤ :data:`GAP_FLOOR`)
                           (``cluster_converge``).
rotating cluster           1 − r small as above; shooting (:func:`.centre.closed_orbit`) from the centre with the
(``cluster_cycle``)        window's turn time finds a closed orbit whose non-trivial multipliers are < 1 and which
                           passes within 1 % of (1 − μ) of the centre; its differential exponent (over one period) < 0
                           and the stroboscopic contraction of 1 − r equals it, or 1 − r is at rounding
                           (``cluster_rotate``).
equilibrium                the token speed decays exponentially over ≥ :data:`MIN_EFOLDS` e-folds at a settled rate
(``equilibrium``)          (both halves' slopes within :data:`SLOPE_RTOL`), or down to rounding: the state converges
                           (``interior_converge``, or ``cluster_converge`` when 1 − r ≤ 10⁻³).
cycle (``return_cycle``)   the peaks of r (a return map of r) converge geometrically, multiplier ρ ∈ (0, 0.98) settled
                           over ≥ 4 ratios, to a cycle of nonzero amplitude (``oscillate``).
=========================  ============================================================================================

Otherwise the run is not labelled, and the reason names what was found. Two findings end a run early, as
``undetermined``, because continuing to the budget cannot change the answer: a return map that converges so slowly
(ρ near 1) that reaching 10⁻⁶ would take past the budget, and — for USA, whose neutral oscillation exists only at
the antipodally symmetric mean field — a neutral return map with a growing first harmonic whose projected exit
(|m| ≈ 1/2) lies past the budget: a *metastable* oscillation, with its growth rate. A metastable oscillation that
exits within the budget ends in whatever attractor it reaches, certified there.

A third finding ends a softmax run (SA, USA) early: *hard attention for ever*. When the tokens fall into tight
groups (within :data:`HARD_TIGHT`) and every token's weights on the other groups sum to below e^-36 ≈ 2·10⁻¹⁶ of
its weight on its own (β(⟨x_k, A x_k⟩ − ⟨x_k, A x_j⟩) ≥ :data:`HARD_MARGIN` + ln n), each group moves alone,
ẋ = P⊥(V x), to rounding. If moreover V = cI + S with S skew, c ≥ 0 and S A = A S, that flow is x ↦ e^{tS} x (c ≥ 0 only pulls a
group's members together), which keeps every logit between groups: the weights stay one-hot, and the groups rotate
rigidly at the rates of S, for ever, never interacting. No single attractor exists to certify; the reason says so.
"""

from __future__ import annotations

import numpy as np

from ..exponents.cluster import R_TIGHT, _H, cluster_centre, contraction_exponent
from ..fields.attention import Attention
from ..observers import cluster_shape, pseudo_r2
from ..reductions.kuramoto import kuramoto_coefficients
from .centre import circle_differential, circle_speed, closed_orbit, lyapunov_shells, rest_manifold, rest_point
from .certify import Certificate
from .classify import RegimeResult
from .portrait import TWO_PI, Attractor
from .ws_trap import WSTrap, ws_constants

#: relative agreement of a measured and a predicted exponent
EXPONENT_RTOL = 0.1
#: 1 − r at or below which a cluster is tight to rounding (nothing left to measure)
GAP_FLOOR = 1e-9
#: e-folds of decay a measured rate must span
MIN_EFOLDS = 3.0
#: relative agreement of the two halves' slopes of a settled rate
SLOPE_RTOL = 0.2
#: 1 − r at or below which an equilibrium counts as clustered
CLUSTERED_GAP = 1e-3
#: largest return-map multiplier read as convergence (closer to 1 is neutral or a slow drift)
MAX_RATIO = 0.98
#: the return map's remaining change below which a cycle is reached
CYCLE_TOL = 1e-6
#: softmax logit margin between groups, beyond ln n, above which the weights are one-hot to rounding: the n
#: others' weights then sum to below e^-36 = 2.3e-16 of a token's own, double precision's rounding
HARD_MARGIN = 36.0
#: distance within which tokens attending to one another move as one (a tight group)
HARD_TIGHT = 1e-6


def _doubled(X):
    """Doubled-phase points z = e^{2iθ} (n,) of d = 2 tokens X (n, 2)."""
    X = np.asarray(X, dtype=float)
    z = (X[:, 0] + 1j * X[:, 1]) ** 2
    return z / np.abs(z)


def _slope(t, y):
    """Least-squares slope of y(t), and whether the two halves' slopes agree within :data:`SLOPE_RTOL`."""
    s = np.polyfit(t, y, 1)[0]
    h = len(t) // 2
    s1, s2 = np.polyfit(t[:h + 1], y[:h + 1], 1)[0], np.polyfit(t[h:], y[h:], 1)[0]
    return float(s), bool(abs(s2 - s1) <= SLOPE_RTOL * abs(s))


def _peaks(t, x):
    """Times and values of the strict local maxima of x (k,), refined by a parabola through each peak's samples."""
    i = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:])) + 1
    if i.size == 0:
        return np.empty(0), np.empty(0)
    y0, y1, y2 = x[i - 1], x[i], x[i + 1]
    den = y0 - 2 * y1 + y2
    off = np.where(den != 0, 0.5 * (y0 - y2) / np.where(den != 0, den, 1.0), 0.0)
    dt = t[i + 1] - t[i]
    return t[i] + off * dt, y1 - 0.25 * (y0 - y2) * off


def _map_stats(xp):
    """Ratio statistics of one peak sequence xp (k,): (ratio, settled, remaining, limit, change)."""
    dx = np.diff(xp)
    change = float(np.max(np.abs(dx[-min(dx.size, 6):]))) if dx.size else float("nan")
    big = np.abs(dx) > 1e-12
    ratios = dx[1:] / np.where(big[:-1], dx[:-1], 1.0)
    ratios = ratios[big[:-1] & big[1:]][-6:]
    rho, settled, remaining, limit = float("nan"), False, float("nan"), float(xp[-1])
    if ratios.size >= 4:
        rho = float(np.median(ratios))
        settled = bool(np.all(np.abs(ratios - rho) <= 0.15))
        if 0 < rho < 1:
            remaining = float(abs(dx[-1]) * rho / (1 - rho))
            limit = float(xp[-1] + dx[-1] * rho / (1 - rho))
    return rho, settled, remaining, limit, change


def return_map(t, x, max_peaks_per_period: int = 4) -> dict:
    """The return map of a signal's peaks (see the module). A period may hold several peaks: the map is read on
    every k-th peak, k the smallest of 1 … ``max_peaks_per_period`` for which the subsequence through the last peak
    converges settled (else k = 1). Returns ``n_peaks``, ``per_period`` k, ``period`` (k × the mean spacing of the
    last peaks), ``ratio`` ρ (median of the last successive-difference ratios; NaN when < 4 are measurable),
    ``settled`` (those ratios agree within 0.15), ``limit`` (the extrapolated limit), ``remaining``
    (|Δ_last|ρ/(1 − ρ)) and ``change`` (max |Δ| over the last returns)."""
    tp, xp = _peaks(np.asarray(t, dtype=float), np.asarray(x, dtype=float))
    out = {"n_peaks": int(tp.size), "per_period": 1, "period": float("nan"), "ratio": float("nan"), "settled": False,
           "limit": float(xp[-1]) if xp.size else float("nan"), "remaining": float("nan"), "change": float("nan")}
    if tp.size < 3:
        return out
    best = None
    for k in range(1, max_peaks_per_period + 1):
        sub_t, sub_x = tp[::-1][::k][::-1], xp[::-1][::k][::-1]
        if sub_x.size < 6:
            break
        stats = _map_stats(sub_x)
        cand = (k, sub_t, stats)
        if best is None:
            best = cand
        if stats[1] and 0 < stats[0] < 1 or stats[4] <= 1e-9:
            best = cand
            break
    if best is None:
        best = (1, tp, _map_stats(xp))
    k, sub_t, (rho, settled, remaining, limit, change) = best
    out.update(per_period=k, period=float(np.mean(np.diff(sub_t[-min(sub_t.size, 6):]))), ratio=rho,
               settled=settled, remaining=remaining, limit=limit, change=change)
    return out


class TokenCertifier:
    """The checks of the module for one token system: ``model`` (``lsa``, ``usa``, ``sa``: each has its single-cluster
    theory, :mod:`lsadyn.exponents.cluster`), its parameters ``p``, ``t_end`` (the budget's end, physical time) for
    the early ends, and ``speed_floor``: the token speed the integration's own error accounts for."""

    def __init__(self, model: str, p: Attention, t_end: float = float("inf"), speed_floor: float = 0.0, X0=None,
                 gap_floor: float = GAP_FLOOR):
        self.model, self.p, self.t_end = model, p, float(t_end)
        self.d = p.d
        #: 1 − r at or below which a cluster is tight to the integration's own accuracy (the caller's rtol scale)
        self.gap_floor = max(float(gap_floor), GAP_FLOOR)
        #: d = 2 LSA: the WS trap of :mod:`.ws_trap` (its constants taken from ``X0`` when given)
        self.ws = WSTrap(p.A, p.V, p.beta) if (p.d == 2 and model == "lsa") else None
        if self.ws is not None and X0 is not None:
            try:
                self.ws.reference = ws_constants(_doubled(X0))[1]
            except ValueError:
                pass
        #: token speeds at or below this are the integrator's error, not motion (the caller's atol / τ scale)
        self.speed_floor = float(speed_floor)
        self.scale = float(np.linalg.norm(p.V, 2))

    def hard_attention(self, X) -> tuple[str, bool]:
        """(note, for ever) for a softmax model at tokens X (n, d). The tokens within :data:`HARD_TIGHT` of one
        another form groups; the softmax margin is the smallest β(⟨x_k, A x_k⟩ − ⟨x_k, A x_j⟩) between tokens of
        different groups. ``""`` unless there are several groups and that margin is positive. ``for ever`` when the
        margin is at least :data:`HARD_MARGIN` + ln n (the weights between groups are below rounding) and V = cI + S
        (S skew, c ≥ 0) with S A = A S, so the groups' rigid flow e^(tS) keeps them so (see the module)."""
        if self.model not in ("sa", "usa"):
            return "", False
        from scipy.sparse.csgraph import connected_components

        X = np.asarray(X, dtype=float)
        n = X.shape[0]
        G = X @ X.T
        tight = np.sqrt(np.maximum(2.0 - 2.0 * G, 0.0)) <= HARD_TIGHT
        groups, label = connected_components(tight, directed=False)
        if groups < 2:
            return "", False
        L = self.p.beta * ((X @ self.p.A) @ X.T)
        gap = np.diag(L)[:, None] - L
        margin = float(np.min(gap[label[:, None] != label[None, :]]))
        if not margin > 0:
            return "", False
        what = (f"{groups} groups of tokens (each within {HARD_TIGHT:g}); the closest groups' softmax weight on each "
                f"other is e^-{margin:.3g} of their own")
        V, A = self.p.V, self.p.A
        c = float(np.trace(V)) / self.d
        S = 0.5 * (V - V.T)
        tol = 1e-12 * max(self.scale, 1e-300)
        isometry = (c >= 0 and np.abs(0.5 * (V + V.T) - c * np.eye(self.d)).max() <= tol
                    and np.abs(S @ A - A @ S).max() <= tol * max(float(np.abs(A).max()), 1.0))
        if margin >= HARD_MARGIN + np.log(n) and isometry:
            rate = float(np.max(np.abs(np.linalg.eigvals(S))))
            return (f"hard attention for ever: {what}, below rounding, and V = cI + S (c = {c:.3g} >= 0, S skew "
                    f"commuting with A): each group rotates alone, rigidly (x -> e^(tS) x, rate {rate:.4g}), every "
                    f"logit between groups stays fixed, and the {groups} groups never interact: no single "
                    "attractor"), True
        return (f"softmax near its hard limit: {what}, so groups merge, if at all, on times of order "
                f"e^{margin:.3g} / |V| (metastable coarsening)"), False

    def split(self, obs):
        obs = np.asarray(obs, dtype=float)
        d = self.d
        return obs[:, 0], obs[:, 1:d + 1], obs[:, d + 1], obs[:, d + 2]

    def check(self, t, obs, X) -> tuple[Certificate | None, str, bool]:
        """(certificate or None, the reason when None, stop: end the run now as undetermined)."""
        t = np.asarray(t, dtype=float)
        r, axes, m1, speed = self.split(obs)
        notes = []
        gap = 1.0 - r[-1]
        if gap < R_TIGHT:
            cert, why = self._cluster(t, r, axes, X)
            if cert is not None:
                return cert, "", False
            notes.append(why)
        cert, why = self._equilibrium(t, r, speed)
        if cert is not None:
            return cert, "", False
        notes.append(why)
        if self.ws is not None and gap > CLUSTERED_GAP:
            cert, why = self.ws.check(float(t[-1]), _doubled(X))
            if cert is not None:
                return cert, "", False
            notes.append(why)
        cert, why, stop = self._cycle(t, r, m1)
        if cert is not None:
            return cert, "", False
        if stop:  # the reason the run ends now comes first
            notes.insert(0, why)
        else:
            notes.append(why)
        hard, for_ever = self.hard_attention(X)
        if for_ever:
            return None, "no attractor certified: " + hard, True
        notes.append(hard)
        notes = [n for n in notes if n]
        if not notes:  # none of the checks applies yet: say where the run is
            notes = [f"r = {r[-1]:.3g} (from {r[0]:.3g} over the window), token speed {speed[-1]:.2g} "
                     f"(from {speed[0]:.2g}): not clustered, not converging, not a cycle yet"]
        return None, "no attractor certified: " + "; ".join(notes), stop

    # -- clusters ------------------------------------------------------------------------------------------------
    def _cluster(self, t, r, axes, X):
        if self.model not in _H:
            return None, f"clustered (1 - r = {1 - r[-1]:.2g}), but {self.model.upper()} has no single-cluster theory here"
        x = cluster_centre(self.model, X)
        if x is None:
            return None, f"clustered as a {self.model.upper()} antipodal pair, which the single-cluster theory does not cover"
        gap = 1.0 - r[-1]
        rp = rest_point(self.model, x, self.p)
        flat = rp is not None and np.max(np.abs(rp.eigenvalues)) <= 1e-9 * self.scale
        if flat and rest_manifold(self.model, rp, x, self.p) and rp.differential < 0:
            if gap <= self.gap_floor or abs(contraction_exponent(t, r) - rp.differential) <= EXPONENT_RTOL * abs(rp.differential):
                att = Attractor("cluster_rest", "cluster_converge", exponent=0.0, rate=0.0, differential=rp.differential)
                return Certificate(att, f"the centre flow vanishes about the centre (a manifold of rest points: every "
                                        f"nearby cluster stays); differential exponent {rp.differential:.4g}",
                                   float(t[-1])), ""
        if rp is not None and not flat and rp.exponent > -1e-9 * self.scale and rp.exponent <= 0:
            return None, (f"a non-hyperbolic rest point of the centre flow (max Re lambda {rp.exponent:.2g}), which "
                          f"no check here certifies")
        if rp is not None and not flat and rp.sink:
            inside, _ = lyapunov_shells(self.model, rp, x, self.p)
            if not inside and self.d == 2:
                return self._circle_basin(t, r, x)
            if not inside:
                return None, f"a centre sink (max Re lambda {rp.exponent:.3g}) whose Lyapunov shells through the state fail"
            if self.ws is not None and abs(rp.differential) <= 1e-9 * self.scale:
                return self._algebraic(t, r, x, rp)
            if not rp.differential < 0:
                return None, f"a centre sink whose differential exponent {rp.differential:.3g} is not < 0"
            measured = contraction_exponent(t, r)
            if gap > self.gap_floor and not abs(measured - rp.differential) <= EXPONENT_RTOL * abs(rp.differential):
                return None, (f"approaching a cluster at rest: 1 - r = {gap:.2g} contracting at {measured:.3g}, "
                              f"predicted {rp.differential:.3g} (not yet settled)")
            att = Attractor("cluster_rest", "cluster_converge", exponent=rp.exponent,
                            eigenvalues=tuple(np.sort_complex(rp.eigenvalues)[-3:]), rate=0.0,
                            differential=rp.differential)
            how = "1 - r at rounding" if gap <= self.gap_floor else f"measured contraction {measured:.4g}"
            return Certificate(att, f"Newton: a sink of the centre flow (max Re lambda {rp.exponent:.4g}), Lyapunov "
                                    f"shells through the centre; differential exponent {rp.differential:.4g} ({how})",
                               float(t[-1])), ""
        if self.d == 2 and (rp is None or not rp.sink):  # Newton may have found the source behind the cluster
            cert, why = self._circle_basin(t, r, x)
            if cert is not None or why:
                return cert, why
        # rotation: the axis's turn time over the window
        phi = np.unwrap(np.angle(pseudo_r2(np.ones_like(r), axes))) / 2
        swept = abs(phi[-1] - phi[0])
        if swept < np.pi and self.d > 2:  # in d = 2 the circle's orbit is a quadrature (no turn needed to shoot)
            near = "no rest point of the centre flow near the centre" if rp is None else \
                f"a centre rest point that is not a sink (max Re lambda {rp.exponent:.3g})"
            return None, f"clustered, 1 - r = {gap:.2g}: {near}, and the axis turned {swept / np.pi:.2f} pi in the window"
        P0 = np.pi * (t[-1] - t[0]) / max(swept, 1e-300)
        co = closed_orbit(self.model, x, P0, self.p)
        if co is None:
            return None, f"clustered, the axis turning (period ~{P0:.4g}), but shooting found no closed centre orbit"
        mu = co.multiplier
        if np.isfinite(mu):
            dist = min(np.linalg.norm(x - co.x), np.linalg.norm(x + co.x))
            if not (mu < 1 and dist <= 0.01 * (1 - mu)):
                return None, (f"a closed centre orbit (period {co.period:.4g}, multiplier {mu:.3g}) at {dist:.2g} from "
                              f"the centre: not yet inside its checked neighbourhood")
        lam = co.differential
        if not lam < 0:
            return None, f"a closed centre orbit whose differential exponent {lam:.3g} is not < 0"
        measured = contraction_exponent(t, r, co.period)
        if gap > self.gap_floor and not abs(measured - lam) <= EXPONENT_RTOL * abs(lam):
            return None, (f"approaching rotating clusters: 1 - r = {gap:.2g} contracting at {measured:.3g} per "
                          f"period, predicted {lam:.3g} (not yet settled)")
        if self.d > 2:
            sense = 1.0
        else:  # the direction of the circle's flow at the centre (R2 turns with it)
            sense = float(np.sign(circle_speed(self.model, float(np.arctan2(x[1], x[0])), self.p)))
        att = Attractor("cluster_cycle", "cluster_rotate", exponent=lam, multiplier=mu, period=co.period,
                        rate=sense * TWO_PI / co.period, differential=lam)
        how = "1 - r at rounding" if gap <= self.gap_floor else f"measured contraction {measured:.4g}"
        extra = f", multiplier {mu:.4g}" if np.isfinite(mu) else " (the circle)"
        how_found = "shooting" if self.d > 2 else "quadrature"
        return Certificate(att, f"{how_found}: a closed centre orbit, period {co.period:.6g}{extra}; differential "
                                f"exponent {lam:.4g} ({how})", float(t[-1])), ""

    def _circle_basin(self, t, r, x):
        """d = 2: the centre flow is θ̇ = s(θ) on the circle (modulo π for LSA, whose flow is odd). From the centre θ_c
        the flow moves monotonically, in the direction of s(θ_c), to the first zero θ* of s ahead (found on a grid
        of 2001 points per period and refined by bisection), which is then a sink, or rotates for ever when s has no
        zero. The cluster converges to θ* and stays tight on the way when the differential exponent ⟨t, D(x) t⟩ is
        < 0 at every sample of the arc and at θ*. Returns (certificate or None, why); (None, '') when s has no zero
        (a rotation: the caller's shooting decides)."""
        from scipy.optimize import brentq

        period = np.pi if self.model == "lsa" else TWO_PI
        th_c = float(np.arctan2(x[1], x[0]))

        def speed(th):
            return circle_speed(self.model, th, self.p)

        sc = speed(th_c)
        if sc == 0:
            return None, "a cluster at a rest point of the centre flow"
        sign = 1.0 if sc > 0 else -1.0
        grid = th_c + sign * np.linspace(0.0, period, 2001)
        vals = np.array([sign * speed(g) for g in grid])
        stop = np.flatnonzero(vals <= 0)
        if stop.size == 0:
            return None, ""
        j = int(stop[0])
        th_s = brentq(speed, min(grid[j - 1], grid[j]), max(grid[j - 1], grid[j]), xtol=1e-14)
        h = 1e-6
        slope = (speed(th_s + h) - speed(th_s - h)) / (2 * h)
        if not slope < -1e-9 * self.scale:
            return None, (f"the centre flows to a rest point of the circle at {th_s:.4g} that is not a hyperbolic sink "
                          f"(slope {slope:.2g})")
        arc = np.concatenate([grid[:j], [th_s]])
        lam = np.array([circle_differential(self.model, a, self.p) for a in arc])
        if not np.all(lam < 0):
            return None, (f"the centre flows to the sink at {th_s:.4g}, but the differential exponent is >= 0 on the "
                          f"way (max {lam.max():.3g}): the cluster may spread")
        att = Attractor("cluster_rest", "cluster_converge", exponent=float(slope), eigenvalues=(complex(slope),),
                        rate=0.0, differential=float(lam[-1]))
        return Certificate(att, (f"the circle's centre flow: the cluster at {th_c:.4g} moves monotonically to the sink "
                                 f"{th_s:.4g} (slope {slope:.4g}; no rest point between, {j} samples), its differential "
                                 f"exponent < 0 all the way (at most {lam.max():.3g}; {lam[-1]:.4g} at the sink)"),
                           float(t[-1])), ""

    def _algebraic(self, t, r, x, rp):
        """d = 2 LSA, a centre sink with differential exponent 0 (e.g. λ_max(V) = 0): the normal form of the spread.

        With θ̇ = f(θ; R₂) = ½β(tr B(R₂) + Re(c(R₂) e^{2iθ})) (:mod:`lsadyn.reductions.kuramoto`), the cluster at θ*
        and the spread S = ⟨δ²⟩ (R₂ ≈ e^{2iθ*}(1 − 2S)), a token's deviation obeys δ̇ = g(S)δ + ½f''(δ² − S) + …
        with g(0) = 0 (the differential exponent), g(S) = g₁S and f'' = ∂²f/∂θ² at θ*. When f'' = 0,
        Ṡ = 2g₁S², so u = 1 − r ≈ 2S obeys u̇ = g₁u²: 1/u grows at the slope −g₁ (1 − r ~ 1/(|g₁| t)). Certified
        when g₁ < 0 and the measured slope of 1/(1 − r) over the window's second half is settled and equals −g₁
        within :data:`EXPONENT_RTOL`."""
        theta = float(np.arctan2(rp.x[1], rp.x[0]))  # the rest point θ*, by Newton
        e2 = np.exp(2j * theta)
        k = self.ws.pt
        c_lin = k.c[1] * e2.real + k.c[2] * e2.imag  # ∂c/∂S = −2 c_lin along R_S = e^{2iθ*}(1 − 2S)
        c0 = k.c[0] + k.c[1] * e2.real + k.c[2] * e2.imag
        f2 = float(-2 * k.beta * np.real(c0 * e2))
        g1 = float(2 * k.beta * np.imag(c_lin * e2))
        if abs(f2) > 1e-9 * self.scale:
            return None, (f"a centre sink with differential exponent 0 and curvature f'' = {f2:.3g} != 0: tokens on one "
                          f"side of the cluster leave it (no cluster sink to certify)")
        if not g1 < -1e-12 * self.scale:
            return None, f"a centre sink with differential exponent 0 and normal-form coefficient g1 = {g1:.3g} (not < 0)"
        gap = 1.0 - r
        h = len(t) // 2
        if np.count_nonzero(gap[h:] > 0) < 16:
            return None, "a degenerate cluster (differential exponent 0) at rounding: 1 - r = 0 gives no slope"
        ok = gap > 0
        tt, inv = t[ok], 1.0 / gap[ok]
        hh = len(tt) // 2
        slope, settled = _slope(tt[hh:], inv[hh:])
        want = -g1
        if not (settled and abs(slope - want) <= EXPONENT_RTOL * want):
            return None, (f"approaching a degenerate cluster (differential exponent 0): 1/(1 - r) grows at {slope:.3g}, "
                          f"the normal form predicts {want:.3g} (not yet settled)")
        att = Attractor("cluster_algebraic", "cluster_converge", exponent=0.0, rate=0.0,
                        eigenvalues=tuple(np.sort_complex(rp.eigenvalues)[-3:]), differential=0.0)
        return Certificate(att, (f"Newton: a sink of the centre flow (max Re lambda {rp.exponent:.4g}) with differential "
                                 f"exponent 0; the normal form u' = g1 u^2 (u = 1 - r, g1 = {g1:.4g}, f'' = 0) predicts "
                                 f"1/(1 - r) to grow at {want:.4g}, measured {slope:.4g}: 1 - r ~ 1/({want:.3g} t)"),
                           float(t[-1])), ""

    # -- equilibria and cycles -----------------------------------------------------------------------------------
    def _equilibrium(self, t, r, speed):
        ok = speed > 0
        if np.count_nonzero(ok) < 16:
            return None, ""
        ls = np.log(speed[ok])
        tt = t[ok]
        at_floor = speed[-1] <= max(self.speed_floor, 1e-12 * self.scale)
        span = ls.max() - ls[-1]
        if at_floor and span >= MIN_EFOLDS:
            rate, settled = float("nan"), True
        else:
            h = len(tt) // 2
            rate, settled = _slope(tt[h:], ls[h:])
            if not (rate < 0 and settled and -rate * (tt[-1] - tt[h]) >= MIN_EFOLDS):
                return None, ("" if not -rate * (tt[-1] - tt[0]) > 0.1 else
                              f"token speed {speed[-1]:.2g} decaying at {rate:.3g} (not settled over {MIN_EFOLDS:g} e-folds)")
        label = "cluster_converge" if 1 - r[-1] <= CLUSTERED_GAP else "interior_converge"
        att = Attractor("equilibrium", label, exponent=rate, rate=0.0)
        how = "down to rounding" if np.isnan(rate) else f"at a settled {rate:.4g}"
        return Certificate(att, f"the token speed decays exponentially {how} over {span:.1f} e-folds", float(t[-1])), ""

    def _cycle(self, t, r, m1):
        rm = return_map(t, r)
        if rm["n_peaks"] < 6:
            return None, "", False
        amp = float(np.ptp(r[t >= t[-1] - 2 * rm["period"]])) if np.isfinite(rm["period"]) else float(np.ptp(r))
        rho = rm["ratio"]
        if rm["settled"] and 0 < rho < MAX_RATIO and rm["remaining"] <= CYCLE_TOL and amp > 1e3 * CYCLE_TOL:
            att = Attractor("return_cycle", "oscillate", exponent=float(np.log(rho) / rm["period"]), multiplier=rho,
                            period=rm["period"])
            return Certificate(att, f"return map of r's peaks: multiplier {rho:.4g} (settled), remaining change "
                                    f"{rm['remaining']:.2g}, amplitude {amp:.3g}", float(t[-1])), "", False
        if rm["change"] <= CYCLE_TOL and amp > 1e3 * CYCLE_TOL and not (0 < rho < MAX_RATIO):
            # neutral: the peaks do not move (to 1e-6) and nothing contracts towards them
            why = f"a neutral oscillation (amplitude {amp:.3g}, period {rm['period']:.4g}; return map the identity to " \
                  f"{rm['change']:.1g}): no attractor to certify"
            if self.model == "usa":
                return None, *self._metastable(t, m1, why)
            return None, why, False
        if rm["settled"] and MAX_RATIO <= rho < 1 and np.isfinite(rm["period"]):
            turns = np.log(CYCLE_TOL / max(rm["change"], 1e-300)) / np.log(rho)
            t_need = t[-1] + turns * rm["period"]
            why = (f"the return map of r converges slowly (multiplier {rho:.4g} per period {rm['period']:.4g}, change "
                   f"{rm['change']:.2g}): reaching {CYCLE_TOL:g} needs t ~ {t_need:.3g}")
            return None, why + (", past the budget" if t_need > self.t_end else ""), bool(t_need > self.t_end)
        return None, (f"r oscillating ({rm['n_peaks']} peaks, amplitude {amp:.3g}), its return map not converging "
                      f"geometrically (ratio {rho:.3g}, change {rm['change']:.2g})"), False

    def _metastable(self, t, m1, why):
        ok = m1 > 0
        if np.count_nonzero(ok) < 16:
            return why + "; the first harmonic |m| is 0", False
        g, settled = _slope(t[ok], np.log(m1[ok]))
        if not (g > 0 and settled):
            return why + f"; the first harmonic |m| = {m1[-1]:.2g} is not growing at a settled rate ({g:.2g})", False
        t_exit = t[-1] + np.log(0.5 / m1[-1]) / g
        text = (f"metastable: {why.replace(': no attractor to certify', '')}, held only by the antipodal symmetry; the "
                f"first harmonic |m| = {m1[-1]:.2g} grows at {g:.3g} per unit time, projected exit t ~ {t_exit:.3g}")
        return text + (" (past the budget)" if t_exit > self.t_end else ""), bool(t_exit > self.t_end)


def certified_token_result(cert: Certificate | None, reason: str, stop: bool, t, r, axes, X,
                           method: str) -> RegimeResult:
    """The :class:`~lsadyn.regimes.classify.RegimeResult` of one checked token window (see
    :func:`lsadyn.regimes.certify.certified_result`); ``details['cluster_shape']`` of the tokens X at its end."""
    t = np.asarray(t, dtype=float)
    shape = cluster_shape(np.asarray(X, dtype=float))
    if cert is None:
        details = {"certified": False, "reason": reason, "cluster_shape": shape}
        if stop:
            details["stop"] = True
        return RegimeResult("undetermined", float(r[-1]), float("nan"), float("nan"), method, details)
    att = cert.attractor
    details = {"certified": True, "attractor": att.as_dict(), "checked": cert.checked, "t_certified": float(cert.t),
               "cluster_shape": shape}
    if att.kind in ("cluster_rest", "equilibrium"):
        return RegimeResult(att.regime, float(r[-1]) if att.kind == "equilibrium" else 1.0, 0.0, float("nan"), method,
                            details)
    if att.kind == "cluster_cycle":
        return RegimeResult(att.regime, 1.0, float(att.rate), float(att.period), method, details)
    phi = np.unwrap(np.angle(pseudo_r2(np.ones_like(r), axes)))
    rate = float((phi[-1] - phi[0]) / (t[-1] - t[0])) if t[-1] > t[0] else 0.0
    details["amplitude"] = float(np.ptp(r))
    return RegimeResult(att.regime, float(np.mean(r)), rate, float(att.period), method, details)


def doubled_phase_classifier(points, A, V, beta, tau, z0, s_end, rtol, atol, method):
    """The certified classify (``classify(i, s, R)`` of :func:`lsadyn.regimes.decision.decide`) of a batch of d = 2
    LSA token systems held as doubled-phase points: ``points(i)`` (n,) at the checkpoint, ``z0`` (n,) at t = 0 (the
    WS constants' reference), A, V (N, 2, 2), β and τ (N,), times s in units of τ, ``s_end`` the budget's end. One
    :class:`TokenCertifier` per system, fed r = |R₂|, the axis arg R₂ / 2 and, as the token speed, the largest speed
    of any point of the circle in the common field, (|ω(R₂)| + |H(R₂)|)/2 (an upper bound of every token's, zero
    exactly when the field vanishes)."""
    th0 = np.angle(np.asarray(z0, dtype=complex)) / 2
    X0 = np.column_stack([np.cos(th0), np.sin(th0)])
    certifiers, coeffs = {}, {}

    def classify(i, s, R):
        if i not in certifiers:
            certifiers[i] = TokenCertifier("lsa", Attention(A[i], V[i], float(beta[i])), t_end=s_end * tau[i],
                                           speed_floor=100 * atol / tau[i], X0=X0, gap_floor=10 * rtol)
            coeffs[i] = kuramoto_coefficients(A[i], V[i], float(beta[i]))  # physical time
        t = np.asarray(s, dtype=float) * tau[i]
        R = np.asarray(R, dtype=complex)
        th = np.angle(points(i)) / 2
        X = np.column_stack([np.cos(th), np.sin(th)])
        omega, H = coeffs[i].omega_H(R)
        speed = 0.5 * (np.abs(omega) + np.abs(H))
        axes = np.column_stack([np.cos(np.angle(R) / 2), np.sin(np.angle(R) / 2)])
        obs = np.column_stack([np.abs(R), axes, np.zeros(R.size), speed])
        return certified_token_result(*certifiers[i].check(t, obs, X), t, obs[:, 0], axes, X, method)

    return classify
