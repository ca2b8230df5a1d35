"""Summaries of the persistence stage (claims C7 measured, C9 random weights, C10 β for softmax) from
results/tables/persistence.csv: the d = 2 reference, per-scenario persistence, the random-weights and β summaries,
the claims rows (:func:`claim_rows`) and the findings paragraph. numpy and pandas only; the run plan and the derived
rotation rate are :mod:`lsadyn.paper.persistence.plan`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rows import claim_row as _row
from ..rows import span
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


#: the regimes whose end state has a cluster shape (the table's cluster_shape is recorded for every run: an interior
#: or undetermined run's is not a clustered end state and is not counted)
CLUSTERED = ("cluster_converge", "cluster_rotate")


def clustered_runs(g: pd.DataFrame) -> pd.DataFrame:
    """The runs of ``g`` labelled with a clustered regime (:data:`CLUSTERED`) whose cluster shape is known."""
    return g[g.regime.isin(CLUSTERED) & ~g.cluster_shape.isin(["none", ""])]


def persistence_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, model) of the ``dimension`` study: runs, runs in the d = 2 regime (column ``expect``;
    ``n_persist``), ``undetermined`` runs, the largest d up to which every run persists (0: not every run at the
    smallest d), cluster-shape counts of the clustered runs, the largest relative error of the rotation rate against
    :func:`~lsadyn.paper.persistence.plan.plane_rotation_rate`, and the oscillation periods
    (:func:`period_comparison`: range over seeds per d, and the d > 2 whose range lies outside the d = 2 runs'
    range). A run whose r(t) has not settled is labelled ``undetermined`` by the decision procedure
    (:mod:`lsadyn.regimes`), so the label alone is counted."""
    dim = table[table.study == "dimension"]
    ref = d2_reference(table).set_index(["scenario", "model"])
    rows = []
    for (sc, m), g in dim.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        ok, undetermined = g.regime == expect, g.regime == "undetermined"
        per_d = g.assign(ok=ok).groupby("d").ok.all()
        broken = per_d[~per_d]
        holds_to = int(per_d.index.max()) if broken.empty else (
            int(per_d[per_d.index < broken.index.min()].index.max()) if (per_d.index < broken.index.min()).any()
            else 0)
        cl = clustered_runs(g)
        period_ratio = g.period / ref.period_d2.get((sc, m), np.nan) if (sc, m) in ref.index else g.period * np.nan
        pr = period_ratio[(g.regime == "oscillate") & (g.d > 2)]
        pc = period_comparison(g)
        rows.append({"scenario": sc, "model": m, "expect": expect, "n_runs": len(g), "n_persist": int(ok.sum()),
                     "n_undetermined": int(undetermined.sum()),
                     "d_values": " ".join(str(int(x)) for x in sorted(g.d.unique())),
                     "persists_up_to_d": holds_to,
                     "n_single": int((cl.cluster_shape == "single").sum()),
                     "n_antipodal_pair": int((cl.cluster_shape == "antipodal_pair").sum()),
                     "rate_max_rel_err": float(g.rate_rel_err.max()) if g.rate_rel_err.notna().any() else np.nan,
                     "n_rate_compared": int(g.rate_rel_err.notna().sum()),
                     "period_ratio_min": float(pr.min()) if len(pr) else np.nan,
                     "period_ratio_max": float(pr.max()) if len(pr) else np.nan, **pc})
    return pd.DataFrame(rows)


