"""Weight perturbations and quantisation (issue 12 part 2, claim C8): the quantiser, the perturbation, the
eigenvalue criterion for clustered states against direct simulation, and the summaries."""

import numpy as np
import pandas as pd
import pytest

from lsadyn.api import simulate_regime, time_scale
from lsadyn.fields.attention import attention, lsa_field, usa_field
from lsadyn.paper.robustness import plan as rp
from lsadyn.paper.robustness import runs as rb
from lsadyn.paper.robustness import summary as rs
from lsadyn.regimes.classify import RegimeTolerances
from lsadyn.sampling import uniform_sphere

TOL = dict(window=0.3, tol_abs=1e-3, tol_cluster=1e-3, tol_angle=1e-2, min_turn=np.pi, tol_decay=0.1,
           tol_trend=0.05)


def saddle_V(mu, a=1.0, s=0.5):
    """Saddle-node family of the bifurcation study: threshold μ_c = s."""
    return np.array([[a + s, -mu], [mu, a - s]])


# --- quantiser ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [2, 3, 4, 8, 12, 16])
def test_quantisation_error_is_at_most_half_a_step_and_levels_are_symmetric(rng, bits):
    M = rng.standard_normal((7, 7)) * 3
    Q = rb.quantise(M, bits)
    s = rb.quantisation_step(M, bits)
    assert s == pytest.approx(np.abs(M).max() / (2 ** (bits - 1) - 1))
    assert np.all(np.abs(Q - M) <= s / 2 * (1 + 1e-12))
    k = Q / s
    assert np.allclose(k, np.round(k), atol=1e-9)  # on the grid
    assert len(np.unique(np.round(k))) <= 2 ** bits - 1
    assert np.abs(k).max() == pytest.approx(2 ** (bits - 1) - 1)  # ±max|M| is a level
    assert np.array_equal(rb.quantise(-M, bits), -Q)  # odd


@pytest.mark.parametrize("bits", [2, 3, 5, 8, 16])
def test_quantisation_is_idempotent(rng, bits):
    M = rng.standard_normal((5, 5))
    Q = rb.quantise(M, bits)
    QQ = rb.quantise(Q, bits)
    assert np.allclose(QQ, Q, rtol=0, atol=4 * np.finfo(float).eps * np.abs(M).max())
    assert np.array_equal(np.round(QQ / rb.quantisation_step(Q, bits)), np.round(Q / rb.quantisation_step(M, bits)))


def test_sixteen_bits_is_almost_the_identity_and_grid_matrices_are_unchanged(rng):
    M = rng.standard_normal((10, 10))
    assert np.abs(rb.quantise(M, 16) - M).max() <= np.abs(M).max() / (2 ** 15 - 1) / 2 * (1 + 1e-12)
    assert np.linalg.norm(rb.quantise(M, 16) - M) / np.linalg.norm(M) < 1e-4
    eye = np.eye(4)
    for b in (2, 3, 16):
        assert np.array_equal(rb.quantise(eye, b), eye)  # entries 0 and max|M| are levels
    assert np.array_equal(rb.quantise(np.zeros((3, 3)), 4), np.zeros((3, 3)))


def test_two_bits_rounds_half_away_from_zero():
    assert np.array_equal(rb.quantise(np.array([[2.0, 1.0], [-1.0, 0.4]]), 2), [[2.0, 2.0], [-2.0, 0.0]])


@pytest.mark.parametrize("bits", [1, 0, 2.5, 64])
def test_bad_bit_counts_are_refused(bits):
    with pytest.raises(ValueError, match="bits"):
        rb.quantise(np.eye(2), bits)


# --- perturbation ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [0.0, 1e-3, 0.1, 1.0, 3.0])
def test_perturbation_has_exactly_the_requested_relative_frobenius_norm(rng, delta):
    for d in (2, 7, 100):
        M = rng.standard_normal((d, d))
        P = rb.perturb(M, delta, rng)
        assert np.linalg.norm(P - M) == pytest.approx(delta * np.linalg.norm(M), rel=1e-12, abs=1e-15)


