"""What a build found, written by the build: ``results/FINDINGS.md``, the same content as an HTML page of the
Snakemake report, the claims table as a coloured HTML table, and the short summary printed at the end of every
build. Nothing here computes science: it only reads tables.

Both findings pages come in layers. First one table (:func:`first_screen`), a row per claim of the paper (C1–C7)
and per study beyond it (C8–C10, the off-manifold study): what the paper says (fixed text,
:data:`lsadyn.paper.claims.CLAIM_ROWS`), what this build found (:func:`found_sentence`, one sentence made from the
counts of the claims table and the numbers of the results tables), the verdict and the figure. Then the build, its
provenance block (between ``<!-- provenance -->`` markers, which the build's ``onsuccess:``/``onerror:`` hook
fills from results/provenance.json, :mod:`lsadyn_workflow.provenance`: the findings job itself runs only when its
tables changed, the provenance is rewritten by every build), and a section per row of the first table: what was
tested, counts, key numbers, verdict, notes.

Claims table columns (written by :mod:`lsadyn.paper.claims`, explained in
workflow/report/claims_legend.md): ``id, claim, statement, method, n_tested, n_agree, pass,
informational, evidence, note``. A claim passes when every row of it that is not informational
passes; informational rows (outside the claim's hypotheses) are shown, with whether their own
statement held, but do not count.
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lsadyn.paper.claims import CLAIM_ROWS
from lsadyn.paper.persistence.plan import LIMIT_CYCLE
from lsadyn.paper.rows import span

#: The markers of the provenance block on the first page of FINDINGS.md and of the findings page: the findings job
#: writes :data:`PROVENANCE_PLACEHOLDER` between them, the build's hooks (:mod:`lsadyn_workflow.provenance`) the record.
PROVENANCE_BEGIN, PROVENANCE_END = "<!-- provenance -->", "<!-- /provenance -->"
PROVENANCE_PLACEHOLDER = "Provenance: filled in at the end of the build from `results/provenance.json`."

CLAIM_COLUMNS = ["id", "claim", "statement", "method", "n_tested", "n_agree", "n_undetermined", "pass", "informational",
                 "undecided", "evidence", "note"]

# The first-screen rows (key -> what the paper says, figures) live with the claims: lsadyn.paper.claims.CLAIM_ROWS.
#: Which results file holds each claim's key numbers: the case name in agreement.csv.
AGREEMENT_CASE = {"C1": "case1", "C2": "case2", "C3": "case3", "C4": "case4", "C5": "bifurcation"}


def _as_bool(x) -> bool:
    return str(x).strip().lower() in {"true", "1", "yes"}


def normalise_claims(df: pd.DataFrame) -> pd.DataFrame:
    """The claims table with ``pass`` and ``informational`` as booleans and the agreed columns, and ``undecided``
    (a row failing only through runs without a certified label, :func:`lsadyn.paper.rows.claim_row`).

    Also reads the older layout (``claim_id`` repeated per method, ``pass`` = True/False/"n/a") so that
    a results tree built before the column change still renders: there ``informational`` is
    ``pass == "n/a"`` and ids get the method appended (``C1a-oa``)."""
    df = df.copy()
    if "id" not in df.columns and "claim_id" in df.columns:
        raw = df["pass"].astype(str).str.strip().str.lower()
        df["informational"] = raw.isin({"n/a", "", "nan", "none"})
        df["claim"] = df["claim_id"].astype(str).str.extract(r"^(C\d+)", expand=False)
        ids = df["claim_id"].astype(str) + "-" + df["method"].astype(str)
        counts = ids.groupby(ids).cumcount()
        df["id"] = [i if c == 0 else f"{i}-{c + 1}" for i, c in zip(ids, counts)]
    if "n_undetermined" not in df.columns:  # a table written before the column: no run counted as undetermined
        df["n_undetermined"] = 0
    missing = [c for c in CLAIM_COLUMNS if c not in df.columns and c != "undecided"]
    if missing:
        raise ValueError(f"claims table: missing column(s) {', '.join(missing)}")
    df["pass"] = [_as_bool(p) for p in df["pass"]]  # for informational rows: whether their own statement held
    df["informational"] = [_as_bool(i) for i in df["informational"]]
    df["n_undetermined"] = pd.to_numeric(df["n_undetermined"], errors="coerce").fillna(0).astype(int)
    # undecided: a claim row that fails only because some runs carry no certified label (every other run agrees);
    # an undecided run is not evidence against a claim
    df["undecided"] = (~df["pass"] & ~df["informational"] & (df["n_undetermined"] > 0)
                       & (df["n_agree"].astype(int) + df["n_undetermined"] >= df["n_tested"].astype(int)))
    for col in ("statement", "method", "evidence", "note"):
        df[col] = df[col].fillna("").astype(str)
    return df[CLAIM_COLUMNS].reset_index(drop=True)


@dataclass
class Tally:
    """Counts over the rows of a claims table."""
    passing: int = 0
    failing: int = 0
    informational: int = 0
    failing_ids: list = field(default_factory=list)
    claims_pass: list = field(default_factory=list)
    claims_fail: list = field(default_factory=list)
    #: rows that fail only through undetermined runs, and the claims with such rows and no failing one
    undecided: int = 0
    undecided_ids: list = field(default_factory=list)
    claims_undecided: list = field(default_factory=list)
    #: first-screen keys (claims and studies, :func:`finding_keys`) whose rows are all informational, in
    #: first-screen order: from the rows' own ``informational`` flag, never a list kept by hand
    claims_informational: list = field(default_factory=list)


def claim_groups(c: pd.DataFrame):
    """(claim, rows) in the claims' numeric order (C1, C2, ..., C10), not as text (C1, C10, C2)."""
    def key(claim):
        digits = "".join(ch for ch in str(claim) if ch.isdigit())
        return (int(digits) if digits else 10**9, str(claim))

    groups = dict(tuple(c.groupby("claim", sort=False)))
    return [(claim, groups[claim]) for claim in sorted(groups, key=key)]


def tally(claims: pd.DataFrame) -> Tally:
    """Row counts (passing / failing / informational) and per-claim verdicts."""
    c = normalise_claims(claims)
    t = Tally()
    decided = c[~c.informational]
    failing = ~decided["pass"] & ~decided["undecided"]
    t.passing = int(decided["pass"].sum())
    t.failing = int(failing.sum())
    t.undecided = int(decided["undecided"].sum())
    t.informational = int(c.informational.sum())
    t.failing_ids = list(decided.loc[failing, "id"])
    t.undecided_ids = list(decided.loc[decided["undecided"], "id"])
    for claim, g in claim_groups(c):
        if len(g[~g.informational]):
            {"pass": t.claims_pass, "fail": t.claims_fail, "undecided": t.claims_undecided}[claim_verdict(g)].append(claim)
    keys = finding_keys(c)
    for key in list(dict.fromkeys(k for k in CLAIM_ROWS if (keys == k).any())) + sorted(set(keys) - set(CLAIM_ROWS)):
        if bool(c.loc[keys == key, "informational"].all()):
            t.claims_informational.append(key)
    return t


