"""The atlas stage (claim C12): the plan (pure), the Wilson interval, the random weight ensembles' statistics, the
softmax stack of the phase diagrams against the one-system fields, and the summaries on small made-up runs."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lsadyn.ensembles import ENSEMBLES, random_matrices, weight_pairs
from lsadyn.fields.attention import attention, sa_field, usa_field
from lsadyn.paper.atlas.plan import (
    chunk_jobs,
    deal,
    phase_times,
    samples_for_half_width,
    wilson_interval,
)
from lsadyn.paper.atlas.summary import atlas_table, claim_rows, invariant_table, phase_table
from lsadyn.phase_diagram import clustering_over_time, gram_order, stack_field
from lsadyn.sampling import uniform_sphere

ROOT = Path(__file__).resolve().parents[1]

CFG = {"beta": 1.0,
       "d2": {"ensembles": ["gaussian", "goe"], "n_samples": 10, "chunks": 3, "n_starts": 1, "horizon": 200.0,
              "n_times": 4000, "budget_factor": 16, "bins": 4},
       "tokens": {"ensembles": ["gaussian"], "models": ["lsa", "usa"], "d": [3, 100], "n_samples": 4, "n_tokens": 32,
                  "horizon": 100.0, "n_times": 400, "dt": 0.1, "budget_factor": 2, "chunks": 2},
       "phase": {"ensembles": ["gaussian"], "models": ["usa", "sa"], "d": [2], "n_tokens": 8, "beta": [0.1, 9.0],
                 "n_runs": 3, "t_max": 2.0, "n_times": 3, "dt": 0.1, "r_threshold": 0.99, "pair_eps": 1e-3,
                 "chunks": 1}}


def test_plan_imports_no_numba_or_scipy():
    for name in ("plan.py", "__init__.py"):
        tree = ast.parse((ROOT / "src/lsadyn/paper/atlas" / name).read_text())
        mods = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        mods |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {m for m in mods if m.split(".")[0] in ("numba", "scipy") or m.endswith("runs")}


def test_d2_jobs_cover_every_sample_once_and_seeds_come_from_the_config():
    jobs = chunk_jobs(CFG, 7)
    assert len(jobs["d2"]) == 3
    for ens in ("gaussian", "goe"):
        sl = [s for j in jobs["d2"] for s in j["slices"] if s["ensemble"] == ens]
        covered = np.concatenate([np.arange(s["start"], s["stop"]) for s in sl])
        assert sorted(covered) == list(range(10))
        assert {tuple(s["seed"]) for s in sl} == {(7 + 2900, ENSEMBLES.index(ens), 2)}
    assert chunk_jobs(CFG, 8)["d2"][0]["slices"][0]["seed"][0] == 8 + 2900


def test_token_jobs_deal_every_group_once_and_balance_the_cost():
    jobs = chunk_jobs(CFG, 7)["tokens"]
    groups = [(g["model"], g["d"]) for j in jobs for g in j["groups"]]
    assert sorted(groups) == sorted((m, d) for m in ("lsa", "usa") for d in (3, 100))
    # the two d = 100 groups (the costly ones) go to different jobs
    assert sorted(sum(g["d"] == 100 for g in j["groups"]) for j in jobs) == [1, 1]


def test_deal_and_bad_config():
    assert deal([1, 5, 2, 2], 2) == [[1], [0, 2, 3]]
    assert deal([1.0], 4) == [[0]]
    with pytest.raises(ValueError, match="chunks"):
        deal([1], 0)
    bad = {**CFG, "tokens": {**CFG["tokens"], "models": ["sa"]}}
    with pytest.raises(ValueError, match="atlas.tokens.models"):
        chunk_jobs(bad, 1)
    bad = {**CFG, "d2": {**CFG["d2"], "ensembles": ["ginibre"]}}
    with pytest.raises(ValueError, match="atlas.d2.ensembles"):
        chunk_jobs(bad, 1)
    bad = {**CFG, "phase": {**CFG["phase"], "beta": [2.0, 1.0]}}
    with pytest.raises(ValueError, match="atlas.phase.beta"):
        chunk_jobs(bad, 1)
    assert list(phase_times(CFG["phase"])) == [0.0, 1.0, 2.0]


def test_wilson_interval_known_values_and_coverage():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)  # 3.84 / 13.84
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    lo, hi = wilson_interval(81, 263)  # Wilson (1927)-style textbook example: 0.3080 -> [0.2553, 0.3662]
    assert (lo, hi) == pytest.approx((0.2553, 0.3662), abs=1e-3)
    assert np.isnan(wilson_interval(0, 0)[0])
    # coverage of the 95 % interval for p = 0.1, n = 200, 4000 binomial draws
    rng = np.random.default_rng(0)
    k = rng.binomial(200, 0.1, 4000)
    lo, hi = wilson_interval(k, 200)
    assert 0.93 < np.mean((lo <= 0.1) & (0.1 <= hi)) < 0.97
    assert samples_for_half_width(0.05) == 385
    lo, hi = wilson_interval(192, 385)
    assert (hi - lo) / 2 <= 0.05


@pytest.mark.parametrize("d", [2, 50])
def test_ensemble_statistics(d):
    N = 4000 if d == 2 else 300
    rng = np.random.default_rng(1)
    G = random_matrices("gaussian", d, N, rng)
    assert G.shape == (N, d, d)
    assert abs(G.mean()) < 0.02 and G.var() * d == pytest.approx(1.0, rel=0.03)
    for name, diag_var in (("goe", 2.0), ("wigner", 1.0)):
        H = random_matrices(name, d, N, rng)
        assert np.array_equal(H, np.swapaxes(H, 1, 2))
        diag = np.diagonal(H, axis1=1, axis2=2)
        off = H[:, ~np.eye(d, dtype=bool)]
        assert diag.var() * d == pytest.approx(diag_var, rel=0.06)
        assert off.var() * d == pytest.approx(1.0, rel=0.06)
    if d == 50:  # the semicircle: GOE spectrum within ~[-2, 2]
        ev = np.linalg.eigvalsh(random_matrices("goe", d, N, rng))
        assert -2.3 < ev.min() and ev.max() < 2.3 and np.mean(ev**2) == pytest.approx(1.0, rel=0.05)
    with pytest.raises(ValueError, match="ensemble"):
        random_matrices("ginibre", d, 2, rng)


def test_weight_pairs_are_deterministic_and_independent():
    A, V = weight_pairs("gaussian", 3, 5, (1, 2, 3))
    A2, V2 = weight_pairs("gaussian", 3, 5, (1, 2, 3))
    assert np.array_equal(A, A2) and np.array_equal(V, V2) and not np.allclose(A, V)


@pytest.mark.parametrize("model", ["sa", "usa"])
def test_stack_field_matches_the_one_system_fields(model):
    rng = np.random.default_rng(3)
    B, n, d = 3, 7, 4
    A = rng.standard_normal((B, d, d)) / 2
    V = rng.standard_normal((B, d, d)) / 2
    beta = np.array([0.5, 2.0, 9.0])
    X = np.stack([uniform_sphere(n, d, s) for s in range(B)])
    got = stack_field(model, A, V, beta)(X)
    for b in range(B):
        p = attention(A[b], V[b], beta[b])
        if model == "sa":
            want = sa_field(0.0, X[b], p)
        else:  # USA in s = t / tau_USA
            tau = 1 / (np.linalg.norm(V[b], 2) * np.exp(beta[b] * np.linalg.norm(A[b], 2)))
            want = tau * usa_field(0.0, X[b], p)
        np.testing.assert_allclose(got[b], want, rtol=1e-10, atol=1e-13)


def test_gram_order_and_clustering_over_time():
    X = np.zeros((2, 4, 3))
    X[0, :, 0] = [1, 1, -1, 1]  # one axis (an antipodal pair): r = 1, pairs: 3 of 6 pairs (both orders) aligned
    X[1] = np.eye(3)[[0, 1, 2, 0]]
    r, pairs = gram_order(X)
    assert r[0] == pytest.approx(1.0) and pairs[0] == pytest.approx(0.5)
    assert r[1] < 0.5 and pairs[1] == pytest.approx(2 / 12)
    # SA with A = V = I clusters: r grows to 1; same run at the observed times whatever the grid
    d, n = 3, 10
    A = np.eye(d)[None].repeat(2, 0)
    X0 = np.stack([uniform_sphere(n, d, 5)] * 2)
    r, _ = clustering_over_time("sa", A, A, np.array([1.0, 1.0]), X0, [0.0, 5.0, 40.0], 0.05)
    assert r[0, 0] < 0.9 and r[0, -1] > 0.999 and np.array_equal(r[0], r[1])
    r2, _ = clustering_over_time("sa", A[:1], A[:1], 1.0, X0[:1], [0.0, 2.5, 5.0], 0.05)
    assert r2[0, 2] == pytest.approx(r[0, 1], rel=1e-6)
    with pytest.raises(ValueError, match="times"):
        clustering_over_time("sa", A, A, 1.0, X0, [1.0, 0.5], 0.1)


def _made_up_runs():
    rng = np.random.default_rng(4)
    labels = np.array(["cluster_converge"] * 80 + ["oscillate"] * 15 + ["interior_converge"] * 5)
    d2 = pd.DataFrame({"ensemble": "gaussian", "sample": np.arange(100), "regime": labels,
                       **{k: rng.standard_normal(100) for k in ("trA", "detA", "discA", "trV", "detV")}})
    d2["discV"] = np.where(labels == "oscillate", -1.0 - rng.random(100), rng.random(100))
    tokens = pd.DataFrame({"ensemble": "gaussian", "model": "lsa", "d": 3, "beta": 1.0,
                           "regime": ["cluster_converge", "undetermined", "cluster_rotate", "cluster_converge"]})
    phase = pd.DataFrame({"ensemble": "gaussian", "model": "sa", "d": 2, "n_tokens": 8, "beta": [1.0] * 4,
                          "run": [0, 1, 0, 1], "t": [0.0, 0.0, 5.0, 5.0], "r": [0.1, 0.2, 0.995, 0.5],
                          "pairs": [0.0, 0.0, 1.0, 0.2]})
    return d2, tokens, phase


def test_summaries_count_every_label_and_locate_the_limit_cycles():
    d2, tokens, phase = _made_up_runs()
    at = atlas_table(d2, tokens, 1.0)
    assert list(at.columns) == ["ensemble", "model", "d", "beta", "method", "regime", "count", "n_samples",
                                "fraction", "ci_low", "ci_high"]
    for _, g in at.groupby(["method", "d"]):
        assert len(g) == 5 and g["fraction"].sum() == pytest.approx(1.0) and (g.ci_low <= g.fraction).all()
    osc = at[(at.method == "oa") & (at.regime == "oscillate")].iloc[0]
    assert (osc["count"], osc["n_samples"]) == (15, 100)
    inv = invariant_table(d2, 4)
    v = inv[inv.invariant == "discV"]
    assert v.n_samples.sum() == 100 and v.n_oscillate.sum() == 15 and v.share.sum() == pytest.approx(1.0)
    assert v.iloc[0].n_oscillate == 15  # every oscillating sample has disc V < 0: the lowest bin
    pt = phase_table(phase, 0.99)
    assert list(pt.n_clustered) == [0, 1] and list(pt.fraction) == [0.0, 0.5]
    rows = {r["id"]: r for r in claim_rows(at, inv, pt, d2, 0.05, 0.99)}
    assert rows["C12a-gaussian-d2"]["pass"] and rows["C12b-gaussian-d2"]["n_agree"] == 15
    assert "disc V < 0 (complex eigenvalues of V): 1.000" in rows["C12b-gaussian-d2"]["note"]
    assert not rows["C12c-gaussian-lsa-d3"]["pass"]  # 1 of 4 undetermined > 5 %
    assert rows["C12d-gaussian-sa-d2"]["n_agree"] == 1 and all(r["informational"] for r in rows.values())


def test_d2_rows_do_not_depend_on_the_chunking():
    from lsadyn.paper.atlas.runs import run_d2

    cfg = {**CFG, "d2": {**CFG["d2"], "n_samples": 6, "ensembles": ["goe"]}}
    one = run_d2(chunk_jobs({**cfg, "d2": {**cfg["d2"], "chunks": 1}}, 3)["d2"][0])
    parts = [run_d2(j) for j in chunk_jobs({**cfg, "d2": {**cfg["d2"], "chunks": 3}}, 3)["d2"]]
    pd.testing.assert_frame_equal(one, pd.concat(parts, ignore_index=True))
    assert list(one["sample"]) == list(range(6))
    A, _ = weight_pairs("goe", 2, 6, (3 + 2900, ENSEMBLES.index("goe"), 2))
    np.testing.assert_allclose(one["trA"], np.trace(A, axis1=1, axis2=2))
    np.testing.assert_allclose(one["detA"], np.linalg.det(A))


def test_phase_rows_follow_the_runs_and_betas():
    from lsadyn.paper.atlas.runs import run_phase

    job = chunk_jobs(CFG, 5)["phase"][0]
    rows = run_phase(job)
    g = job["groups"][0]
    assert len(rows) == len(job["groups"]) * 3 * 2 * 3  # runs x betas x times
    A, V = weight_pairs(g["ensemble"], g["d"], 3, tuple(g["seed"]))
    X0 = uniform_sphere(8, g["d"], g["token_seed"] + 1)[None]
    r, _ = clustering_over_time(g["model"], A[1:2], V[1:2], 9.0, X0, phase_times(job), 0.1)
    sel = rows[(rows.model == g["model"]) & (rows.d == g["d"]) & (rows.beta == 9.0) & (rows.run == 1)]
    np.testing.assert_allclose(sel["r"], r[0], rtol=1e-9)


def test_a_failing_oa_integration_is_counted_undetermined(monkeypatch):
    from lsadyn.paper.atlas import runs

    real = runs.predict_regime_batch

    def flaky(A, V, beta, **kw):  # fails on any batch holding the sample whose tr A is the largest
        if np.any(np.isclose(np.trace(A, axis1=1, axis2=2), worst)):
            raise FloatingPointError("integration failed")
        return real(A, V, beta, **kw)

    job = chunk_jobs({**CFG, "d2": {**CFG["d2"], "n_samples": 5, "ensembles": ["gaussian"], "chunks": 1}}, 2)["d2"][0]
    clean = runs.run_d2(job)
    worst = clean["trA"].max()
    monkeypatch.setattr(runs, "predict_regime_batch", flaky)
    rows = runs.run_d2(job)
    bad = rows["trA"] == worst
    assert list(rows["failed"]) == list(bad) and (rows.loc[bad, "regime"] == "undetermined").all()
    pd.testing.assert_frame_equal(rows[~bad], clean[~bad])
