"""Certified labels of token runs (lsadyn.regimes.centre, lsadyn.regimes.tokens): the centre flow's rest points and
closed orbits against closed forms over random draws, the return map on synthetic signals, and simulate_regime's
certified labels confirmed by independent runs ten times longer."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsadyn import simulate_regime
from lsadyn.fields.attention import Attention, field_for
from lsadyn.observers import leading_axis, order_parameter_r
from lsadyn.paper.highdim.plan import embed_scenario
from lsadyn.regimes.centre import closed_orbit, rest_point
from lsadyn.regimes.decision import is_undecided
from lsadyn.regimes.classify import RegimeResult
from lsadyn.regimes.tokens import TokenCertifier, return_map
from lsadyn.sampling import uniform_sphere
from lsadyn.solvers.integrate import integrate_sphere

H = {"lsa": lambda y: y, "usa": np.exp, "sa": lambda y: 1.0}  # a single cluster's kernel h (SA: h ≡ 1)


@settings(max_examples=25, deadline=None)
@given(model=st.sampled_from(["lsa", "usa", "sa"]), d=st.sampled_from([2, 3, 5]), beta=st.floats(0.25, 2.0),
       lam=st.lists(st.floats(-2.0, 2.0), min_size=5, max_size=5, unique=True), seed=st.integers(0, 10**6))
def test_rest_point_of_a_diagonal_V_is_its_top_eigenvector_with_closed_form_eigenvalues(model, d, beta, lam, seed):
    """A = I, V = diag(λ) (λ₁ the largest): x* = e₁, tangent eigenvalues h(β)(λ_j − λ₁), differential −h(β)λ₁."""
    lam = np.sort(np.array(lam[:d]))[::-1]
    if lam[0] - lam[1] < 0.05:
        lam[0] = lam[1] + 0.05
    p = Attention(np.eye(d), np.diag(lam), beta)
    x0 = np.zeros(d)
    x0[0] = 1.0
    x0 += 0.02 * np.random.default_rng(seed).standard_normal(d)
    rp = rest_point(model, x0 / np.linalg.norm(x0), p)
    assert rp is not None and abs(abs(rp.x[0]) - 1) < 1e-12
    h = H[model](beta)
    assert np.allclose(np.sort(rp.eigenvalues.real), np.sort(h * (lam[1:] - lam[0])), atol=1e-9)
    assert rp.sink and rp.differential == pytest.approx(-h * lam[0], rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(model=st.sampled_from(["lsa", "usa"]), d=st.sampled_from([2, 3, 6]), beta=st.floats(0.25, 2.0),
       a=st.floats(-1.0, 1.0), b=st.floats(0.3, 2.0), gap=st.floats(0.2, 1.5))
def test_closed_orbit_of_an_embedded_rotation_has_the_closed_form_period_and_multipliers(model, d, beta, a, b, gap):
    """A = I, V = diag([[a, −b], [b, a]], (a − gap) I): the axis turns π in π/(h(β) b); off the plane the multiplier
    is e^{−gap·π/b}; the differential exponent is −h(β) a."""
    A, V = embed_scenario(np.eye(2), np.array([[a, -b], [b, a]]), d, 1.0, a - gap)
    p = Attention(A, V, beta)
    x0 = np.zeros(d)
    x0[0] = 1.0
    h = H[model](beta)
    co = closed_orbit(model, x0, 1.1 * np.pi / (h * b), p)
    assert co is not None
    assert co.period == pytest.approx(np.pi / (h * b), rel=1e-5)
    if d > 2:
        assert co.multiplier == pytest.approx(np.exp(-gap * np.pi / b), rel=1e-6)
    else:
        assert np.isnan(co.multiplier)
    assert co.differential == pytest.approx(-h * a, rel=1e-5, abs=1e-7)


@settings(max_examples=20, deadline=None)
@given(model=st.sampled_from(["lsa", "usa"]), seed=st.integers(0, 10**6), beta=st.floats(0.5, 2.0))
def test_the_circle_orbit_by_quadrature_is_the_shot_orbit(model, seed, beta):
    """d = 2: period and differential multiplier of the circle by quadrature equal shooting's, on random (A, V)."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.5, 2.0)
    A = np.eye(2) + 0.3 * rng.standard_normal((2, 2))
    V = np.array([[rng.uniform(-1, 1), -b], [b, rng.uniform(-1, 1)]]) + 0.2 * rng.standard_normal((2, 2))
    p = Attention(A, V, beta)
    x0 = np.array([np.cos(rng.uniform(0, np.pi)), 0.0])
    x0[1] = np.sqrt(1 - x0[0] ** 2)
    quad = closed_orbit(model, x0, 1.0, p)
    if quad is None:  # a rest point on the circle: shooting finds no orbit either
        return
    shot = closed_orbit(model, x0, quad.period * 1.02, p, shoot=True)
    assert shot is not None
    assert quad.period == pytest.approx(shot.period, rel=1e-7)
    assert quad.differential == pytest.approx(shot.differential, rel=1e-6, abs=1e-9)


