"""What a build found, written by the build: ``results/FINDINGS.md`` (one section per claim C1…C7:
what was tested, counts, key numbers from the results tables, verdict, notes), the same content as an
HTML page of the Snakemake report, the claims table as a coloured HTML table, and the short summary
printed at the end of every build. Nothing here computes science: it only reads tables.

The first page of both holds a provenance block (between ``<!-- provenance -->`` markers) that the build's
``onsuccess:``/``onerror:`` hook fills from results/provenance.json (:mod:`lsadyn.paper.provenance`): the
findings job itself runs only when its tables changed, the provenance is rewritten by every build.

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
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lsadyn.paper.provenance import BEGIN as PROVENANCE_BEGIN
from lsadyn.paper.provenance import END as PROVENANCE_END
from lsadyn.paper.provenance import PLACEHOLDER as PROVENANCE_PLACEHOLDER

CLAIM_COLUMNS = ["id", "claim", "statement", "method", "n_tested", "n_agree", "pass", "informational", "evidence",
                 "note"]

#: One-line headings (the claims of the paper, SCIENCE.md §3; no result numbers).
CLAIM_TITLES = {
    "C1": "Case 1, V = I, A arbitrary: clustering if tr A > 0 or det A ≤ 0; interior limit if sym(A) < 0",
    "C2": "Case 2, A = I, V symmetric: clustering iff λ_max(V) ≥ 0",
    "C3": "Case 3, A and V not commuting: rotating clusters",
    "C4": "Case 4, hidden Hamiltonian: oscillation vs convergence",
    "C5": "Saddle-node bifurcation (Adler equation on |R₂| = 1)",
    "C6": "Structural stability off the OA manifold (bounded-Lipschitz distance ε)",
    "C7": "High dimension: the d = 2 behaviours persist (LSA and USA)",
    "C8": "Beyond the paper: regimes under perturbed and quantised weights (LSA and USA, d = 2 and high d)",
    "C9": "Beyond the paper: random weights A, V ~ N(0, 1/d) (LSA and USA)",
    "C10": "Beyond the paper: β for softmax (USA) and linear (LSA) attention",
}
#: Which results file holds each claim's key numbers, and the case name in agreement.csv.
AGREEMENT_CASE = {"C1": "case1", "C2": "case2", "C3": "case3", "C4": "case4", "C5": "bifurcation"}
FIGURE = {"C1": "fig_case1", "C2": "fig_case2", "C3": "fig_case3", "C4": "fig_case4", "C5": "fig_bifurcation",
          "C6": "fig_stability", "C7": "fig_highdim", "C8": "fig_robustness", "C9": "fig_persistence",
          "C10": "fig_persistence"}


def _as_bool(x) -> bool:
    return str(x).strip().lower() in {"true", "1", "yes"}


def normalise_claims(df: pd.DataFrame) -> pd.DataFrame:
    """The claims table with ``pass`` and ``informational`` as booleans and the agreed columns.

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
    missing = [c for c in CLAIM_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"claims table: missing column(s) {', '.join(missing)}")
    df["pass"] = [_as_bool(p) for p in df["pass"]]  # for informational rows: whether their own statement held
    df["informational"] = [_as_bool(i) for i in df["informational"]]
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
    claims_informational: list = field(default_factory=list)  # claims with informational rows only


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
    t.passing = int(decided["pass"].sum())
    t.failing = int((~decided["pass"]).sum())
    t.informational = int(c.informational.sum())
    t.failing_ids = list(decided.loc[~decided["pass"], "id"])
    for claim, g in claim_groups(c):
        d = g[~g.informational]
        if len(d):
            (t.claims_pass if bool(d["pass"].all()) else t.claims_fail).append(claim)
        else:
            t.claims_informational.append(claim)
    return t


def claim_verdict(rows: pd.DataFrame) -> str:
    """'pass' if every non-informational row passes, 'fail' if one fails, 'informational only' else."""
    d = rows[~rows.informational]
    if not len(d):
        return "informational only"
    return "pass" if bool(d["pass"].all()) else "fail"


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return "—" if math.isnan(x) else f"{x:.4g}"  # NaN: no value (no period; an empty text column reads as NaN)
    return str(x)