def test_perturbation_is_seeded_and_rejects_bad_delta():
    M = np.eye(3)
    a = rb.perturb(M, 0.1, np.random.default_rng(1))
    assert np.array_equal(a, rb.perturb(M, 0.1, np.random.default_rng(1)))
    with pytest.raises(ValueError, match="delta"):
        rb.perturb(M, -0.1, np.random.default_rng(1))


def test_run_weights_scale_one_direction_per_seed_and_quantise_the_embedding():
    sc = dict(A=[[1, 0], [0, 1]], V=[[1, -1], [1, 1]], rest_A=1.0, rest_V=0.5)
    row = dict(d=5, kind="perturb", delta=0.01, perturb_seed=0, bits=0)
    A1, V1 = rb.run_weights(row, sc, seed=7)
    A2, V2 = rb.run_weights(dict(row, delta=0.02), sc, seed=7)
    A0, V0 = rb.base_weights(sc, 5)
    assert np.allclose(V2 - V0, 2 * (V1 - V0)) and np.allclose(A2 - A0, 2 * (A1 - A0))
    Aq, Vq = rb.run_weights(dict(row, kind="quantise", delta=0.0, bits=2), sc, seed=7)
    assert np.array_equal(Aq, A0) and Vq[2, 2] == 1.0  # rest_V = 0.5 = half a step rounds away from zero


# --- theory of clustered states ----------------------------------------------------------------------------------


def test_rotation_margin_of_the_saddle_node_family_is_the_distance_to_threshold():
    for mu in (0.0, 0.3, 0.5, 0.7, -0.9):
        assert rb.rotation_margin(saddle_V(mu)) == pytest.approx(abs(mu) - 0.5)


def test_rotation_margin_sign_is_complex_eigenvalues(rng):
    for _ in range(500):
        V = rng.standard_normal((2, 2))
        lam = np.linalg.eigvals(V)
        assert (rb.rotation_margin(V) > 0) == (abs(lam[0].imag) > 0)


def test_margin_moves_by_at_most_the_frobenius_norm_of_the_perturbation(rng):
    """|m(V + E) - m(V)| <= ||E||_F exactly (so no flip below δ_min = |m0| / ||V||_F)."""
    for _ in range(2000):
        V = rng.standard_normal((2, 2))
        E = rng.standard_normal((2, 2)) * rng.uniform(1e-3, 2)
        assert abs(rb.rotation_margin(V + E) - rb.rotation_margin(V)) <= np.linalg.norm(E) * (1 + 1e-12)


def test_flip_deltas_and_cluster_prediction():
    V = saddle_V(0.45)
    dmin, dtyp = rb.flip_deltas(rb.rotation_margin(V), np.linalg.norm(V), 2)
    assert dmin == pytest.approx(0.05 / np.linalg.norm(V)) and dtyp == pytest.approx(2 * dmin)
    assert rb.cluster_prediction(np.eye(2), saddle_V(0.45)) == "cluster_converge"
    assert rb.cluster_prediction(np.eye(2), saddle_V(0.55)) == "cluster_rotate"
    assert rb.cluster_prediction(np.diag([1.0, -1.0]), saddle_V(0.55)) == ""  # sym(A) indefinite: no prediction
    # embedded: the in-plane pair 1 ± i is rightmost (complement 0.5); a tie with a real eigenvalue: none
    V = np.diag([1.0, 1.0, 0.5, 0.5])
    V[0, 1], V[1, 0] = -1.0, 1.0
    assert rb.cluster_prediction(np.eye(4), V) == "cluster_rotate"
    V[2, 2] = 1.0
    assert rb.cluster_prediction(np.eye(4), V) == ""