def _decaying_cycle(rho, period, amp=0.2, peaks=1, t_max=None):
    t = np.linspace(0, t_max or 30 * period, 30000)
    k = t / period
    x = 0.5 + amp * (1 + 0.3 * rho ** k) * np.cos(2 * np.pi * k) + (0.05 * np.cos(4 * np.pi * k) if peaks == 2 else 0)
    return t, x


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.9])
@pytest.mark.parametrize("peaks", [1, 2])
def test_return_map_recovers_the_multiplier_and_the_period(rho, peaks):
    t, x = _decaying_cycle(rho, 2.5, peaks=peaks, t_max=12 * 2.5)
    rm = return_map(t, x)
    assert rm["settled"] and rm["ratio"] == pytest.approx(rho, rel=0.02)
    assert rm["period"] == pytest.approx(2.5, rel=1e-3)


def test_return_map_of_a_neutral_cycle_has_no_ratio_and_no_change():
    t, x = _decaying_cycle(0.0, 1.0)
    rm = return_map(t, x)
    assert rm["change"] < 1e-9 and not (0 < rm["ratio"] < 0.98)


def _obs(t, r, d=3, m1=None, speed=None):
    axes = np.zeros((t.size, d))
    axes[:, 0] = 1.0
    m1 = np.full(t.size, 1e-3) if m1 is None else m1
    speed = np.full(t.size, 0.3) if speed is None else speed
    return np.column_stack([r, axes, m1, speed])


def test_certifier_labels_a_converging_cycle_and_reads_a_slow_one_as_past_the_budget():
    p = Attention(np.eye(3), -np.eye(3), 1.0)
    X = uniform_sphere(50, 3, 0)
    t, x = _decaying_cycle(0.5, 2.0, t_max=60.0)
    cert, _, stop = TokenCertifier("lsa", p).check(t, _obs(t, x), X)
    assert cert.attractor.regime == "oscillate" and cert.attractor.multiplier == pytest.approx(0.5, rel=0.02)
    t, x = _decaying_cycle(0.995, 2.0, t_max=60.0)
    cert, why, stop = TokenCertifier("lsa", p, t_end=100.0).check(t, _obs(t, x), X)
    assert cert is None and stop and "past the budget" in why


def test_a_neutral_usa_oscillation_with_a_growing_first_harmonic_is_metastable_and_ends_early():
    p = Attention(np.eye(3), np.eye(3), 1.0)
    t, x = _decaying_cycle(0.0, 2.0, t_max=60.0)
    m1 = 1e-6 * np.exp(0.01 * t)
    cert, why, stop = TokenCertifier("usa", p, t_end=200.0).check(t, _obs(t, x, m1=m1), uniform_sphere(50, 3, 0))
    assert cert is None and stop and why.startswith("no attractor certified: metastable") and "0.01 per" in why
    cert, why, stop = TokenCertifier("usa", p, t_end=1e5).check(t, _obs(t, x, m1=m1), uniform_sphere(50, 3, 0))
    assert cert is None and not stop  # the projected exit (t ~ 1.3e3) lies within the budget: the run continues
    assert is_undecided(RegimeResult("undetermined", 0.5, 0.0, 0.0, "x", {"stop": True})) is False


