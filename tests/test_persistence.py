"""Persistence stage (issue 12): the batched token runs against the one-system reference, the derived
rotation rates against direct simulation, β for LSA, the saddle-node pair, the run plan and claims rows."""

import numpy as np
import pandas as pd
import pytest

from lsadyn.api import simulate_regime, time_scale
from lsadyn.batch import (
    BatchField,
    batch_structure,
    regime_batch,
    run_time_scale,
    usa_time_scale,
)
from lsadyn.fields.attention import attention, lsa_field, usa_field
from lsadyn.observers import SETTLED_R_CHANGE, axis_observer, batch_axis_observer, r_change_last_quarter
from lsadyn.paper.highdim.plan import embed_scenario
from lsadyn.paper.persistence import plan as P
from lsadyn.paper.persistence import summary as S
from lsadyn.paper.persistence.runs import run_chunk
from lsadyn.runs import BatchTokenRun
from lsadyn.sampling import uniform_sphere
from lsadyn.solvers.integrate import integrate_sphere

ROT_V2 = [[1.0, -1.0], [1.0, 1.0]]  # V = I + J: w = 1, q = 0
SCENARIOS_HD = {
    "rotation": {"A": [[1, 0], [0, 1]], "V": ROT_V2, "rest_A": 1.0, "rest_V": 0.5, "noise": 0.0, "horizon": 40.0,
                 "expect": "cluster_rotate"},
    "identity": {"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "rest_A": 1.0, "rest_V": 1.0, "noise": 0.0,
                 "horizon": 40.0, "expect": "cluster_converge"},
    "random": {"A": [[0, 0], [0, 0]], "V": [[0, 0], [0, 0]], "rest_A": 0.0, "rest_V": 0.0, "noise": 1.0,
               "horizon": 60.0, "expect": ""},
}
BIF = {"a": 1.0, "s": 0.5}
SADDLE = {"delta": 0.2, "rest_A": 1.0, "rest_V": 0.5, "horizon": 60.0}


def _stack(X):
    return np.ascontiguousarray(np.stack(X))


@pytest.mark.parametrize("model, ref", [("lsa", lsa_field), ("usa", usa_field)])
@pytest.mark.parametrize("n, d, noise", [(40, 8, 0.0), (40, 8, 0.7), (10, 30, 0.0), (10, 30, 0.7), (25, 2, 0.0)])
def test_batch_field_is_the_time_scaled_field_of_each_member(model, ref, n, d, noise):
    """Dense, block-structured (plane block + c I) and identity matrices; n ≥ d and n < d evaluation orders."""
    mats = [embed_scenario([[1, 0.3], [0, 0.8]], ROT_V2, d, 0.9, 0.5, noise, s) for s in range(3)]
    mats.append((np.eye(d), np.eye(d)))
    beta = np.array([0.7, 1.0, 1.3, 0.5])
    tau = np.array([1.0, 0.5, 2.0, 1.5])
    X = _stack([uniform_sphere(n, d, s) for s in range(4)])
    Y = BatchField(model, _stack([a for a, _ in mats]), _stack([v for _, v in mats]), beta, tau)(X.copy())
    for b, (a, v) in enumerate(mats):
        want = tau[b] * ref(0.0, X[b], attention(a, v, beta[b]))
        assert np.max(np.abs(Y[b] - want)) < 1e-13


def test_batch_axis_observer_matches_the_single_system_observer():
    for d in (2, 5, 40):
        X = _stack([uniform_sphere(30, d, s) for s in range(3)])
        obs = batch_axis_observer(X)
        for b in range(3):
            assert np.allclose(obs[b], axis_observer(X[b]), atol=1e-12)