def test_identity_is_on_the_boundary_a_random_perturbation_rotates_with_probability_one_minus_one_over_root_two():
    rng = np.random.default_rng(3)
    rot = [rb.cluster_prediction(np.eye(2), rb.perturb(np.eye(2), 0.01, rng)) == "cluster_rotate"
           for _ in range(4000)]
    assert np.mean(rot) == pytest.approx(1 - 1 / np.sqrt(2), abs=0.03)  # 4 standard errors


# --- batched runs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model,field", [("lsa", lsa_field), ("usa", usa_field)])
def test_batch_field_is_the_rescaled_single_field(rng, model, field):
    X = np.stack([uniform_sphere(9, 4, 1), uniform_sphere(9, 4, 2)])
    A, V = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 4))
    tau, beta = np.array([0.3, 2.0]), np.array([1.0, 0.5])
    S = rb.batch_field(X, A, V, tau, beta, model)
    for r in range(2):
        assert np.allclose(S[r], tau[r] * field(0, X[r], attention(A[r], V[r], beta[r])), atol=1e-13)


def test_batched_sphere_run_decides_as_simulate_regime():
    """USA in d = 3: the batch (two systems, shared DOP853 step) and the single-system API agree."""
    A = np.eye(3)
    Vs = [np.diag([1.0, 1.0, 0.5]), np.array([[1.0, -1, 0], [1, 1, 0], [0, 0, 0.5]])]
    X0 = uniform_sphere(24, 3, 5)
    tol = RegimeTolerances(**TOL)
    res = rb.decide_batch(np.stack([A, A]), np.stack(Vs), 1.0, "usa", X0, horizon=40, n_samples=200, budget=8,
                          tol=tol, rtol=1e-8, atol=1e-10)
    for V, r in zip(Vs, res):
        ref = simulate_regime(A, V, 1.0, model="usa", X0=X0, horizon=40, n_samples=200, budget=8, tol=tol)
        assert r.regime == ref.regime
        if r.regime == "cluster_rotate":
            assert r.arg_R2_rate == pytest.approx(ref.arg_R2_rate, rel=1e-3)
    assert [r.regime for r in res] == ["cluster_converge", "cluster_rotate"]


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_a_saddle_node_just_below_threshold_flips_when_pushed_across_and_not_before(model):
    """μ = 0.45 < μ_c = 0.5 converges; adding ε K (K = [[-1, -1], [1, 1]]/2, the unit gradient of the margin
    |α| - ρ there) moves the margin by exactly ε: at ε = 0.03 < 0.05 the clusters still converge (LSA; USA near threshold may
    stop at |R2| ~ 0.99, not a clustered state, so only the clear cases are checked there), at ε = 0.1 they rotate."""
    V0 = saddle_V(0.45)
    K = np.array([[-1.0, -1.0], [1.0, 1.0]]) / 2
    eps = [0.0, 0.03, 0.1] if model == "lsa" else [0.0, 0.1]
    Vs = np.stack([V0 + e * K for e in eps])
    assert [rb.rotation_margin(v) for v in Vs] == pytest.approx([e - 0.05 for e in eps])
    A = np.broadcast_to(np.eye(2), Vs.shape)
    want = ["cluster_rotate" if e > 0.05 else "cluster_converge" for e in eps]
    assert [rb.cluster_prediction(np.eye(2), v) for v in Vs] == want
    X0 = uniform_sphere(32 if model == "usa" else 200, 2, 2)
    res = rb.decide_batch(A, Vs, 1.0, model, X0, horizon=60, n_samples=300, budget=8, tol=RegimeTolerances(**TOL),
                          rtol=1e-8, atol=1e-10)
    assert [r.regime for r in res] == want


SCEN = {"rotation": dict(A=[[1, 0], [0, 1]], V=[[1, -1], [1, 1]], rest_A=1.0, rest_V=0.5, expect="cluster_rotate"),
        "negative_definite": dict(A=[[1, 0], [0, 1]], V=[[-1, 0], [0, -1]], rest_A=1.0, rest_V=-1.0,
                                  expect="interior_converge")}