def key_numbers(claim: str, tables: dict) -> list[tuple[str, pd.DataFrame | str]]:
    """(heading, table or sentence) pairs with the numbers behind one claim, read from the results
    tables in ``tables`` (keys: agreement, bifurcation_fit, stability, highdim, disagreements; any
    may be missing)."""
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
                            "period", "mean_token_norm", "cluster_shape", "check_ok", "settled", "note"]
                if c in hd.columns]
        t = hd[cols].copy()
        if "settled" in hd.columns and not hd.settled.map(_as_bool).all():
            moving = hd[~hd.settled.map(_as_bool)]
            # as highdim_run logs it (%g): 32000 τ, not _fmt's 3.2e+04
            at = (lambda r: f" at t_max = {float(r.horizon):g} τ") if "horizon" in hd.columns else (lambda r: "")
            out.append(("Runs not settled at t_max", "r(t) is still changing over the last quarter of these runs "
                        "(mean r of the last quarter minus that of the third: "
                        + "; ".join(f"{r.scenario} {r.model.upper()}: {r.r_change_last_quarter:+.3f}{at(r)}"
                                    for r in moving.itertuples())
                        + "), so their r_final and period describe a transient, not a settled state; their label "
                        "is that of the last window, and row C7-<model> counts them as undetermined (not as "
                        "agreeing). A longer horizon may settle them (highdim.scenarios.<name>.settle_horizon sets "
                        "it per model); the config's comments say what longer runs showed."))
        t["expect"] = t["expect"].replace("", "(no d = 2 prediction)")
        t = t.rename(columns={"horizon": "horizon (τ)"})  # drift_rate and period are per unit time t, not τ
        out.append(("Every run (results/tables/highdim.csv)", t))
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
        "result": [verdict_word(p, i) for p, i in zip(rows["pass"], rows.informational)],
        "note": rows["note"]})


def verdict_word(passed: bool, informational: bool) -> str:
    if informational:
        return "informational (held)" if passed else "informational (did not hold)"
    return "pass" if passed else "FAIL"


def build_description(settings: dict) -> str:
    """One sentence naming the sizes this build used (from the config the rule passed in)."""
    s = settings
    parts = [f"seed {s['seed']}", f"β = {_fmt(s['beta'])}",
             f"WS and n-token runs with n = {s['n_tokens']} over {_fmt(s['horizon'])} τ",
             f"high dimension d = {s['highdim_d']}, n = {s['highdim_n']}",
             f"stability n = {s['stability_n']}, ε_small = {_fmt(s['eps_small'])}"]
    return "; ".join(parts) + "."


def all_key_numbers(claims: pd.DataFrame, tables: dict) -> dict[str, list[tuple[str, pd.DataFrame | str]]]:
    """{claim: :func:`key_numbers`} for every claim of ``claims``: computed once for FINDINGS.md and its HTML
    page, which show the same numbers (the C8 thresholds alone were ~0.15 s each time)."""
    return {claim: key_numbers(claim, tables) for claim, _ in claim_groups(normalise_claims(claims))}


