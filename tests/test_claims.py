"""The claims table: format (unique ids, booleans, plain-word notes), no relabelling, C6b's rule."""

import numpy as np
import pandas as pd
import pytest

from lsadyn.paper.cases2d.plan import case1_oa_prediction
from lsadyn.paper.claims import (
    COLUMNS,
    _prediction_rows,
    claims_highdim,
    claims_stability,
    claims_table,
    slope_with_interval,
)


def _frame(labels_ws, amps):
    n = len(labels_ws)
    return pd.DataFrame({"regime_oa": ["interior_converge"] * n, "regime_ws": labels_ws,
                         "regime_particles": labels_ws, "amplitude_ws": amps, "amplitude_particles": amps,
                         "abs_R2_ws": [0.3] * n, "abs_R2_particles": [0.3] * n})


def test_token_rows_report_oscillation_unchanged_and_are_informational():
    g = _frame(["oscillate", "oscillate", "interior_converge"], [0.01, 0.02, np.nan])
    rows = _prediction_rows("C1b", "s", g, "interior_converge", "ev", 0.05, n_tokens=200)
    by = {r["id"]: r for r in rows}
    assert set(by) == {"C1b-oa", "C1b-ws", "C1b-tokens"}
    assert by["C1b-oa"]["pass"] is True and by["C1b-oa"]["informational"] is False
    assert by["C1b-tokens"]["n_agree"] == 1 and by["C1b-tokens"]["pass"] is False
    assert by["C1b-tokens"]["informational"] is True
    assert "oscillate 2" in by["C1b-tokens"]["note"] and "{" not in by["C1b-tokens"]["note"]


def test_token_rows_say_where_the_oscillating_runs_lie_and_how_close_to_clusters_they_end():
    # runs on claim 1's boundary det A = 0 that end just short of |R2| = 1 with a small wobble: the note says where
    # they are and their final |R2|, not only that they "keep oscillating"
    g = _frame(["oscillate", "oscillate", "cluster_converge"], [0.003, 0.004, np.nan]).assign(
        kind=["det_A=0", "det_A=0", "random"], abs_R2_ws=[0.997, 0.9987, 1.0], abs_R2_particles=[0.997, 0.9987, 1.0])
    note = {r["id"]: r for r in _prediction_rows("C1a", "s", g, "cluster_converge", "ev", 0.05, n_tokens=200)}[
        "C1a-ws"]["note"]
    assert "2 runs keep oscillating (peak-to-peak of |R2| median 0.0035, max 0.004; |R2| at the end 0.997 to 0.9987; " \
           "where: det_A=0 2; disagreements.csv gives each one's reason)" in note


def _stability(discrepancies, eps, hyp=True):
    n = len(eps)
    return pd.DataFrame({"regime": ["r"] * n, "hypothesis": [hyp] * n, "statement": ["V = I"] * n, "eps": eps,
                         "regime_tokens": ["cluster_converge"] * n, "regime_oa": ["cluster_converge"] * n,
                         "discrepancy": discrepancies})


def test_c6b_needs_three_runs_above_the_floor():
    rows = claims_stability(_stability([1e-8, 1e-8, 2e-3], [0.01, 0.1, 0.3]), 0.05)
    b = [r for r in rows if r["id"] == "C6b-r"][0]
    assert b["pass"] is False and b["note"].startswith("not enough runs")


def test_c6b_holds_when_every_discrepancy_is_at_the_floor():
    """D = 0 up to the tolerance at every ε (the states coincide): D → 0 holds, there is just no slope to fit;
    the row counts every run and says so, instead of failing with "not enough runs"."""
    rows = claims_stability(_stability([1e-9, 3e-10, 1e-9], [0.01, 0.1, 0.3]), 0.05)
    b = [r for r in rows if r["id"] == "C6b-r"][0]
    assert b["pass"] is True and (b["n_tested"], b["n_agree"]) == (3, 3)
    assert b["note"].startswith("no slope to fit: every run's discrepancy (all 3) is below 1e-06")


def test_c6b_needs_a_positive_confidence_interval():
    eps = np.array([0.01, 0.03, 0.1, 0.3])
    ok = [r for r in claims_stability(_stability(0.5 * eps, eps), 0.05) if r["id"] == "C6b-r"][0]
    assert ok["pass"] is True
    noisy = [r for r in claims_stability(_stability([1e-3, 1e-1, 1e-4, 2e-3], eps), 0.05) if r["id"] == "C6b-r"][0]
    assert noisy["pass"] is False
    s, lo, hi = slope_with_interval(eps, 0.5 * eps)
    assert abs(s - 1) < 1e-12 and lo <= s <= hi