@pytest.mark.parametrize("d,model,n", [(2, "lsa", 100), (2, "usa", 16), (3, "lsa", 16)])
def test_tiny_perturbations_keep_the_regime(d, model, n):
    grids = [dict(d=d, n_tokens=n, deltas=[1e-4], n_seeds=2, bits=[16])]
    plan = rp.run_plan(list(SCEN), [model], grids)
    df = rb.run_chunk(plan, SCEN, beta=1.0, horizon=40.0, n_samples=200, budget=8, tol=TOL, seed=11)
    df = rs.with_reference(df)
    ref = df[df.kind == "none"].set_index("scenario").regime
    assert ref["rotation"] == "cluster_rotate"
    # V = -I: the tokens come to rest (LSA); USA spreads too slowly (~1e-3 per tau) to certify within the budget
    assert ref["negative_definite"] == ("undetermined" if model == "usa" else "interior_converge")
    rot = df[(df.kind != "none") & (df.scenario == "rotation")]
    assert rot.kept.all(), rot[["kind", "regime", "checked"]]
    neg = df[(df.kind != "none") & (df.scenario == "negative_definite")]
    if model == "lsa" and d == 2:
        # the rest of V = -I is degenerate (the common field vanishes at R2 = 0): a perturbation leaves a field that
        # never vanishes, and the tokens keep turning about the OA sink, certified by the WS trap, or come to rest
        assert set(neg.regime) <= {"interior_converge", "oscillate"}, neg[["regime", "checked"]]
        assert all("WS: the barycentre is trapped" in c for c in neg.checked[neg.regime == "oscillate"])
    else:
        assert set(neg.regime) <= {ref["negative_definite"], "undetermined"}, neg[["regime", "checked"]]
    assert (df.checked != "").all()
    assert np.allclose(df.rel_change_V[df.kind == "perturb"], 1e-4, rtol=1e-9, atol=0)


# --- plan and summaries --------------------------------------------------------------------------------------------


def test_run_plan_counts_and_chunks_cover_it_once():
    grids = [dict(d=2, n_tokens=64, deltas=[1e-3, 1e-1], n_seeds=3, bits=[2, 8]),
             dict(d=100, n_tokens=32, deltas=[1.0], n_seeds=1, bits=[4])]
    plan = rp.run_plan(["a", "b"], ["lsa", "usa"], grids)
    assert len(plan) == 2 * 2 * ((1 + 6 + 2) + (1 + 1 + 1))
    parts = [rp.chunk_of(plan, k, 3) for k in range(3)]
    assert sorted(pd.concat(parts).run) == list(plan.run)
    with pytest.raises(ValueError, match="chunk"):
        rp.chunk_of(plan, 3, 3)
    # batches: consecutive runs of one (scenario, d, model), at most batch_runs; chunks take whole batches
    small = rp.run_plan(["a", "b"], ["lsa", "usa"], grids, batch_runs=4)
    sizes = small.groupby("batch").size()
    assert sizes.max() == 4 and list(small.batch) == sorted(small.batch)
    assert (small.groupby("batch")[["scenario", "d", "model"]].nunique() == 1).all().all()
    assert (small.groupby(["scenario", "d", "model"]).batch.nunique() == [3, 3, 1, 1] * 2).all()
    for n_chunks in (1, 2, 5, 40):
        parts = [rp.chunk_of(small, k, n_chunks) for k in range(n_chunks)]
        assert sorted(pd.concat(parts).run) == list(small.run)
        assert sum(p.batch.nunique() for p in parts) == small.batch.nunique()
    with pytest.raises(ValueError, match="robustness.batch_runs"):
        rp.run_plan(["a"], ["lsa"], grids, batch_runs=0)