def findings_markdown(claims: pd.DataFrame, tables: dict, settings: dict, numbers: dict | None = None) -> str:
    """The text of results/FINDINGS.md. ``numbers``: :func:`all_key_numbers` of the same claims and tables, if
    already computed."""
    c = normalise_claims(claims)
    t = tally(c)
    lines = ["# What this build found", "",
             "Written by the build (rule `findings`, `lsadyn.paper.findings`) from `results/tables/*.csv`; "
             "do not edit. Rerunning the build with another config rewrites it.", "",
             f"Build: {build_description(settings)}", "",
             PROVENANCE_BEGIN, PROVENANCE_PLACEHOLDER, PROVENANCE_END, "",
             f"**{len(t.claims_pass)} of {len(t.claims_pass) + len(t.claims_fail)} claims pass** "
             f"({', '.join(t.claims_pass) or 'none'}); failing: {', '.join(t.claims_fail) or 'none'}"
             + (f"; informational only (not counted): {', '.join(t.claims_informational)}"
                if t.claims_informational else "") + ". "
             f"Rows of `results/tables/claims.csv`: {t.passing} passing, {t.failing} failing"
             + (f" ({', '.join(t.failing_ids)})" if t.failing_ids else "")
             + f", {t.informational} informational (outside a claim's hypotheses; they do not count).", "",
             "| claim | verdict | rows passing / decided | informational rows | figure |", "|---|---|---|---|---|"]
    for claim, g in claim_groups(c):
        d = g[~g.informational]
        lines.append(f"| [{claim}](#{claim.lower()}) | {claim_verdict(g)} | {int(d['pass'].sum())} / {len(d)} | "
                     f"{int(g.informational.sum())} | `paper_figures/{FIGURE.get(claim, '')}.png` |")
    for claim, g in claim_groups(c):
        lines += ["", f"## {claim}", "", f"*{CLAIM_TITLES.get(claim, '')}*", "",
                  f"**Verdict: {claim_verdict(g)}.** Figure: `paper_figures/{FIGURE.get(claim, '')}.png`.", "",
                  "What was tested, and what the runs showed:", "", _md_table(_claim_rows_table(g))]
        for heading, body in numbers[claim] if numbers is not None else key_numbers(claim, tables):
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
</style>"""


def claims_html_table(claims: pd.DataFrame) -> str:
    """The claims table as an HTML table: pass green, fail red, informational rows grey and italic,
    notes in full."""
    c = normalise_claims(claims)
    esc = html.escape
    out = ["<table class='claims'><tr><th>id</th><th>claim</th><th>statement</th><th>method</th>"
           "<th>agree / tested</th><th>result</th><th>evidence</th><th>note</th></tr>"]
    for r in c.to_dict("records"):
        cls = "info" if r["informational"] else ("pass" if r["pass"] else "fail")
        out.append(f"<tr class='{cls}'><td>{esc(r['id'])}</td><td>{esc(str(r['claim']))}</td>"
                   f"<td>{esc(r['statement'])}</td><td>{esc(r['method'])}</td><td>{r['n_agree']} / {r['n_tested']}</td>"
                   f"<td class='res'>{verdict_word(r['pass'], r['informational'])}</td><td>{esc(r['evidence'])}</td>"
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
            f"<h1>{esc(claims_title(claims))}</h1><p>{t.passing} rows passing, {t.failing} failing, {t.informational} "
            f"informational.</p>{LEGEND}{claims_html_table(claims)}{legend}</body></html>")


def findings_html(claims: pd.DataFrame, tables: dict, settings: dict, numbers: dict | None = None) -> str:
    """FINDINGS.md as a self-contained HTML page (a page of the Snakemake report). ``numbers``: as in
    :func:`findings_markdown`."""
    c = normalise_claims(claims)
    t = tally(c)
    esc = html.escape
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Findings</title>{CSS}</head><body>",
             "<h1>What this build found</h1>", f"<p>Build: {esc(build_description(settings))}</p>",
             PROVENANCE_BEGIN, f"<p>{esc(PROVENANCE_PLACEHOLDER)}</p>", PROVENANCE_END,
             f"<p><b>{len(t.claims_pass)} of {len(t.claims_pass) + len(t.claims_fail)} claims pass</b> "
             f"({esc(', '.join(t.claims_pass) or 'none')}); failing: {esc(', '.join(t.claims_fail) or 'none')}. "
             f"Rows: {t.passing} passing, {t.failing} failing, {t.informational} informational.</p>", LEGEND]
    for claim, g in claim_groups(c):
        v = claim_verdict(g)
        colour = {"pass": "#0b4d1e", "fail": "#7a1109"}.get(v, "#555")
        parts += [f"<h2 id='{claim.lower()}'>{esc(claim)}: {esc(CLAIM_TITLES.get(claim, ''))}</h2>",
                  f"<p><b style='color:{colour}'>Verdict: {esc(v)}</b>. Figure: "
                  f"<code>paper_figures/{FIGURE.get(claim, '')}.png</code></p>", claims_html_table(g)]
        for heading, body in numbers[claim] if numbers is not None else key_numbers(claim, tables):
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
    lines += ["  look first: results/FINDINGS.md (what each claim's runs showed),",
              "              paper_figures/*.png and paper_figures/movies/*.gif,",
              f"              report: snakemake --report report.html{(' ' + cfg) if cfg else ''}"]
    return "\n".join(lines)