def test_highdim_rows_state_cluster_shape_per_model():
    hd = pd.DataFrame({"scenario": ["identity", "identity"], "model": ["lsa", "usa"], "d": [20, 20],
                       "expect": ["cluster_converge"] * 2, "regime": ["cluster_converge"] * 2,
                       "check_ok": [True, True], "cluster_shape": ["antipodal_pair", "single"],
                       "mean_token_norm": [0.06, 1.0]})
    rows = {r["id"]: r for r in claims_highdim(hd)}
    assert rows["C7-shape-lsa"]["pass"] is True and rows["C7-shape-usa"]["pass"] is False
    assert "single" in rows["C7-shape-usa"]["note"] and rows["C7-shape-usa"]["informational"] is True


def test_highdim_shape_row_excludes_undetermined_runs():
    # an undetermined run that momentarily looks like one cluster is not a clustered end state
    hd = pd.DataFrame({"scenario": ["identity", "random", "rotation"], "model": ["usa"] * 3, "d": [100] * 3,
                       "expect": ["cluster_converge", "", "cluster_rotate"],
                       "regime": ["cluster_converge", "undetermined", "cluster_rotate"],
                       "check_ok": [True] * 3, "cluster_shape": ["single", "single", "antipodal_pair"],
                       "mean_token_norm": [1.0, 1.0, 0.03]})
    row = {r["id"]: r for r in claims_highdim(hd)}["C7-shape-usa"]
    assert (row["n_tested"], row["n_agree"]) == (2, 1)
    assert "random: single" not in row["note"] and "1 undetermined run excluded (random)" in row["note"]


def test_table_has_the_agreed_columns_and_rejects_duplicate_ids():
    rows = claims_stability(_stability([1e-3, 2e-3, 4e-3], [0.01, 0.02, 0.04]), 0.05)
    t = claims_table(rows)
    assert list(t.columns) == COLUMNS and t.id.is_unique and set(t.claim) == {"C6"}
    try:
        claims_table(rows + rows)
    except ValueError as err:
        assert "duplicate" in str(err)
    else:
        raise AssertionError("duplicate ids accepted")


def test_case1_derived_criterion_matches_the_oa_ode():
    """V = I closed form (cases.case1_oa_prediction) against predict_regime on both sides of each boundary."""
    from lsadyn import predict_regime

    for A, expect in [([[-0.1, 3], [-0.5, -0.1]], "cluster_converge"),   # Hurwitz, sym(A) indefinite, clusters
                      ([[-0.5, 2], [-1, 0.3]], "interior_converge"),    # Hurwitz, sym(A) indefinite, interior
                      ([[0.2, 1], [-1, -0.2]], "oscillate"),            # centre, 2|R*| = 0.4 < 1
                      ([[0.6, 1], [-1, -0.6]], "cluster_converge")]:    # centre, 2|R*| = 1.2 > 1
        A = np.array(A, float)
        assert case1_oa_prediction(A)[0] == expect
        assert predict_regime(A, np.eye(2), n_samples=4000).regime == expect


def test_offmanifold_row_from_a_table():
    from lsadyn.paper.claims import claims_offmanifold

    om = pd.DataFrame({"start": ["density"] * 4 + ["iid"], "eps": [0.1, 0.1, 0.3, 0.3, np.nan],
                       "n": [1000, 10000, 1000, 10000, 1000], "oa_distance": [0.025, 0.025, 0.075, 0.075, 0.02],
                       "amplitude": [0.0146, 0.0146, 0.0439, 0.0439, 0.01],
                       "regime_tokens": ["oscillate"] * 5, "regime_oa": ["interior_converge"] * 5})
    (row,) = claims_offmanifold(om)
    assert row["id"] == "C1b-offmanifold" and row["pass"] is True and row["informational"] is True
    om.loc[1, "amplitude"] = 0.02  # depends on n: fails
    assert claims_offmanifold(om)[0]["pass"] is False


def test_highdim_row_counts_an_undetermined_run_by_its_label_and_does_not_pass_on_it():
    # a run whose r(t) has not settled is labelled undetermined by the decision procedure: not agreeing, the row
    # does not pass on it; the limit-cycle scenarios have a row of their own (C7-limitcycle), not counted in C7-usa
    hd = pd.DataFrame({"scenario": ["identity", "oscillation", "limit_cycle"], "model": ["usa"] * 3, "d": [100] * 3,
                       "expect": ["cluster_converge", "oscillate", "oscillate"],
                       "regime": ["cluster_converge", "undetermined", "cluster_converge"], "check_ok": [True] * 3})
    row = {r["id"]: r for r in claims_highdim(hd)}["C7-usa"]
    assert (row["n_tested"], row["n_agree"], row["pass"]) == (2, 1, False)
    assert "oscillation: undetermined (expected oscillate, tolerance check ok)" in row["note"]
    assert "identity: cluster_converge (expected cluster_converge, tolerance check ok)" in row["note"]
    assert "limit_cycle" not in row["note"]
    row = {r["id"]: r for r in claims_highdim(hd.assign(regime=hd.expect))}["C7-usa"]
    assert (row["n_agree"], row["pass"]) == (2, True)


