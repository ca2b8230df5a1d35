"""The findings pages in layers: their first screen is one table, a row per claim of the claims table and per study
beyond the paper (what the paper says, what this build found in one sentence made from the tables' numbers, the
verdict, the figure); the per-row detail follows. The README's and the Results page's claim <-> figure map agree
with it."""

import re
from pathlib import Path

import pandas as pd
import pytest

from lsadyn.paper.claims import CLAIM_ROWS
from lsadyn.paper.findings import finding_groups, findings_html, findings_markdown, first_screen, normalise_claims
from lsadyn.paper.findings import PROVENANCE_END as END

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"seed": 7, "beta": 1.0, "n_tokens": 200, "horizon": 200.0, "highdim_d": 20, "highdim_n": 64,
            "stability_n": 400, "eps_small": 0.05}
COLUMNS = ["id", "claim", "statement", "method", "n_tested", "n_agree", "pass", "informational", "evidence", "note"]


def claims():
    rows = [
        ("C1a-oa", "C1", "clustering", "oa", 41, 41, True, False, "", "observed cluster_converge 41"),
        ("C1b-oa", "C1", "interior", "oa", 7, 7, True, False, "", ""),
        ("C1b-tokens", "C1", "interior", "tokens", 7, 1, False, True, "", "observed oscillate 6"),
        ("C1b-offmanifold", "C1", "off the manifold", "tokens", 4, 4, True, True, "", ""),
        ("C4a-oscillate", "C4", "as worded", "oa", 28, 12, False, False, "", "observed cluster_converge 16"),
        ("C4b", "C4", "corrected", "oa", 48, 48, True, False, "", ""),
        ("C5a", "C5", "threshold", "oa", 1, 1, True, False, "", ""),
        ("C6a-sym_pos_def", "C6", "reach OA", "tokens", 3, 3, True, False, "", ""),
        ("C6b-sym_pos_def", "C6", "shrinks", "tokens", 8, 0, False, False, "",
         "log-log slope 1.04 (95% interval -0.0971 to 2.18) over 8 runs above 1e-06; max discrepancy/eps 1.43"),
        ("C7-lsa", "C7", "persist", "particles-lsa", 4, 3, False, False, "", ""),
        ("C7-usa", "C7", "persist", "particles-usa", 4, 4, True, False, "", ""),
        ("C8a-identity-lsa-d2", "C8", "perturbed", "tokens-lsa", 6, 4, False, True, "", ""),
        ("C8a-rotation-lsa-d2", "C8", "perturbed", "tokens-lsa", 6, 6, True, True, "", ""),
        ("C9-lsa", "C9", "random", "batch-lsa", 4, 3, False, True, "", ""),
        ("C9-usa", "C9", "random", "batch-usa", 4, 2, False, True, "", ""),
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def tables():
    highdim = pd.DataFrame({"scenario": ["oscillation", "rotation", "oscillation", "rotation", "identity", "identity"],
                            "model": ["lsa", "lsa", "usa", "usa", "lsa", "usa"], "d": 20,
                            "expect": ["oscillate", "cluster_rotate"] * 2 + ["cluster_converge"] * 2,
                            "regime": ["oscillate", "cluster_rotate"] * 2 + ["cluster_converge"] * 2,
                            "check_ok": True, "r_change_last_quarter": [0.05, 0, 0, 0, 0, 0]})
    highdim.loc[0, "regime"] = "undetermined"  # r(t) not settled: the decision procedure's label
    fit = pd.DataFrame([{"mu_c_theory": 0.5, "mu_converge_max": 0.4983, "mu_rotate_min": 0.5017,
                         "fit_exponent": -0.4871, "theory_exponent": -0.5, "period_max_rel_err": 3.4e-7,
                         "n_rotating": 22, "threshold_in_bracket": True, "n_fit": 6}])
    offmanifold = pd.DataFrame({"start": ["density"] * 4 + ["iid"], "eps": [0.05, 0.05, 0.1, 0.1, 0.0],
                                "n": [1000, 3000, 1000, 3000, 1000],
                                "oa_distance": [0.0125, 0.0125, 0.025, 0.025, 0.01],
                                "amplitude": [0.00731, 0.00731, 0.01462, 0.01470, 0.004],
                                "regime_tokens": ["oscillate"] * 5, "regime_oa": ["interior_converge"] * 5})
    persistence = pd.DataFrame({"study": ["random"] * 4, "scenario": "random", "model": ["lsa", "lsa", "usa", "usa"],
                                "d": [3, 5, 3, 5], "beta": 1.0, "regime": "cluster_converge", "expect": ""})
    return {"highdim": highdim, "bifurcation_fit": fit, "offmanifold": offmanifold, "persistence": persistence,
            "eps_small": 0.05}


def rows_by_key():
    return {r["key"]: r for r in first_screen(claims(), tables())}


def test_first_screen_has_a_row_per_claim_and_per_study_of_its_own_in_order():
    keys = list(rows_by_key())
    assert keys == ["C1", "C4", "C5", "C6", "C7", "C8", "C9", "C1b-offmanifold"]
    assert set(claims()["claim"]) <= set(keys)


def test_verdicts_come_from_the_claims_table():
    r = rows_by_key()
    assert {k: r[k]["verdict"] for k in r} == {"C1": "pass", "C4": "fail", "C5": "pass", "C6": "fail", "C7": "fail",
                                              "C8": "informational", "C9": "informational",
                                              "C1b-offmanifold": "informational"}
    claims_pass = claims().assign(**{"pass": True})
    assert {r["verdict"] for r in first_screen(claims_pass, tables()) if r["key"] in ("C4", "C6", "C7")} == {"pass"}


def test_sentences_carry_the_counts_and_the_numbers_of_the_tables():
    r = rows_by_key()
    assert "41 of 41" in r["C1"]["found"] and "7 of 7" in r["C1"]["found"] and "1 of 7" in r["C1"]["found"]
    c5 = r["C5"]["found"]
    assert "[0.4983, 0.5017]" in c5 and "-0.4871" in c5 and "3.4e-07" in c5 and "22 rotating points" in c5
    om = r["C1b-offmanifold"]["found"]
    assert "4 of 4 runs from 2 fixed densities" in om and "n from 1000 to 3000" in om and "0.585 to 0.588" in om
    c9 = r["C9"]["found"]
    assert "5 of 8" in c9 and "LSA 3 of 4, USA 2 of 4" in c9 and "d ∈ {3, 5}" in c9
    assert "1 of 2 (scenario, model, d)" in r["C8"]["found"]
    for row in r.values():
        assert row["found"].endswith(".") and not row["found"][0].islower() and re.search(r"\d", row["found"])


def test_a_failing_claims_sentence_says_what_failed():
    r = rows_by_key()
    assert "12 of 28" in r["C4"]["found"] and "C4a-oscillate" in r["C4"]["found"]
    # a failing row its claim's sentence does not name is added, with its counts and what its note says first
    assert "fails on C6b-sym_pos_def (0 of 8: log-log slope 1.04 (95% interval -0.0971 to 2.18)" in r["C6"]["found"]
    # C7: the failing row, and what its runs did (from highdim.csv)
    c7 = r["C7"]["found"]
    assert "fails on C7-lsa" in c7 and "1 run undetermined (no certified label: oscillation LSA d = 20)" in c7
    assert "3 of 4 LSA, 4 of 4 USA" in c7
    # no failure named where nothing fails
    assert "fail" not in r["C1"]["found"] and "fail" not in r["C5"]["found"]


def test_a_claim_without_what_the_paper_says_stops_the_page_naming_it():
    extra = pd.DataFrame([("C99-lsa", "C99", "new", "tokens-lsa", 1, 1, True, True, "", "")], columns=COLUMNS)
    with pytest.raises(ValueError, match="C99.*CLAIM_ROWS"):
        first_screen(pd.concat([claims(), extra]), {})


def test_every_claim_the_legend_names_has_what_the_paper_says_and_a_figure_that_is_built():
    legend = (ROOT / "workflow/report/claims_legend.md").read_text()
    named = {m.group(1) for m in re.finditer(r"`(C\d+)[a-z]?[-`]", legend)}
    assert {f"C{i}" for i in range(1, 11)} <= named
    assert named <= set(CLAIM_ROWS), sorted(named - set(CLAIM_ROWS))
    for key, (paper, figures) in CLAIM_ROWS.items():
        assert paper.endswith(".") and len(paper) < 160 and figures, key
        assert all((ROOT / "workflow/notebooks" / f"{f}.py").is_file() for f in figures), key
    assert [k for k in CLAIM_ROWS if re.fullmatch(r"C\d+", k)][:7] == [f"C{i}" for i in range(1, 8)]


def test_markdown_first_screen_is_the_table_then_the_provenance():
    md = findings_markdown(claims(), tables(), SETTINGS)
    lines = md.splitlines()
    table = [i for i, line in enumerate(lines) if line.startswith("| [")]
    assert table[0] <= 6 and len(table) == len(rows_by_key())  # the first-screen table, one line a row
    assert lines[table[0] - 2].startswith("| claim | what the paper says | what this build found | verdict | figure |")
    first_section = lines.index("## C1")
    assert max(table) < next(i for i, line in enumerate(lines) if END in line) < first_section <= 25
    assert "| [C4](#c4) |" in md and "| **FAIL** |" in md and "[fig_case4](../paper_figures/fig_case4.png)" in md
    assert "[fig_highdim](../paper_figures/fig_highdim.png), [fig_persistence](../paper_figures/fig_persistence.png)" \
        in md
    # the detail follows: a section per row of the table, the off-manifold study apart from C1's section
    sections = re.findall(r"^## (\S+)$", md, re.MULTILINE)
    assert sections == list(rows_by_key())
    c1 = md.split("\n## C1\n")[1].split("\n## ")[0]
    assert "C1b-tokens" in c1 and "C1b-offmanifold" not in c1


def test_html_first_table_is_the_first_screen():
    page = findings_html(claims(), tables(), SETTINGS)
    first = page[page.index("<table"):page.index("</table>")]
    assert "what the paper says" in first and first.count("<tr class=") == len(rows_by_key())
    assert first.count("<tr class='fail'>") == 3 and first.count("<tr class='info'>") == 3
    assert "<a href='#c1b-offmanifold'>" in first and "id='c1b-offmanifold'" in page
    assert page.index("</table>") < page.index(END) < page.index("<h2")


def test_finding_groups_keep_every_row_once():
    c = normalise_claims(claims())
    groups = finding_groups(c)
    assert sum(len(g) for _, g in groups) == len(c)
    assert sorted(i for _, g in groups for i in g["id"]) == sorted(c["id"])


def _figure_map(text):
    """{figure: claim cell} of a page's 'figure | claim | notebook | data' table."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `paper_figures/(fig_\w+)` \| ([^|]*) \|", text,
                                                          re.MULTILINE)}


@pytest.mark.parametrize("name", ["README.md", "docs/results.md"])
def test_the_claim_figure_maps_agree_with_the_first_screen(name):
    fig_map = _figure_map((ROOT / name).read_text())
    for key, (_, figures) in CLAIM_ROWS.items():
        for f in figures:
            assert f in fig_map, (name, f)
            assert re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", fig_map[f]), (name, key, f, fig_map[f])
    shown = {f for _, figures in CLAIM_ROWS.values() for f in figures}
    assert set(fig_map) == shown, (name, set(fig_map) ^ shown)


def test_readme_and_results_page_show_the_same_claim_figure_map():
    readme, results = ((ROOT / n).read_text() for n in ("README.md", "docs/results.md"))
    assert _figure_map(readme) == _figure_map(results)


@pytest.mark.slow
def test_the_quick_build_findings_open_with_a_row_per_claim(built):
    claims_csv = pd.read_csv(built / "results/tables/claims.csv", keep_default_na=False)
    md = (built / "results/FINDINGS.md").read_text()
    head = md.split("\n## ")[0]
    for key, _ in finding_groups(normalise_claims(claims_csv)):
        row = next(line for line in head.splitlines() if line.startswith(f"| [{key}](#{key.lower()}) |"))
        assert re.search(r"\d", row.split(" | ")[2]) and row.split(" | ")[3] in ("pass", "**FAIL**", "undecided", "informational"), row
    assert len(head.splitlines()) <= 35
