"""Summaries of the persistence stage (claims C7 measured, C9 random weights, C10 β for softmax) from
results/tables/persistence.csv: the d = 2 reference, per-scenario persistence, the random-weights and β summaries,
the claims rows (:func:`claim_rows`) and the findings paragraph. numpy and pandas only; the run plan and the derived
rotation rate are :mod:`lsadyn.paper.persistence.plan`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...observers import SETTLED_R_CHANGE
from ..rows import claim_row as _row
from .plan import BEYOND_PAPER

# ---------------------------------------------------------------------------------------------- summaries


def d2_reference(table: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, model) of the ``dimension`` study: the d = 2 runs' majority regime and median period
    (the reference the higher-d runs are compared with); empty when d = 2 is not in the sweep."""
    dim = table[(table.study == "dimension") & (table.d == 2)]
    rows = []
    for (sc, m), g in dim.groupby(["scenario", "model"], sort=True):
        rows.append({"scenario": sc, "model": m, "regime_d2": g.regime.value_counts().index[0],
                     "period_d2": float(np.nanmedian(g.period)) if g.period.notna().any() else np.nan})
    return pd.DataFrame(rows, columns=["scenario", "model", "regime_d2", "period_d2"])


def persistence_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, model) of the ``dimension`` study: runs, settled runs in the d = 2 regime (column ``expect``;
    ``n_persist``), undetermined runs (label ``undetermined`` or not settled, as the claims rows count them), runs not
    settled at t_max (``n_unsettled``: r(t) still changing, column ``settled``), the largest d up to which every run
    persists and settled (0: not every run at the smallest d), cluster-shape counts of the
    clustered runs, the largest relative error of the rotation rate against
    :func:`~lsadyn.paper.persistence.plan.plane_rotation_rate`, and
    the oscillation periods (:func:`period_comparison`: range over seeds per d, and the d > 2 whose settled
    range lies outside the settled d = 2 runs' range)."""
    dim = table[table.study == "dimension"]
    ref = d2_reference(table).set_index(["scenario", "model"])
    rows = []
    for (sc, m), g in dim.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        ok, undetermined, settled = kept_undetermined(g, expect)  # as claim_rows
        per_d = g.assign(ok=ok).groupby("d").ok.all()
        broken = per_d[~per_d]
        holds_to = int(per_d.index.max()) if broken.empty else (
            int(per_d[per_d.index < broken.index.min()].index.max()) if (per_d.index < broken.index.min()).any()
            else 0)
        cl = g[g.cluster_shape != "none"]
        period_ratio = g.period / ref.period_d2.get((sc, m), np.nan) if (sc, m) in ref.index else g.period * np.nan
        pr = period_ratio[(g.regime == "oscillate") & (g.d > 2)]
        pc = period_comparison(g)
        rows.append({"scenario": sc, "model": m, "expect": expect, "n_runs": len(g), "n_persist": int(ok.sum()),
                     "n_undetermined": int(undetermined.sum()),
                     "n_unsettled": int((~settled).sum()),
                     "d_values": " ".join(str(int(x)) for x in sorted(g.d.unique())),
                     "persists_up_to_d": holds_to,
                     "n_single": int((cl.cluster_shape == "single").sum()),
                     "n_antipodal_pair": int((cl.cluster_shape == "antipodal_pair").sum()),
                     "rate_max_rel_err": float(g.rate_rel_err.max()) if g.rate_rel_err.notna().any() else np.nan,
                     "n_rate_compared": int(g.rate_rel_err.notna().sum()),
                     "period_ratio_min": float(pr.min()) if len(pr) else np.nan,
                     "period_ratio_max": float(pr.max()) if len(pr) else np.nan, **pc})
    return pd.DataFrame(rows)


def settled_mask(g: pd.DataFrame) -> pd.Series:
    """The runs whose r(t) had settled at t_max (column ``settled``; tables written before the column: all)."""
    return g.settled.astype(bool) if "settled" in g else pd.Series(True, index=g.index)


def kept_undetermined(g: pd.DataFrame, expect) -> tuple[pd.Series, pd.Series, pd.Series]:
    """(kept, undetermined, settled) masks of the runs of ``g`` against the regime ``expect`` (a label, or one per
    run), as claims rows C7 and C10 and FINDINGS count them: a run whose r(t) had not settled at t_max
    (:func:`settled_mask`) shows a transient, so it is undetermined whatever its label; kept: settled and labelled
    ``expect``."""
    settled = settled_mask(g)
    return (g.regime == expect) & settled, (g.regime == "undetermined") | ~settled, settled


def period_comparison(g: pd.DataFrame) -> dict:
    """Oscillation periods (physical time) of the oscillating runs of one (scenario, model) of the
    ``dimension`` study: ``period_by_d`` ('d = 2: 2.34-4.42; d = 3: 4.03 (1 of 2 not settled: 4.23); …', min-max
    over the settled seeds, the periods of runs whose r(t) was still changing at t_max given apart, as a
    transient's), ``period_outside_d2`` (the d > 2
    whose settled runs' whole seed range lies outside the settled d = 2 runs' range, space separated; '' when
    none), ``period_within_d2`` (the d > 2 whose settled range overlaps it) and ``period_not_compared`` (the d > 2
    with no settled oscillating run, or every d > 2 when no d = 2 run settled: their periods are a transient's).
    Comparing ranges, not a ratio to the d = 2 median: the period of an oscillation belongs to the orbit the
    initial tokens select, so it differs between seeds at the same d, and a change with d means something only
    beyond that; a run still approaching its orbit gives that transient's period, so it is not compared."""
    osc = g[(g.regime == "oscillate") & g.period.notna()]
    out = {"period_by_d": "", "period_outside_d2": "", "period_within_d2": "", "period_not_compared": ""}
    if osc.empty:
        return out
    osc = osc.assign(settled_=settled_mask(osc))
    parts = []
    for d, gd in osc.groupby("d"):
        still = gd[gd.settled_]
        moving = gd[~gd.settled_]
        text = "none settled"
        if len(still):
            lo, hi = still.period.min(), still.period.max()
            text = f"{lo:.3g}" if np.isclose(lo, hi, rtol=5e-3) else f"{lo:.3g}-{hi:.3g}"
        parts.append(f"d = {int(d)}: {text}" + (f" ({len(moving)} of {len(gd)} not settled: "
                                                 + ", ".join(f"{v:.3g}" for v in sorted(moving.period)) + ")"
                                                 if len(moving) else ""))
    out["period_by_d"] = "; ".join(parts)
    rng = osc[osc.settled_].groupby("d").period.agg(["min", "max"])
    higher_d = sorted(int(d) for d in osc.d.unique() if d > 2)
    if 2 in rng.index:
        lo, hi = rng.loc[2, "min"], rng.loc[2, "max"]
        higher = rng[rng.index > 2]
        outside = higher[(higher["min"] > hi * 1.005) | (higher["max"] < lo / 1.005)]
        out["period_outside_d2"] = " ".join(str(int(d)) for d in outside.index)
        out["period_within_d2"] = " ".join(str(int(d)) for d in higher.index if d not in outside.index)
        out["period_not_compared"] = " ".join(str(d) for d in higher_d if d not in rng.index)
    elif 2 in osc.d.values:
        out["period_not_compared"] = " ".join(str(d) for d in higher_d)
    return out


def random_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Regime counts of the ``random`` study per (model, d): one column per label (undetermined included)."""
    from ...regimes.classify import LABELS

    rw = table[table.study == "random"]
    counts = rw.groupby(["model", "d"]).regime.value_counts().unstack(fill_value=0)
    for lab in LABELS:
        if lab not in counts:
            counts[lab] = 0
    return counts[list(LABELS)].reset_index()


def beta_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The ``beta`` study per (scenario, model, β): regimes, cluster shapes of the clustered runs, the median
    rotation rate of arg R₂ over the rotating runs and the median period over the settled oscillating runs (NaN
    where there are none), the rate / prediction, r over the classified window, runs and unsettled runs."""
    bs = table[table.study == "beta"]
    rows = []
    for (sc, m, b), g in bs.groupby(["scenario", "model", "beta"], sort=True):
        rot = g[g.regime == "cluster_rotate"]
        osc = g[(g.regime == "oscillate") & settled_mask(g)]
        clustered = g[g.regime.isin(["cluster_converge", "cluster_rotate"])]
        rate = float(rot.rate.median()) if len(rot) else np.nan
        period = float(osc.period.median()) if len(osc) else np.nan
        rows.append({"scenario": sc, "model": m, "beta": b, "regimes": _counts(g.regime),
                     "shapes": _counts(clustered.cluster_shape) if len(clustered) else "", "rate": rate,
                     "rate_over_beta": rate / b, "period": period, "period_times_beta": period * b,
                     "rate_rel_err": float(g.rate_rel_err.max()) if g.rate_rel_err.notna().any() else np.nan,
                     "r_min": float(g.r_min.min()), "r_max": float(g.r_max.max()),
                     "n_runs": len(g), "n_unsettled": int((~settled_mask(g)).sum())})
    return pd.DataFrame(rows)


def _counts(labels) -> str:
    vc = pd.Series(list(labels), dtype=object).value_counts()
    return ", ".join(f"{k} {v}" for k, v in vc.items()) or "none"


def _unsettled_note(g: pd.DataFrame) -> str:
    """'; 2 not settled at t_max (…): d = 100 seed 1 (+0.097), …' for the runs of ``g`` whose r(t) was still
    changing at the end of the run (column ``settled``), '' when every run settled."""
    moving = g[~settled_mask(g)]
    if not len(moving):
        return ""
    return (f"; {len(moving)} not settled at t_max (r(t) still changing: their regime label is the decision "
            "procedure's, their r and period a transient's): " + ", ".join(
                f"d = {int(r.d)} seed {int(r.seed)}" + (f" beta {r.beta:g}" if r.study == "beta" else "")
                + f" ({r.r_change_last_quarter:+.3f})" for r in moving.itertuples()))


#: the config key that lengthens the runs of each study (named where FINDINGS lists runs that had not settled)
SETTLE_KEY = {"dimension": "persistence.dimension.settle_horizon sets it per scenario and d",
              "beta": "persistence.beta_sweep.settle_horizon per scenario",
              "random": "persistence.random_weights.horizon for the random-weight runs"}


def regime_changes(g: pd.DataFrame, expect: str) -> str:
    """'beta 2: cluster_converge 1 (1 of 1 runs)'-style list of the β where some run leaves ``expect``; a change
    seen only in runs whose r(t) had not settled at t_max (column ``settled``) says so ('…; not settled at t_max:
    may be a transient'), as does one seen partly in such runs."""
    parts = []
    for b, gb in g.groupby("beta", sort=True):
        off = gb[gb.regime != expect]
        if len(off):
            moving = int((~settled_mask(off)).sum())
            tail = ("" if not moving else "; not settled at t_max: may be a transient" if moving == len(off)
                    else f"; {moving} of them not settled at t_max")
            parts.append(f"beta {b:g}: {_counts(off.regime)} ({len(off)} of {len(gb)} runs{tail})")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------- claims


#: relative tolerance of a rotation rate against the derived rate in rows C7r (drawn in fig_persistence (c))
RATE_TOL = 1e-3


def claim_rows(table: pd.DataFrame, max_undetermined: float = 0.05, rate_tol: float = RATE_TOL) -> list:
    """Claims rows (columns of :data:`lsadyn.paper.claims.COLUMNS`) from ``results/tables/persistence.csv``:

    * ``C7-<scenario>-<model>``: the fraction of (d, seed) runs in the scenario's d = 2 regime, with the
      cluster shapes (informational for the saddle-node pair, beyond the paper); a run whose r(t) had not
      settled at t_max (column ``settled``) counts as undetermined whatever its label (a transient's label);
    * ``C7r-<scenario>-<model>`` (informational, derived): rotation rates against
      :func:`~lsadyn.paper.persistence.plan.plane_rotation_rate`;
    * ``C9-<model>`` (beyond the paper): random N(0, 1/d) weights — every run decided (distribution in
      the note);
    * ``C10-lsa-<scenario>`` (β only rescales time for LSA: same regime at every β, rate/β of rotations and
      period·β of settled oscillations constant) and
      ``C10-usa-<scenario>`` (USA: does the d = 2 regime persist at every β; where it changes), beyond the paper.
    """
    rows = []
    ev = "paper_figures/fig_persistence.pdf; results/tables/persistence.csv"
    dim = table[table.study == "dimension"]
    for (sc, m), g in dim.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        kept, undetermined, settled = kept_undetermined(g, expect)  # a transient's label is undetermined
        agree, und = int(kept.sum()), int(undetermined.sum())
        wrong = len(g) - agree - und
        ok = len(g) > 0 and wrong == 0 and und <= max_undetermined * len(g)
        ds = sorted(int(x) for x in g.d.unique())
        off = g[g.regime != expect]
        where = "; ".join(f"d = {int(r.d)} seed {int(r.seed)}: {r.regime}" for r in off.itertuples())
        cl = g[g.cluster_shape != "none"]
        shape = (f"; clustered end states: {_counts(cl.cluster_shape)}" if len(cl) else "")
        if len(cl) and m == "lsa":
            shape += " (LSA keeps every token's side: an antipodal pair, as in d = 2)"
        elif len(cl):
            shape += " (USA can gather every token in one cluster)"
        beyond = sc in BEYOND_PAPER
        stmt = (f"{sc} ({m.upper()}): the d = 2 regime {expect} persists for d in {{{', '.join(map(str, ds))}}}"
                + (" (beyond the paper: saddle-node pair near mu_c = s)" if beyond else ""))
        moving = int((~settled).sum())
        note = (f"{agree} of {len(g)} (d, seed) runs persist ({agree / len(g):.0%}); observed {_counts(g.regime)}; "
                f"{und} undetermined" + (" (runs not settled at t_max count as undetermined, whatever their label)"
                                         if moving else "")
                + (f"; differ: {where}" if where else "") + shape + _unsettled_note(g))
        rows.append(_row(f"C7-{sc}-{m}", stmt, f"batch-{m}", len(g), agree, ok, ev, note, informational=beyond))
        rot = g[g.rate_rel_err.notna()]
        if len(rot):
            good = int((rot.rate_rel_err <= rate_tol).sum())
            formula = "2 beta sqrt(w^2 - q^2)" if m == "lsa" else "2 e^beta sqrt(w^2 - q^2) (one cluster)"
            rows.append(_row(f"C7r-{sc}-{m}", f"{sc} ({m.upper()}): rotating clusters turn at the derived rate "
                             f"{formula} in every d (derived, beyond the paper)", f"batch-{m}", len(rot), good,
                             good == len(rot), ev, f"max relative error {rot.rate_rel_err.max():.2e} (tolerance "
                             f"{rate_tol:g}); rotating runs without a derived rate (unbalanced USA pairs): "
                             f"{int(((g.regime == 'cluster_rotate') & g.rate_rel_err.isna()).sum())}",
                             informational=True))
    rw = table[table.study == "random"]
    for m, g in rw.groupby("model", sort=False):
        und = int((g.regime == "undetermined").sum())
        per_d = "; ".join(f"d = {int(d)}: {_counts(gd.regime)}" for d, gd in g.groupby("d"))
        rows.append(_row(f"C9-{m}", f"random weights A, V ~ N(0, 1/d) ({m.upper()}): every run reaches a decided "
                         "regime within its budget (beyond the paper)", f"batch-{m}", len(g), len(g) - und,
                         und == 0, ev, f"{und} of {len(g)} undetermined; {per_d}" + _unsettled_note(g),
                         informational=True))
    bs = table[table.study == "beta"]
    for (sc, m), g in bs.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        kept, _, settled = kept_undetermined(g, expect)  # as rows C7
        agree = int(kept.sum())
        moving = int((~settled).sum())
        undetermined = ("; runs not settled at t_max are undetermined, not counted as keeping the regime"
                        if moving else "")
        betas = ", ".join(f"{b:g}" for b in sorted(g.beta.unique()))
        d = int(g.d.iloc[0])
        changes = regime_changes(g, expect)
        if m == "lsa":
            # time rescaled by beta: a rotation's rate / beta and a settled oscillation's period * beta are constant
            rot = g[g.regime == "cluster_rotate"]
            osc = g[(g.regime == "oscillate") & settled_mask(g) & np.isfinite(g.period)]
            spread = float(np.ptp(rot.rate / rot.beta) / np.mean(rot.rate / rot.beta)) if len(rot) else np.nan
            pspread = float(np.ptp(osc.period * osc.beta) / np.mean(osc.period * osc.beta)) if len(osc) else np.nan
            same = g.regime.nunique() == 1
            ok = same and bool(settled.all()) and (not len(rot) or spread < 1e-3) and (not len(osc) or pspread < 1e-3)
            note = (f"regimes {_counts(g.regime)} over beta in {{{betas}}}"
                    + (f"; rate / beta relative spread {spread:.1e}" if len(rot) else "")
                    + (f"; period * beta relative spread {pspread:.1e} ({len(osc)} settled oscillating runs, "
                       f"period * beta {np.median(osc.period * osc.beta):.4g})" if len(osc) else "")
                    + (f"; changes: {changes}" if changes else "") + undetermined + _unsettled_note(g))
            rows.append(_row(f"C10-lsa-{sc}", f"{sc} at d = {d} (LSA): beta only rescales time (one regime at every "
                             "beta; a rotation's rate proportional to beta, an oscillation's period to 1/beta; beyond "
                             "the paper)", "batch-lsa", len(g), agree, ok, ev, note, informational=True))
        else:
            note = f"observed {_counts(g.regime)} over beta in {{{betas}}}; " + (
                f"regime changes at {changes}" if changes else "no change") + undetermined
            rot = g[g.rate_rel_err.notna()]
            if len(rot):
                note += f"; rotation rate vs 2 e^beta sqrt(w^2 - q^2): max relative error {rot.rate_rel_err.max():.2e}"
            note += _unsettled_note(g)
            rows.append(_row(f"C10-usa-{sc}", f"{sc} at d = {d} (USA): the d = 2 regime {expect} persists at every "
                             "beta tested (beyond the paper)", "batch-usa", len(g), agree, agree == len(g), ev, note,
                             informational=True))
    return rows


def findings_paragraph(table: pd.DataFrame) -> str:
    """The FINDINGS.md paragraph of the persistence stage, computed from the table."""
    if table is None or not len(table):
        return ""
    s = persistence_summary(table)
    lines = ["## Persistence across dimension, random weights and β", "",
             "Horizons in units of τ: LSA τ = 1/(β‖A‖₂‖V‖₂), USA τ = 1/(‖V‖₂ e^(β‖A‖₂)) (the highdim stage uses the "
             "LSA τ for both models, so a USA horizon there is not the same time as here).", ""]
    if len(s):
        tot, per = int(s.n_runs.sum()), int(s.n_persist.sum())
        ds = sorted(int(x) for x in table[table.study == "dimension"].d.unique())
        moving = int(s.n_unsettled.sum())
        lines.append(f"Dimension sweep (d in {{{', '.join(map(str, ds))}}}): {per} of {tot} runs keep their d = 2 "
                     f"regime and settled, {int(s.n_undetermined.sum())} undetermined"
                     + (f" ({moving} of them labelled but not settled at t_max: counted as undetermined, as in the "
                        "claims rows)" if moving else "") + ".")
        for r in s.itertuples():
            extra = ""
            if r.n_single + r.n_antipodal_pair:
                extra += f"; shapes: {r.n_single} single, {r.n_antipodal_pair} antipodal pair"
            if r.n_rate_compared:
                extra += f"; rate vs derived: max relative error {r.rate_max_rel_err:.1e}"
            if r.period_by_d:
                extra += f"; period (physical time, min-max over the settled seeds) {r.period_by_d}"
                if r.period_within_d2 or r.period_outside_d2:
                    within = ", ".join(r.period_within_d2.split())
                    outside = ", ".join(r.period_outside_d2.split())
                    span = "the settled d = 2 runs' range (0.5 % tolerance)"
                    extra += (" — settled runs: "
                              + (f"overlapping {span} at d = {within}" + (f"; outside it at d = {outside}"
                                                                          if outside else "")
                                 if within else f"outside {span} at d = {outside}"))
                if r.period_not_compared:
                    extra += ("; not compared (no settled run" + (" at d = 2" if not (r.period_within_d2 or
                              r.period_outside_d2) else "") + ") at d = " + ", ".join(r.period_not_compared.split()))
            if r.n_unsettled:
                extra += f"; {r.n_unsettled} of {r.n_runs} runs not settled at t_max (a transient's r and period)"
            g = table[(table.study == "dimension") & (table.scenario == r.scenario) & (table.model == r.model)]
            hz = ", ".join(f"{h:g}" for h in sorted(g.horizon.unique()))
            upto = (f", all up to d = {r.persists_up_to_d}" if r.persists_up_to_d == g.d.max() else
                    f", every run up to d = {r.persists_up_to_d}" if r.persists_up_to_d else
                    f", not every run at d = {int(g.d.min())}")
            lines.append(f"- {r.scenario} ({r.model.upper()}, d = 2 regime {r.expect}, horizon {hz} τ): {r.n_persist} "
                         f"of {r.n_runs} runs keep it and had settled{upto}{extra}")
        if (s.period_by_d != "").any():
            lines += ["", ("The oscillation periods are those of the orbits the seeded tokens reach: at d = 2 the "
                      "linear-attention oscillation is a centre (closed orbits of the hidden Hamiltonian, claim C4), "
                      "so the period belongs to the orbit, not to A, V alone, and differs between seeds and token "
                      "counts (the highdim stage's oscillation runs and the β sweep's, with other seeds or n, reach "
                      "other orbits: their periods are not expected to equal these); a period is read from the "
                      "classified window of the horizon where the run was decided, so a run still approaching its "
                      "orbit there gives that transient's period. A run "
                      f"counts as settled when the mean of r(t) over the last quarter of its run differs from the mean "
                      f"over the third quarter by at most {SETTLED_R_CHANGE:g} (the highdim stage's criterion, "
                      "lsadyn.observers.r_change_last_quarter); only settled runs are compared. A change with d counts "
                      "only where the settled seeds' range at that d lies outside the settled d = 2 runs' range. The "
                      "criterion is on r(t), not on the period: a settled run's period can still drift slowly while "
                      "the tokens approach their orbit, so a difference of a few per cent between d may still change "
                      "with a longer horizon.")]
        lines += ["", ("Limit: every run is integrated once (fixed-step RK4, the step in the figure caption); unlike "
                       "the highdim stage's runs, none is repeated at a finer step to check its convergence.")]
    moving = table[~settled_mask(table)]
    if len(moving):
        lines += ["", (f"Runs not settled at t_max ({len(moving)} of {len(table)}: r(t) still changing over the last "
                       "quarter of the run, change of its mean from the third quarter given; their r and period "
                       "describe a transient, not a settled state, and a longer horizon is needed — config "
                       + "; ".join(SETTLE_KEY[st] for st in SETTLE_KEY if (moving.study == st).any()) + "): "
                       + "; ".join(f"{r.study} {r.scenario} {r.model.upper()} d = {int(r.d)} seed {int(r.seed)}"
                                   + (f" β = {r.beta:g}" if r.study == "beta" else "")
                                   + f" ({r.regime}, t_max {r.horizon * r.budget_factor:g} τ): "
                                   f"{r.r_change_last_quarter:+.3f}" for r in moving.itertuples()))]
    rs = random_summary(table)
    rnd = table[table.study == "random"]
    if len(rs):
        lines += ["", "Random weights A, V ~ N(0, 1/d) (regime counts per model and d):", ""]
        for r in rs.itertuples(index=False):
            counts = ", ".join(f"{lab} {getattr(r, lab)}" for lab in rs.columns[2:] if getattr(r, lab))
            moving_rd = int((~settled_mask(rnd[(rnd.model == r.model) & (rnd.d == r.d)])).sum())
            lines.append(f"- {r.model.upper()} d = {int(r.d)}: {counts}"
                         + (f" ({moving_rd} not settled at t_max)" if moving_rd else ""))
    bs = beta_summary(table)
    if len(bs):
        seeds = int(bs.n_runs.max())
        lines += ["", f"β sweep ({seeds} seed{'s' if seeds > 1 else ''} per scenario, model and β"
                  + ("; medians over seeds" if seeds > 1 else "") + "; for LSA, β only rescales time, so a rotation's "
                  "rate/β and an oscillation's period·β stay the same; USA has no such rescaling):", ""]
        for r in bs.itertuples():
            parts = [r.regimes]
            if r.shapes:
                parts.append("cluster shape " + r.shapes.replace("antipodal_pair", "antipodal pair")
                             .replace("single", "one cluster"))
            lsa = r.model == "lsa"  # rate/β and period·β are constant for LSA only (USA: no time rescaling)
            if np.isfinite(r.rate):
                parts.append(f"rotation rate of arg R₂ {r.rate:.4g}" + (f" (rate/β {r.rate_over_beta:.4g})" if lsa
                                                                        else ""))
            if np.isfinite(r.period):
                parts.append(f"period of R₂ {r.period:.4g}" + (f" (period·β {r.period_times_beta:.4g})" if lsa
                                                               else ""))
            parts.append(f"r over the part of the run the classifier reads {r.r_min:.3g} to {r.r_max:.3g}")
            if r.n_unsettled:
                transient = "oscillate" in r.regimes and not np.isfinite(r.period)
                parts.append(f"{r.n_unsettled} of {r.n_runs} runs not settled at t_max"
                             + (" (a transient's period, not given here; fig_persistence marks it +)" if transient
                                else ""))
            lines.append(f"- {r.scenario} {r.model.upper()} β = {r.beta:g}: " + "; ".join(parts))
    return "\n".join(lines) + "\n"