def test_time_scales():
    A, V = 2.0 * np.eye(3), 3.0 * np.eye(3)
    assert usa_time_scale(A, V, 0.5) == pytest.approx(1 / (3 * np.e))
    assert run_time_scale("lsa", A, V, 0.5) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="model"):
        run_time_scale("sa", A, V, 1.0)


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_batch_run_agrees_with_the_adaptive_reference(model):
    """Same tokens, same (A, V): batched RK4 vs simulate_regime (adaptive DOP853) reach the same regime and rate."""
    A, V = embed_scenario(np.eye(2), ROT_V2, 4, 1.0, 0.5)
    X0 = uniform_sphere(24, 4, 3)
    (b,) = regime_batch(model, A[None], V[None], 1.0, X0[None], horizon=50.0, n_samples=400, dt=0.1)
    tau = run_time_scale(model, A, V, 1.0)
    ref = simulate_regime(A, V, 1.0, model=model, X0=X0, horizon=50.0 * tau / time_scale(A, V, 1.0), n_samples=400)
    assert b.result.regime == ref.regime == "cluster_rotate"
    assert abs(abs(b.result.arg_R2_rate) / abs(ref.arg_R2_rate) - 1) < 1e-5


@pytest.mark.parametrize("model, beta", [("lsa", 0.7), ("usa", 0.7), ("usa", 1.6)])
def test_derived_plane_rotation_rate_against_direct_simulation(model, beta):
    """LSA: arg R2 turns at 2β√(w² − q²); USA (one cluster): 2e^β√(w² − q²) — measured by the adaptive
    reference (simulate_regime) at d = 3, for V₂ = I + J and for the saddle-node family above threshold."""
    for V2 in (ROT_V2, P.saddle_node_pair(1.0, 0.5, 0.2, 1.0, 0.5, 1.0)["saddle_rotate"]["V"]):
        A, V = embed_scenario(np.eye(2), V2, 3, 1.0, 0.5)
        res = simulate_regime(A, V, beta, model=model, n=16, seed=5, horizon=120, n_samples=1200)
        shape = "single" if model == "usa" else "antipodal_pair"
        theory = P.plane_rotation_rate(np.eye(2), V2, beta, model, shape)
        assert res.regime == "cluster_rotate"
        assert abs(abs(res.arg_R2_rate) / theory - 1) < 1e-4, (V2, res.arg_R2_rate, theory)


def test_usa_pair_rotates_rigidly_only_when_balanced():
    """USA, tokens at ±u with a fraction p at +u: the cluster at +u turns at (p e^β − (1−p)e^{−β}) ⟨Ju, Vu⟩,
    the one at −u at ((1−p)e^β − p e^{−β}) ⟨Ju, Vu⟩ (the field itself); LSA moves both at β⟨Ju, Vu⟩."""
    beta, V = 0.8, np.array(ROT_V2)
    u = np.array([np.cos(0.3), np.sin(0.3)])
    Ju = np.array([-u[1], u[0]])
    for p in (0.5, 0.7, 1.0):
        k = int(round(10 * p))
        X = np.array([u] * k + [-u] * (10 - k))
        p_usa = attention(np.eye(2), V, beta)
        vel = usa_field(0.0, X, p_usa)
        rate_plus = vel[0] @ Ju
        assert rate_plus == pytest.approx((p * np.exp(beta) - (1 - p) * np.exp(-beta)) * (Ju @ V @ u), rel=1e-12)
        if k < 10:
            rate_minus = vel[-1] @ (-Ju)  # -u = (cos(φ+π), sin(φ+π)): its angle grows along -Ju
            assert rate_minus == pytest.approx(((1 - p) * np.exp(beta) - p * np.exp(-beta)) * (Ju @ V @ u), rel=1e-12)
        lsa = lsa_field(0.0, X, p_usa)  # every token, either pole, at β⟨Ju, Vu⟩
        assert np.allclose(lsa[0] @ Ju, beta * (Ju @ V @ u))
        assert k == 10 or np.allclose(lsa[-1] @ (-Ju), beta * (Ju @ V @ u))
    assert np.isnan(P.plane_rotation_rate(np.eye(2), V, beta, "usa", "antipodal_pair", majority=0.7))
    assert P.plane_rotation_rate(np.eye(2), V, beta, "usa", "antipodal_pair", 0.5) == pytest.approx(2 * np.sinh(beta))


