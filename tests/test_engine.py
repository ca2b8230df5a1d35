"""The compiled d = 2 token integrator against the scipy reference, the decision procedure
(continuation, budget, trend fit) and the user's initial tokens."""

import numpy as np
import pytest

from lsadyn import (
    particles_regime_batch,
    predict_regime,
    predict_regime_batch,
    simulate_regime,
    ws_regime,
    ws_regime_batch,
)
from lsadyn.api import time_scale
from lsadyn.regimes.decision import horizon_factors
from lsadyn.regimes.classify import RegimeTolerances, algebraic_cluster_fit, classify_r2_trajectory

I2 = np.eye(2)
J = np.array([[0.0, -1.0], [1.0, 0.0]])

#: two points of every regime (labels derived in tests/test_regimes.py and docs/theory.md §3)
POINTS = [
    (I2, I2, "cluster_converge"),
    (np.array([[1.0, 0.3], [-0.1, 0.7]]), I2, "cluster_converge"),
    (I2, -I2, "interior_converge"),
    (I2, np.diag([-0.5, -1.5]), "interior_converge"),
    (I2, I2 + J, "cluster_rotate"),
    (I2, 0.5 * I2 - 2 * J, "cluster_rotate"),
    (I2, np.array([[0.5, 1.0], [-1.0, -0.5]]), "oscillate"),
    (I2, np.array([[0.2, 1.0], [-1.0, -0.2]]), "oscillate"),
]


def _close(a, b, rel=1e-4, floor=1e-6):
    if np.isnan(a) or np.isnan(b):
        return np.isnan(a) and np.isnan(b)
    return abs(a - b) <= max(rel * abs(b), floor)


def test_compiled_matches_scipy_reference_on_every_regime():
    """Same labels; |R₂|, rotation rate and period within 1e-4 relative (1e-6 absolute near 0, where
    relative differences of round-off-sized values are meaningless)."""
    A = np.stack([p[0] for p in POINTS])
    V = np.stack([p[1] for p in POINTS])
    kw = dict(n=300, seed=3, horizon=200.0, n_samples=1500)
    # certified, the engines agree label for label (a neutral point is undetermined in both)
    fast_c, ref_c = (particles_regime_batch(A, V, 0.8, engine=e, **kw) for e in ("compiled", "scipy"))
    assert [r.regime for r in fast_c] == [r.regime for r in ref_c]
    assert all(r.regime in (p[2], "undetermined") for r, p in zip(ref_c, POINTS))
    # the window rule's labels, limits and periods (what this test compares)
    fast = particles_regime_batch(A, V, 0.8, engine="compiled", certify=False, **kw)
    ref = particles_regime_batch(A, V, 0.8, engine="scipy", certify=False, **kw)
    assert [r.regime for r in ref] == [p[2] for p in POINTS]
    for f, r in zip(fast, ref):
        assert f.regime == r.regime
        assert _close(f.abs_R2, r.abs_R2) and _close(f.arg_R2_rate, r.arg_R2_rate) and _close(f.period, r.period)
        assert f.details["budget_factor"] == r.details["budget_factor"]


@pytest.mark.parametrize("which", ["oa", "ws"])
def test_compiled_oa_and_ws_match_scipy_reference(which):
    """The compiled OA (every start its own run) and WS (exact sum over the constants of motion) batches
    against scipy DOP853 on the same points: same labels, limits within 1e-4 relative."""
    A = np.stack([p[0] for p in POINTS])
    V = np.stack([p[1] for p in POINTS])
    if which == "oa":
        kw = dict(horizon=300.0, n_samples=3000, token_start=0.02 + 0.01j)
        fast, ref = (predict_regime_batch(A, V, 0.8, engine=e, **kw) for e in ("compiled", "scipy"))
    else:
        kw = dict(n=100, seed=3, horizon=200.0, n_samples=1500)
        # certified, the engines agree label for label (a neutral point is undetermined in both)
        fast_c, ref_c = (ws_regime_batch(A, V, 0.8, engine=e, **kw) for e in ("compiled", "scipy"))
        assert [r.regime for r in fast_c] == [r.regime for r in ref_c]
        assert all(r.regime in (p[2], "undetermined") for r, p in zip(ref_c, POINTS))
        # the window rule's labels, limits and periods (what this test compares)
        fast, ref = (ws_regime_batch(A, V, 0.8, engine=e, certify=False, **kw) for e in ("compiled", "scipy"))
    assert [r.regime for r in ref] == [p[2] for p in POINTS]
    for f, r in zip(fast, ref):
        assert f.regime == r.regime and f.details.get("regime_token_start") == r.details.get("regime_token_start")
        assert _close(f.abs_R2, r.abs_R2) and _close(f.arg_R2_rate, r.arg_R2_rate) and _close(f.period, r.period)