def test_limit_cycle_row_says_per_start_what_the_runs_did_with_the_planes_transverse_exponent():
    hd = pd.DataFrame({"scenario": ["identity", "limit_cycle", "limit_cycle_plane"], "model": ["lsa"] * 3,
                       "d": [100] * 3, "expect": ["cluster_converge", "oscillate", "oscillate"],
                       "regime": ["cluster_converge", "cluster_converge", "oscillate"], "check_ok": [True] * 3,
                       "period": [np.nan, np.nan, 21.53], "cluster_shape": ["antipodal_pair", "antipodal_pair", "none"],
                       "mean_token_norm": [0.0, 0.0, 0.1], "offplane_start": [0.98, 0.98, 0.0217],
                       "offplane_final": [0.9, 1e-180, 2e-61], "transverse_rate": [np.nan, -0.056, -0.056]})
    rows = {r["id"]: r for r in claims_highdim(hd)}
    row = rows["C7-limitcycle"]
    assert row["claim"] == "C7" and row["informational"] and (row["n_tested"], row["n_agree"], row["pass"]) == (2, 1,
                                                                                                             False)
    assert ("limit_cycle LSA (uniform start): cluster_converge, tolerance check ok, transverse exponent -0.056 per "
            "tau (plane attracts), off-plane mass at the end 1e-180") in row["note"]
    assert "limit_cycle_plane LSA (near-plane start (off-plane mass 0.022)): oscillate, period 21.53" in row["note"]
    # the other C7 rows do not see the limit-cycle runs
    assert rows["C7-lsa"]["n_tested"] == 1 and rows["C7-shape-lsa"]["n_tested"] == 1


def test_c5b_note_states_tolerance_window_and_the_exact_law_fitted_on_the_same_points():
    # the leading-order prefactor pi / (beta sqrt(2s)) drops sqrt(2s / (mu + s)): periods that follow the exact law
    # pi / (beta sqrt(mu^2 - s^2)) fit a smaller prefactor over a window of mu - s that is not small; the note says so
    from lsadyn.paper.claims import _bifurcation_rows
    from lsadyn.paper.cases2d.summary import bifurcation_summary

    s, beta = 0.5, 1.0
    mu = np.concatenate([np.linspace(0.3, 0.49, 5), s + np.geomspace(1e-3, 1e-1, 8), [0.8, 1.2]])
    period = np.where(mu > s, np.pi / (beta * np.sqrt(np.maximum(mu**2 - s**2, 1e-300))), np.nan)
    sim = pd.DataFrame({"x": mu, "regime_oa": np.where(mu > s, "cluster_rotate", "cluster_converge"),
                        "kind": np.where((mu > s) & (mu < 0.7), "near_threshold", "sweep"),
                        "period_oa": period, "period_theory": period})
    b = bifurcation_summary(sim, s, beta).iloc[0]
    assert b.fit_prefactor == pytest.approx(b.exact_law_fit_prefactor, rel=1e-12)
    assert b.exact_law_fit_prefactor < b.theory_prefactor
    assert (b.fit_dmu_min, b.fit_dmu_max) == pytest.approx((1e-3, 1e-1))
    (row,) = [r for r in _bifurcation_rows(pd.DataFrame([b])) if r["id"] == "C5b"]
    assert row["pass"] is True
    assert "(theory -0.5, tolerance 0.05) over mu - mu_c in [0.001, 0.1]" in row["note"]
    assert "the exact law pi / (beta sqrt(mu^2 - s^2)) fitted on the same points gives" in row["note"]


def test_c4b_note_counts_both_regions_where_the_claim_as_worded_fails():
    # (v11, v12): (-2, 1) worded oscillate, derived converge; (0.5, 1) both oscillate; (1, -2): worded converge
    # (v11 >= v12), derived oscillate (|v11| < |v12|); (2, 1) both converge
    from lsadyn.paper.claims import _case4_rows

    c4 = pd.DataFrame({"x": [-2.0, 0.5, 1.0, 2.0], "y": [1.0, 1.0, -2.0, 1.0],
                       "prediction": ["oscillate", "oscillate", "cluster_converge", "cluster_converge"],
                       "prediction_corrected": ["cluster_converge", "oscillate", "oscillate", "cluster_converge"],
                       "regime_oa": ["cluster_converge", "oscillate", "oscillate", "cluster_converge"]})
    rows = {r["id"]: r for r in _case4_rows(c4, {"H_rel_drift": np.array([1e-9])}, 0.05)}
    assert rows["C4b"]["pass"] is True and rows["C4a-oscillate"]["pass"] is False
    note = rows["C4b"]["note"]
    assert "(v11 < -|v12|): 1 grid points, observed cluster_converge 1" in note
    assert "(v11 >= v12, |v11| < |v12|): 1 grid points, observed oscillate 1" in note
