"""lsadyn.exponents: the numerical Floquet exponent of rotating clusters against the closed form of
lsadyn.continuation.circle_cycle, the tangent maps against a loop reference and a finite difference, Benettin's
Lyapunov spectrum of tokens on the OA manifold against the OA flow's exponents, and basin fractions."""

import numpy as np
import pytest

from lsadyn.api import oa_start_points
from lsadyn.continuation import circle_cycle
from lsadyn.exponents import (
    attractors,
    basin_fractions,
    circle_floquet,
    constant_family,
    field_and_jvp,
    jvp_fd,
    jvp_reference,
    leading_exponent,
    lyapunov_spectrum,
    oa_manifold_tokens,
    oa_token_spectrum,
    wilson_interval,
)
from lsadyn.exponents.oa import P0
from lsadyn.fields.attention import attention, field_for

I2 = np.eye(2)
J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
ROTATING = [  # (A, V, beta) with rotating clusters: case 3, saddle-node family above its fold, a generic point
    (np.diag([1.0, 0.5]), I2 + 1.0 * J2, 1.0),
    (np.diag([1.0, 2.0]), I2 - 0.3 * J2, 0.7),
    (I2, np.array([[1.5, -0.6], [0.6, 0.5]]), 1.0),
    (np.array([[1.0, 0.4], [-0.2, 0.8]]), np.array([[0.9, -1.3], [1.1, 0.3]]), 1.3),
]
#: an interior equilibrium with moving tokens (V = I, A's symmetric part negative definite)
INTERIOR = (np.array([[-0.5, -2.0], [1.5, -0.8]]), I2, 1.0)
CONVERGE = (I2, np.array([[1.5, -0.4], [0.4, 0.5]]), 1.0)
#: two stable clustered states on the circle (found by lsadyn.exponents.attractors among random weights)
BISTABLE = (np.array([[2.041, -2.556], [0.418, -0.568]]), np.array([[-0.453, -0.216], [-2.02, -0.232]]), 1.0)


@pytest.mark.parametrize("A, V, beta", ROTATING)
def test_floquet_exponent_of_rotating_clusters_matches_the_closed_form(A, V, beta):
    T, lam, mult = circle_floquet(A, V, beta, phi0=0.3)
    T_cf, lam_cf, _ = circle_cycle(constant_family(A, V, beta), P0)
    assert abs(T / T_cf - 1) < 1e-9
    assert abs(lam - lam_cf) < 1e-8 * max(1.0, abs(lam_cf))
    assert abs(mult[0] - 1) < 1e-8  # the trivial multiplier, along the flow
    assert abs(abs(mult[1]) - np.exp(lam_cf * T_cf)) < 1e-8


def test_floquet_is_none_where_the_circle_has_equilibria():
    assert circle_floquet(*CONVERGE) is None


def test_attractors_and_their_leading_exponents():
    (rot,) = attractors(*ROTATING[0])
    assert rot.regime == "cluster_rotate" and abs(rot.exponent + 1 / np.sqrt(2)) < 1e-12  # λ⊥ = −β√σ... here −√0.5
    (conv,) = attractors(*CONVERGE)
    assert conv.regime == "cluster_converge" and abs(conv.exponent + 0.6) < 1e-12
    (inner,) = attractors(*INTERIOR)
    assert inner.regime == "interior_converge" and inner.exponent < 0 and abs(inner.R2) < 1
    assert leading_exponent(*INTERIOR, "interior_converge") == inner.exponent
    assert np.isnan(leading_exponent(*INTERIOR, "oscillate"))
    two = attractors(*BISTABLE)
    assert [a.regime for a in two] == ["cluster_converge"] * 2
    assert np.isnan(leading_exponent(*BISTABLE, "cluster_converge"))  # which one: not known without starts
    lam = leading_exponent(*BISTABLE, "cluster_converge", starts=oa_start_points())
    assert lam in [a.exponent for a in two]
    near = [leading_exponent(*BISTABLE, "cluster_converge", starts=[0.99 * a.R2]) for a in two]
    assert near == [a.exponent for a in two]  # a start next to an attractor reaches it


@pytest.mark.parametrize("model", ["lsa", "usa"])
@pytest.mark.parametrize("d", [2, 3, 7])
def test_tangent_map_matches_the_loop_reference_and_a_finite_difference(model, d):
    rng = np.random.default_rng(d)
    n = 6
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    p = attention(rng.standard_normal((d, d)) / 2, rng.standard_normal((d, d)) / 2, 0.8)
    W = rng.standard_normal((3, n, d))
    fx, fw = field_and_jvp(model, X, W, p)
    assert np.abs(fx - field_for(model, direct=True)(0.0, X, p)).max() < 1e-13
    for i in range(3):
        ref = jvp_reference(model, X, W[i], p)
        assert np.abs(fw[i] - ref).max() < 1e-12
        assert np.abs(fw[i] - jvp_fd(model, X, W[i], p)).max() < 1e-7 * max(1.0, np.abs(ref).max())
    with pytest.raises(ValueError, match="model"):
        field_and_jvp("sa", X, W, p)


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_vectorised_benettin_equals_the_reference_path(model):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((5, 3))
    p = attention(rng.standard_normal((3, 3)) / 2, rng.standard_normal((3, 3)) / 2, 1.0)
    kw = {"m": 3, "t_transient": 0.5, "t_measure": 2.0, "dt": 0.05, "renorm": 4, "seed": 3}
    fast = lyapunov_spectrum(model, X, p, **kw)
    ref = lyapunov_spectrum(model, X, p, reference=True, **kw)
    assert np.abs(fast - ref).max() < 1e-10