def test_chunk_jobs_carry_each_chunk_its_runs_so_an_edit_reruns_only_the_chunks_it_changes():
    """Rule robustness_chunk's params are its chunk's entry of chunk_jobs: the runs of chunk_of, the settings every
    run reads, and only the scenarios its runs use; editing one scenario changes the entries of the chunks that hold
    its batches only."""
    from lsadyn_workflow.job_params import chunk_params, param_frame

    grids = [dict(d=2, n_tokens=12, deltas=[0.01, 0.3], n_seeds=2, bits=[3])]
    run = dict(scenarios=list(SCEN), models=["lsa", "usa"], grids=grids, batch_runs=3, beta=1.0, horizon=10.0,
               n_samples=60, budget_factor=1, rtol=1e-7, atol=1e-9, chunks=8)
    plan = rp.run_plan(run["scenarios"], run["models"], grids, batch_runs=3)
    jobs = [chunk_params(c) for c in rp.chunk_jobs(run, SCEN, 8)]
    for k, job in enumerate(jobs):
        pd.testing.assert_frame_equal(param_frame(job["runs"]), rp.chunk_of(plan, k, 8).reset_index(drop=True),
                                      check_exact=True)
        assert set(job["scenarios"]) == set(param_frame(job["runs"]).scenario)
        assert {k: job[k] for k in rp.RUN_SETTINGS} == {k: run[k] for k in rp.RUN_SETTINGS}
    name = next(iter(SCEN))
    edited = dict(SCEN, **{name: dict(SCEN[name], V=[[2.0, 0.0], [0.0, 1.0]])})
    edited_jobs = [chunk_params(c) for c in rp.chunk_jobs(run, edited, 8)]
    changed = [k for k, (a, b) in enumerate(zip(jobs, edited_jobs)) if a != b]
    assert changed == [k for k, job in enumerate(jobs) if name in job["scenarios"]] and len(changed) < 8


def test_results_do_not_depend_on_the_number_of_chunks():
    """A run's numbers depend on its batch (the sphere runs of a batch share DOP853 steps), and the batches on the
    plan alone: the chunks of 1, 2 or 3 jobs give the same table, value for value."""
    grids = [dict(d=2, n_tokens=12, deltas=[0.01, 0.3], n_seeds=2, bits=[3]),
             dict(d=3, n_tokens=12, deltas=[0.3], n_seeds=2, bits=[2])]
    plan = rp.run_plan(list(SCEN), ["usa"], grids, batch_runs=3)
    kw = dict(beta=1.0, horizon=10.0, n_samples=60, budget=1, tol=TOL, seed=3)
    tables = []
    for n_chunks in (1, 2, 3):
        parts = [rb.run_chunk(rp.chunk_of(plan, k, n_chunks), SCEN, **kw) for k in range(n_chunks)]
        tables.append(pd.concat(parts).sort_values("run").reset_index(drop=True))
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other, check_exact=True)


def synthetic_table():
    rows = []
    for kind, delta, bits, regime in [("none", 0, 0, "cluster_converge"), ("perturb", 0.001, 0, "cluster_converge"),
                                      ("perturb", 0.001, 0, "cluster_converge"), ("perturb", 0.1, 0, "cluster_rotate"),
                                      ("perturb", 0.1, 0, "undetermined"), ("quantise", 0, 2, "cluster_rotate"),
                                      ("quantise", 0, 4, "cluster_converge"), ("quantise", 0, 8, "cluster_converge")]:
        rows.append(dict(scenario="sn_below", d=2, model="lsa", kind=kind, delta=delta, bits=bits, regime=regime,
                         expect="cluster_converge", delta_min=0.03, delta_typ=0.06, rel_change_V=delta, rel_change_A=delta,
                         predicted="cluster_rotate" if regime == "cluster_rotate" else "cluster_converge",
                         predicted_rate=1.0, min_rate=0.01))
    return pd.DataFrame(rows)