#: embedded scenarios: A = diag(A₂, a⊥ I), V = diag(V₂, v⊥ I), and the label their d = 2 theory gives
SCENARIOS = {
    "identity": (np.eye(2), 1.0, np.eye(2), 1.0, "cluster_converge"),
    "rotation": (np.eye(2), 1.0, np.array([[1.0, -1.0], [1.0, 1.0]]), 0.5, "cluster_rotate"),
    "descending": (np.diag([1.0, 0.8]), 0.9, np.diag([1.0, 0.7]), 0.2, "cluster_converge"),
    "negative_definite": (np.eye(2), 1.0, -np.eye(2), -1.0, "interior_converge"),
}


def _independent(A, V, model, X0, t_end):
    """The same tokens by scipy's DOP853 (the reference path) to ``t_end``: the tokens there."""
    traj = integrate_sphere(field_for(model, A.shape[0]), X0, np.array([0.0, t_end]), Attention(A, V, 1.0),
                            method="scipy-DOP853", rtol=1e-9, atol=1e-11)
    return np.asarray(traj.state).reshape(X0.shape)


@pytest.mark.parametrize("d", [3, 8])
@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_simulate_regime_certifies_and_an_independent_run_ten_times_longer_agrees(name, model, d):
    A2, rest_A, V2, rest_V, label = SCENARIOS[name]
    A, V = embed_scenario(A2, V2, d, rest_A, rest_V)
    if name == "negative_definite" and model in ("usa", "sa"):
        pytest.skip(f"{model.upper()} with V = -I approaches its spread state slowly (rate ~1e-3 per tau): undetermined")
    X0 = uniform_sphere(40, d, 3)
    res = simulate_regime(A, V, 1.0, X0=X0, model=model, horizon=100, n_samples=1000, budget=8)
    assert res.regime == label, res.details.get("reason")
    assert res.details["certified"] and res.details["attractor"]["regime"] == label
    t_c = res.details["t_certified"]
    X = _independent(A, V, model, X0, 10 * t_c)
    r = float(order_parameter_r(X))
    if label.startswith("cluster"):
        assert 1 - r < 1e-6
    if label == "cluster_rotate":  # the axis returns after the certified period, and not after half of it
        P = res.details["attractor"]["period"]
        ax = leading_axis(X)
        assert abs(leading_axis(_independent(A, V, model, X, P)) @ ax) > 1 - 1e-6
        assert abs(leading_axis(_independent(A, V, model, X, P / 2)) @ ax) < 0.99
    if label == "interior_converge":
        speed = np.max(np.linalg.norm(field_for(model, d)(0.0, X, Attention(A, V, 1.0)), axis=1))
        assert speed < 1e-6