def test_horizon_factors_and_budget():
    early = [0.125, 0.25, 0.5]
    assert horizon_factors(1) == early + [1.0]
    assert horizon_factors(10) == early + [1, 2, 4, 8, 10]
    assert horizon_factors(16) == early + [1, 2, 4, 8, 16]
    assert horizon_factors(16, early=()) == [1, 2, 4, 8, 16]
    with pytest.raises(ValueError, match="^budget:"):
        horizon_factors(0.5)
    with pytest.raises(ValueError, match="^early:"):
        horizon_factors(4, early=(0.5, 0.25))


def test_continuation_equals_one_long_run():
    """A run decided after continuing to f × horizon reads the same window as one run of f × horizon:
    A = I, V = 0.05 I + J rotates (|R₂| → 1) but only slowly approaches the circle; horizon 20 is too
    short, the procedure continues and must agree with a fixed run of the horizon it reached."""
    V = 0.05 * I2 + J
    cont = simulate_regime(I2, V, n=200, seed=1, horizon=20.0, n_samples=400, budget=64)
    f = cont.details["budget_factor"]
    assert f > 1 and cont.regime == "cluster_rotate"
    one = simulate_regime(I2, V, n=200, seed=1, horizon=20.0 * f, n_samples=int(399 * f) + 1, budget=1)
    assert one.regime == cont.regime
    assert _close(cont.abs_R2, one.abs_R2, 1e-6) and _close(cont.arg_R2_rate, one.arg_R2_rate, 1e-6)
    assert cont.details["t_decide"] == pytest.approx(one.details["t_decide"])


def test_every_result_records_the_decision():
    for res in (predict_regime(I2, I2), ws_regime(I2, I2, n=100), simulate_regime(I2, I2, n=100),
                simulate_regime(np.eye(3), np.eye(3), n=50, horizon=50, n_samples=200)):
        assert res.details["budget_factor"] >= 0.125 and res.details["t_decide"] > 0


def test_algebraic_approach_is_decided_by_trend_fit():
    """λ_max(V) = 0 boundary, A = I, V = diag(0, −1): on the circle φ̇ ∝ −sin²φ-type degenerate fixed point,
    1 − |R₂| ~ c/t. Decided as a cluster by the trend fit (not undetermined), and the synthetic law too."""
    t = np.linspace(0, 400, 4000)
    res = classify_r2_trajectory(t, (1 - 2 / (t + 3)).astype(complex))
    assert res.regime == "cluster_converge" and res.details["approach"] == "algebraic"
    assert algebraic_cluster_fit(t[2800:], 1 - 2 / (t[2800:] + 3), RegimeTolerances()) == pytest.approx(1, abs=1e-4)
    # approach to an interior value is not mistaken for clustering
    assert classify_r2_trajectory(t, (0.99 - 0.05 * np.exp(-t / 150)).astype(complex)).regime == "undetermined"
    assert predict_regime(I2, np.diag([0.0, -1.0])).regime == "cluster_converge"
    # WS, certified: the degenerate cluster's normal form, once the stragglers have joined (see below)
    ws = ws_regime(I2, np.diag([0.0, -1.0]), n=200, horizon=2000)
    assert ws.regime == "cluster_converge" and ws.details["attractor"]["kind"] == "cluster_algebraic"


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_tokens_at_a_degenerate_cluster_are_certified_by_its_normal_form(beta):
    """d = 2 LSA tokens, V with λ_max = 0 (A = I): the cluster's differential exponent is 0, and the certificate is
    the normal form u' = g1 u² of u = 1 − r: 1/(1 − r) grows at −g1 = β (here V x* = 0 at the cluster x* = e1, and
    each deviation obeys δ' = −β S δ, S = ⟨δ²⟩). Measured within 10 % once every straggler has joined."""
    res = simulate_regime(I2, np.diag([0.0, -1.0]), beta, n=200, horizon=2000 / beta)
    assert res.regime == "cluster_converge", res.details.get("reason")
    assert res.details["attractor"]["kind"] == "cluster_algebraic"
    assert f"g1 = {-beta:.4g}" in res.details["checked"]