def claim_verdict(rows: pd.DataFrame) -> str:
    """'pass' if every non-informational row passes, 'fail' if one fails on decided runs, 'undecided' if the only
    rows not passing are undecided (they lack certified labels, :func:`normalise_claims`), 'informational only'
    else."""
    d = rows[~rows.informational]
    if not len(d):
        return "informational only"
    if bool(d["pass"].all()):
        return "pass"
    undecided = d["undecided"] if "undecided" in d else pd.Series(False, index=d.index)
    return "undecided" if bool((d["pass"] | undecided).all()) else "fail"


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return "—" if math.isnan(x) else f"{x:.4g}"  # NaN: no value (no period; an empty text column reads as NaN)
    return str(x)


def key_numbers(claim: str, tables: dict) -> list[tuple[str, pd.DataFrame | str]]:
    """(heading, table or sentence) pairs with the numbers behind one first-screen row (a claim, or a study of its
    own such as ``C1b-offmanifold``), read from the results tables in ``tables`` (keys: agreement, bifurcation_fit,
    stability, highdim, disagreements, robustness, offmanifold; any may be missing)."""
    out = []
    agreement = tables.get("agreement")
    if claim in AGREEMENT_CASE and agreement is not None:
        row = agreement[agreement["case"] == AGREEMENT_CASE[claim]]
        if len(row):
            r = row.iloc[0]
            out.append(("Agreement of the three methods (results/tables/agreement.csv)",
                        f"{int(r.n_points)} sampled points; OA = WS at {int(r.oa_eq_ws)}, OA = n tokens at "
                        f"{int(r.oa_eq_particles)}, WS = n tokens at {int(r.ws_eq_particles)}, all three at "
                        f"{int(r.all_three_agree)}; OA's regime is the one the claim's condition as worded in the paper "
                        f"predicts at {int(r.oa_matches_prediction)} of the {int(r.n_with_prediction)} points where "
                        f"that condition predicts one; OA run undetermined at {int(r.n_undetermined_oa)} "
                        f"point{'' if int(r.n_undetermined_oa) == 1 else 's'}."))
    dis = tables.get("disagreements")
    if claim in AGREEMENT_CASE and dis is not None and len(dis):
        d = dis[dis["case"] == AGREEMENT_CASE[claim]]
        if len(d):
            reasons = d["reason"].astype(str).str.split(":").str[0].value_counts()
            out.append(("Disagreements (results/tables/disagreements.csv)",
                        f"{len(d)} points; reasons: " + "; ".join(f"{k} ({v})" for k, v in reasons.items())))
    fit = tables.get("bifurcation_fit")
    if claim == "C5" and fit is not None and len(fit):
        r = fit.iloc[0]
        out.append(("Saddle-node (results/tables/bifurcation_fit.csv)",
                    f"μ_c = {_fmt(float(r.mu_c_theory))} in theory; the sweep brackets it in "
                    f"[{_fmt(float(r.mu_converge_max))}, {_fmt(float(r.mu_rotate_min))}] "
                    f"(inside: {_fmt(bool(_as_bool(r.threshold_in_bracket)))}); fitted exponent "
                    f"{_fmt(float(r.fit_exponent))} (theory {_fmt(float(r.theory_exponent))}) over {int(r.n_fit)} "
                    f"points near threshold; period vs π/(β√(μ² − s²)): max relative error "
                    f"{float(r.period_max_rel_err):.2e} over {int(r.n_rotating)} rotating points."))
    st = tables.get("stability")
    if claim == "C6" and st is not None and len(st):
        eps_small = tables.get("eps_small")
        rows = []
        for reg, g in st.groupby("regime", sort=False):
            small = g[g.eps <= eps_small] if eps_small is not None else g
            rows.append({"(A, V)": str(g.statement.iloc[0]),
                         "theorem applies": "yes" if _as_bool(g.hypothesis.iloc[0]) else "no",
                         "runs": len(g), f"runs with ε ≤ {_fmt(eps_small)}": len(small),
                         "same regime as OA (ε small)": int((small.regime_tokens == small.regime_oa).sum()),
                         "same regime as OA (all)": int((g.regime_tokens == g.regime_oa).sum()),
                         "max discrepancy (ε small)": _fmt(float(small.discrepancy.max())) if len(small) else "–"})
        out.append(("Runs per (A, V) (results/tables/stability.csv)", pd.DataFrame(rows)))
    hd = tables.get("highdim")
    if claim == "C7" and hd is not None and len(hd):
        cols = [c for c in ["scenario", "model", "d", "n_tokens", "horizon", "expect", "regime", "r_final", "drift_rate",
                            "period", "mean_token_norm", "cluster_shape", "check_ok", "r_change_last_quarter", "offplane_final",
                            "transverse_rate", "note"]
                if c in hd.columns]
        t = hd[cols].copy()
        t["expect"] = t["expect"].replace("", "(no d = 2 prediction)")
        t = t.rename(columns={"horizon": "horizon (τ)"})  # drift_rate and period are per unit time t, not τ
        out.append(("Every run (results/tables/highdim.csv)", t))
    om = tables.get("offmanifold")
    if claim == "C1b-offmanifold" and om is not None and len(om):
        out.append(("Every run (results/tables/offmanifold.csv; start: a fixed density 1 + ε cos 2ξ, or i.i.d. angles)",
                    om[[c for c in om.columns if c != "seed"]]))
    rb = tables.get("robustness")
    if claim == "C8" and rb is not None and len(rb):
        out += robustness_numbers(rb)
    return out


def robustness_numbers(rb: pd.DataFrame) -> list[tuple[str, pd.DataFrame | str]]:
    """C8: the stage's paragraph and its thresholds per (scenario, d, model), from results/tables/robustness.csv."""
    from .robustness.summary import findings_text, thresholds

    th = thresholds(rb)
    t = th[["scenario", "d", "model", "reference", "delta_first_change", "delta_all_kept", "bits_needed",
            "delta_min", "delta_typ"]].rename(columns={
                "reference": "unperturbed regime", "delta_first_change": "first δ changing it",
                "delta_all_kept": "every run keeps it for all δ ≤", "bits_needed": "every run keeps it for all b ≥",
                "delta_min": "predicted δ_min", "delta_typ": "predicted δ_typ"})
    return [("What the runs showed (results/tables/robustness.csv)", findings_text(rb)),
            ("Where the regime changes (—: for 'first δ changing it', no δ of the grid changes it; for 'all δ ≤', "
             "already the smallest δ changes it; for 'all b ≥', even the largest b changes it; δ_min, δ_typ only for "
             "clustered scenarios)", t)]


def persistence_section(table: pd.DataFrame | None) -> str:
    """The persistence stage's paragraph, computed from results/tables/persistence.csv."""
    if table is None or not len(table):
        return ""
    from .persistence.summary import findings_paragraph

    return findings_paragraph(table)


