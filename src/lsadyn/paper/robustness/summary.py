"""Summaries of the robustness table (claim C8), from results/tables/robustness.csv: which runs keep the
regime of their unperturbed (A, V), the fraction kept per level and the thresholds, the claims rows
(:func:`claim_rows`) and the findings paragraph (:func:`findings_text`). numpy and pandas only, so the figure
notebook, the claims and the findings read the table without importing the simulation stack
(:mod:`lsadyn.paper.robustness.runs` pulls in the integrators, scipy and numba)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rows import claim_row as _row
from ..rows import counts_text


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
    ``predicted`` from :func:`lsadyn.paper.robustness.runs.cluster_prediction`, the fraction predicted to keep the
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


EVIDENCE = "paper_figures/fig_robustness.pdf; results/tables/robustness.csv"


def _fmt_levels(fr: pd.DataFrame, kind: str) -> str:
    g = fr[fr.kind == kind]
    name = "δ" if kind == "perturb" else "b"
    return ", ".join(f"{name} = {lv:g}: {k}/{n}" for lv, k, n in zip(g.level, g.kept, g.runs)) or "none"


def _first(delta: float) -> str:
    return f"{delta:g}" if np.isfinite(delta) else "none within the grid"


def claim_rows(df: pd.DataFrame) -> list[dict]:
    """C8 rows of the claims table (beyond the paper, informational), from the robustness table ``df``:

    * ``C8a-<scenario>-<model>-d<d>``: perturbed weights; n_tested = perturbed runs, n_agree = runs keeping
      the unperturbed regime; holds when every run at the smallest δ keeps it (δ → 0 keeps the regime);
    * ``C8b-<scenario>-<model>-d<d>``: quantised weights; holds when the largest b keeps it;
    * ``C8c-<model>``: clustered scenarios, every perturbed or quantised run with a prediction of
      :func:`~lsadyn.paper.robustness.runs.cluster_prediction`:
      the decided regime equals the prediction; runs whose predicted rotation
      is slower than the decision procedure can resolve (``predicted_rate < min_rate``) are counted apart
      (tested, not agreeing, named in the note); holds when no resolvable, decided run disagrees
      (undetermined runs are counted in the note);
    * ``C8d-<model>``: no clustered run changes regime at δ < δ_min = |m₀|/‖V‖_F (the margin bound).
    """
    df = with_reference(df)
    fr = kept_fractions(df)
    th = thresholds(df).set_index(["scenario", "d", "model"])
    rows = []
    for (sc, d, model), g in df.groupby(["scenario", "d", "model"], sort=False):
        ref = g.reference.iloc[0]
        t = th.loc[(sc, d, model)]
        f = fr[(fr.scenario == sc) & (fr.d == d) & (fr.model == model)]
        p = g[g.kind == "perturb"]
        if len(p):
            smallest = p[p.delta == p.delta.min()]
            first = (f"first change at δ = {t.delta_first_change:g}" if np.isfinite(t.delta_first_change)
                     else "no change at any δ of the sweep")
            note = (f"verdict from the smallest δ = {p.delta.min():g}: {int(smallest.kept.sum())} of {len(smallest)} "
                    f"runs keep the regime (the other δ are shown, not judged); unperturbed regime {ref} (d = 2 "
                    f"expectation {g.expect.iloc[0] or 'none'}); kept/runs per {_fmt_levels(f, 'perturb')}; {first}; "
                    f"changed to: {counts_text(p[~p.kept].regime)}; "
                    f"{int((p.regime == 'undetermined').sum())} undetermined")
            if np.isfinite(t.delta_min):
                note += f"; predicted δ_min = {t.delta_min:.3g}, δ_typ = {t.delta_typ:.3g}"
            rows.append(_row(f"C8a-{sc}-{model}-d{d}", f"beyond the paper: the regime of scenario {sc} ({model.upper()}, d = {d}) "
                             f"is kept under random weight perturbations of relative size δ -> 0", f"tokens-{model}",
                             len(p), int(p.kept.sum()), bool(smallest.kept.all()), EVIDENCE, note, informational=True))
        q = g[g.kind == "quantise"]
        if len(q):
            top = q[q.bits == q.bits.max()]
            if q.bits.nunique() == 1:  # one b only: say what it did, not a threshold
                keeps = f"b = {int(q.bits.max())} {'keeps' if np.isfinite(t.bits_needed) else 'changes'} it"
            else:
                keeps = (f"every b >= {t.bits_needed:g} keeps it" if np.isfinite(t.bits_needed)
                         else "the largest b changes it")
            note = (f"unperturbed regime {ref}; kept/runs per {_fmt_levels(f, 'quantise')}; {keeps}; changed to: "
                    f"{counts_text(q[~q.kept].regime)}; max relative change of A {q.rel_change_A.max():.3g}, "
                    f"of V {q.rel_change_V.max():.3g}")
            rows.append(_row(f"C8b-{sc}-{model}-d{d}", f"beyond the paper: the regime of scenario {sc} ({model.upper()}, d = {d}) "
                             f"is kept when A and V are quantised to b = {int(q.bits.max())} bits, "
                             + (f"the sweep's largest b (the verdict; the runs counted: every b, {int(q.bits.min())} "
                                f"to {int(q.bits.max())})" if q.bits.nunique() > 1 else "the sweep's only b"),
                             f"tokens-{model}",
                             len(q), int(q.kept.sum()), bool(top.kept.all()), EVIDENCE, note, informational=True))
    pert = df[(df.kind != "none") & (df.predicted.fillna("") != "")]
    for model, g in pert.groupby("model", sort=False):
        slow = (g.predicted == "cluster_rotate") & (g.predicted_rate < g.min_rate)
        res = g[~slow]
        agree = int((res.regime == res.predicted).sum())
        und = res[res.regime == "undetermined"]
        wrong = res[(res.regime != res.predicted) & (res.regime != "undetermined")]
        note = (f"predictions {counts_text(g.predicted)}; {int(slow.sum())} predicted rotations slower than the "
                f"decision procedure resolves (labels {counts_text(g[slow].regime)}); resolvable runs: "
                f"{len(und)} undetermined, {len(wrong)} disagreeing"
                + (" (" + "; ".join(f"{r.scenario} d={r.d} "
                                    + (f"perturbed δ={r.delta:g}" if r.kind == "perturb" else f"quantised b={r.bits}")
                                    + f": {r.predicted} vs {r.regime}" for r in wrong.itertuples()) + ")"
                   if len(wrong) else ""))
        rows.append(_row(f"C8c-{model}", "beyond the paper: clustered states of perturbed/quantised weights converge "
                         "or rotate as the rightmost eigenvalue of V is real or complex", f"tokens-{model}", len(g),
                         agree, len(wrong) == 0 and len(res) > 0, EVIDENCE, note, informational=True))
        p = g[(g.kind == "perturb") & np.isfinite(g.delta_min)]
        below = p[p.delta < p.delta_min]
        flips = below[~below.kept & (below.regime != "undetermined")]
        first = p[~p.kept & (p.regime != "undetermined")]
        note = (f"{len(below)} runs below δ_min, {len(flips)} of them changed regime; per scenario and d, δ_min / "
                f"first δ with a change to another decided regime (undetermined runs, which C8a counts as "
                f"changes, are left out here): " + "; ".join(
                    f"{sc} d={d}: {gg.delta_min.iloc[0]:.3g} / "
                    f"{_first(first[(first.scenario == sc) & (first.d == d)].delta.min())}"
                    for (sc, d), gg in p.groupby(["scenario", "d"], sort=False)))
        rows.append(_row(f"C8d-{model}", "beyond the paper: no clustered run changes regime below "
                         "δ_min = |m0|/||V||_F (m0: distance of V from the rotation threshold)", f"tokens-{model}",
                         len(below), len(below) - len(flips), len(flips) == 0, EVIDENCE, note, informational=True))
    return rows


def findings_text(df: pd.DataFrame) -> str:
    """The FINDINGS.md paragraph of the stage (numbers from the table)."""
    th = thresholds(df)
    fr = kept_fractions(df)
    dfr = with_reference(df)
    parts = []
    n = len(dfr[dfr.kind != "none"])
    und = int((dfr[dfr.kind != "none"].regime == "undetermined").sum())
    parts.append(f"{n} perturbed or quantised runs ({und} undetermined) against {int((dfr.kind == 'none').sum())} "
                 f"unperturbed ones.")
    p = fr[fr.kind == "perturb"]
    if len(p):
        for lv, g in p.groupby("level"):
            parts.append(f"At δ = {lv:g}, {int(g.kept.sum())} of {int(g.runs.sum())} perturbed runs keep the "
                         f"unperturbed regime.")
    q = fr[fr.kind == "quantise"]
    if len(q):
        for lv, g in q.groupby("level"):
            parts.append(f"With {int(lv)}-bit weights, {int(g.kept.sum())} of {int(g.runs.sum())} runs keep it.")
    fragile = th[np.isfinite(th.delta_first_change)].sort_values("delta_first_change")
    if len(fragile):
        first = fragile.delta_first_change.iloc[0]
        tied = fragile[fragile.delta_first_change == first]  # every one changing first at the smallest δ
        names = [f"{r.scenario} ({r.model.upper()}, d = {r.d}, unperturbed {r.reference}"
                 + (f"; predicted bound δ_min = {r.delta_min:.3g})" if np.isfinite(r.delta_min) else ")")
                 for r in tied.itertuples()]
        parts.append(f"The most fragile, first losing its unperturbed label at δ = {first:g} (to another regime or to "
                     "undetermined; C8d counts only changes to another decided regime): " + "; ".join(names) + ".")
    return " ".join(parts)