def period_comparison(g: pd.DataFrame) -> dict:
    """Oscillation periods (physical time) of the oscillating runs of one (scenario, model) of the
    ``dimension`` study: ``period_by_d`` ('d = 2: 2.34-4.42; d = 3: 4.03; …', min-max over the seeds),
    ``period_outside_d2`` (the d > 2 whose runs' whole seed range lies outside the d = 2 runs' range, space
    separated; '' when none), ``period_within_d2`` (the d > 2 whose range overlaps it) and ``period_not_compared``
    (every d > 2 with an oscillating run when no d = 2 run oscillates).
    Comparing ranges, not a ratio to the d = 2 median: the period of an oscillation belongs to the orbit the
    initial tokens select, so it differs between seeds at the same d, and a change with d means something only
    beyond that. A run still approaching its orbit is ``undetermined`` (:mod:`lsadyn.regimes`), so it has no
    period here."""
    osc = g[(g.regime == "oscillate") & g.period.notna()]
    out = {"period_by_d": "", "period_outside_d2": "", "period_within_d2": "", "period_not_compared": ""}
    if osc.empty:
        return out
    parts = []
    for d, gd in osc.groupby("d"):
        lo, hi = gd.period.min(), gd.period.max()
        parts.append(f"d = {int(d)}: " + (f"{lo:.3g}" if np.isclose(lo, hi, rtol=5e-3) else f"{lo:.3g}-{hi:.3g}"))
    out["period_by_d"] = "; ".join(parts)
    rng = osc.groupby("d").period.agg(["min", "max"])
    higher_d = sorted(int(d) for d in osc.d.unique() if d > 2)
    if 2 in rng.index:
        lo, hi = rng.loc[2, "min"], rng.loc[2, "max"]
        higher = rng[rng.index > 2]
        outside = higher[(higher["min"] > hi * 1.005) | (higher["max"] < lo / 1.005)]
        out["period_outside_d2"] = " ".join(str(int(d)) for d in outside.index)
        out["period_within_d2"] = " ".join(str(int(d)) for d in higher.index if d not in outside.index)
    else:
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
    rotation rate of arg R₂ over the rotating runs and the median period over the oscillating runs (NaN
    where there are none), the rate / prediction, r over the classified window, runs and undetermined runs."""
    bs = table[table.study == "beta"]
    rows = []
    for (sc, m, b), g in bs.groupby(["scenario", "model", "beta"], sort=True):
        rot = g[g.regime == "cluster_rotate"]
        osc = g[g.regime == "oscillate"]
        clustered = clustered_runs(g)
        rate = float(rot.rate.median()) if len(rot) else np.nan
        period = float(osc.period.median()) if len(osc) else np.nan
        rows.append({"scenario": sc, "model": m, "beta": b, "regimes": _counts(g.regime),
                     "shapes": _counts(clustered.cluster_shape) if len(clustered) else "", "rate": rate,
                     "rate_over_beta": rate / b, "period": period, "period_times_beta": period * b,
                     "rate_rel_err": float(g.rate_rel_err.max()) if g.rate_rel_err.notna().any() else np.nan,
                     "r_min": float(g.r_min.min()), "r_max": float(g.r_max.max()),
                     "n_runs": len(g), "n_undetermined": int((g.regime == "undetermined").sum())})
    return pd.DataFrame(rows)


def _counts(labels) -> str:
    vc = pd.Series(list(labels), dtype=object).value_counts()
    return ", ".join(f"{k} {v}" for k, v in vc.items()) or "none"


def _undetermined_note(g: pd.DataFrame) -> str:
    """'; undetermined: d = 100 seed 1, …' for the ``undetermined`` runs of ``g``, '' when there are none."""
    und = g[g.regime == "undetermined"]
    if not len(und):
        return ""
    return "; undetermined: " + ", ".join(f"d = {int(r.d)} seed {int(r.seed)}" + (f" beta {r.beta:g}" if r.study ==
                                          "beta" else "") for r in und.itertuples())


#: the config key that lengthens the runs of each study (named where FINDINGS lists the undetermined runs)
SETTLE_KEY = {"dimension": "persistence.dimension.settle_horizon sets it per scenario and d",
              "beta": "persistence.beta_sweep.settle_horizon per scenario",
              "random": "persistence.random_weights.horizon for the random-weight runs"}


def regime_changes(g: pd.DataFrame, expect: str) -> str:
    """'beta 2: cluster_converge 1 (1 of 1 runs)'-style list of the β where some decided run is in another regime
    than ``expect``. An ``undetermined`` run did not settle within its budget: it has no regime, so it is no change
    of regime and is not listed here (:func:`_undetermined_note` names those runs)."""
    parts = []
    for b, gb in g.groupby("beta", sort=True):
        off = gb[(gb.regime != expect) & (gb.regime != "undetermined")]
        if len(off):
            parts.append(f"beta {b:g}: {_counts(off.regime)} ({len(off)} of {len(gb)} runs)")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------- claims


#: what a C7 row's statement says of a limit-cycle scenario (beyond the paper; the saddle-node pair has its own text)
BEYOND_TEXT = {"limit_cycle": "an attracting limit cycle of the d = 2 OA flow, uniform start",
               "limit_cycle_plane": "an attracting limit cycle of the d = 2 OA flow, near-plane start"}

#: relative tolerance of a rotation rate against the derived rate in rows C7r (drawn in fig_persistence (c))
RATE_TOL = 1e-3


def claim_rows(table: pd.DataFrame, max_undetermined: float = 0.05, rate_tol: float = RATE_TOL) -> list:
    """Claims rows (columns of :data:`lsadyn.paper.claims.COLUMNS`) from ``results/tables/persistence.csv``:

    * ``C7-<scenario>-<model>``: the fraction of (d, seed) runs in the scenario's d = 2 regime, with the
      cluster shapes (informational for the saddle-node pair and the limit cycle, beyond the paper: see
      :data:`~lsadyn.paper.persistence.plan.BEYOND_PAPER`); a run whose r(t) has not settled is ``undetermined``
      (:mod:`lsadyn.regimes`), counted by its label;
    * ``C7r-<scenario>-<model>`` (informational, derived): rotation rates against
      :func:`~lsadyn.paper.persistence.plan.plane_rotation_rate`;
    * ``C9-<model>`` (beyond the paper): random N(0, 1/d) weights — every run decided (distribution in
      the note);
    * ``C10-lsa-<scenario>`` (β only rescales time for LSA: same regime at every β, rate/β of rotations and
      period·β of oscillations constant) and
      ``C10-usa-<scenario>`` (USA: does the d = 2 regime persist at every β; where it changes), beyond the paper.
    """
    rows = []
    ev = "paper_figures/fig_persistence.pdf; results/tables/persistence.csv"
    dim = table[table.study == "dimension"]
    for (sc, m), g in dim.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        agree, und = int((g.regime == expect).sum()), int((g.regime == "undetermined").sum())
        wrong = len(g) - agree - und
        ok = len(g) > 0 and wrong == 0 and und <= max_undetermined * len(g)
        ds = sorted(int(x) for x in g.d.unique())
        off = g[g.regime != expect]
        where = "; ".join(f"d = {int(r.d)} seed {int(r.seed)}: {r.regime}" for r in off.itertuples())
        cl = clustered_runs(g)
        shape = (f"; clustered end states: {_counts(cl.cluster_shape)}" if len(cl) else "")
        if len(cl) and m == "lsa":
            shape += " (LSA keeps every token's side: an antipodal pair, as in d = 2)"
        elif len(cl):
            shape += " (USA can gather every token in one cluster)"
        beyond = sc in BEYOND_PAPER
        stmt = (f"{sc} ({m.upper()}): the d = 2 regime {expect} persists for d in {{{', '.join(map(str, ds))}}}"
                + (f" (beyond the paper: {BEYOND_TEXT.get(sc, 'saddle-node pair near mu_c = s')})" if beyond else ""))
        note = (f"{agree} of {len(g)} (d, seed) runs persist ({agree / len(g):.0%}); observed {_counts(g.regime)}; "
                f"{und} undetermined" + (f"; differ: {where}" if where else "") + shape)
        rows.append(_row(f"C7-{sc}-{m}", stmt, f"batch-{m}", len(g), agree, ok, ev, note, informational=beyond,
                         n_undetermined=und))
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
                         und == 0, ev, f"{und} of {len(g)} undetermined; {per_d}",
                         informational=True, n_undetermined=und))
    bs = table[table.study == "beta"]
    for (sc, m), g in bs.groupby(["scenario", "model"], sort=False):
        expect = g.expect.iloc[0]
        agree = int((g.regime == expect).sum())
        undetermined = _undetermined_note(g)
        betas = ", ".join(f"{b:g}" for b in sorted(g.beta.unique()))
        d = int(g.d.iloc[0])
        changes = regime_changes(g, expect)
        if m == "lsa":
            # time rescaled by beta: a rotation's rate / beta and an oscillation's period * beta are constant
            rot = g[g.regime == "cluster_rotate"]
            osc = g[(g.regime == "oscillate") & np.isfinite(g.period)]
            spread = float(np.ptp(rot.rate / rot.beta) / np.mean(rot.rate / rot.beta)) if len(rot) else np.nan
            pspread = float(np.ptp(osc.period * osc.beta) / np.mean(osc.period * osc.beta)) if len(osc) else np.nan
            same = g.regime.nunique() == 1
            ok = same and agree == len(g) and (not len(rot) or spread < 1e-3) and (not len(osc) or pspread < 1e-3)
            note = (f"regimes {_counts(g.regime)} over beta in {{{betas}}}"
                    + (f"; rate / beta relative spread {spread:.1e}" if len(rot) else "")
                    + (f"; period * beta relative spread {pspread:.1e} ({len(osc)} oscillating runs, "
                       f"period * beta {np.median(osc.period * osc.beta):.4g})" if len(osc) else "")
                    + (f"; changes: {changes}" if changes else "") + undetermined)
            rows.append(_row(f"C10-lsa-{sc}", f"{sc} at d = {d} (LSA): beta only rescales time (one regime at every "
                             "beta; a rotation's rate proportional to beta, an oscillation's period to 1/beta; beyond "
                             "the paper)", "batch-lsa", len(g), agree, ok, ev, note, informational=True))
        else:
            note = f"observed {_counts(g.regime)} over beta in {{{betas}}}; " + (
                f"regime changes at {changes}" if changes else "no decided run changes regime") + undetermined
            rot = g[g.rate_rel_err.notna()]
            if len(rot):
                note += f"; rotation rate vs 2 e^beta sqrt(w^2 - q^2): max relative error {rot.rate_rel_err.max():.2e}"
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
        lines.append(f"Dimension sweep (d in {{{', '.join(map(str, ds))}}}): {per} of {tot} runs keep their d = 2 "
                     f"regime, {int(s.n_undetermined.sum())} undetermined (no certified label within the budget).")
        for r in s.itertuples():
            extra = ""
            if r.n_single + r.n_antipodal_pair:
                extra += f"; shapes: {r.n_single} single, {r.n_antipodal_pair} antipodal pair"
            if r.n_rate_compared:
                extra += f"; rate vs derived: max relative error {r.rate_max_rel_err:.1e}"
            if r.period_by_d:
                extra += f"; period (physical time, min-max over the seeds) {r.period_by_d}"
                if r.period_within_d2 or r.period_outside_d2:
                    within = ", ".join(r.period_within_d2.split())
                    outside = ", ".join(r.period_outside_d2.split())
                    d2_range = "the d = 2 runs' range (0.5 % tolerance)"
                    extra += (" — "
                              + (f"overlapping {d2_range} at d = {within}" + (f"; outside it at d = {outside}"
                                                                          if outside else "")
                                 if within else f"outside {d2_range} at d = {outside}"))
                if r.period_not_compared:
                    extra += "; not compared (no oscillating run at d = 2) at d = " + ", ".join(
                        r.period_not_compared.split())
            g = table[(table.study == "dimension") & (table.scenario == r.scenario) & (table.model == r.model)]
            hz = ", ".join(f"{h:g}" for h in sorted(g.horizon.unique()))
            upto = (f", all up to d = {r.persists_up_to_d}" if r.persists_up_to_d == g.d.max() else
                    f", every run up to d = {r.persists_up_to_d}" if r.persists_up_to_d else
                    f", not every run at d = {int(g.d.min())}")
            lines.append(f"- {r.scenario} ({r.model.upper()}, d = 2 regime {r.expect}, horizon {hz} τ): {r.n_persist} "
                         f"of {r.n_runs} runs keep it{upto}{extra}")
        if (s.period_by_d != "").any():
            lines += ["", ("The oscillation periods are those of the orbits the seeded tokens reach: at d = 2 the "
                      "linear-attention oscillation is a centre (closed orbits of the hidden Hamiltonian, claim C4), "
                      "so the period belongs to the orbit, not to A, V alone, and differs between seeds and token "
                      "counts (the highdim stage's oscillation runs and the β sweep's, with other seeds or n, reach "
                      "other orbits: their periods are not expected to equal these); a period is read from the "
                      "classified window of the horizon where the run was decided, so a run still approaching its "
                      "orbit there is undetermined and has no period. A change with d counts only where the seeds' "
                      "range at that d lies outside the d = 2 runs' range. The limit-cycle scenarios (beyond the "
                      "paper) are the exception: an attracting limit cycle of the OA flow is one isolated orbit, so "
                      "its period is a property of A, V and does not depend on the seed.")]
        lines += ["", ("Limit: every run is integrated once (fixed-step RK4, the step in the figure caption); unlike "
                       "the highdim stage's runs, none is repeated at a finer step to check its convergence.")]
    moving = table[table.regime == "undetermined"]
    if len(moving):
        lines += ["", (f"Undetermined runs ({len(moving)} of {len(table)}: no certified label within the budget, change "
                       "of the mean of r(t) from the third to the last quarter of the run given; a longer horizon is "
                       "needed — config "
                       + "; ".join(SETTLE_KEY[st] for st in SETTLE_KEY if (moving.study == st).any()) + "): "
                       + "; ".join(f"{r.study} {r.scenario} {r.model.upper()} d = {int(r.d)} seed {int(r.seed)}"
                                   + (f" β = {r.beta:g}" if r.study == "beta" else "")
                                   + f" (t_max {r.horizon * r.budget_factor:g} τ): "
                                   f"{r.r_change_last_quarter:+.3f}" for r in moving.itertuples()))]
    rs = random_summary(table)
    if len(rs):
        lines += ["", "Random weights A, V ~ N(0, 1/d) (regime counts per model and d):", ""]
        for r in rs.itertuples(index=False):
            counts = ", ".join(f"{lab} {getattr(r, lab)}" for lab in rs.columns[2:] if getattr(r, lab))
            lines.append(f"- {r.model.upper()} d = {int(r.d)}: {counts}")
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
            parts.append(f"r over the part of the run the classifier reads {span(r.r_min, r.r_max)}")
            lines.append(f"- {r.scenario} {r.model.upper()} β = {r.beta:g}: " + "; ".join(parts))
    return "\n".join(lines) + "\n"