def test_lsa_beta_only_rescales_time():
    """The LSA field is linear in β: the trajectory at β read at t equals the one at β = 1 read at βt; so
    the regime is the same and the rate scales as β. USA at 2β is not a time rescaling of USA at β."""
    A, V = embed_scenario(np.eye(2), ROT_V2, 5, 1.0, 0.5)
    X0 = uniform_sphere(30, 5, 2)
    beta, T = 2.5, 4.0
    slow = integrate_sphere(lsa_field, X0, [beta * T], attention(A, V, 1.0), rtol=1e-11, atol=1e-13)
    fast = integrate_sphere(lsa_field, X0, [T], attention(A, V, beta), rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(slow.y[-1] - fast.y[-1])) < 1e-8
    r1 = simulate_regime(A, V, 1.0, X0=X0, horizon=150, n_samples=1500)
    rb = simulate_regime(A, V, beta, X0=X0, horizon=150, n_samples=1500)
    assert r1.regime == rb.regime == "cluster_rotate"
    assert rb.arg_R2_rate / r1.arg_R2_rate == pytest.approx(beta, rel=1e-6)
    u1 = integrate_sphere(usa_field, X0, [beta * T], attention(A, V, 1.0), rtol=1e-11, atol=1e-13)
    ub = integrate_sphere(usa_field, X0, [T], attention(A, V, beta), rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(u1.y[-1] - ub.y[-1])) > 1e-3


def test_saddle_node_pair_lies_on_both_sides_of_the_threshold():
    pair = P.saddle_node_pair(1.0, 0.5, 0.2, 1.0, 0.5, 150.0)
    (mu_lo, mu_hi) = (pair["saddle_converge"]["V"][1][0], pair["saddle_rotate"]["V"][1][0])
    assert mu_lo < 0.5 < mu_hi and pair["saddle_converge"]["V"][0][1] == -mu_lo
    assert P.plane_rotation_rate(np.eye(2), pair["saddle_converge"]["V"], 1.0, "lsa", "antipodal_pair") == 0.0
    assert P.plane_rotation_rate(np.eye(2), pair["saddle_rotate"]["V"], 1.0, "lsa", "antipodal_pair") == \
        pytest.approx(2 * np.sqrt(0.6 ** 2 - 0.25))
    with pytest.raises(ValueError, match="delta"):
        P.saddle_node_pair(1.0, 0.5, 1.5, 1.0, 0.5, 150.0)
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    assert "random" not in sc and sc["rotation"] == SCENARIOS_HD["rotation"]
    assert {"saddle_converge", "saddle_rotate"} <= set(sc)


def _cfg(**over):
    cfg = {"n_tokens": 12, "n_samples": 200, "dt": 0.2, "budget_factor": 2, "chunk_size": 5, "models": ["lsa", "usa"],
           "beta": 1.0,
           "dimension": {"d": [2, 3], "seeds": 2, "scenarios": ["identity", "rotation", "saddle_rotate"]},
           "saddle_node": SADDLE,
           "random_weights": {"d": [2, 3], "seeds": 2, "horizon": 40.0},
           "beta_sweep": {"d": 3, "beta": [0.5, 1.0], "seeds": 1, "scenarios": ["rotation"], "models": ["lsa", "usa"]}}
    cfg.update(over)
    return cfg


def test_run_plan_and_chunks_cover_every_run_once_in_homogeneous_batches():
    cfg = _cfg()
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    plan = P.run_plan(cfg, sc, 7)
    assert len(plan) == 2 * 2 * 3 * 2 + 2 * 2 * 2 + 2 * 2 * 1
    assert plan.equals(P.run_plan(cfg, sc, 7))  # deterministic
    ids = P.chunk_ids(plan, cfg["chunk_size"])
    assert np.bincount(ids).max() <= cfg["chunk_size"]
    assert P.n_chunks(cfg, sc, 7) == ids.max() + 1
    for _, g in plan.groupby("batch"):
        assert g[["study", "model", "d", "beta", "horizon"]].nunique().max() == 1
    chunks = pd.concat([P.chunk_of(cfg, sc, 7, c) for c in range(ids.max() + 1)])
    assert sorted(chunks.run_id) == list(plan.run_id)
    with pytest.raises(ValueError, match="dimension.scenarios"):
        P.run_plan(_cfg(dimension={"d": [2], "seeds": 1, "scenarios": ["nope"]}), sc, 7)


