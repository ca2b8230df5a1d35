r"""Claims rows (C14, beyond the paper, informational) and the findings sentence of the looped stage, from
``results/tables/looped.csv`` (one row per trained model and start; :mod:`lsadyn.paper.looped.runs`).

* ``C14a-{task}-{model}``: every seed's trained model beats its task's baseline on the test set (the baselines of
  :mod:`lsadyn.looped.tasks`). For LSA on ``majority`` the statement is the derived opposite, ``C14a-majority-lsa``:
  the LSA update Σ_j⟨x_k, Ax_j⟩Vx_j/n is unchanged when any other token x_j turns into −x_j (it depends on the
  tokens through M = Σ_j x_j x_jᵀ/n only), so the read token cannot learn the other tokens' bits: its loss cannot
  go below the baseline's by more than the test set's noise (``tol``).
* ``C14b-{task}-{model}``: the flow's certified regime (A, V, β of the weight file) is the looped network's at
  ``loop_factor`` × its training depth, over the runs where both are certified (the others are counted as
  undetermined). The two labels are found independently: the flow's attractor by :mod:`lsadyn.regimes.tokens`,
  the network's on its own map by :mod:`lsadyn.looped.certify`.
* ``C14c-{task}-{model}``: where both rotate, the network's rate equals its one-cluster map's (``map_rate``) within
  ``rate_rtol``: a consistency check of the reduction (once the tokens are one point they *are* one token), not
  independent evidence. The note gives the flow's relative error beside h·|rate|, the size of the step's
  first-order effect.
  A run whose network makes less than one whole turn in the part of its run the rates are read over is not read
  (undetermined): a rate over part of a non-uniform turn is not the rotation's.
* ``C14d``: quantising the weights to b bits keeps each decided predicted regime.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rows import claim_row, counts_text, span

EVIDENCE = "results/tables/looped.csv"


#: C14c's tolerance: the network's rate against its one-cluster map's, relative
C14C_RTOL = 0.02
#: the share of the observed run over which the rates are read (lsadyn.looped.iterate_rate's window)
RATE_WINDOW = 0.5


def whole_turns(rows: pd.DataFrame) -> pd.Series:
    """Turns of arg R₂ the network makes in the part of its run the rates are read over."""
    return RATE_WINDOW * rows.t_observed * np.abs(rows.observed_rate) / (2 * np.pi)


def claim_rows(table: pd.DataFrame, tol: float = 0.02, rate_rtol: float = C14C_RTOL) -> list[dict]:
    """The C14 rows (see the module) of the looped table."""
    rows = []
    if table is None or not len(table):
        return rows
    models = table.drop_duplicates(["task", "model", "seed"])
    for (task, model), g in models.groupby(["task", "model"], sort=False):
        gain = g.baseline_loss - g.task_loss
        if task == "majority" and model == "lsa":
            ok = gain <= tol * g.baseline_loss
            stmt = ("majority (LSA): cannot beat the baseline, since the LSA update is even in every other token "
                    "(derived, beyond the paper)")
        else:
            ok = gain > tol * g.baseline_loss
            stmt = f"{task} ({model.upper()}): the trained looped layer beats the task's baseline on the test set"
        note = "; ".join(f"seed {s}: loss {a:.3g} against baseline {b:.3g}"
                         + (f" (accuracy {acc:.3f}, baseline {bacc:.3f})" if np.isfinite(acc) else "")
                         for s, a, b, acc, bacc in zip(g.seed, g.task_loss, g.baseline_loss, g.accuracy,
                                                       g.baseline_accuracy))
        rows.append(claim_row(f"C14a-{task}-{model}", stmt, f"looped-{model}", len(g), int(ok.sum()),
                              bool(ok.all()), EVIDENCE, note, informational=True))
    for (task, model), g in table.groupby(["task", "model"], sort=False):
        dec = g[g.decided]
        n_und = int((~g.decided).sum())
        agree = int(dec.agree.sum())
        note = (f"flow: {counts_text(g.predicted_regime)}; looped network at {int(g.L_observed.iloc[0])} layers "
                f"(t = {g.t_observed.iloc[0]:g}): {counts_text(g.observed_regime)}")
        if n_und:
            note += f"; {n_und} of {len(g)} runs without a certified label on one side"
        rows.append(claim_row(f"C14b-{task}-{model}", f"{task} ({model.upper()}): the flow's certified regime is the "
                              f"looped network's at {int(g.L_observed.iloc[0] // g.L.iloc[0])}x its training depth",
                              f"looped-{model}", len(g), agree, bool(len(dec) and agree == len(dec)), EVIDENCE, note,
                              informational=True, n_undetermined=n_und))
        rot = g[(g.predicted_regime == "cluster_rotate") & (g.observed_regime == "cluster_rotate")]
        if len(rot):
            err_map = np.abs(rot.observed_rate - rot.map_rate) / np.abs(rot.map_rate)
            err_flow = np.abs(rot.observed_rate - rot.predicted_rate) / np.abs(rot.predicted_rate)
            turns = whole_turns(rot)
            read = turns >= 1  # a rate over less than one whole turn of a non-uniform rotation is not the rate
            ok = read & (err_map <= rate_rtol)
            note = "; ".join(f"seed {s} {st}: network {o:.4g}, one-cluster map {m:.4g}, flow {f:.4g} (flow off by "
                             f"{100 * e:.0f} %, h·|rate| {hh * abs(f):.2g})"
                             + ("" if n >= 1 else f"; not read: {n:.2f} of a turn in the network's window")
                             for s, st, o, m, f, e, hh, n in zip(rot.seed, rot.start, rot.observed_rate, rot.map_rate,
                                                                 rot.predicted_rate, err_flow, rot.h, turns))
            rows.append(claim_row(
                f"C14c-{task}-{model}", f"{task} ({model.upper()}): the looped network turns at its one-cluster map's "
                f"rate (within {rate_rtol:g}); the flow's rate differs at O(h·rate)", f"looped-{model}", len(rot),
                int(ok.sum()), bool(ok.sum() == read.sum() and read.any()), EVIDENCE, note, informational=True,
                n_undetermined=int((~read).sum())))
    dec = table[table.predicted_regime != "undetermined"]
    if len(dec):
        kept = int((~dec.quantised_changed).sum())
        rows.append(claim_row("C14d", "quantised trained layers keep their predicted regime", "tokens", len(dec), kept,
                              kept == len(dec), EVIDENCE,
                              "; ".join(f"{t}-{m} seed {s} ({st}): {q}" for t, m, s, st, q, c in
                                        zip(dec.task, dec.model, dec.seed, dec.start, dec.quantised,
                                            dec.quantised_changed) if c) or "no decided regime changed",
                              informational=True))
    return rows


def found_sentence(rows: pd.DataFrame, table: pd.DataFrame | None) -> str:
    """C14 in one sentence: what the trained layers learned, the regimes they sit in and how often the flow
    predicts the looped network."""
    if table is None or not len(table):
        return "no looped models in this build"
    models = table.drop_duplicates(["task", "model", "seed"])
    learned = []
    for (task, model), g in models.groupby(["task", "model"], sort=False):
        learned.append(f"{task} {model.upper()} test loss {span(g.task_loss.min(), g.task_loss.max(), '.2g')} "
                       f"(baseline {span(g.baseline_loss.min(), g.baseline_loss.max(), '.2g')})")
    dec = table[table.decided]
    starts = table.start.nunique()
    parts = [f"trained looped layers ({len(models)}): " + ", ".join(learned),
             f"over {len(table)} runs ({len(models)} models × {starts} starts) the flow sits in "
             f"{counts_text(table.predicted_regime)}",
             f"the flow's certified regime is the looped network's, certified on the network's own map within "
             f"{int(table.L_observed.iloc[0] // table.L.iloc[0])}× its training depth (at layer "
             f"{span(table.observed_layers.min(), table.observed_layers.max(), 'd')}, the first checkpoint that "
             f"certifies; a rotation's orbit followed on the one-cluster map) in {int(dec.agree.sum())} of "
             f"{len(dec)} runs certified on both sides ({int((~table.decided).sum())} of {len(table)} not certified "
             "on one side)"]
    both = table[(table.predicted_regime == "cluster_rotate") & (table.observed_regime == "cluster_rotate")]
    rot = both[whole_turns(both) >= 1]
    if len(rot) and "map_rate" in rot:
        e_map = np.abs(rot.observed_rate - rot.map_rate) / np.abs(rot.map_rate)
        e_flow = np.abs(rot.observed_rate - rot.predicted_rate) / np.abs(rot.predicted_rate)
        hr = rot.h * np.abs(rot.predicted_rate)
        parts.append(f"where both rotate ({len(rot)} runs with a whole turn to read, of {len(both)}) the network "
                     "turns at its one-cluster map's rate to a "
                     f"relative {e_map.max():.1g} (C14c's tolerance {C14C_RTOL:g}; a consistency check, since a "
                     "clustered network is one token), while the flow's rate is off by "
                     f"{span(100 * e_flow.min(), 100 * e_flow.max(), '.0f', ' %')} at h·|rate| "
                     f"{span(hr.min(), hr.max(), '.2g')}, the step's first-order effect")
    qd = table[table.predicted_regime != "undetermined"]
    if len(qd):
        parts.append(f"quantisation changes the predicted regime in {int(qd.quantised_changed.sum())} of the {len(qd)} "
                     "runs whose flow is certified")
    return "; ".join(parts)