@pytest.mark.parametrize("case", ["converge", "rotate", "interior"])
def test_token_spectrum_on_the_oa_manifold_is_the_oa_flows(case):
    A, V, beta = {"converge": CONVERGE, "rotate": ROTATING[0], "interior": INTERIOR}[case]
    (att,) = attractors(A, V, beta)
    n = 8
    lam = lyapunov_spectrum("lsa", oa_manifold_tokens(0.3 + 0.1j, n), attention(A, V, beta), m=n,
                            t_transient=40.0, t_measure=160.0, dt=0.04)
    pred = oa_token_spectrum(att.regime, n, A, V, beta, att)
    assert np.abs(lam - pred).max() < 5e-3, (lam, pred)
    if case == "rotate":  # the second exponent is the normal Floquet exponent of the circle
        assert abs(lam[1] - circle_cycle(constant_family(A, V, beta), P0)[1]) < 5e-3


def test_oa_manifold_tokens_have_the_requested_order_parameter():
    for n, tol in ((8, 0.5**8 * 2), (64, 1e-14)):  # exact up to O(|R2|^n)
        X = oa_manifold_tokens(0.4 - 0.3j, n, offset=0.1)
        z = (X[:, 0] + 1j * X[:, 1]) ** 2
        assert abs(z.mean() - (0.4 - 0.3j)) < tol
    with pytest.raises(ValueError, match="R2"):
        oa_manifold_tokens(1.0, 4)


def test_lyapunov_spectrum_rejects_bad_arguments():
    p = attention(I2, I2)
    X = oa_manifold_tokens(0.1, 4)
    with pytest.raises(ValueError, match="m:"):
        lyapunov_spectrum("lsa", X, p, m=5)
    with pytest.raises(ValueError, match="model"):
        lyapunov_spectrum("sa", X, p)


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.4038) < 1e-4 and abs(hi - 0.5962) < 1e-4  # the textbook values
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_basin_fractions_of_a_bistable_point():
    rows = basin_fractions(*BISTABLE, n_samples=400, seed=2)
    assert [r["regime"] for r in rows] == ["cluster_converge", "cluster_converge", "unresolved"]
    assert sum(r["count"] for r in rows) == 400 and rows[-1]["count"] == 0
    assert all(r["ci_low"] <= r["fraction"] <= r["ci_high"] for r in rows)
    assert min(rows[0]["count"], rows[1]["count"]) > 20  # both basins have positive measure
    again = basin_fractions(*BISTABLE, n_samples=400, seed=2)  # seeded
    assert [r["count"] for r in again] == [r["count"] for r in rows]
    (mono,) = basin_fractions(*ROTATING[0], n_samples=50, seed=1)[:1]
    assert mono["regime"] == "cluster_rotate" and mono["count"] == 50


# ---------------------------------------------------------------- the stage (lsadyn.paper.exponents)
STAGE_CFG = {"exponents": {
    "scenarios": {"rotate": {"A": [[1, 0], [0, 0.5]], "V": [[1, -1], [1, 1]], "rest_A": 1.0, "rest_V": 0.5,
                             "expect": "cluster_rotate"}},
    "models": ["lsa", "usa"], "dims": [2, 5], "n_tokens": 6, "n_vectors": 2, "R2_0": [0.3, 0.1], "seed": 7,
    "dt": 0.1, "t_transient": 10.0, "t_measure": 20.0, "renorm": 5, "tol": 0.01,
    "floquet": {"sigma": [-0.5, 0.5], "mu": [1.0]},
    "basins": {"n_samples": 50, "seed": 3, "horizon": 200.0, "tol": 1e-3,
               "points": {"two": {"A": BISTABLE[0].tolist(), "V": BISTABLE[1].tolist()}}},
}}


def test_plan_runs_and_points():
    from lsadyn.paper.exponents.plan import basin_points, floquet_points, runs, scenarios

    rs = runs(STAGE_CFG)
    assert [(r["model"], r["d"], r["n_vectors"], r["start"]) for r in rs] == [
        ("lsa", 2, 6, "oa_manifold"), ("lsa", 5, 2, "uniform"), ("usa", 2, 6, "oa_manifold"), ("usa", 5, 2, "uniform")]
    assert [r["seed"] for r in rs] == [7, 8, 9, 10]
    assert [p["family"] for p in floquet_points(STAGE_CFG)] == ["case3", "case3", "scenario:rotate"]
    assert list(basin_points(STAGE_CFG)) == ["two"]
    bad = {"exponents": {**STAGE_CFG["exponents"], "scenarios": {"x": {"A": [[1]], "V": [[1]]}}}}
    with pytest.raises(ValueError, match="exponents.scenarios.x"):
        scenarios(bad)