def test_chunk_jobs_carry_each_chunk_its_runs_so_an_edit_reruns_only_the_chunks_it_changes():
    """Rule persistence_chunk's params are its chunk's entry of chunk_jobs: the chunk's runs (those of chunk_of)
    and only what they read, as plain values. A β sweep horizon changes the β chunks' entries only; a setting no
    run reads (the highdim study's own settle horizon of a scenario) changes none."""
    from lsadyn_workflow.job_params import chunk_params, param_frame

    cfg = _cfg(beta_sweep={"d": 3, "beta": [0.5, 1.0], "seeds": 1, "scenarios": ["rotation"], "models": ["lsa"],
                           "settle_horizon": []})
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    jobs = [chunk_params(c) for c in P.chunk_jobs(cfg, sc, 7)]
    assert len(jobs) == P.n_chunks(cfg, sc, 7)
    for k, job in enumerate(jobs):
        pd.testing.assert_frame_equal(param_frame(job["runs"]), P.chunk_of(cfg, sc, 7, k), check_exact=True)
        runs = param_frame(job["runs"])
        assert set(job["scenarios"]) == set(runs.scenario) - {"random_weights"}
        assert all(set(v) <= set(P.RUN_SCENARIO_KEYS) for v in job["scenarios"].values())
        assert repr(job) == repr(eval(repr(job)))  # plain Python values only (no numpy scalars)
    longer = dict(cfg, beta_sweep=dict(cfg["beta_sweep"], settle_horizon=[{"scenario": "rotation", "horizon": 80.0}]))
    longer_jobs = [chunk_params(c) for c in P.chunk_jobs(longer, sc, 7)]
    changed = [k for k, (a, b) in enumerate(zip(jobs, longer_jobs)) if a != b]
    with_beta = [k for k, job in enumerate(jobs) if "beta" in set(param_frame(job["runs"]).study)]
    assert changed == with_beta and len(changed) < len(jobs)
    sc2 = {k: dict(v) for k, v in sc.items()}
    sc2["rotation"]["settle_horizon"] = {"lsa": 400.0}  # read by the highdim stage only
    assert [chunk_params(c) for c in P.chunk_jobs(cfg, sc2, 7)] == jobs
    sc2["rotation"]["V"] = [[1.0, -1.5], [1.5, 1.0]]
    changed = [k for k, (a, b) in enumerate(zip(jobs, [chunk_params(c) for c in P.chunk_jobs(cfg, sc2, 7)])) if a != b]
    holds = [k for k, job in enumerate(jobs) if "rotation" in job["scenarios"]]
    assert changed == holds and len(changed) < len(jobs)


def test_small_build_gives_rows_and_claims():
    cfg = _cfg()
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    plan = P.run_plan(cfg, sc, 7)
    table = run_chunk(plan, sc, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=cfg["budget_factor"])
    assert len(table) == len(plan) and set(P.RESULT_COLUMNS) <= set(table.columns)
    rot = table[(table.study == "dimension") & (table.scenario == "rotation") & (table.regime == "cluster_rotate")]
    assert len(rot) and (rot.rate_rel_err < 1e-3).all()
    rows = S.claim_rows(table)
    ids = {r["id"] for r in rows}
    assert {"C7-rotation-lsa", "C7-identity-usa", "C9-lsa", "C9-usa", "C10-lsa-rotation", "C10-usa-rotation"} <= ids
    assert all(r["informational"] for r in rows if r["id"].startswith(("C9", "C10", "C7r", "C7-saddle")))
    text = S.findings_paragraph(table)
    assert "Dimension sweep" in text and "Random weights" in text


def test_run_chunk_integrates_compatible_batches_together_with_the_numbers_of_separate_batches():
    """The beta study's batches (one per β) share model, d, n, horizon and the structure of A, V: run_chunk
    integrates them as one batch, and every number equals that of the runs integrated batch by batch."""
    cfg = _cfg()
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    plan = P.run_plan(cfg, sc, 7)
    beta = plan[plan.study == "beta"].reset_index(drop=True)
    assert beta.batch.nunique() > beta.groupby(["model", "horizon"]).ngroups  # something to merge
    seen = []
    together = run_chunk(beta, sc, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=cfg["budget_factor"],
                         progress=lambda done, total: seen.append(done))
    assert len(seen) == beta.groupby(["model", "horizon"]).ngroups and seen[-1] == len(beta)
    apart = pd.concat([run_chunk(g, sc, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=cfg["budget_factor"])
                       for _, g in beta.groupby("batch", sort=False)], ignore_index=True)
    pd.testing.assert_frame_equal(together, apart, check_exact=True)
    assert list(together.run_id) == list(beta.run_id)