def test_summaries_count_undetermined_as_not_kept_and_find_the_thresholds():
    df = synthetic_table()
    fr = rs.kept_fractions(df)
    p = fr[fr.kind == "perturb"].set_index("level")
    assert p.loc[0.001, "fraction_kept"] == 1.0 and p.loc[0.1, "fraction_kept"] == 0.0
    assert p.loc[0.1, "undetermined"] == 1
    th = rs.thresholds(df).iloc[0]
    assert th.delta_first_change == 0.1 and th.delta_all_kept == 0.001 and th.bits_needed == 4
    rows = {r["id"]: r for r in rs.claim_rows(df)}
    assert rows["C8a-sn_below-lsa-d2"]["pass"] and rows["C8a-sn_below-lsa-d2"]["n_agree"] == 2
    assert rows["C8b-sn_below-lsa-d2"]["pass"] and rows["C8b-sn_below-lsa-d2"]["n_tested"] == 3
    assert rows["C8d-lsa"]["pass"] and all(r["informational"] for r in rows.values())
    assert rows["C8c-lsa"]["n_agree"] == 6 and rows["C8c-lsa"]["pass"]
    text = rs.findings_text(df)
    assert "At δ = 0.1, 0 of 2" in text and "first losing its unperturbed label at δ = 0.1" in text


def test_a_flip_below_delta_min_fails_its_row():
    df = synthetic_table()
    df.loc[1, "regime"] = "cluster_rotate"  # δ = 0.001 < δ_min = 0.03
    rows = {r["id"]: r for r in rs.claim_rows(df)}
    assert not rows["C8d-lsa"]["pass"] and not rows["C8a-sn_below-lsa-d2"]["pass"]


def test_unknown_scenario_is_named():
    plan = rp.run_plan(["nope"], ["lsa"], [dict(d=2, n_tokens=8, deltas=[], n_seeds=1, bits=[])])
    with pytest.raises(ValueError, match="robustness.scenarios: 'nope'"):
        rb.run_chunk(plan, SCEN, beta=1.0, horizon=10.0, n_samples=100, budget=1, tol=TOL, seed=0)


def test_time_scale_used_for_the_min_rate_is_the_api_one():
    A, V = rb.base_weights(SCEN["rotation"], 3)
    assert time_scale(A, V, 1.0) == pytest.approx(1 / np.sqrt(2))


# --- config --------------------------------------------------------------------------------------------------------


def _config():
    from lsadyn_workflow.config import load_config_file

    return load_config_file("workflow/config/config.yaml")


def test_config_names_an_unknown_robustness_scenario_and_a_repeated_dimension():
    from lsadyn_workflow.config import check_config

    cfg = _config()
    cfg["robustness"]["scenarios"] = ["identity", "nope"]
    with pytest.raises(ValueError, match=r"config key robustness.scenarios.1: 'nope' is not a scenario"):
        check_config(cfg, "workflow/schemas/config.schema.yaml")
    cfg = _config()
    cfg["robustness"]["grids"] = [cfg["robustness"]["grids"][0]] * 2
    with pytest.raises(ValueError, match="robustness.grids: one entry per d"):
        check_config(cfg, "workflow/schemas/config.schema.yaml")
    cfg = _config()
    cfg["robustness"]["grids"][0]["bits"] = [1]
    with pytest.raises(ValueError, match="robustness.grids.0.bits.0"):
        check_config(cfg, "workflow/schemas/config.schema.yaml")


def test_paper_config_plan_is_modest():
    """The paper config's sweep stays small (the full one is workflow/config/sweep.yaml)."""
    run = _config()["robustness"]
    plan = rp.run_plan(run["scenarios"], run["models"], run["grids"])
    assert len(plan[plan.d > 2]) <= 100 and len(plan) <= 400


def test_claim_rows_have_the_claims_table_columns():
    from lsadyn.paper.claims import COLUMNS, claims_table

    rows = rs.claim_rows(synthetic_table())
    assert all(list(r) == COLUMNS for r in rows)
    assert len(claims_table(rows)) == len(rows)