@pytest.mark.parametrize("model", ["lsa", "usa"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_slowly_drifting_d2_cluster_is_certified_by_the_circle_flow_and_ends_at_its_sink(model, seed):
    """V = I + 1e-3 G: the tokens cluster fast, then the cluster's centre drifts at ~1e-3 per τ. The circle's centre
    flow decides (the sink ahead, or a rotation), and an independent integration of θ̇ = s(θ) from the cluster's
    centre for 30 / |slope| ends at the certified sink."""
    from scipy.integrate import solve_ivp

    from lsadyn.exponents.cluster import cluster_velocity

    rng = np.random.default_rng(seed)
    G = rng.standard_normal((2, 2))
    V = np.eye(2) + 1e-3 * G / np.linalg.norm(G)
    res = simulate_regime(np.eye(2), V, n=32, model=model, seed=seed, horizon=40, budget=8)
    assert res.regime in ("cluster_converge", "cluster_rotate"), res.details.get("reason")
    if res.regime != "cluster_converge" or "circle's centre flow" not in res.details["checked"]:
        return
    text = res.details["checked"]
    th_c = float(text.split("the cluster at ")[1].split(" ")[0])
    th_s = float(text.split("to the sink ")[1].split(" ")[0])
    slope = res.details["attractor"]["exponent"]
    p = Attention(np.eye(2), V, 1.0)

    def s(_t, th):
        x = np.array([np.cos(th[0]), np.sin(th[0])])
        return [np.array([-x[1], x[0]]) @ cluster_velocity(model, x, p)]

    sol = solve_ivp(s, (0, 30 / abs(slope)), [th_c], rtol=1e-10, atol=1e-12)
    period = np.pi if model == "lsa" else 2 * np.pi
    gap = abs((sol.y[0, -1] - th_s + period / 2) % period - period / 2)
    assert gap < 1e-3, (sol.y[0, -1], th_s)  # the certificate prints θ* to 4 digits


def _separated_tokens(rng, n, d):
    """n unit vectors in d = 2 (or d = 3, on the equator's neighbourhood) at least 2π/(2n) apart."""
    th = np.sort(rng.uniform(0, 2 * np.pi / n, n) * 0.5 + np.arange(n) * 2 * np.pi / n)
    X = np.zeros((n, d))
    X[:, 0], X[:, 1] = np.cos(th), np.sin(th)
    return X


# issue 45, case 9: "SA at beta = 1e6 returns interior_converge with rate 2.0 (unclustered tokens rotating rigidly),
# with no warning". Hard attention with V = cI + S (S skew, c >= 0, SA = AS) is a rigid rotation of tokens that never
# interact: no single attractor, the run ends saying so; an independent run 10x longer keeps every pairwise inner
# product. A V whose symmetric part is not cI is never called hard for ever.
# (SA only: USA's weights e^(beta <x, A y>) overflow before tokens this far apart are one-hot, beta |A| <= 700)
@settings(max_examples=12, deadline=None)
@given(d=st.sampled_from([2, 3]), n=st.integers(3, 10), b=st.floats(0.3, 2.0) | st.floats(-2.0, -0.3),
       c=st.floats(0.0, 1.0), seed=st.integers(0, 10**6))
def test_hard_attention_with_a_rigid_flow_ends_saying_so_and_stays_rigid(d, n, b, c, seed):
    model = "sa"
    rng = np.random.default_rng(seed)
    X0 = _separated_tokens(rng, n, d)
    S = np.zeros((d, d))
    S[0, 1], S[1, 0] = -b, b
    V = c * np.eye(d) + S
    A, beta = np.eye(d), 400.0 * n * n  # margin beta (1 - cos(pi / n)) >= 36 + ln n
    res = simulate_regime(A, V, beta, X0=X0, model=model, horizon=50, n_samples=400)
    reason = res.details.get("reason", "")
    assert res.regime == "undetermined" and reason.startswith("no attractor certified: hard attention for ever")
    assert f"{n} groups" in reason and not is_undecided(res)  # the run ended there
    p = Attention(A, V, beta)
    t_end = 10 * res.details["t_decide"]
    traj = integrate_sphere(field_for(model, d), X0, np.array([0.0, t_end]), p, method="DOP853", rtol=1e-10,
                            atol=1e-12)
    X = np.asarray(traj.state).reshape(X0.shape)
    assert np.abs(X @ X.T - X0 @ X0.T).max() < 1e-6


def test_hard_attention_without_a_rigid_flow_is_only_a_note():
    X0 = _separated_tokens(np.random.default_rng(1), 6, 2)
    cert = TokenCertifier("sa", Attention(np.eye(2), np.array([[1.0, -1.0], [1.0, 0.5]]), 1e5))
    note, for_ever = cert.hard_attention(X0)
    assert not for_ever and note.startswith("softmax near its hard limit: 6 groups")
    assert TokenCertifier("lsa", Attention(np.eye(2), np.eye(2), 1e5)).hard_attention(X0) == ("", False)