def _md_table(df: pd.DataFrame) -> str:
    def cell(x):
        return _fmt(x).replace("|", "\\|").replace("\n", " ")
    head = "| " + " | ".join(map(str, df.columns)) + " |\n|" + "---|" * len(df.columns) + "\n"
    return head + "".join("| " + " | ".join(cell(x) for x in row) + " |\n" for row in df.itertuples(index=False))


def _claim_rows_table(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "id": rows["id"], "statement": rows["statement"], "method": rows["method"],
        "agree / tested": [f"{a} / {n}" for a, n in zip(rows.n_agree, rows.n_tested)],
        "result": [verdict_word(p, i, u, k, n) for p, i, u, k, n in
                   zip(rows["pass"], rows.informational, rows.undecided, rows.n_undetermined, rows.n_tested)],
        "note": rows["note"]})


def verdict_word(passed: bool, informational: bool, undecided: bool = False, n_undetermined: int = 0,
                 n_tested: int = 0) -> str:
    if informational:
        return "informational (held)" if passed else "informational (did not hold)"
    if undecided and not passed:
        return f"undecided ({int(n_undetermined)} of {int(n_tested)} runs)"
    return "pass" if passed else "FAIL"


# --- the first screen: one row per claim and per study beyond the paper ---------------------------------

def _study_key(rid: str, claim: str) -> str:
    """The first-screen key of a row: its id if that is a key (a study of its own, e.g. ``C1b-offmanifold``), the
    study whose id and '-' begin it (``C7-usa-oscillation-rate`` -> ``C7-usa-oscillation``), else its claim."""
    if rid in CLAIM_ROWS:
        return rid
    studies = [k for k in CLAIM_ROWS if "-" in k and rid.startswith(k + "-")]
    return max(studies, key=len) if studies else claim


def finding_keys(c: pd.DataFrame) -> pd.Series:
    """The first-screen key of every row of ``c`` (:func:`_study_key`), indexed as ``c``."""
    return pd.Series([_study_key(i, cl) for i, cl in zip(c["id"], c["claim"].astype(str))], index=c.index,
                     dtype=object)


