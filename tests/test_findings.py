"""lsadyn.paper.findings: FINDINGS.md, the report's claims table and the end-of-build summary
render what the claims table says (counts, verdicts, informational rows), nothing else."""

import os

import pandas as pd
import pytest

from lsadyn.paper.findings import (
    all_key_numbers,
    build_summary,
    claims_html_table,
    finding_keys,
    findings_html,
    findings_markdown,
    normalise_claims,
    tally,
)
from lsadyn.paper.rows import span

SETTINGS = dict(seed=7, beta=1.0, n_tokens=200, horizon=200.0, highdim_d=20, highdim_n=64, stability_n=400,
                eps_small=0.05)


def claims():
    rows = [
        ("C1a-oa", "C1", "clustering if tr A > 0", "oa", 40, 40, True, False, "fig_case1", "all agree"),
        ("C1c-oa", "C1", "not covered", "oa", 5, 0, False, True, "fig_case1", "observed 2 interior <b>"),
        ("C4a-oa", "C4", "as worded", "oa", 28, 12, False, False, "fig_case4", "16 contradicting"),
        ("C4b-oa", "C4", "corrected", "oa", 48, 48, True, False, "fig_case4", ""),
        ("C7-lsa", "C7", "persist", "particles-lsa", 4, 4, True, False, "fig_highdim", ""),
    ]
    return pd.DataFrame(rows, columns=["id", "claim", "statement", "method", "n_tested", "n_agree", "pass",
                                       "informational", "evidence", "note"])


def test_tally_counts_rows_and_claim_verdicts():
    t = tally(claims())
    assert (t.passing, t.failing, t.informational) == (3, 1, 1)
    assert t.failing_ids == ["C4a-oa"]
    assert t.claims_pass == ["C1", "C7"] and t.claims_fail == ["C4"]


def test_informational_rows_never_count_toward_a_verdict():
    df = claims()
    df.loc[1, "pass"] = True  # an informational row whose own statement held
    c = normalise_claims(df)
    assert c.loc[1, "pass"] and c.loc[1, "informational"]
    assert tally(df).passing == 3 and tally(df).informational == 1
    df.loc[0, "informational"] = True  # C1 then has no decided row left: no verdict, not a pass
    assert "C1" not in tally(df).claims_pass + tally(df).claims_fail


def test_a_row_failing_only_on_undetermined_runs_is_undecided_never_fail():
    """Issue 42 part 4: an undecided run is not evidence against a claim."""
    df = claims().assign(n_undetermined=0)
    df.loc[4, ["n_agree", "pass", "n_undetermined"]] = [3, False, 1]  # C7-lsa: 3 agree, 1 undetermined
    t = tally(df)
    assert t.claims_undecided == ["C7"] and "C7" not in t.claims_fail and t.undecided_ids == ["C7-lsa"]
    assert t.failing_ids == ["C4a-oa"]
    md = findings_markdown(df, {}, SETTINGS)
    assert "undecided (1 of 4 runs)" in md and "**Verdict: undecided.**" in md
    df.loc[4, "n_agree"] = 2  # one decided run disagrees: that is a failure, whatever else is undetermined
    assert tally(df).claims_fail == ["C4", "C7"] and tally(df).claims_undecided == []


def test_strings_from_csv_read_as_booleans(tmp_path):
    p = tmp_path / "claims.csv"
    claims().to_csv(p, index=False)
    t = tally(pd.read_csv(p, keep_default_na=False))
    assert (t.passing, t.failing, t.informational) == (3, 1, 1)


def test_legacy_layout_gets_unique_ids_and_informational_from_na():
    legacy = pd.DataFrame({"claim_id": ["C4a", "C4a", "C6x"], "statement": ["s", "t", "u"],
                           "method": ["oa", "oa", "particles"], "n_tested": [1, 1, 1], "n_agree": [1, 0, 1],
                           "pass": ["True", "False", "n/a"], "evidence": "", "note": ""})
    c = normalise_claims(legacy)
    assert list(c["id"]) == ["C4a-oa", "C4a-oa-2", "C6x-particles"]
    assert list(c.informational) == [False, False, True] and list(c["claim"]) == ["C4", "C4", "C6"]


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="informational"):
        normalise_claims(claims().drop(columns="informational"))