def test_batch_structure_tells_identity_block_and_dense_stacks_apart():
    d = 5
    A, V = embed_scenario(np.eye(2), ROT_V2, d, 1.0, 0.5)
    assert batch_structure(np.eye(d)[None], np.eye(d)[None]) == (True, True, True, True)  # I is a block form too
    assert batch_structure(A[None], V[None]) == (True, True, False, True)
    dense = embed_scenario(np.eye(2), ROT_V2, d, 1.0, 0.5, 0.3, 1)[1]
    assert batch_structure(A[None], np.stack([V, dense])) == (True, True, False, False)


def test_period_comparison_uses_the_seed_range_at_d2_not_a_ratio_to_its_median():
    # two d = 2 seeds far apart (an orbit-dependent period), d = 3 inside their range, d = 100 above it
    g = pd.DataFrame({"d": [2, 2, 3, 3, 100, 100, 8], "regime": ["oscillate"] * 6 + ["cluster_converge"],
                      "period": [2.34, 4.42, 4.03, 4.23, 5.88, 6.11, np.nan]})
    out = S.period_comparison(g)
    assert out["period_by_d"] == "d = 2: 2.34-4.42; d = 3: 4.03-4.23; d = 100: 5.88-6.11"
    assert out["period_within_d2"] == "3" and out["period_outside_d2"] == "100"
    # a ratio to the d = 2 median (3.38) would put every d = 3 run 19-25 % above d = 2
    assert S.period_comparison(g[g.d != 2])["period_outside_d2"] == ""
    assert S.period_comparison(g[g.regime != "oscillate"]) == {"period_by_d": "", "period_outside_d2": "",
                                                               "period_within_d2": "", "period_not_compared": ""}


# ------------------------------------------------------------------------------ settled flag (r(t) still changing?)


def test_r_change_last_quarter_of_a_run_tail_equals_that_of_the_whole_run():
    r = np.linspace(0.0, 1.0, 601) ** 2
    whole = r_change_last_quarter(r)
    assert r_change_last_quarter(r[300:], n_run=601) == whole  # the last half is all it reads
    assert r_change_last_quarter(r[250:], n_run=601) == whole
    with pytest.raises(ValueError, match="last half"):
        r_change_last_quarter(r[400:], n_run=601)  # less than the last half: the third quarter is missing


def _identity_batch(horizon, n_samples=200, budget=1):
    """Two d = 5 runs of A = V = I (LSA): r(t) climbs from the noise floor to 1 (the tokens cluster)."""
    A, V = embed_scenario(np.eye(2), np.eye(2), 5, 1.0, 1.0)
    X0 = np.stack([uniform_sphere(16, 5, s) for s in (1, 2)])
    return regime_batch("lsa", np.stack([A, A]), np.stack([V, V]), 1.0, X0, horizon=horizon, n_samples=n_samples,
                        dt=0.1, budget=budget), (A, V, X0)


def test_a_run_stopped_early_is_flagged_unsettled_and_the_same_run_longer_is_settled():
    short, _ = _identity_batch(3.0)  # stopped while the tokens are still gathering: r still climbing
    long_, _ = _identity_batch(60.0)
    for b in short:
        assert b.r_change_last_quarter > SETTLED_R_CHANGE and not b.settled
    for b in long_:
        assert b.result.regime == "cluster_converge"
        assert abs(b.r_change_last_quarter) <= SETTLED_R_CHANGE and b.settled