def finding_groups(c: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(key, rows) in the order of :data:`~lsadyn.paper.claims.CLAIM_ROWS`: a row belongs to the key that is its id
    or begins it (a study of its own, e.g. ``C1b-offmanifold``; :func:`_study_key`), else to its claim. Raises
    ValueError naming a claim the claims table has and CLAIM_ROWS lacks (its first-screen row would have no "what the
    paper says")."""
    keys = finding_keys(c)
    unknown = sorted(set(keys) - set(CLAIM_ROWS))
    if unknown:
        raise ValueError(f"findings: claims table has claim(s) {', '.join(unknown)} without a 'what the paper says' "
                         "entry; add them to lsadyn.paper.claims.CLAIM_ROWS")
    return [(k, c[keys == k]) for k in CLAIM_ROWS if (keys == k).any()]


def _pick(g: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """The rows of ``g`` whose id matches ``pattern`` in full."""
    return g[g["id"].str.fullmatch(pattern)]


def _of(rows: pd.DataFrame) -> str:
    """'271 of 271': agreeing of tested, summed over ``rows``."""
    return f"{int(rows.n_agree.sum())} of {int(rows.n_tested.sum())}"


def _passing_of(rows: pd.DataFrame) -> str:
    """'17 of 24': rows passing of rows."""
    return f"{int(rows['pass'].sum())} of {len(rows)}"


def _values(x) -> str:
    """'{2, 3, 8, 100}': the distinct values, in order."""
    return "{" + ", ".join(_fmt(v) for v in sorted(set(x))) + "}"


def _runs_text(runs: pd.DataFrame, *cols: str, limit: int = 3) -> str:
    """'oscillation USA d = 2 (2 runs), …': the first ``limit`` distinct names of runs by their columns (runs that
    differ only in a column not named, such as the seed, are counted under one name), and how many runs more."""
    def name(r):
        bits = [str(r["scenario"]), str(r["model"]).upper()]
        bits += [f"{'β' if c == 'beta' else c} = {_fmt(r[c])}" for c in cols if c in r]
        return " ".join(bits)
    shown = list(Counter(name(r) for _, r in runs.iterrows()).items())[:limit]  # in the runs' order
    rest = len(runs) - sum(k for _, k in shown)
    return (", ".join(n if k == 1 else f"{n} ({k} runs)" for n, k in shown)
            + (f" and {rest} more" if rest else ""))


def _found_cases12(g, tables):
    c = str(g["claim"].iloc[0])
    parts = []
    oa_a, oa_b = _pick(g, rf"{c}a-oa"), _pick(g, rf"{c}b-oa")
    if len(oa_a):
        parts.append(f"OA agrees at {_of(oa_a)} points predicted to cluster ({c}a-oa)")
    if len(oa_b):
        parts.append(f"{_of(oa_b)} predicted not to ({c}b-oa)")
    tok = [_of(r) for r in (_pick(g, rf"{c}a-tokens"), _pick(g, rf"{c}b-tokens")) if len(r)]
    text = " and ".join(parts)
    if tok:
        text += f"; n tokens off the OA manifold (informational): {', '.join(tok)}"
    return text


def _found_case3(g, tables):
    parts = []
    if len(r := _pick(g, "C3a")):
        parts.append(f"OA finds the region the claim asks for: {_of(r)} non-commuting grid points rotate (C3a; the "
                     "others, e.g. σ < 0, converge)")
    if len(r := _pick(g, "C3b")):
        parts.append(f"at the rate 2βμ√σ at {_of(r)} (C3b)")
    text = ", ".join(parts)
    if len(r := _pick(g, "C3a-commuting")):
        text += f"; the commuting σ = 1 too: {_of(r)} (informational)"
    return text


def _found_case4(g, tables):
    parts = []
    if len(r := _pick(g, "C4a-oscillate")):
        parts.append(f"as worded, {_of(r)} predicted oscillations (C4a-oscillate)")
    if len(r := _pick(g, "C4a-converge")):
        parts.append(f"{_of(r)} predicted convergences (C4a-converge)")
    text = " and ".join(parts) + (" occur" if parts else "")
    if len(r := _pick(g, "C4b")):
        text += f"; corrected, |v11| < |v12|: {_of(r)} (C4b)"
    if len(r := _pick(g, "C4c")):
        text += f"; 𝓗 conserved on {_of(r)} orbits (C4c)"
    return text


def _found_bifurcation(g, tables):
    fit = tables.get("bifurcation_fit")
    if fit is None or not len(fit):
        return _found_generic(g, tables)
    r = fit.iloc[0]
    return (f"the sweep brackets μ_c = {_fmt(float(r.mu_c_theory))} in [{_fmt(float(r.mu_converge_max))}, "
            f"{_fmt(float(r.mu_rotate_min))}] (C5a); period exponent {_fmt(float(r.fit_exponent))}, theory "
            f"{_fmt(float(r.theory_exponent))} (C5b); period π/(β√(μ² − s²)) to {float(r.period_max_rel_err):.1e} "
            f"at {int(r.n_rotating)} rotating points (C5c)")


def _found_stability(g, tables):
    eps = tables.get("eps_small")
    decided, info = g[~g.informational], g[g.informational]
    a, b = _pick(decided, r"C6a-.*"), _pick(decided, r"C6b-.*")
    small = f"ε ≤ {_fmt(eps)}" if eps is not None else "small ε"
    parts = []
    if len(a):
        parts.append(f"within the hypotheses {_of(a)} runs with {small} reach the OA regime (C6a)")
    if len(b):
        parts.append(f"the discrepancy shrinks with ε for {_passing_of(b)} (A, V) (C6b)")
    text = ", ".join(parts)
    if len(ia := _pick(info, r"C6a-.*")):
        text += f"; outside them {_of(ia)} (informational)"
    return text


def _c7_failures(g, tables) -> str:
    """What the failing C7 rows' runs did: undetermined runs (r(t) not settled), other labels, failed tolerance
    checks."""
    out = []
    hd, ps = tables.get("highdim"), tables.get("persistence")
    failing = set(g.loc[~g["pass"] & ~g.informational, "id"])
    for model in ("lsa", "usa"):
        if f"C7-{model}" in failing and hd is not None and len(hd):
            runs = hd[(hd.model == model) & (hd.expect != "") & ~hd.scenario.isin(LIMIT_CYCLE)]
            bad = runs[(runs.regime != runs.expect) | ~runs.check_ok.map(_as_bool)]
            out.append((bad, ("d",)))
    if ps is not None and len(ps):
        dim = ps[ps.study == "dimension"]
        for rid in sorted(failing):
            m = re.fullmatch(r"C7-(.+)-(lsa|usa)", rid)
            if m:
                runs = dim[(dim.scenario == m.group(1)) & (dim.model == m.group(2))]
                out.append((runs[runs.regime != runs.expect], ("d",)))
    runs = pd.concat([r for r, _ in out]) if out else pd.DataFrame()
    if not len(runs):
        return ""
    unsettled = runs[runs.regime == "undetermined"]
    other = len(runs) - len(unsettled)
    text = (f"{len(unsettled)} run{'s' if len(unsettled) != 1 else ''} undetermined (no certified label: "
            + _runs_text(unsettled, "d") + ")") if len(unsettled) else ""
    if other:
        text += (", " if text else "") + f"{other} with another label or a failed tolerance check"
    return text


def _found_highdim(g, tables):
    hd_rows = _pick(g, r"C7-(lsa|usa)")
    per_model = [f"{_of(r)} {m.upper()}" for m in ("lsa", "usa") if len(r := _pick(hd_rows, rf"C7-{m}"))]
    # (one run per scenario and model there; the persistence stage's rows count (d, seed) runs)
    hd = tables.get("highdim")
    d = f" at d = {_values(hd.d).strip('{}')}" if hd is not None and len(hd) else ""
    parts = [f"the d = 2 regimes reappear{d} in {', '.join(per_model)} scenarios (C7-lsa, C7-usa)"] if per_model \
        else []
    runs = _pick(g[~g.informational], r"C7-.+-(lsa|usa)")
    if len(runs):
        ps = tables.get("persistence")
        dims = ""
        if ps is not None and len(ps):
            dims = f", d ∈ {_values(ps.loc[ps.study == 'dimension', 'd'])}"
        # the set counted: the (d, seed) runs of the paper's scenarios (rows C7-<scenario>-<model> that count; the
        # saddle pair and the limit cycle are beyond the paper), the set fig_persistence's suptitle counts too
        scen = sorted({re.fullmatch(r"C7-(.+)-(lsa|usa)", i).group(1) for i in runs["id"]})
        parts.append(f"in {_of(runs)} persistence runs of the paper's {len(scen)} scenarios "
                     f"({', '.join(sc.replace('_', ' ') for sc in scen)}){dims}")
    text = " and ".join(parts)
    failing = list(g.loc[~g["pass"] & ~g.informational & ~g.undecided, "id"])
    undecided = list(g.loc[g.undecided, "id"])
    if failing or undecided:
        why = _c7_failures(g, tables)
        if failing:
            text += f"; fails on {', '.join(failing)}"
        if undecided:
            text += f"; undecided on {', '.join(undecided)}"
        text += f": {why}" if why else ""
    return text


def _found_limit_cycle(g, tables):
    """Which kind of oscillation persists where: the case-4 centre (scenario oscillation) and the attracting limit
    cycle (:data:`~lsadyn.paper.persistence.plan.LIMIT_CYCLE`, uniform and near-plane starts), per model, over the
    persistence stage's d (the d at which every seed oscillates), and the highdim stage's runs with the plane's
    transverse exponent."""
    parts = []
    ps = tables.get("persistence")
    if ps is not None and len(ps):
        dim = ps[ps.study == "dimension"]
        for sc, what in (("oscillation", "the centre"), ("limit_cycle", "the limit cycle from uniform starts"),
                         ("limit_cycle_plane", "the limit cycle from near-plane starts")):
            per = []
            for m, gm in dim[dim.scenario == sc].groupby("model", sort=False):
                osc = gm[gm.regime == "oscillate"]
                per.append(f"{m.upper()} {len(osc)} of {len(gm)}" + (f" (d ∈ {_values(osc.d)})" if len(osc) else ""))
            if per:
                n_tok = _values(dim[dim.scenario == sc].n_tokens).strip("{}")
                parts.append(f"{what} oscillates in persistence runs (n = {n_tok}) {', '.join(per)}")
    hd = tables.get("highdim")
    if hd is not None and len(hd) and hd.scenario.isin(LIMIT_CYCLE).any():
        cyc = hd[hd.scenario.isin(LIMIT_CYCLE)]
        runs = []
        for r in cyc.itertuples():
            start = "uniform" if r.scenario == "limit_cycle" else "near-plane"
            lam = (f", plane exponent {r.transverse_rate:+.2g}/τ" if pd.notna(r.transverse_rate) else "")
            runs.append(f"{r.model.upper()} {start} start {r.regime}{lam}")
        sizes = f"d = {_values(cyc.d).strip('{}')}, n = {_values(cyc.n_tokens).strip('{}')}"
        parts.append(f"in the highdim stage's own runs ({sizes}): " + "; ".join(runs))
    return "; ".join(parts) if parts else _found_generic(g, tables)


def _found_robustness(g, tables):
    parts = []
    if len(r := _pick(g, r"C8a-.*")):
        parts.append(f"smallest δ: every run keeps its regime in {_passing_of(r)} (scenario, model, d) (C8a)")
    if len(r := _pick(g, r"C8b-.*")):
        parts.append(f"largest b: {_passing_of(r)} (C8b)")
    text = "; ".join(parts)
    if len(r := _pick(g, r"C8c-.*")):
        text += f"; eigenvalue rule: {_of(r)} clustered runs (C8c)"
    if len(r := _pick(g, r"C8d-.*")):
        text += f"; below δ_min {_of(r)} keep it (C8d)"
    return text


def _per_model(g) -> str:
    return ", ".join(f"{m.upper()} {_of(r)}" for m in ("lsa", "usa") if len(r := g[g["method"].str.endswith(m)]))


def _found_random(g, tables):
    ps = tables.get("persistence")
    d = ""
    if ps is not None and len(ps) and (ps.study == "random").any():
        d = f", d ∈ {_values(ps.loc[ps.study == 'random', 'd'])}"
    return (f"A, V ~ N(0, 1/d){d}: {_of(g)} runs decided within the budget ({_per_model(g)}), the rest "
            "undetermined")


def _found_beta(g, tables):
    ps = tables.get("persistence")
    where, unsettled = "", ""
    if ps is not None and len(ps) and (ps.study == "beta").any():
        b = ps[ps.study == "beta"]
        where = f"over β ∈ {_values(b.beta)} at d = {_values(b.d).strip('{}')}, "
        # an undetermined run (r(t) not settled) has no regime: it is not a change of regime, counted apart
        moving = b[b.regime == "undetermined"]
        changed = b[(b.regime != b.expect) & (b.regime != "undetermined")]
        unsettled = (f", {len(changed)} change it" + (f" ({_runs_text(changed, 'beta')})" if len(changed) else "")
                     + f", {len(moving)} undetermined"
                     + (f" (no certified label: {_runs_text(moving, 'beta')})" if len(moving) else ""))
    return f"{where}{_of(g)} runs keep their regime ({_per_model(g)}){unsettled}"


def _found_offmanifold(g, tables):
    om = tables.get("offmanifold")
    if om is None or not len(om) or not (om.start == "density").any():
        return _found_generic(g, tables)
    dens = om[om.start == "density"]
    ratio = dens.amplitude / dens.oa_distance
    return (f"{int((dens.regime_tokens == 'oscillate').sum())} of {len(dens)} runs from {dens.eps.nunique()} fixed "
            f"densities keep oscillating about the OA interior point, "
            f"n {span(int(dens.n.min()), int(dens.n.max()), 'd', start='from ')}, "
            f"amplitude / distance from the manifold {span(ratio.min(), ratio.max())}")


def _found_continuation(g, tables):
    """C11 in one sentence: the four checks' counts (the multipliers and branch details are in its section)."""
    ct = tables.get("continuation")
    n_planes = f" in {ct.plane.nunique()} planes" if ct is not None and len(ct) else ""
    parts = []
    if len(r := _pick(g, r"C11a-.*")):
        parts.append(f"curves continued{n_planes} meet their closed forms to 1e-8 ({_passing_of(r)} planes, C11a)")
    if len(r := _pick(g, r"C11b-.*")):
        parts.append(f"rotation periods match theirs ({_passing_of(r)} planes, C11b)")
    if len(r := _pick(g, r"C11c-.*")):
        parts.append(f"{_of(r)} grid points' OA labels lie on the right side of the curves (C11c)")
    if len(r := _pick(g, r"C11d-.*")):
        parts.append(f"{_of(r)} limit-cycle branches change stability only at a cycle fold (C11d)")
    return "; ".join(parts) or _found_generic(g, tables)


def _found_atlas(g, tables):
    """C12 in one sentence: the range over ensembles of the d = 2 OA fractions of clusters converging and of
    oscillation, and the token and phase rows' counts (each ensemble's fractions with intervals are in its section)."""
    at = tables.get("atlas")
    parts = []
    if at is not None and len(at):
        oa = at[at.method == "oa"]
        ens = list(dict.fromkeys(oa.ensemble))
        if ens:
            def frac(regime):
                f = [float(oa[(oa.ensemble == e) & (oa.regime == regime)].fraction.sum()) for e in ens]
                return span(100 * min(f), 100 * max(f)) + " %"
            n = int(oa.n_samples.iloc[0]) if oa.n_samples.nunique() == 1 else None
            parts.append(f"in d = 2 by OA ({', '.join(ens)} weights{f', {n} samples each' if n else ''}) clusters "
                         f"converge in {frac('cluster_converge')} and oscillate in {frac('oscillate')} of samples "
                         "(C12a, C12b)")
    if len(r := _pick(g, r"C12c-.*")):
        parts.append(f"token runs at d > 2 decided in {_of(r)} (C12c)")
    if len(r := _pick(g, r"C12d-.*")):
        parts.append(f"softmax runs clustered at the last time: {_of(r)} (C12d)")
    return "; ".join(parts) or _found_generic(g, tables)


def _found_exponents(g, tables):
    """C13 in one sentence: each check's count (what each compares is in its section)."""
    parts = []
    if len(r := _pick(g, r"C13a-.*")):
        parts.append(f"Floquet exponents of rotating clusters meet the closed form to 1e-8 ({_of(r)} points, C13a)")
    if len(r := _pick(g, r"C13b-.*")):
        parts.append(f"token spectra on the OA manifold match OA's ({_passing_of(r)} scenarios, C13b)")
    if len(r := _pick(g, r"C13c-.*")):
        parts.append(f"every attractor has a basin of positive measure ({_passing_of(r)} multistable points, C13c)")
    if len(r := _pick(g, r"C13d-.*")):
        parts.append(f"case rows' OA exponents all <= 0 ({_of(r)}, C13d)")
    if len(r := _pick(g, r"C13e-.*")):
        parts.append(f"clusters tighten at their predicted exponent in {_of(r)} settled fits (C13e)")
    return "; ".join(parts) or _found_generic(g, tables)


def _found_generic(g, tables):
    decided, info = g[~g.informational], g[g.informational]
    parts = [f"{_passing_of(decided)} checks pass ({_of(decided)} runs agree)"] if len(decided) else []
    if len(info):
        parts.append(f"{_passing_of(info)} informational checks hold ({_of(info)} runs)")
    return "; ".join(parts)


def _found_usa_oscillation(g, tables):
    """The USA oscillation's fate (C7-usa-oscillation*): where the symmetric orbit is unstable and what the i.i.d.
    runs did, from results/tables/usa_oscillation.csv and usa_oscillation_growth.csv."""
    t, gr = tables.get("usa_oscillation"), tables.get("usa_oscillation_growth")
    if t is None or gr is None or not len(t) or not len(gr):
        return _found_generic(g, tables)
    start = t["start"].astype(str)
    sym, iid = t[start == "symmetric"], t[start != "symmetric"]
    unstable = gr[~gr.neutral.map(_as_bool)]
    parts = []
    if len(unstable):
        parts.append(f"the symmetric (mean-field) oscillation is unstable to the first harmonic at β ∈ "
                     f"{_values(unstable.beta)} of {_values(gr.beta)} (linearised growth "
                     f"{span(unstable.growth_rate.min(), unstable.growth_rate.max(), '.2g')} per τ), neutral elsewhere")
    else:
        parts.append(f"the symmetric (mean-field) oscillation is neutral to the first harmonic at every β of "
                     f"{_values(gr.beta)}")
    left = sym[sym.exit_time.notna()]
    parts.append(f"symmetric starts leave by {_fmt(float(t.t_max.max()))} τ at β ∈ {_values(left.beta)}"
                 if len(left) else f"no symmetric start leaves by {_fmt(float(t.t_max.max()))} τ")
    unstable_b = set(unstable.beta)
    for label, sub in (("unstable", iid[iid.beta.isin(unstable_b)]), ("neutral", iid[~iid.beta.isin(unstable_b)])):
        if not len(sub):
            continue
        by_n = sub.groupby("n").exit_time.agg(lambda e: f"{int(e.notna().sum())}/{len(e)}")
        parts.append(f"i.i.d. starts at {label} β leave by t_max in " + ", ".join(f"{v} (n = {n})"
                                                                                  for n, v in by_n.items()))
    sym_neutral = sym[~sym.beta.isin(unstable_b)]
    iid_neutral = iid[~iid.beta.isin(unstable_b)]
    gone = iid_neutral[iid_neutral.exit_time.notna()]
    if len(sym_neutral) and sym_neutral.exit_time.isna().all() and len(gone):
        parts.append(f"so at neutral β the mean-field orbit stays and finite n ends the oscillation (exits "
                     f"{span(gone.exit_time.min(), gone.exit_time.max())} τ at n ≤ {int(gone.n.max())}), while at "
                     "unstable β the mean field itself leaves")
    from .usa_oscillation.summary import lifetime_growth

    life = lifetime_growth(t, 1.0)
    if life is not None and len(life["per_n"]) >= 2:
        beyond = f"> {_fmt(life['t_max'])}"
        each = "; ".join(f"n = {n}: " + ", ".join(_fmt(e) if math.isfinite(e) else beyond for e in exits)
                         for n, exits in life["per_n"])
        trend = ("no growth" if life["slope"] is not None and life["slope"] <= 0 else
                 f"ln(exit) grows with ln n at slope {life['slope']:.2f} over the runs that left"
                 + (f" ({life['n_stayed']} stayed to t_max, so the growth is at least that)" if life["n_stayed"] else "")
                 if life["slope"] is not None else "too few exits to fit a growth")
        parts.append(f"at the paper's β = 1 the i.i.d. runs' lifetimes (exit times, τ) over {life['decades']:.1f} "
                     f"decades of n: {each}; {trend}")
    rows = _pick(g, r"C7-usa-oscillation.*")
    text = "; ".join(parts)
    return text + f" ({_passing_of(rows)} informational checks hold)" if len(rows) else text


def _found_looped(g, tables):
    """C14 in one sentence (:func:`lsadyn.paper.looped.summary.found_sentence`)."""
    from .looped.summary import found_sentence

    return found_sentence(g, tables.get("looped"))


#: key -> the sentence of its first-screen row, from the claims rows and the results tables.
FOUND = {"C1": _found_cases12, "C2": _found_cases12, "C3": _found_case3, "C4": _found_case4, "C5": _found_bifurcation,
         "C6": _found_stability, "C7": _found_highdim, "C8": _found_robustness, "C9": _found_random,
         "C10": _found_beta, "C11": _found_continuation, "C12": _found_atlas, "C13": _found_exponents, "C1b-offmanifold": _found_offmanifold,
         "C7-usa-oscillation": _found_usa_oscillation,
         "C7-limitcycle": _found_limit_cycle, "C14": _found_looped}


def found_sentence(key: str, rows: pd.DataFrame, tables: dict) -> str:
    """One sentence: what this build found for a first-screen row, from the counts of its claims rows and the
    numbers of the results tables. A failing (not informational) row the sentence does not name is added at its
    end with its counts and the first clause of its note, so that a failing claim's sentence says what failed."""
    text = FOUND.get(key, _found_generic)(rows, tables)
    missing = rows[~rows["pass"] & ~rows.informational & ~rows["id"].map(lambda i: i in text)]
    for word, part in (("fails on", missing[~missing.undecided]), ("undecided on", missing[missing.undecided])):
        if len(part):
            text += f"; {word} " + ", ".join(f"{r.id} ({r.n_agree} of {r.n_tested}: {r.note.split(';')[0]})"
                                             for r in part.itertuples())
    text = text.strip()
    return text[:1].upper() + text[1:] + "."


def first_screen(claims: pd.DataFrame, tables: dict) -> list[dict]:
    """The first-screen rows: ``key``, ``paper`` (what the paper says), ``found`` (:func:`found_sentence`),
    ``verdict`` (pass / fail / informational, from the claims table), ``figures``."""
    out = []
    for key, g in finding_groups(normalise_claims(claims)):
        paper, figures = CLAIM_ROWS[key]
        verdict = claim_verdict(g).replace("informational only", "informational")
        out.append({"key": key, "paper": paper, "found": found_sentence(key, g, tables), "verdict": verdict,
                    "figures": figures})
    return out


def _anchor(key: str) -> str:
    return key.lower()


def first_screen_markdown(rows: list[dict]) -> list[str]:
    lines = ["| claim | what the paper says | what this build found | verdict | figure |", "|---|---|---|---|---|"]
    for r in rows:
        verdict = f"**{r['verdict'].upper()}**" if r["verdict"] == "fail" else r["verdict"]
        figs = ", ".join(f"[{f}](../paper_figures/{f}.png)" for f in r["figures"])
        cells = [f"[{r['key']}](#{_anchor(r['key'])})", r["paper"], r["found"], verdict, figs]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def build_description(settings: dict) -> str:
    """One sentence naming the sizes this build used (from the config the rule passed in)."""
    s = settings
    parts = [f"seed {s['seed']}", f"β = {_fmt(s['beta'])}",
             f"WS and n-token runs with n = {s['n_tokens']} over {_fmt(s['horizon'])} τ",
             f"high dimension d = {s['highdim_d']}, n = {s['highdim_n']}",
             f"stability n = {s['stability_n']}, ε_small = {_fmt(s['eps_small'])}"]
    return "; ".join(parts) + "."


def all_key_numbers(claims: pd.DataFrame, tables: dict) -> dict[str, list[tuple[str, pd.DataFrame | str]]]:
    """{key: :func:`key_numbers`} for every first-screen row of ``claims`` (:func:`finding_groups`): computed once for
    FINDINGS.md and its HTML page, which show the same numbers (the C8 thresholds alone were ~0.15 s each time)."""
    return {key: key_numbers(key, tables) for key, _ in finding_groups(normalise_claims(claims))}


def headline(t: Tally) -> str:
    """'5 of 7 claims of the paper pass (C1, …); failing: C4, C7; informational only: C8, …' (plain text)."""
    n = len(t.claims_pass) + len(t.claims_fail) + len(t.claims_undecided)
    return (f"{len(t.claims_pass)} of {n} claims pass "
            f"({', '.join(t.claims_pass) or 'none'}); failing: {', '.join(t.claims_fail) or 'none'}"
            + (f"; undecided (runs without a certified label): {', '.join(t.claims_undecided)}"
               if t.claims_undecided else "")
            + (f"; informational only (not counted): {', '.join(t.claims_informational)}"
               if t.claims_informational else ""))


def findings_markdown(claims: pd.DataFrame, tables: dict, settings: dict, numbers: dict | None = None) -> str:
    """The text of results/FINDINGS.md: first one table (:func:`first_screen`: a row per claim and per study beyond
    the paper), the build and its provenance, then a section per row of that table with its claims rows and the key
    numbers. ``numbers``: :func:`all_key_numbers` of the same claims and tables, if already computed."""
    c = normalise_claims(claims)
    t = tally(c)
    head, _, rest = headline(t).partition(" (")
    lines = ["# What this build found", "",
             f"**{head}** ({rest}. Rows of `results/tables/claims.csv`: {t.passing} passing, {t.failing} failing"
             + (f" ({', '.join(t.failing_ids)})" if t.failing_ids else "")
             + (f", {t.undecided} undecided ({', '.join(t.undecided_ids)})" if t.undecided_ids else "")
             + f", {t.informational} informational (they do not count: runs off the OA manifold, outside a claim's "
             "hypotheses, or studies beyond the paper).", "",
             *first_screen_markdown(first_screen(c, tables)), "",
             (f"Build: {build_description(settings)} Written by the build (rule `findings`, `lsadyn.paper.findings`) "
              "from `results/tables/*.csv`; do not edit. Each claim's rows and numbers follow the provenance."), "",
             PROVENANCE_BEGIN, PROVENANCE_PLACEHOLDER, PROVENANCE_END]
    for key, g in finding_groups(c):
        paper, figures = CLAIM_ROWS[key]
        figs = ", ".join(f"[`paper_figures/{f}.png`](../paper_figures/{f}.png)" for f in figures)
        lines += ["", f"## {key}", "", f"*The paper: {paper}*", "",
                  f"**Verdict: {claim_verdict(g)}.** Figure: {figs}.", "",
                  "What was tested, and what the runs showed:", "", _md_table(_claim_rows_table(g))]
        for heading, body in numbers[key] if numbers is not None else key_numbers(key, tables):
            lines += [f"{heading}:", ""]
            lines += [_md_table(body) if isinstance(body, pd.DataFrame) else body, ""]
    persistence = persistence_section(tables.get("persistence"))
    if persistence:
        lines += ["", persistence.rstrip()]
    lines += ["", "Row ids: see `workflow/report/claims_legend.md`. Every number above is read from the results "
              "tables of this build."]
    return "\n".join(lines).rstrip() + "\n"


# --- HTML (report pages) ---------------------------------------------------------------------------

CSS = """<style>
body{font-family:system-ui,sans-serif;font-size:14px;max-width:1200px;margin:1em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#eee}td.note{font-size:12px;color:#333;min-width:22em;max-width:40em}
tr.pass td.res{background:#cfe8d5;color:#0b4d1e;font-weight:bold}
tr.fail td.res{background:#f6c8c3;color:#7a1109;font-weight:bold}
tr.info{color:#555;font-style:italic}tr.info td.res{background:#e8e8e8}
.legend span{padding:1px 6px;margin-right:8px}
table.first{font-size:13px;line-height:1.25}table.first td{padding:2px 5px}p.build{font-size:13px}
table.first td:nth-child(2){width:30%}table.first td:nth-child(3){width:46%}
</style>"""


def claims_html_table(claims: pd.DataFrame) -> str:
    """The claims table as an HTML table: pass green, fail red, informational rows grey and italic,
    notes in full."""
    c = normalise_claims(claims)
    esc = html.escape
    out = ["<table class='claims'><tr><th>id</th><th>claim</th><th>statement</th><th>method</th>"
           "<th>agree / tested</th><th>result</th><th>evidence</th><th>note</th></tr>"]
    for r in c.to_dict("records"):
        cls = "info" if r["informational"] or r["undecided"] else ("pass" if r["pass"] else "fail")
        word = verdict_word(r["pass"], r["informational"], r["undecided"], r["n_undetermined"], r["n_tested"])
        out.append(f"<tr class='{cls}'><td>{esc(r['id'])}</td><td>{esc(str(r['claim']))}</td>"
                   f"<td>{esc(r['statement'])}</td><td>{esc(r['method'])}</td><td>{r['n_agree']} / {r['n_tested']}</td>"
                   f"<td class='res'>{esc(word)}</td><td>{esc(r['evidence'])}</td>"
                   f"<td class='note'>{esc(r['note'])}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def _html_df(df: pd.DataFrame) -> str:
    esc = html.escape
    head = "<tr>" + "".join(f"<th>{esc(str(c))}</th>" for c in df.columns) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{esc(_fmt(x))}</td>" for x in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table>{head}{body}</table>"


LEGEND = ("<p class='legend'><span style='background:#cfe8d5'>pass</span><span style='background:#f6c8c3'>FAIL"
          "</span><span style='background:#e8e8e8'><i>informational</i></span> (outside the claim's hypotheses; "
          "does not count toward the verdict)</p>")


def claims_title(claims: pd.DataFrame) -> str:
    """'Claims C1–C10': the range of the claim numbers the table holds."""
    nums = sorted({int(m.group(1)) for c in claims["claim"].astype(str) if (m := re.fullmatch(r"C(\d+)", c))})
    return f"Claims C{nums[0]}–C{nums[-1]}" if nums else "Claims"


def claims_html_page(claims: pd.DataFrame, legend_md: str = "") -> str:
    esc = html.escape
    t = tally(claims)
    legend = "".join(f"<p>{html.escape(p)}</p>" for p in legend_md.split("\n\n") if p.strip())
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Claims</title>{CSS}</head><body>"
            f"<h1>{esc(claims_title(claims))}</h1><p>{t.passing} rows passing, {t.failing} failing, {t.undecided} "
            f"undecided, {t.informational} "
            f"informational.</p>{LEGEND}{claims_html_table(claims)}{legend}</body></html>")


def first_screen_html(rows: list[dict]) -> str:
    """The first-screen table as HTML: the verdict cell coloured as in the claims table, the claim linking to its
    section below."""
    esc = html.escape
    out = [("<table class='first'><tr><th>claim</th><th>what the paper says</th><th>what this build found</th>"
            "<th>verdict</th><th>figure</th></tr>")]
    for r in rows:
        cls = {"pass": "pass", "fail": "fail"}.get(r["verdict"], "info")
        word = "FAIL" if r["verdict"] == "fail" else r["verdict"]
        figs = "<br>".join(f"<code>{esc(f)}</code>" for f in r["figures"])
        out.append(f"<tr class='{cls}'><td><a href='#{_anchor(r['key'])}'>{esc(r['key'])}</a></td>"
                   f"<td>{esc(r['paper'])}</td><td>{esc(r['found'])}</td><td class='res'>{esc(word)}</td>"
                   f"<td>{figs}</td></tr>")
    out.append("</table>")
    return "\n".join(out)


def findings_html(claims: pd.DataFrame, tables: dict, settings: dict, numbers: dict | None = None) -> str:
    """FINDINGS.md as a self-contained HTML page (a page of the Snakemake report), in the same order: the
    first-screen table, the build and its provenance, a section per row. ``numbers``: as in
    :func:`findings_markdown`."""
    c = normalise_claims(claims)
    t = tally(c)
    esc = html.escape
    head, _, rest = headline(t).partition(" (")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Findings</title>{CSS}</head><body>",
             "<h1>What this build found</h1>",
             (f"<p><b>{esc(head)}</b> ({esc(rest)}. Rows: {t.passing} passing, {t.failing} failing, "
              f"{t.undecided} undecided, "
              f"{t.informational} informational.</p>"),
             first_screen_html(first_screen(c, tables)),
             (f"<p class='build'>Build: {esc(build_description(settings))} Figures: "
              "<code>paper_figures/&lt;figure&gt;.png</code>, in this report under their categories. Each row's detail "
              "follows the provenance.</p>"),
             PROVENANCE_BEGIN, f"<p>{esc(PROVENANCE_PLACEHOLDER)}</p>", PROVENANCE_END, LEGEND]
    for key, g in finding_groups(c):
        v = claim_verdict(g)
        paper, figures = CLAIM_ROWS[key]
        colour = {"pass": "#0b4d1e", "fail": "#7a1109"}.get(v, "#555")
        parts += [f"<h2 id='{_anchor(key)}'>{esc(key)}</h2><p><i>The paper: {esc(paper)}</i></p>",
                  f"<p><b style='color:{colour}'>Verdict: {esc(v)}</b>. Figure: "
                  + ", ".join(f"<code>paper_figures/{esc(f)}.png</code>" for f in figures) + "</p>",
                  claims_html_table(g)]
        for heading, body in numbers[key] if numbers is not None else key_numbers(key, tables):
            parts.append(f"<p><b>{esc(heading)}</b>: " + (esc(body) + "</p>" if isinstance(body, str)
                                                         else "</p>" + _html_df(body)))
    parts.append("</body></html>")
    return "\n".join(parts)


# --- the summary printed at the end of a build -----------------------------------------------------

def _newer_results(claims: Path, root: Path, inputs=None) -> list[str]:
    """Files the claims table reads (``inputs``, the claims_table rule's input; by default every results
    table results/**/*.csv) written after ``claims``: the claims were computed without them. A table the
    claims do not read (regimes.csv) finishing later says nothing about them."""
    try:
        since = claims.stat().st_mtime
        files = (root / "results").rglob("*.csv") if inputs is None else (root / str(f) for f in inputs)
        found = [(p.stat().st_mtime, p) for p in files if p != claims and p.exists()]
    except OSError:
        return []
    return [str(p.relative_to(root)) for t, p in sorted(found, reverse=True) if t > since]


#: The project's one-line errors, as jobs and the Snakefile print them.
_ERROR_LINE = re.compile(r"lsadyn: (?:error|invalid configuration): .*")


def build_errors(snakemake_log, root=".") -> list[str]:
    """The project's one-line errors of a failed build (for Snakemake's ``onerror:``, which gets the path
    of its own log, or in Snakemake 9 a list of them): the ``lsadyn: error: ...`` lines in that log and in the log files of the jobs it
    reports as failed ("Error in rule ...", "log: <files>"), each once, in order."""
    root = Path(root)
    logs = [snakemake_log] if isinstance(snakemake_log, (str, Path)) else list(snakemake_log or ())
    text = ""
    for f in logs:  # Snakemake 9 passes a list of log files (one per log handler)
        try:
            text += Path(f).read_text(errors="replace")
        except (OSError, TypeError):
            pass
    found = [m.group(0).strip() for m in _ERROR_LINE.finditer(text)]
    for block in re.split(r"\n(?=Error in rule )", text)[1:]:
        m = re.search(r"^\s*log: (.+?)(?: \(check log file\(s\) for error details\))?$", block, re.MULTILINE)
        for job_log in (m.group(1).split(", ") if m else ()):
            try:
                found += [x.group(0).strip() for x in _ERROR_LINE.finditer((root / job_log.strip()).read_text(
                    errors="replace"))]
            except OSError:
                pass
    return list(dict.fromkeys(found))


def error_summary(snakemake_log, root=".") -> str:
    """The last lines of a failed build: the project's one-line error(s) of :func:`build_errors`
    repeated after Snakemake's own text (empty when there is none, e.g. a Snakemake error)."""
    errors = build_errors(snakemake_log, root)
    if not errors:
        return ""
    return "\n".join(["", "lsadyn: the build failed:", *(f"  {e}" for e in errors)])


def build_summary(claims_csv="results/tables/claims.csv", configfiles=(), root=".", inputs=None) -> str:
    """A few lines for the end of a build: claims passing / failing / informational and where to
    look first. Works (says so) when the build made no claims table, e.g. one figure as target.
    ``inputs``: the files the claims table reads (the claims_table rule's input), compared with it to
    warn that it may be out of date."""
    root = Path(root)
    def rel(f):
        try:
            return Path(f).resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            return f
    cfg = " ".join(f"--configfile={rel(f)}" for f in configfiles if not str(f).endswith("config/config.yaml"))
    lines = ["", "lsadyn build summary"]
    path = root / claims_csv
    if path.is_file():
        try:
            t = tally(pd.read_csv(path, keep_default_na=False))
            lines.append(f"  claims: {len(t.claims_pass)} passing ({', '.join(t.claims_pass) or 'none'}), "
                         f"{len(t.claims_fail)} failing ({', '.join(t.claims_fail) or 'none'})"
                         + (f", {len(t.claims_undecided)} undecided ({', '.join(t.claims_undecided)})"
                            if t.claims_undecided else "")
                         + (f", informational only (not counted): {', '.join(t.claims_informational)}"
                            if t.claims_informational else "") + "; rows: "
                         f"{t.passing} pass, {t.failing} fail"
                         + (f" [{', '.join(t.failing_ids)}]" if t.failing_ids else "")
                         + f", {t.informational} informational")
        except (ValueError, KeyError, OSError) as err:
            lines.append(f"  claims: could not read {claims_csv}: {err}")
        newer = _newer_results(path, root, inputs)
        if newer:
            lines.append(f"  (that table may be out of date: {newer[0]}"
                         + (f" and {len(newer) - 1} more results file(s)" if len(newer) > 1 else "")
                         + " newer than it, e.g. after building one figure or with another config; build the "
                           "default target to update it)")
    else:
        lines.append(f"  claims: no {claims_csv} yet (build the default target for it)")
    lines += ["  look first: results/FINDINGS.md (its first table: each claim, what the paper says, what this build found),",
              "              paper_figures/*.png and paper_figures/movies/*.gif,",
              f"              report: snakemake --report report.html{(' ' + cfg) if cfg else ''}"]
    return "\n".join(lines)
