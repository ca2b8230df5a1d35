"""The one decision procedure shared by every OA, WS and token run (single-point and batch APIs, CLI,
pipeline), driving any :class:`lsadyn.runs.Run` (the protocol ``advance(idx, times) -> samples``): integrate,
classify, and while undecided **continue from where the run stopped** with a
longer horizon, until the classifier decides or the budget runs out.

Time is the rescaled s = t/τ of each point (so one grid serves a batch). With base horizon ``S`` and
``n_samples`` samples, the grid is ``s_j = j·Δ``, Δ = S/(n_samples − 1). The horizon multiples tried
(:func:`horizon_factors`) are first the **early checkpoints** 1/8, 1/4, 1/2 (:data:`EARLY_CHECKPOINTS`), then
1, 2, 4, … (doubling) and finally ``budget`` itself: a run that is stationary and decided early stops there
(a decided run stops when decided), one that is not continues. At multiple f the run has reached ``f·S`` and the
classifier reads the last ``window`` fraction of the grid up to there — exactly the samples
:func:`lsadyn.regimes.classify.classify_r2_trajectory` would read from a run of horizon f·S with
f·(n_samples − 1) + 1 samples (same resolution), so a run decided at f gives the result of the plain
fixed-horizon run of horizon f·S (at f = 1: the plain run of the horizon asked for). A checkpoint whose window
holds fewer samples than the classifier needs (16) is "too few samples", i.e. it continues. The classifier only
labels a stationary window (:mod:`lsadyn.regimes.classify`, "Stationarity"), so stopping early does not label a
transient that a longer window would show drifting; the price of the checkpoints is the classification of their
windows (a few % of a run), as the windows of successive multiples do not overlap the integration. Only those
window samples are observed (requested from the integrator); the window of the next multiple either starts after
the current end or inside the current window, so nothing is integrated twice.

A run still undecided at the budget keeps the label ``undetermined`` and the classifier's reason, which names the
drift measured in its last window (e.g. "|R2| still rising, 2.0e-04 per τ").

A point counts as undecided when its label is ``undetermined`` or a rotation has fewer than two whole
turns in the window (``details['rate_from_turns'] is False``: the rate is then a plain average)
(:func:`is_undecided`).
Every result records ``details['t_decide']`` (physical time, τ·f·S, at which it was decided, or at which
the budget ran out) and ``details['budget_factor']`` (the multiple f used).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .classify import RegimeResult, RegimeTolerances

if TYPE_CHECKING:
    from ..runs import Run

#: Default budget: undecided runs continue up to this multiple of the base horizon.
DEFAULT_BUDGET = 16
#: With a ``progress`` callback, the integration up to a window is split into this many pieces.
PROGRESS_PIECES = 8


#: Horizon fractions checked before the base horizon (the first multiple of :func:`horizon_factors`).
EARLY_CHECKPOINTS = (0.125, 0.25, 0.5)


def horizon_factors(budget: float, early: Sequence[float] = EARLY_CHECKPOINTS) -> list[float]:
    """Horizon multiples tried: the ``early`` fractions (ascending, in (0, 1)), then 1, 2, 4, … below ``budget``,
    then ``budget`` (≥ 1)."""
    budget = float(budget)
    if not np.isfinite(budget) or budget < 1:
        raise ValueError(f"budget: must be a finite number >= 1, got {budget!r}")
    early = [float(e) for e in early]
    if any(not 0 < e < 1 for e in early) or early != sorted(set(early)):
        raise ValueError(f"early: checkpoints must be ascending fractions in (0, 1), got {early!r}")
    out = [1.0]
    while out[-1] * 2 < budget:
        out.append(out[-1] * 2)
    if out[-1] < budget:
        out.append(budget)
    return early + out


def is_undecided(res) -> bool:
    """Continue this run? (label ``undetermined``, a rotation rate from fewer than two whole turns, or a
    part of the run flagged ``details['undecided_part']``, e.g. OA's extra start from the tokens' R₂(0)); never when
    ``details['stop']`` is set (:mod:`lsadyn.regimes.tokens`: the budget is too short to certify it)."""
    if res.details.get("stop"):  # a certifier found that continuing to the budget cannot decide it
        return False
    return (res.regime == "undetermined" or res.details.get("rate_from_turns") is False
            or bool(res.details.get("undecided_part", False)))


def window_tolerances(tol: RegimeTolerances | None) -> RegimeTolerances:
    """The tolerances to classify an already-cut window (every sample read)."""
    return replace(tol or RegimeTolerances(), window=1.0)


def decide(run: Run, n_points: int, horizon: float, n_samples: int, budget: float,
           classify: Callable[[int, np.ndarray, np.ndarray], RegimeResult], tau: float | Sequence[float] | np.ndarray,
           *, window: float = 0.3, progress: Callable[[float], None] | None = None,
           early: Sequence[float] = EARLY_CHECKPOINTS) -> list[RegimeResult]:
    """Run the decision procedure on ``n_points`` points of ``run``.

    ``run``: a :class:`lsadyn.runs.Run`: ``run.advance(idx, times) -> samples`` integrates the points ``idx``
    (int array) from where they stopped to ``times[-1]`` and returns their observations at ``times`` (ascending,
    rescaled time), an array of shape (len(idx), len(times), ...). ``classify(i, s, samples_i) -> RegimeResult``
    reads one
    point's window (``s`` (m,), ``samples_i`` (m, ...)) and returns rates/periods in physical time.
    ``tau`` (n_points,): time scales (physical t = τ s). ``progress``: optional callable(fraction_done),
    fraction = horizon multiple reached / budget, and 1.0 once every point is decided. Runs whose points step
    independently (``run.independent_points``, the compiled ones) are advanced in groups of points between
    reports (results unchanged); a single run is advanced in time pieces (its step sequence is then cut at
    the piece ends: results may differ at the integrator's tolerance); other batches report per multiple.
    ``early``: the checkpoints before the base horizon (:data:`EARLY_CHECKPOINTS`; ``()``: first check at 1).
    """
    n_samples = int(n_samples)
    ds = float(horizon) / (n_samples - 1)
    tau = np.broadcast_to(np.asarray(tau, dtype=float), (n_points,))
    factors = horizon_factors(budget, early)
    s_max = ds * (n_samples - 1) * factors[-1]
    results: list = [None] * n_points
    pending = np.arange(n_points)
    buf = None
    prev_j0 = prev_j1 = -1
    for stage, f in enumerate(factors):
        j1 = round((n_samples - 1) * f)
        j0 = int(np.floor((1 - window) * (j1 + 1)))
        first_new = max(j0, prev_j1 + 1)
        s_new = ds * np.arange(first_new, j1 + 1)
        f_prev = factors[stage - 1] if stage else 0.0
        if progress is not None and pending.size > 1 and getattr(run, "independent_points", False):
            # points stepped independently: advance them in groups, reporting after each (same results)
            parts = np.array_split(np.arange(pending.size), min(PROGRESS_PIECES, pending.size))
            chunks = []
            for done, part in enumerate(parts, start=1):
                chunks.append(np.asarray(run.advance(pending[part], s_new)))
                progress(min(1.0, (f_prev + (f - f_prev) * done / len(parts)) / factors[-1]))
            new = np.concatenate(chunks, axis=0)
        else:
            if progress is not None and pending.size == 1:  # one run: report while integrating up to the window
                s_from = ds * max(prev_j1, 0)
                for piece in np.linspace(s_from, s_new[0], PROGRESS_PIECES + 1)[1:-1]:
                    run.advance(pending, np.array([piece]))
                    progress(min(1.0, piece / s_max))
            new = np.asarray(run.advance(pending, s_new))
        if buf is not None and first_new > j0:
            win = np.concatenate([buf[:, j0 - prev_j0:], new], axis=1)
        else:
            win = new
        s_win = ds * np.arange(j0, j1 + 1)
        last = stage == len(factors) - 1
        keep = []
        for row, i in enumerate(pending):
            res = classify(int(i), s_win, win[row])
            res.details["t_decide"] = float(s_win[-1] * tau[i])
            res.details["budget_factor"] = float(f)
            results[i] = res
            if not last and is_undecided(res):
                keep.append(row)
        pending = pending[keep]
        buf = win[keep]
        prev_j0, prev_j1 = j0, j1
        if progress is not None:
            progress(1.0 if pending.size == 0 or last else f / factors[-1])
        if pending.size == 0:
            break
    return results