@pytest.mark.parametrize("horizon, budget", [(3.0, 1), (1.0, 4)])
def test_batch_settled_measure_is_r_change_last_quarter_of_the_whole_observed_run(horizon, budget):
    """regime_batch observes only the run's last half (and continues undecided runs): its measure must equal
    r_change_last_quarter of r sampled over the whole run, up to where the run was decided."""
    res, (A, V, X0) = _identity_batch(horizon, budget=budget)
    for i, b in enumerate(res):
        f = b.result.details["budget_factor"]
        n_run = round(199 * f) + 1
        s = horizon / 199 * np.arange(n_run)
        tau = run_time_scale("lsa", A, V, 1.0)
        ds = horizon / 199
        run = BatchTokenRun(BatchField("lsa", A[None], V[None], np.array([1.0]), np.array([tau])), X0[i:i + 1],
                            ds / np.ceil(ds / 0.1 - 1e-9))
        r = np.concatenate([batch_axis_observer(X0[i:i + 1])[:, 0], run.advance(np.array([0]), s[1:])[0, :, 0]])
        assert b.r_change_last_quarter == pytest.approx(r_change_last_quarter(r), abs=1e-12)
    if budget > 1:
        assert any(b.result.details["budget_factor"] > 1 for b in res)  # a continued run was checked


def test_the_table_has_no_settled_column_and_undetermined_runs_are_counted_by_their_label():
    """The decision procedure labels a run whose r(t) has not settled ``undetermined`` (issue 28), so the table
    carries no ``settled`` copy of the label and the summaries count the label alone."""
    cfg = _cfg(dimension={"d": [2, 3], "seeds": 1, "scenarios": ["identity"]}, models=["lsa"],
               random_weights={"d": [2], "seeds": 1, "horizon": 40.0},
               beta_sweep={"d": 3, "beta": [1.0], "seeds": 1, "scenarios": ["identity"], "models": ["lsa"]})
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    plan = P.run_plan(cfg, sc, 7)
    table = run_chunk(plan, sc, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=1)
    assert "settled" not in table.columns and list(table.columns[-len(P.RESULT_COLUMNS):]) == P.RESULT_COLUMNS
    assert np.isfinite(table.r_change_last_quarter).all()
    dim = table.study == "dimension"
    assert (table[dim].regime == "cluster_converge").all()
    und = table.copy()
    und.loc[dim & (und.d == 3), "regime"] = "undetermined"  # as the decision procedure labels an unsettled run
    rows = {r["id"]: r for r in S.claim_rows(und)}
    row = rows["C7-identity-lsa"]
    assert (row["n_tested"], row["n_agree"], row["pass"]) == (2, 1, False)
    assert "1 undetermined" in row["note"] and "settled" not in row["note"]
    text = S.findings_paragraph(und)
    assert "1 of 2 runs keep it, every run up to d = 2" in text and "1 undetermined (no certified label" in text
    assert "Undetermined runs (1 of " in text and "dimension identity LSA d = 3" in text
    assert "Undetermined runs" not in S.findings_paragraph(table)
    assert {r["id"]: r for r in S.claim_rows(table)}["C7-identity-lsa"]["pass"]


def test_period_comparison_compares_the_oscillating_runs_by_their_label():
    g = pd.DataFrame({"d": [2, 2, 3, 3, 100, 100], "regime": ["oscillate"] * 6,
                      "period": [4.69, 4.73, 4.71, 4.74, 5.75, 5.82]})
    out = S.period_comparison(g)
    assert out["period_by_d"] == "d = 2: 4.69-4.73; d = 3: 4.71-4.74; d = 100: 5.75-5.82"
    assert out["period_outside_d2"] == "100" and out["period_within_d2"] == "3" and out["period_not_compared"] == ""
    und = g.assign(regime=["oscillate", "oscillate", "oscillate", "oscillate", "undetermined", "undetermined"])
    assert S.period_comparison(und)["period_by_d"] == "d = 2: 4.69-4.73; d = 3: 4.71-4.74"  # no period for them
    none_at_2 = S.period_comparison(g.assign(regime=np.where(g.d == 2, "undetermined", "oscillate")))
    assert none_at_2["period_not_compared"] == "3 100" and none_at_2["period_outside_d2"] == ""


