r"""Regime classification from a trajectory of :math:`R_2(t)` (docs/theory.md §3).

Only the final window (the last ``window`` fraction of the samples) is read. With
:math:`\Delta_{|R|}` = max − min of :math:`|R_2|` there and :math:`\Delta\varphi` the change of the
unwrapped :math:`\arg R_2` across it:

======================  ==================================================================
``cluster_converge``    Δ|R| ≤ ``tol_abs``, 1 − |R₂| ≤ ``tol_cluster``, |Δφ| ≤ ``tol_angle``
``cluster_rotate``      Δ|R| ≤ ``tol_abs``, 1 − |R₂| ≤ ``tol_cluster``, |Δφ| ≥ ``min_turn``
``interior_converge``   Δ|R| ≤ ``tol_abs``, 1 − |R₂| > ``tol_cluster``, |Δφ| ≤ ``tol_angle``, and
                        stationary (below): no trend, the change of |R₂| across the window
                        ≤ ``tol_trend`` · (1 − |R₂|) and between the means of its halves ≤ the smaller of
                        that and ``tol_interior`` (a slow, e.g. algebraic, approach to |R₂| = 1 is *not* an
                        interior state, nor is a slow exponential approach still more than ~tol_interior
                        from its limit), the spread of the second half not above (1 + ``tol_stationary``)
                        × the first's (+ tol_abs/1000, the integrator's noise);
                        or |R₂| ≤ ``tol_zero`` (default ``tol_abs``), where arg R₂ is undefined, and the
                        mean of the second half not above (1 + ``tol_stationary``) × the first's
``oscillate``           |R₂| − mean crosses zero upwards ≥ 3 times (2 periods), the per-cycle amplitude
                        has no decaying trend (log-linear fit: factor across the window ≥ 1 − ``tol_decay``,
                        or the fit explains < 50 % of the variation, e.g. beating), and the oscillation
                        is stationary (below); or an interior state (|R₂| constant < 1 − tol_cluster)
                        rotating with |Δφ| ≥ ``min_turn``, stationary as ``interior_converge``
``undetermined``        anything else: still drifting, decaying oscillation, not stationary, too short
======================  ==================================================================

**Stationarity** (a label is a statement about t → ∞, so a window holding a slow approach is not labelled).
An oscillation's window is cut into its whole cycles (between upward crossings of the mean; ≥ 2, else the window
is too short); each cycle gives its period, mean and peak-to-trough amplitude of |R₂|. A waveform may repeat
only every second cycle (two humps per period, e.g. the beating of tokens off the OA manifold), so each cycle is
compared with the k-th next, k ∈ {1, 2} whichever matches better, and the change between the window's halves
is the mean over the second half's whole patterns (k cycles each) minus that over the first half's (averaged,
so an irregular but persistent oscillation is not judged by the noise of its end cycles). With Ā the mean amplitude and P̄ the
mean period, the oscillation is stationary when that change of the mean |R₂| is ≤ ``tol_stationary`` · Ā, of
the amplitude ≤ ``tol_stationary`` · Ā, of the period ≤ ``tol_period`` · P̄ and (k = 1, ≥ 3 cycles) the periods
do not move monotonically by more than ``tol_period``/4 · P̄ across the window (the slow approach to a limit
cycle). (The change between halves is the trend measure: a least-squares slope over the window would also flag the
slow envelope of a quasi-periodic, beating oscillation, which is persistent.) A window that is not stationary is
``undetermined`` with ``details['reason']`` naming the drift measured, e.g. "|R2| still rising, 2e-04 per τ"
(the least-squares slope of the cycle means; per unit of ``t`` as given, ``unit``), and ``details['drift_rate']``.
A converging cluster (``cluster_converge``) must also not be accelerating along the circle: the phase
change over the window's second half ≤ that over its first half (or the whole |Δφ| ≤ ``tol_angle``/10,
numerical noise), which a window at a saddle-node's ghost, past its slowest point, fails.
A cluster's window must not be leaving the circle: the mean of 1 − |R₂| over its second half ≤ (1 +
``tol_stationary``) × that over its first half (+ ``tol_cluster``/1000). Clusters otherwise keep their rules (Δ|R| ≤ ``tol_abs``
or the trend fit below, whose extrapolated limit must lie within ``tol_cluster`` of 1 on either side: a limit
past 1 is the fit of a transient rise).

Algebraic approach to clusters (1 − |R₂| ~ c/t, e.g. on the det A = 0 or λ_max(V) = 0 boundaries) is
decided by a trend fit instead of being left undetermined (:func:`algebraic_cluster_fit`): where |R₂| is
still rising monotonically, already ≥ 1 − ``tol_fit_near`` and 1 − |R₂| fits a + b/t (and a power law
t^p with p ≤ −``min_power``) with a relative residual ≤ ``tol_fit``, the extrapolated limit 1 − a is
taken; if a ≤ ``tol_cluster`` the label is ``cluster_converge`` (|Δφ| ≤ ``tol_angle``) or
``cluster_rotate`` (|Δφ| ≥ ``min_turn``), with ``details['approach'] = 'algebraic'``; ``abs_R2`` is then
the extrapolated limit min(1, 1 − a) (also ``details['extrapolated_abs_R2']``, unclipped) and the last
value read is ``details['abs_R2_last']``.

Limit values: ``abs_R2`` = final |R₂| (r*), ``arg_R2_rate`` = Δφ / window length (for a rotation:
2π × whole turns / their duration, exact for a non-uniform periodic rotation; with fewer than
two whole turns in the window the plain average is used and ``details['rate_from_turns']`` is False),
``period`` = oscillation period (mean spacing of upward zero crossings) or, for rotation,
2π / |rate| (the period of R₂; tokens repeat after twice that); NaN where not applicable.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

import numpy as np

#: The regime labels, statements about t → ∞ (docs/theory.md §3); ``undetermined`` when no attractor was certified.
LABELS = ("cluster_converge", "cluster_rotate", "oscillate", "interior_converge", "undetermined")


@dataclass(frozen=True)
class RegimeTolerances:
    """Tolerances of :func:`classify_r2_trajectory` (see the module table)."""

    window: float = 0.3
    tol_abs: float = 1e-3
    tol_cluster: float = 1e-3
    tol_angle: float = 1e-2
    min_turn: float = np.pi
    tol_decay: float = 0.1
    tol_trend: float = 0.05
    tol_zero: float | None = None  # |R2| below this: arg undefined, interior state (default: tol_abs)
    tol_fit: float = 0.02  # relative residual of the algebraic trend fit
    tol_fit_near: float = 0.1  # the trend fit is tried only where 1 - |R2| <= this
    min_power: float = 0.3  # ... and where 1 - |R2| decays at least like t^-min_power
    #: stationarity of an oscillation: the window halves' mean |R2| and amplitude agree within this fraction of
    #: the amplitude (interior states: the second half's spread within 1 + this of the first's)
    tol_stationary: float = 0.1
    tol_period: float = 0.02  # ... and their periods within this fraction of the period
    tol_interior: float = 1e-4  # interior states: the means of |R2| over the window's halves differ by at most this


@dataclass
class RegimeResult:
    """A regime label and the limit values of the trajectory it was read from."""

    regime: str
    abs_R2: float
    arg_R2_rate: float
    period: float
    method: str = ""
    details: dict = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """True when the label comes with a checked attractor (``details['certified']``, set by
        :mod:`lsadyn.regimes.certify` and :mod:`lsadyn.regimes.tokens`); False for the window rule and for
        ``undetermined``."""
        return bool(self.details.get("certified", False))

    def as_dict(self) -> dict:
        out = asdict(self)
        out.update(out.pop("details"))
        return out


def _zero_crossings(t, x):
    idx = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]  # upward crossings only
    # linear interpolation of the crossing times
    return t[idx] - x[idx] * (t[idx + 1] - t[idx]) / (x[idx + 1] - x[idx])


def _turn_rate(t, phi, fallback):
    """Mean rate of a (possibly non-uniform) rotation from whole turns: the times at which the
    unwrapped phase crosses phi[0] + 2πk, interpolated. Returns (rate, exact); (``fallback``, False)
    if the window holds fewer than two such crossings."""
    k = np.floor((phi - phi[0]) / (2 * np.pi) * np.sign(phi[-1] - phi[0]))
    idx = np.nonzero(np.diff(k) != 0)[0]
    if idx.size < 2:
        return fallback, False
    target = phi[0] + 2 * np.pi * np.sign(phi[-1] - phi[0]) * k[idx + 1]
    frac = (target - phi[idx]) / (phi[idx + 1] - phi[idx])
    times = t[idx] + frac * (t[idx + 1] - t[idx])
    return float((target[-1] - target[0]) / (times[-1] - times[0])), True


def algebraic_cluster_fit(t, mod, tol: RegimeTolerances):
    """Trend fit of a monotone approach of ``mod`` = |R₂| (window samples at times ``t`` > 0) to 1.

    Fits y = 1 − |R₂| against 1/t (y ≈ a + b/t) and log y against log t (y ≈ c t^p). Returns the
    extrapolated limit 1 − a if |R₂| is non-decreasing, 1 − |R₂| ≤ ``tol_fit_near``, b > 0,
    p ≤ −``min_power`` and both fits leave relative residuals ≤ ``tol_fit``; else None.
    """
    y = 1.0 - np.asarray(mod, dtype=float)
    t = np.asarray(t, dtype=float)
    if t[0] <= 0 or np.any(y <= 0) or y[-1] > tol.tol_fit_near:
        return None
    if np.any(np.diff(y) > 1e-12 * max(1.0, y.max())):  # must be monotone (|R2| rising)
        return None
    span = y[0] - y[-1]
    if span <= 0:
        return None
    x = 1.0 / t
    b, a = np.polyfit(x, y, 1)
    if b <= 0 or np.sqrt(np.mean((a + b * x - y) ** 2)) > tol.tol_fit * span:
        return None
    p, c = np.polyfit(np.log(t), np.log(y), 1)
    if p > -tol.min_power or np.sqrt(np.mean((c + p * np.log(t) - np.log(y)) ** 2)) > tol.tol_fit:
        return None
    return 1.0 - a


def _decaying(t, mod, crossings, tol_decay) -> bool:
    """Is the oscillation of |R₂| decaying? Peak-to-trough amplitude per cycle (between upward zero
    crossings), log-amplitude fitted linearly in time: decaying when the fitted factor across the window is
    below 1 − ``tol_decay`` and the fit explains the amplitudes (r² ≥ 0.5). An amplitude that beats
    (quasi-periodic motion, e.g. tokens off the OA manifold) has no such trend and is not decaying."""
    amps, mids = [], []
    for a, b in itertools.pairwise(crossings):
        sel = (t >= a) & (t <= b)
        if sel.sum() >= 2:
            amps.append(np.ptp(mod[sel]))
            mids.append(0.5 * (a + b))
    amps, mids = np.asarray(amps), np.asarray(mids)
    if amps.size < 2 or np.any(amps <= 0):
        return True
    slope, icpt = np.polyfit(mids, np.log(amps), 1)
    if np.exp(slope * (t[-1] - t[0])) >= 1 - tol_decay:
        return False
    if amps.size == 2:
        return True
    resid = np.log(amps) - (icpt + slope * mids)
    r2 = 1 - np.sum(resid**2) / max(np.sum((np.log(amps) - np.log(amps).mean()) ** 2), 1e-300)
    return r2 >= 0.5


def _cycles(t, mod, crossings):
    """Whole cycles between consecutive upward crossings: rows (mid time, period, mean, peak-to-trough amplitude)."""
    rows = []
    for a, b in itertools.pairwise(crossings):
        sel = (t >= a) & (t < b)
        if sel.sum() >= 2:
            rows.append((0.5 * (a + b), b - a, float(mod[sel].mean()), float(np.ptp(mod[sel]))))
    return np.asarray(rows, dtype=float).reshape(-1, 4)


def _rising(rate: float) -> str:
    return "rising" if rate > 0 else "falling"


def oscillation_drift(t, mod, crossings, tol: RegimeTolerances, unit: str = "unit time"):
    """Stationarity of an oscillating window (module doc): None when stationary, else (reason, details) with the
    drift measured. ``t`` (m,), ``mod`` = |R₂| (m,), ``crossings``: its upward mean crossings."""
    cyc = _cycles(t, mod, crossings)
    K = len(cyc)
    if K < 2:
        return "too few whole cycles to test stationarity (< 2)", {"cycles": K}
    amp = float(cyc[:, 3].mean())
    per = float(cyc[:, 1].mean())
    length = float(t[-1] - t[0])
    scale = np.array([per, amp, amp])

    def mismatch(k):  # how far cycle i + k is from cycle i (period, mean, amplitude), in units of P̄, Ā, Ā
        return float(np.mean(np.abs(cyc[k:, 1:] - cyc[:-k, 1:]) / scale))

    k = min((k for k in (1, 2) if K > k), key=mismatch)  # 2: a waveform with two humps per period (beating)
    # the change between the window's halves: the second half's whole patterns (k cycles each) against the
    # first half's, averaged over each half (a telescoping cycle-to-cycle mean would read only the end cycles,
    # so an irregular but persistent oscillation would fail by the noise of two cycles)
    m = (K // k) * k  # whole patterns only
    half = (m // k) // 2 * k
    if half >= k:
        d_per, d_mean, d_amp = cyc[m - half:m, 1:].mean(axis=0) - cyc[:half, 1:].mean(axis=0)
    else:  # one pattern only: the cycle-to-cycle change
        d_per, d_mean, d_amp = np.mean(cyc[k:, 1:] - cyc[:-k, 1:], axis=0) * (K / k) / 2
    mean_rate = float(np.polyfit(cyc[:, 0], cyc[:, 2], 1)[0]) if K > 2 else float(d_mean / (length / 2))
    amp_rate = float(np.polyfit(cyc[:, 0], cyc[:, 3], 1)[0]) if K > 2 else float(d_amp / (length / 2))
    details = {"drift_rate": mean_rate, "amplitude_rate": amp_rate, "half_mean_change": float(d_mean),
               "half_amplitude_change": float(d_amp), "half_period_change": float(d_per), "cycles": K,
               "cycles_per_pattern": k}
    if abs(d_mean) > tol.tol_stationary * amp:
        return f"|R2| still {_rising(mean_rate)}, {abs(mean_rate):.1e} per {unit} (oscillation not stationary)", details
    if abs(d_amp) > tol.tol_stationary * amp:
        return (f"oscillation amplitude still {'growing' if amp_rate > 0 else 'shrinking'}, "
                f"{abs(amp_rate):.1e} per {unit}"), details
    periods = cyc[:, 1]
    steps = np.diff(periods)
    monotone = k == 1 and K >= 3 and (np.all(steps > 0) or np.all(steps < 0))
    if abs(d_per) > tol.tol_period * per or (monotone and abs(periods[-1] - periods[0]) > tol.tol_period / 4 * per):
        return (f"oscillation period still {'growing' if d_per > 0 else 'shrinking'}: {periods[0]:.4g} "
                f"to {periods[-1]:.4g} across the window"), details
    return None


def interior_drift(t, mod, r_end, tol: RegimeTolerances, unit: str = "unit time"):
    """Stationarity of a near-constant interior |R₂| (module doc): None when stationary, else (reason, details)."""
    h = mod.size // 2
    a, b = mod[:h], mod[h:]
    trend = tol.tol_trend * (1.0 - r_end)
    slow = abs(mod[-1] - mod[0]) > trend or abs(b.mean() - a.mean()) > min(trend, tol.tol_interior)
    spreading = not slow and np.ptp(b) > (1 + tol.tol_stationary) * np.ptp(a) + 1e-3 * tol.tol_abs  # (floor: noise)
    if not (slow or spreading):
        return None
    rate = float(np.polyfit(t, mod, 1)[0])  # (only for the reason: a stationary window skips the fit)
    details = {"drift_rate": rate}
    if slow:
        return f"|R2| still {_rising(rate)}, {abs(rate):.1e} per {unit} (slow approach)", details
    return f"|R2| spread growing ({np.ptp(a):.2g} then {np.ptp(b):.2g} in the window's halves)", details


def _algebraic_result(tw, mod, phi, dphi, rate, r_end, tol, method):
    """A cluster decided by the trend fit, or None."""
    limit = algebraic_cluster_fit(tw, mod, tol)
    # |R2| <= 1: a limit extrapolated past 1 + tol_cluster is a fit of a transient (e.g. an early rise), not of c/t
    if limit is None or abs(1.0 - limit) > tol.tol_cluster:
        return None
    details = {"approach": "algebraic", "extrapolated_abs_R2": float(limit), "abs_R2_last": r_end}
    r_lim = float(min(1.0, limit))
    if abs(dphi) <= tol.tol_angle:
        return RegimeResult("cluster_converge", r_lim, rate, float("nan"), method, details)
    if abs(dphi) >= tol.min_turn:
        rate, exact = _turn_rate(tw, phi, rate)
        details["rate_from_turns"] = exact
        return RegimeResult("cluster_rotate", r_lim, rate, 2 * np.pi / abs(rate), method, details)
    return None


def classify_r2_trajectory(t, R2, tol: RegimeTolerances | None = None, method: str = "",
                           unit: str = "unit time") -> RegimeResult:
    """Classify a trajectory ``R2`` (m,) complex sampled at times ``t`` (m,) (see module doc). ``unit``: the unit
    of ``t``, named in the drift of an undetermined window's reason (the decision procedure passes "τ")."""
    tol = tol or RegimeTolerances()
    t = np.asarray(t, dtype=float)
    R2 = np.asarray(R2, dtype=complex)
    if t.shape != R2.shape or t.ndim != 1:
        raise ValueError("R2: expected t and R2 of equal 1-D shape")
    if not np.all(np.isfinite(R2)):
        return RegimeResult("undetermined", np.nan, np.nan, np.nan, method, {"reason": "non-finite R2"})
    m = t.size
    start = int(np.floor((1 - tol.window) * m))
    if m - start < 16:
        return RegimeResult("undetermined", float(abs(R2[-1])), np.nan, np.nan, method, {"reason": "too few samples"})
    tw, Rw = t[start:], R2[start:]
    length = tw[-1] - tw[0]
    mod = np.abs(Rw)
    r_end = float(mod[-1])
    spread = float(mod.max() - mod.min())
    phi = np.unwrap(np.angle(Rw))
    dphi = float(phi[-1] - phi[0])
    rate = dphi / length if length > 0 else np.nan
    nan = float("nan")

    def undetermined(reason, details=None):
        return RegimeResult("undetermined", r_end, rate, nan, method, {"reason": reason, **(details or {})})

    if spread <= tol.tol_abs:
        if r_end <= (tol.tol_abs if tol.tol_zero is None else tol.tol_zero):
            h = mod.size // 2
            if mod[h:].mean() > (1 + tol.tol_stationary) * mod[:h].mean() + 1e-3 * tol.tol_abs:
                growth = float(np.polyfit(tw, mod, 1)[0])
                return undetermined(f"|R2| still rising from the uniform state, {growth:.1e} per {unit}",
                                    {"drift_rate": growth})
            return RegimeResult("interior_converge", r_end, 0.0, nan, method)
        clustered = 1.0 - r_end <= tol.tol_cluster
        if clustered:  # not leaving the circle: 1 - |R2| must not grow between the window's halves
            h = mod.size // 2
            gap1, gap2 = float(np.mean(1.0 - mod[:h])), float(np.mean(1.0 - mod[h:]))
            if gap2 > (1 + tol.tol_stationary) * gap1 + 1e-3 * tol.tol_cluster:  # (floor: converged)
                return undetermined(f"|R2| leaving 1 (1 - |R2| {gap1:.1e} then {gap2:.1e} in the window's halves)")
        if abs(dphi) <= tol.tol_angle:
            if clustered:
                h = phi.size // 2
                if abs(phi[-1] - phi[h]) > abs(phi[h] - phi[0]) and abs(dphi) > 0.1 * tol.tol_angle:
                    return undetermined(f"cluster phase accelerating ({phi[h] - phi[0]:.1e} then {phi[-1] - phi[h]:.1e} "
                                        "in the window's halves: a saddle-node's ghost?)")
                return RegimeResult("cluster_converge", r_end, rate, nan, method)
            drift = interior_drift(tw, mod, r_end, tol, unit)
            if drift is not None:
                return _algebraic_result(tw, mod, phi, dphi, rate, r_end, tol, method) or undetermined(*drift)
            return RegimeResult("interior_converge", r_end, rate, nan, method)
        if abs(dphi) >= tol.min_turn:
            if not clustered:
                drift = interior_drift(tw, mod, r_end, tol, unit)
                if drift is not None:
                    return undetermined(*drift)
            label = "cluster_rotate" if clustered else "oscillate"
            rate, exact = _turn_rate(tw, phi, rate)
            return RegimeResult(label, r_end, rate, 2 * np.pi / abs(rate), method, {"rate_from_turns": exact})
        return undetermined("slow phase drift")

    x = mod - mod.mean()
    crossings = _zero_crossings(tw, x)
    if crossings.size >= 3:
        half = tw.size // 2
        a2 = np.ptp(mod[half:])
        if not _decaying(tw, mod, crossings, tol.tol_decay):
            drift = oscillation_drift(tw, mod, crossings, tol, unit)
            if drift is not None:
                return undetermined(*drift)
            period = float(np.mean(np.diff(crossings)))
            return RegimeResult("oscillate", r_end, rate, period, method, {"amplitude": float(a2)})
        return undetermined("decaying oscillation")
    cluster = _algebraic_result(tw, mod, phi, dphi, rate, r_end, tol, method)
    if cluster is not None:
        return cluster
    slope = float(np.polyfit(tw, mod, 1)[0]) if length > 0 else nan
    what = "fewer than 2 periods in the window; " if crossings.size >= 2 else ""
    return undetermined(f"{what}|R2| still {_rising(slope)}, {abs(slope):.1e} per {unit}", {"drift_rate": slope})