def test_findings_markdown_has_a_section_per_claim_with_its_counts():
    md = findings_markdown(claims(), {}, SETTINGS)
    for claim in ("C1", "C4", "C7"):
        assert f"\n## {claim}\n" in md
    assert "**2 of 3 claims pass** (C1, C7); failing: C4" in md
    assert "| C4a-oa | as worded | oa | 12 / 28 | FAIL | 16 contradicting |" in md
    assert "| C1c-oa | not covered | oa | 0 / 5 | informational (did not hold) |" in md
    assert "d = 20, n = 64" in md and "seed 7" in md


def test_both_pages_leave_the_provenance_block_on_their_first_page():
    """The build's hooks fill it from results/provenance.json (lsadyn_workflow.provenance, tests/test_provenance.py):
    right below the first-screen table, above the first claim's section."""
    from lsadyn.paper.findings import PROVENANCE_BEGIN as BEGIN, PROVENANCE_END as END, PROVENANCE_PLACEHOLDER as PLACEHOLDER

    for text, table_end, section in ((findings_markdown(claims(), {}, SETTINGS), "| [C7](#c7)", "\n## C1\n"),
                                     (findings_html(claims(), {}, SETTINGS), "</table>", "<h2 id='c1'>")):
        assert text.index(table_end) < text.index(BEGIN) < text.index(PLACEHOLDER) < text.index(END)
        assert text.index(END) < text.index(section)


def test_key_numbers_come_from_the_tables():
    agreement = pd.DataFrame([dict(case="case1", n_points=52, oa_eq_ws=43, oa_eq_particles=43, ws_eq_particles=52,
                                   all_three_agree=43, n_with_prediction=47, oa_matches_prediction=46,
                                   n_undetermined_oa=1)])
    md = findings_markdown(claims(), {"agreement": agreement}, SETTINGS)
    assert "52 sampled points; OA = WS at 43" in md and "predicts at 46 of the 47 points where" in md


def test_pages_from_key_numbers_computed_once_are_the_pages_computed_per_claim():
    agreement = pd.DataFrame([{"case": "case1", "n_points": 52, "oa_eq_ws": 43, "oa_eq_particles": 43,
                               "ws_eq_particles": 52, "all_three_agree": 43, "n_with_prediction": 47,
                               "oa_matches_prediction": 46, "n_undetermined_oa": 1}])
    tables = {"agreement": agreement}
    numbers = all_key_numbers(claims(), tables)
    assert sorted(numbers) == ["C1", "C4", "C7"] and numbers["C1"]
    assert findings_markdown(claims(), tables, SETTINGS, numbers) == findings_markdown(claims(), tables, SETTINGS)
    assert findings_html(claims(), tables, SETTINGS, numbers) == findings_html(claims(), tables, SETTINGS)


def test_html_table_colours_rows_and_escapes_notes():
    h = claims_html_table(claims())
    assert h.count("<tr class='pass'>") == 3 and h.count("<tr class='fail'>") == 1
    assert h.count("<tr class='info'>") == 1 and "&lt;b&gt;" in h
    page = findings_html(claims(), {}, SETTINGS)
    assert "id='c4'" in page and "Verdict: fail" in page


