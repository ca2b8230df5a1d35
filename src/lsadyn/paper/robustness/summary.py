"""Summaries of the robustness table (claim C8), from results/tables/robustness.csv: which runs keep the
regime of their unperturbed (A, V), the fraction kept per level and the thresholds. numpy and pandas only, so
the figure notebook reads the table without importing the simulation stack (:mod:`lsadyn.paper.robustness`,
which re-exports these names, pulls in the integrators, scipy and numba)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def with_reference(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with ``reference`` (the regime of the unperturbed run of the same scenario, d, model) and
    ``kept`` (regime == reference; False for an ``undetermined`` run or reference)."""
    df = df.drop(columns=["reference", "kept"], errors="ignore")
    df = df.assign(**{c: df[c].fillna("").astype(str) for c in ("predicted", "expect") if c in df})
    ref = df[df.kind == "none"].set_index(["scenario", "d", "model"]).regime.rename("reference")
    if ref.index.duplicated().any():
        raise ValueError("robustness table: more than one unperturbed run per (scenario, d, model)")
    out = df.join(ref, on=["scenario", "d", "model"])
    if out.reference.isna().any():
        raise ValueError("robustness table: a (scenario, d, model) has no unperturbed run")
    out["kept"] = (out.regime == out.reference) & (out.regime != "undetermined")
    return out


def kept_fractions(df: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, d, model, kind, level): runs, kept, undetermined, fraction_kept (of all runs, an
    undetermined run counting as not kept), fraction_predicted (of the runs with a prediction, column
    ``predicted`` from :func:`lsadyn.paper.robustness.cluster_prediction`, the fraction predicted to keep the
    reference regime; NaN without predictions), reference regime and the other labels seen. ``level`` is δ for
    ``perturb`` and b for ``quantise``."""
    df = with_reference(df)
    df = df[df.kind != "none"].assign(level=lambda x: np.where(x.kind == "perturb", x.delta, x.bits.astype(float)))
    keys = ["scenario", "d", "model", "kind", "level"]
    # numpy per group (positions from the groupby, in its sorted key order): a pandas mask per group and column
    # took 0.4 s for the quick table
    kept, regime = df.kept.to_numpy(bool), df.regime.to_numpy(object)
    predicted, reference = df.predicted.to_numpy(object), df.reference.to_numpy(object)
    rows = []
    for key, idx in sorted(df.groupby(keys, sort=True).indices.items()):
        k, has = kept[idx], predicted[idx] != ""
        other = df.regime.iloc[idx[~k]].value_counts() if not k.all() else {}
        rows.append(dict(zip(keys, key), runs=len(idx), kept=int(k.sum()),
                         undetermined=int((regime[idx] == "undetermined").sum()), fraction_kept=float(k.mean()),
                         fraction_predicted=float((predicted[idx][has] == reference[idx][has]).mean()) if has.any()
                         else np.nan, reference=reference[idx[0]],
                         changed_to=", ".join(f"{k} {v}" for k, v in other.items())))
    return pd.DataFrame(rows)


def thresholds(df: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, d, model): ``delta_first_change`` (smallest δ with a run not keeping the regime, NaN if
    none), ``delta_all_kept`` (largest δ up to which every run keeps it), ``bits_needed`` (smallest b such
    that every quantisation with ≥ b bits keeps the regime; NaN if even the largest does not), the predicted
    ``delta_min``/``delta_typ`` (cluster scenarios) and the reference regime."""
    df = with_reference(df)
    rows = []
    for key, g in df.groupby(["scenario", "d", "model"], sort=True):
        p = g[g.kind == "perturb"]
        lost = p[~p.kept]
        first = float(lost.delta.min()) if len(lost) else np.nan
        below = p[p.delta < first] if len(lost) else p
        all_kept = float(below.delta.max()) if len(below) else np.nan
        q = g[g.kind == "quantise"].sort_values("bits")
        needed = np.nan
        for b in q.bits[::-1]:
            if q[q.bits >= b].kept.all():
                needed = float(b)
        rows.append(dict(zip(["scenario", "d", "model"], key), reference=g.reference.iloc[0],
                         delta_first_change=first, delta_all_kept=all_kept, bits_needed=needed,
                         delta_min=float(g.delta_min.iloc[0]), delta_typ=float(g.delta_typ.iloc[0]),
                         expect=g.expect.iloc[0]))
    return pd.DataFrame(rows)