def test_user_tokens_X0():
    theta = np.linspace(0, np.pi, 64, endpoint=False) + 0.01
    X = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    a = simulate_regime(I2, I2, X0=theta)
    b = simulate_regime(I2, I2, X0=X)
    assert a.regime == b.regime == "cluster_converge" and a.abs_R2 == b.abs_R2
    with pytest.raises(ValueError, match="^X0: tokens must have unit norm"):
        simulate_regime(I2, I2, X0=2 * X)
    with pytest.raises(ValueError, match="^X0: contains NaN"):
        simulate_regime(I2, I2, X0=np.full(5, np.nan))
    with pytest.raises(ValueError, match="^X0: expected tokens of dimension d = 3"):
        simulate_regime(np.eye(3), np.eye(3), X0=X)
    with pytest.raises(ValueError, match="^X0: angles of shape"):
        simulate_regime(np.eye(3), np.eye(3), X0=theta)
    with pytest.raises(ValueError, match="^n: X0 holds 64 tokens"):
        simulate_regime(I2, I2, X0=X, n=10)


def test_generated_stage_passes_are_current():
    """src/lsadyn/solvers/_dop853_stages.py is generated from scipy's DOP853 tableau by
    tools/generate_dop853_stages.py; the checked-in file must be what the generator writes now."""
    import importlib.util
    from pathlib import Path

    import lsadyn.solvers._dop853_stages as stages

    tool = Path(__file__).resolve().parents[1] / "tools" / "generate_dop853_stages.py"
    spec = importlib.util.spec_from_file_location("generate_dop853_stages", tool)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert Path(stages.__file__).resolve() == gen.TARGET
    assert gen.TARGET.read_text() == gen.stage_source()


def test_readme_speed_section_is_generated_from_the_benchmark_records():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(root / "benchmarks/speed_table.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_algebraic_limits_against_the_old_fixed_long_run():
    """Why quick-config limits changed on the slow clustering boundaries: the old procedure re-ran such points
    with a 10x horizon and reported |R2| read there; the trend fit decides at 1x and reports the extrapolated
    limit. The two differ by at most the old run's own distance from the limit (1 - |R2| ~ c/t), and both
    rates are finite-window estimates of 0, bounded by tol_angle / window length."""
    from lsadyn.api import integrate_oa, oa_start_points

    tol = RegimeTolerances()
    for A, V in [(I2, np.diag([0.0, -1.0])), (np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[1.0, 0.5], [-0.5, 1.0]]))]:
        new = predict_regime(A, V, horizon=300.0, n_samples=3000)
        if new.details.get("approach") != "algebraic":
            continue
        tau = time_scale(A, V, 1.0)
        # the old fixed long run: |R2| read at 3000 tau, median over the same starts
        old_abs = float(np.median(np.abs(integrate_oa(A, V, 1.0, oa_start_points(), [0.0, 3000.0 * tau])[-1])))
        f = new.details["budget_factor"]  # decided where the trend fit first succeeded (an early checkpoint or 1)
        assert new.regime == "cluster_converge" and f <= 1
        assert abs(new.abs_R2 - old_abs) <= (1 - old_abs) + tol.tol_cluster / 10
        assert abs(new.abs_R2 - 1) <= tol.tol_cluster
        assert abs(new.arg_R2_rate) <= tol.tol_angle / (tol.window * f * 300.0 * tau) * 1.01