def test_build_summary_counts_and_points_to_the_outputs(tmp_path):
    (tmp_path / "results/tables").mkdir(parents=True)
    claims().to_csv(tmp_path / "results/tables/claims.csv", index=False)
    s = build_summary(configfiles=["workflow/config/config.yaml", "workflow/config/quick.yaml"], root=tmp_path)
    assert "2 passing (C1, C7), 1 failing (C4)" in s and "3 pass, 1 fail [C4a-oa], 1 informational" in s
    assert "results/FINDINGS.md" in s and "paper_figures" in s
    assert "snakemake --report report.html --configfile=workflow/config/quick.yaml" in s
    assert "informational only" not in s  # every claim of the fixture has a counted row
    extra = pd.DataFrame([("C9-lsa", "C9", "beyond the paper", "tokens-lsa", 8, 5, False, True, "fig_persistence", "")],
                         columns=claims().columns)
    pd.concat([claims(), extra]).to_csv(tmp_path / "results/tables/claims.csv", index=False)
    s = build_summary(root=tmp_path)
    assert "1 failing (C4), informational only (not counted): C9; rows:" in s
    assert "no results/tables/claims.csv yet" in build_summary(root=tmp_path / "empty")
    assert "out of date" not in s
    # a results table written after the claims (one figure rebuilt, another config): the summary says so
    newer = tmp_path / "results/highdim/oscillation.csv"
    newer.parent.mkdir()
    newer.write_text("a\n1\n")
    t = (tmp_path / "results/tables/claims.csv").stat().st_mtime
    os.utime(newer, (t + 5, t + 5))
    s = build_summary(root=tmp_path)
    assert "may be out of date: results/highdim/oscillation.csv newer than it" in s


def test_tables_print_a_dash_not_nan_for_missing_values():
    from lsadyn.paper.findings import _md_table

    text = _md_table(pd.DataFrame({"period": [3.14159, float("nan")], "note": [float("nan"), float("nan")]}))
    assert "nan" not in text.lower() and "| 3.142 | — |" in text and "| — | — |" in text


def test_the_informational_list_is_every_first_screen_row_whose_rows_are_flagged_informational():
    """The header's 'informational only' list comes from the rows' own flag: a study of its own inside a counted
    claim (C7-limitcycle, C1b-offmanifold) is listed, a claim with a counted row is not; first-screen order."""
    extra = pd.DataFrame([("C7-limitcycle", "C7", "beyond the paper", "particles-lsa", 2, 1, False, True, "", ""),
                          ("C1b-offmanifold", "C1", "off the manifold", "tokens", 4, 4, True, True, "", ""),
                          ("C9-lsa", "C9", "beyond the paper", "batch-lsa", 8, 5, False, True, "", "")],
                         columns=claims().columns)
    df = pd.concat([claims(), extra], ignore_index=True)
    t = tally(df)
    assert t.claims_informational == ["C9", "C7-limitcycle", "C1b-offmanifold"]
    assert t.claims_pass == ["C1", "C7"] and t.claims_fail == ["C4"]
    c = normalise_claims(df)
    keys = finding_keys(c)
    flagged = {k for k in set(keys) if c.informational[keys == k].all()}
    assert set(t.claims_informational) == flagged
    head = findings_markdown(df, {}, SETTINGS).splitlines()[2]
    assert "informational only (not counted): C9, C7-limitcycle, C1b-offmanifold." in head


def test_a_range_of_one_value_prints_once():
    assert span(0.0286, 0.0287, ".2g") == "0.029"
    assert span(0.0015, 0.029, ".2g") == "0.0015 to 0.029"
    assert span(1000, 10000, "d", " τ") == "1000 to 10000 τ"
    assert span(1000, 3000, "d", start="from ") == "from 1000 to 3000" and span(1000, 1000, "d", start="from ") == "1000"


def test_runs_text_names_runs_that_differ_only_by_seed_once_with_their_count():
    """FINDINGS lists undetermined runs by scenario, model and d: two seeds of one cell read as one name with
    "(2 runs)", not the same name twice, and "and N more" counts the runs not named."""
    from lsadyn.paper.findings import _runs_text

    runs = pd.DataFrame({"scenario": ["oscillation"] * 3 + ["limit_cycle", "rotation"],
                         "model": ["usa", "usa", "usa", "lsa", "lsa"], "d": [100, 2, 2, 3, 8],
                         "seed": [1, 1, 2, 1, 1]})
    assert _runs_text(runs, "d") == ("oscillation USA d = 100, oscillation USA d = 2 (2 runs), "
                                     "limit_cycle LSA d = 3 and 1 more")
    assert _runs_text(runs.head(3), "d") == "oscillation USA d = 100, oscillation USA d = 2 (2 runs)"