def test_settle_horizon_lengthens_the_listed_runs_at_the_same_sample_spacing():
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    dim = {"d": [2, 3], "seeds": 1, "scenarios": ["identity", "rotation"],
           "settle_horizon": [{"scenario": "rotation", "d": [3], "horizon": 160.0}]}
    plan = P.run_plan(_cfg(dimension=dim), sc, 7)
    d = plan[plan.study == "dimension"].set_index(["scenario", "d", "model"])
    assert d.loc[("rotation", 3, "lsa"), "horizon"] == 160.0 and d.loc[("rotation", 3, "lsa"), "n_samples"] == 797
    assert d.loc[("rotation", 2, "lsa"), "horizon"] == 40.0 and d.loc[("rotation", 2, "lsa"), "n_samples"] == 200
    assert d.loc[("identity", 3, "usa"), "horizon"] == 40.0
    for g in plan.groupby("batch"):
        assert g[1].n_samples.nunique() == 1
    for entry, key in (({"scenario": "nope", "d": [3], "horizon": 160.0}, r"settle_horizon\.0\.scenario"),
                       ({"scenario": "rotation", "d": [3], "horizon": 20.0}, r"settle_horizon\.0\.horizon")):
        with pytest.raises(ValueError, match=r"^config key persistence\.dimension\." + key):
            P.run_plan(_cfg(dimension=dict(dim, settle_horizon=[entry])), sc, 7)


NOT_NUMERIC = "column r_change_last_quarter is not numeric"


@pytest.mark.parametrize("col, bad, expect", [("r_change_last_quarter", "oops", NOT_NUMERIC),
                                              ("r_change_last_quarter", "", "column r_change_last_quarter has NaN")])
def test_a_corrupted_r_change_column_is_a_one_line_error_naming_file_and_column(tmp_path, col, bad, expect):
    from lsadyn_workflow.io import ResultFileError, load_table, write_csv

    cfg = _cfg(dimension={"d": [2], "seeds": 1, "scenarios": ["identity"]}, models=["lsa"],
               random_weights={"d": [2], "seeds": 1, "horizon": 40.0},
               beta_sweep={"d": 2, "beta": [1.0], "seeds": 1, "scenarios": ["identity"], "models": ["lsa"]})
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    table = run_chunk(P.run_plan(cfg, sc, 7), sc, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=1)
    path = tmp_path / "chunk_0.csv"
    write_csv(table, path)
    assert len(load_table(path, "persistence_run", rows=len(table))) == len(table)
    table = table.astype({col: object})
    table.loc[1, col] = bad
    write_csv(table, path)
    with pytest.raises(ResultFileError) as err:
        load_table(path, "persistence_run", rows=len(table))
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and expect in msg


def test_a_regime_change_lists_the_decided_labels_an_undetermined_run_is_no_change():
    g = pd.DataFrame({"beta": [1.0, 2.0, 4.0, 4.0], "regime": ["cluster_rotate", "cluster_rotate", "oscillate",
                                                                "undetermined"]})
    assert S.regime_changes(g, "cluster_rotate") == "beta 4: oscillate 1 (1 of 2 runs)"
    assert S.regime_changes(g, "oscillate") == ("beta 1: cluster_rotate 1 (1 of 1 runs); "
                                                "beta 2: cluster_rotate 1 (1 of 1 runs)")
    assert S.regime_changes(g[g.beta == 4.0].assign(regime="undetermined"), "oscillate") == ""


def test_shapes_are_counted_over_clustered_runs_only():
    # the table records a cluster_shape for every run; an interior or undetermined run's is no clustered end state
    g = pd.DataFrame({"regime": ["cluster_converge", "cluster_rotate", "interior_converge", "undetermined", "oscillate"],
                      "cluster_shape": ["antipodal_pair", "single", "antipodal_pair", "single", "none"]})
    assert list(S.clustered_runs(g).regime) == ["cluster_converge", "cluster_rotate"]


def test_beta_sweep_settle_horizon_lengthens_its_scenario_at_every_beta_and_model():
    sc = P.scenario_set(SCENARIOS_HD, BIF, SADDLE)
    bs = {"d": 3, "beta": [0.5, 1.0], "seeds": 1, "scenarios": ["identity", "rotation"], "models": ["lsa", "usa"],
          "settle_horizon": [{"scenario": "rotation", "horizon": 160.0}]}
    plan = P.run_plan(_cfg(beta_sweep=bs), sc, 7)
    b = plan[plan.study == "beta"]
    assert set(b[b.scenario == "rotation"].horizon) == {160.0} and set(b[b.scenario == "rotation"].n_samples) == {797}
    assert set(b[b.scenario == "identity"].horizon) == {40.0} and set(b[b.scenario == "identity"].n_samples) == {200}
    plain = P.run_plan(_cfg(beta_sweep=dict(bs, settle_horizon=[])), sc, 7)
    assert plain[plain.study != "beta"].equals(plan[plan.study != "beta"])  # the other studies keep their horizons
    for entry, key in (({"scenario": "oscillation", "horizon": 160.0}, r"settle_horizon\.0\.scenario"),
                       ({"scenario": "rotation", "horizon": 40.0}, r"settle_horizon\.0\.horizon")):
        with pytest.raises(ValueError, match=r"^config key persistence\.beta_sweep\." + key):
            P.run_plan(_cfg(beta_sweep=dict(bs, settle_horizon=[entry])), sc, 7)


