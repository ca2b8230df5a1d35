"""Tables and informational claims rows (C12, beyond the paper) of the atlas stage, from its run rows
(:mod:`lsadyn.paper.atlas.runs`). pandas and numpy only.

* :func:`atlas_table`: results/tables/atlas.csv, one row per (ensemble, model, d, β, method, regime) with every label
  of :data:`lsadyn.regimes.classify.LABELS` (zero counts included, so the fractions of a group sum to 1) and the 95 %
  Wilson interval (:func:`lsadyn.paper.atlas.plan.wilson_interval`); method ``oa`` (d = 2) or ``tokens``;
* :func:`invariant_table`: results/tables/atlas_invariants.csv, where the d = 2 limit cycles (OA label
  ``oscillate``) live: per ensemble and invariant (tr A, det A, disc A, tr V, det V, disc V), ``bins`` quantile bins
  with the oscillating fraction of the bin (Wilson interval) and the bin's share of all oscillating samples;
* :func:`phase_table`: results/tables/atlas_phase.csv, per (ensemble, model, d, n, β, t) the fraction of runs
  *clustered at t* (r(t) ≥ ``r_threshold``) with its interval, and the mean fraction of clustered pairs;
* :func:`claim_rows`: C12a (d = 2 fractions), C12b (limit cycles and where they live), C12c (token fractions),
  C12d (phase diagrams).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...regimes.classify import LABELS
from ..rows import claim_row
from .plan import samples_for_half_width, wilson_interval

ATLAS_COLUMNS = ["ensemble", "model", "d", "beta", "method", "regime", "count", "n_samples", "fraction", "ci_low",
                 "ci_high"]
INVARIANTS = ("trA", "detA", "discA", "trV", "detV", "discV")
INVARIANT_COLUMNS = ["ensemble", "invariant", "bin", "lo", "hi", "n_samples", "n_oscillate", "fraction", "ci_low",
                     "ci_high", "share"]
PHASE_TABLE_COLUMNS = ["ensemble", "model", "d", "n_tokens", "beta", "t", "n_runs", "n_clustered", "fraction",
                       "ci_low", "ci_high", "mean_pairs"]
#: the interval half-width the issue asks of the token atlas
TARGET_HALF_WIDTH = 0.05


def _fractions(g: pd.DataFrame, keys: dict) -> list[dict]:
    counts = g["regime"].value_counts()
    n = len(g)
    rows = []
    for lab in LABELS:
        k = int(counts.get(lab, 0))
        lo, hi = wilson_interval(k, n)
        rows.append({**keys, "regime": lab, "count": k, "n_samples": n, "fraction": k / n, "ci_low": float(lo),
                     "ci_high": float(hi)})
    return rows


def atlas_table(d2: pd.DataFrame, tokens: pd.DataFrame, beta: float) -> pd.DataFrame:
    """results/tables/atlas.csv (:data:`ATLAS_COLUMNS`) from the d = 2 rows and the token rows."""
    rows = []
    for ens, g in d2.groupby("ensemble", sort=False):
        rows += _fractions(g, {"ensemble": ens, "model": "lsa", "d": 2, "beta": float(beta), "method": "oa"})
    for (ens, model, d, b), g in tokens.groupby(["ensemble", "model", "d", "beta"], sort=False):
        rows += _fractions(g, {"ensemble": ens, "model": model, "d": int(d), "beta": float(b), "method": "tokens"})
    return pd.DataFrame(rows, columns=ATLAS_COLUMNS)


def invariant_table(d2: pd.DataFrame, bins: int) -> pd.DataFrame:
    """results/tables/atlas_invariants.csv (:data:`INVARIANT_COLUMNS`): ``bins`` quantile bins per (ensemble,
    invariant); an invariant constant in an ensemble (e.g. disc ≥ 0 of symmetric matrices is not constant, but a
    degenerate quantile is) gets fewer, merged bins."""
    rows = []
    for ens, g in d2.groupby("ensemble", sort=False):
        osc = (g["regime"] == "oscillate").to_numpy()
        n_osc = int(osc.sum())
        for inv in INVARIANTS:
            x = g[inv].to_numpy(float)
            edges = np.unique(np.quantile(x, np.linspace(0, 1, int(bins) + 1)))
            if edges.size < 2:
                edges = np.array([x.min(), x.max()])
            idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
            for b in range(edges.size - 1):
                m = idx == b
                n, k = int(m.sum()), int((m & osc).sum())
                lo, hi = wilson_interval(k, n)
                rows.append({"ensemble": ens, "invariant": inv, "bin": b, "lo": float(edges[b]),
                             "hi": float(edges[b + 1]), "n_samples": n, "n_oscillate": k,
                             "fraction": k / n if n else np.nan, "ci_low": float(lo), "ci_high": float(hi),
                             "share": k / n_osc if n_osc else np.nan})
    return pd.DataFrame(rows, columns=INVARIANT_COLUMNS)


def phase_table(phase: pd.DataFrame, r_threshold: float) -> pd.DataFrame:
    """results/tables/atlas_phase.csv (:data:`PHASE_TABLE_COLUMNS`): clustered at t means r(t) ≥ ``r_threshold``."""
    p = phase.assign(clustered=phase["r"].to_numpy(float) >= float(r_threshold))
    keys = ["ensemble", "model", "d", "n_tokens", "beta", "t"]
    g = p.groupby(keys, sort=False).agg(n_runs=("run", "size"), n_clustered=("clustered", "sum"),
                                        mean_pairs=("pairs", "mean")).reset_index()
    g["n_clustered"] = g["n_clustered"].astype(int)
    g["fraction"] = g["n_clustered"] / g["n_runs"]
    g["ci_low"], g["ci_high"] = wilson_interval(g["n_clustered"].to_numpy(), g["n_runs"].to_numpy())
    return g[PHASE_TABLE_COLUMNS]


def _fraction_text(g: pd.DataFrame) -> str:
    g = g[g["count"] > 0].sort_values("fraction", ascending=False)
    return ", ".join(f"{r.regime} {r.fraction:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" for r in g.itertuples())


def _decided_row(rid, statement, method, g, max_undetermined, evidence, extra=""):
    n = int(g["n_samples"].iloc[0])
    und = int(g.loc[g["regime"] == "undetermined", "count"].sum())
    ok = und <= max_undetermined * n
    note = f"fractions (95 % Wilson interval): {_fraction_text(g)}; {und} undetermined" + extra
    return claim_row(rid, statement, method, n, n - und, ok, evidence, note, informational=True, n_undetermined=und)


def where_oscillating(d2: pd.DataFrame) -> dict:
    """Shares of the oscillating d = 2 samples of one ensemble by the sign of tr A, det A, disc V (NaN if none)."""
    osc = d2[d2["regime"] == "oscillate"]
    n = len(osc)

    def share(mask):
        return float(mask.sum()) / n if n else float("nan")

    return {"n": n, "trA_pos": share(osc["trA"] > 0), "detA_pos": share(osc["detA"] > 0),
            "discV_neg": share(osc["discV"] < 0),
            "all_discV_neg": float((d2["discV"] < 0).mean()) if len(d2) else float("nan")}


def claim_rows(atlas: pd.DataFrame, invariants: pd.DataFrame, phase: pd.DataFrame, d2: pd.DataFrame,
               max_undetermined: float, r_threshold: float) -> list[dict]:
    """C12 rows (informational: the paper studies chosen weights, not how common each regime is)."""
    rows = []
    ev = "atlas"
    for (ens, beta), g in atlas[atlas["method"] == "oa"].groupby(["ensemble", "beta"], sort=False):
        e2 = d2[d2["ensemble"] == ens]
        n_failed = int(e2["failed"].astype(str).str.lower().eq("true").sum()) if "failed" in e2 else 0
        rows.append(_decided_row(f"C12a-{ens}-d2", f"Random weights ({ens}), d = 2 LSA by OA from near-uniform "
                                 f"starts at beta = {beta:g}: every sample's regime decided within the budget (at "
                                 f"most {max_undetermined:g} undetermined)", "oa", g, max_undetermined, ev,
                                 f" ({n_failed} of them: the OA integration failed)" if n_failed else ""))
        w = where_oscillating(d2[d2["ensemble"] == ens])
        inv = invariants[(invariants["ensemble"] == ens) & (invariants["n_oscillate"] > 0)]
        top = inv.sort_values("fraction", ascending=False).groupby("invariant", sort=False).head(1)
        where = "; ".join(f"{r.invariant} in [{r.lo:.3g}, {r.hi:.3g}): {r.fraction:.3f}"
                          for r in top.sort_values("fraction", ascending=False).itertuples())
        n = int(g["n_samples"].iloc[0])
        note = (f"{w['n']} of {n} samples oscillate; of them tr A > 0: {w['trA_pos']:.3f}, det A > 0: "
                f"{w['detA_pos']:.3f}, disc V < 0 (complex eigenvalues of V): {w['discV_neg']:.3f} (all samples: "
                f"{w['all_discV_neg']:.3f})" + (f"; the bin of each invariant with the largest oscillating fraction: "
                                                f"{where}" if where else ""))
        rows.append(claim_row(f"C12b-{ens}-d2", f"Random weights ({ens}), d = 2 LSA by OA: limit cycles (oscillate) "
                              "occur, and where they live in tr A, det A, disc V", "oa", n, w["n"], w["n"] > 0, ev,
                              note, informational=True))
    need = samples_for_half_width(TARGET_HALF_WIDTH)
    for (ens, model, d, beta), g in atlas[atlas["method"] == "tokens"].groupby(["ensemble", "model", "d", "beta"],
                                                                               sort=False):
        half = float(((g["ci_high"] - g["ci_low"]) / 2).max())
        extra = (f"; largest interval half-width {half:.3f} (± {TARGET_HALF_WIDTH:g} needs {need} samples: "
                 "workflow/config/sweep.yaml)")
        rows.append(_decided_row(f"C12c-{ens}-{model}-d{d}", f"Random weights ({ens}), {model.upper()} tokens at "
                                 f"d = {d}, beta = {beta:g}: every run's regime decided within the budget (at most "
                                 f"{max_undetermined:g} undetermined)", "tokens", g, max_undetermined, ev, extra))
    for (ens, model, d, n), g in phase.groupby(["ensemble", "model", "d", "n_tokens"], sort=False):
        last = g[g["t"] == g["t"].max()].sort_values("beta")
        n_runs = int(last["n_runs"].sum())
        n_cl = int(last["n_clustered"].sum())
        fr = ", ".join(f"beta {r.beta:g}: {r.fraction:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in last.itertuples())
        unit = "t" if model == "sa" else "s = t/tau_USA"
        rows.append(claim_row(f"C12d-{ens}-{model}-d{d}", f"Random weights ({ens}), {model.upper()} with n = {n} "
                              f"tokens at d = {d}: some runs are clustered (r >= {r_threshold:g}) at the last layer "
                              f"time {unit} = {float(last['t'].iloc[0]):g}", model, n_runs, n_cl, n_cl > 0, ev,
                              f"fraction clustered at the last time: {fr}", informational=True))
    return rows