def test_stage_tables_and_claim_rows():
    import pandas as pd

    from lsadyn.paper.exponents.plan import basin_points, floquet_points, runs, scenarios
    from lsadyn.paper.exponents.runs import basin_table, floquet_table, run_token_table
    from lsadyn.paper.exponents.summary import claim_rows

    ex = STAGE_CFG["exponents"]
    tok = run_token_table(runs(STAGE_CFG), scenarios(STAGE_CFG), 1.0, ex)
    lsa2 = tok[(tok.model == "lsa") & (tok.d == 2)].iloc[0]
    assert abs(lsa2.lyap_2 + np.sqrt(0.5)) < 0.02 and abs(lsa2.oa_exponent + np.sqrt(0.5)) < 1e-12
    fl = floquet_table(floquet_points(STAGE_CFG), 1.0)
    assert len(fl) == 2  # sigma < 0: clustered states on the circle, no rotation, skipped
    bs = basin_table(basin_points(STAGE_CFG), 1.0, ex["basins"])
    reg = pd.DataFrame({"regime_oa": ["cluster_rotate", "oscillate", "cluster_converge"],
                        "exponent_oa": [-0.5, np.nan, np.nan]})
    cols = ["model", "d", "regime", "contraction_exponent", "contraction_exponent_theory"]
    hd = pd.DataFrame([["lsa", 10, "cluster_rotate", -0.70, -0.707], ["usa", 10, "oscillate", np.nan, np.nan]],
                      columns=cols)
    ps = pd.DataFrame([["usa", 3, "cluster_converge", -2.0, np.nan], ["lsa", 2, "cluster_converge", np.nan, -1.3]],
                      columns=cols)
    rows = {r["id"]: r for r in claim_rows(tok, fl, bs, reg, ex["tol"], hd, ps)}
    assert list(rows) == ["C13a-floquet", "C13b-rotate", "C13c-two", "C13d-regimes", "C13e-clusters"]
    assert rows["C13e-clusters"]["pass"] and rows["C13e-clusters"]["n_tested"] == 1
    assert "1 without a settled fit" in rows["C13e-clusters"]["evidence"]
    assert "1 without a prediction" in rows["C13e-clusters"]["evidence"]
    hd.loc[0, "contraction_exponent"] = -0.5  # 29 % off: fails
    assert not claim_rows(tok, fl, bs, reg, ex["tol"], hd, ps)[-1]["pass"]
    assert rows["C13a-floquet"]["pass"] and rows["C13a-floquet"]["n_tested"] == 2
    assert rows["C13c-two"]["n_tested"] == 2
    assert not rows["C13d-regimes"]["pass"] and rows["C13d-regimes"]["n_agree"] == 1  # a row without an exponent
    assert all(r["informational"] for r in rows.values())


def test_cases2d_rows_get_their_attractors_exponent():
    import pandas as pd

    from lsadyn.paper.cases2d.runs import oa_exponents

    def row(A, V, regime, r=np.nan):
        (a11, a12), (a21, a22) = A
        (v11, v12), (v21, v22) = V
        return {"a11": a11, "a12": a12, "a21": a21, "a22": a22, "v11": v11, "v12": v12, "v21": v21, "v22": v22,
                "beta": 1.0, "regime_oa": regime, "abs_R2_oa": r}

    sim = pd.DataFrame([row(*ROTATING[0][:2], "cluster_rotate"), row(*CONVERGE[:2], "cluster_converge"),
                        row(*INTERIOR[:2], "interior_converge", 0.15), row(I2, I2, "cluster_converge"),
                        row(I2, np.array([[0.5, 1.0], [-1.0, -0.5]]), "oscillate"),
                        row(I2, np.array([[-1.5, -1.5], [1.5, 1.5]]), "cluster_converge"),  # case 4 on its fold
                        row(np.array([[0.9, 1.2], [0.9, -0.7]]), I2, "cluster_converge")])  # V = I: fixed circle
    ex = oa_exponents(sim)
    assert abs(ex[0] + np.sqrt(0.5)) < 1e-12 and abs(ex[1] + 0.6) < 1e-12
    assert ex[2] == attractors(*INTERIOR)[0].exponent
    assert ex[3] == 0.0  # A = V = I: every clustered state fixed
    assert np.isnan(ex[4])
    assert abs(ex[5]) < 1e-9  # a circle fold: the merged clustered state is non-hyperbolic
    assert ex[6] == 0.0  # V = I: every clustered state fixed, an attracting arc of them