def test_lsa_beta_row_checks_an_oscillations_period_times_beta():
    """C10-lsa: β only rescales LSA's time, so an oscillation's period·β is the same at every β (as a
    rotation's rate/β is); a period that does not scale fails the row; an undetermined run (r(t) not settled) has
    no period and the row does not pass on it."""
    rows = [dict(study="beta", scenario="oscillation", expect="oscillate", model="lsa", d=8, seed=1, beta=b,
                 regime="oscillate", rate=0.5 * b, period=4.8 / b, rate_rel_err=np.nan, r_change_last_quarter=0.0,
                 cluster_shape="none", r_min=0.2, r_max=0.6) for b in (0.5, 1.0, 2.0)]
    table = pd.DataFrame(rows)
    (row,) = S.claim_rows(table)
    assert row["id"] == "C10-lsa-oscillation" and row["pass"]
    assert "period * beta relative spread 0.0e+00 (3 oscillating runs, period * beta 4.8)" in row["note"]
    off = table.assign(period=[9.6, 4.8, 2.0])  # 2.0 at β = 2: period·β 4.0, not 4.8
    assert not S.claim_rows(off)[0]["pass"]
    transient = off.assign(regime=["oscillate", "oscillate", "undetermined"], period=[9.6, 4.8, np.nan],
                           r_change_last_quarter=[0.0, 0.0, 0.05])
    (row,) = S.claim_rows(transient)
    assert not row["pass"] and row["n_agree"] == 2 and "(2 oscillating runs" in row["note"]
    assert "period * beta relative spread 0.0e+00" in row["note"] and "undetermined: d = 8 seed 1 beta 2" in row["note"]


def test_findings_beta_list_gives_a_rotations_rate_and_an_oscillations_period():
    """FINDINGS' β-sweep list: a rotation's rate of arg R₂ (and rate/β), an oscillation's period (and period·β,
    which C10-lsa checks), not an oscillation's phase drift; no period for an undetermined run."""
    rows = [dict(study="beta", scenario=sc, expect=reg, model="lsa", d=8, seed=1, beta=b, regime=reg,
                 rate=(2.0 if reg == "cluster_rotate" else 0.55) * b,
                 period=(np.pi if reg == "cluster_rotate" else 4.8) / b,
                 rate_rel_err=np.nan, r_change_last_quarter=0.0,
                 cluster_shape="antipodal_pair" if reg == "cluster_rotate" else "none", r_min=0.2, r_max=0.6,
                 horizon=300.0, budget_factor=1.0)
            for sc, reg in (("rotation", "cluster_rotate"), ("oscillation", "oscillate")) for b in (0.5, 2.0)]
    table = pd.DataFrame(rows)
    moving = (table.scenario == "oscillation") & (table.beta == 2.0)
    table.loc[moving, ["regime", "period", "r_change_last_quarter"]] = "undetermined", np.nan, 0.1
    text = S.findings_paragraph(table)
    assert "β sweep (1 seed per scenario, model and β;" in text and "median" not in text
    assert "- rotation LSA β = 0.5: cluster_rotate 1; cluster shape antipodal pair 1; rotation rate of arg R₂ 1 " \
           "(rate/β 2)" in text
    assert "- oscillation LSA β = 0.5: oscillate 1; period of R₂ 9.6 (period·β 4.8)" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("- oscillation LSA β = 2:"))
    assert "period of R₂" not in line and line.startswith("- oscillation LSA β = 2: undetermined 1;")
