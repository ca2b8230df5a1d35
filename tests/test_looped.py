"""The looped layer (lsadyn.looped): its update is the attention field before projection, and L steps of size h
converge to the token flow at t = L·h at first order."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from lsadyn.fields.attention import Attention, field_for, project_tangent
from lsadyn.looped import attention_update, looped_forward
from lsadyn.sampling import uniform_sphere


def _system(d, seed):
    rng = np.random.default_rng(seed)
    return Attention(rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d), 1.0)


@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
@pytest.mark.parametrize("d", [2, 5])
def test_the_update_projected_on_the_sphere_is_the_field(model, d):
    p = _system(d, 3)
    X = uniform_sphere(40, d, 1)
    assert np.allclose(project_tangent(X, attention_update(X, p, model)), field_for(model, d, direct=True)(0.0, X, p),
                       atol=1e-12)


@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
def test_the_loop_converges_to_the_flow_at_first_order(model):
    d, T = 4, 2.0
    p = _system(d, 7)
    X0 = uniform_sphere(30, d, 2)
    field = field_for(model, d, direct=True)
    sol = solve_ivp(lambda t, y: field(t, y.reshape(30, d), p).ravel(), (0, T), X0.ravel(), method="DOP853",
                    rtol=1e-12, atol=1e-12)
    X_T = sol.y[:, -1].reshape(30, d)
    errs = [np.abs(looped_forward(X0, p, model, T / L, L)[-1] - X_T).max() for L in (100, 200, 400)]
    ratios = [errs[0] / errs[1], errs[1] / errs[2]]
    assert all(1.8 < q < 2.2 for q in ratios), (errs, ratios)


def test_bad_inputs_name_the_argument():
    p = _system(3, 0)
    X = uniform_sphere(5, 3, 0)
    with pytest.raises(ValueError, match="^X0:"):
        looped_forward(X[:, :2], p, "lsa", 0.1, 3)
    with pytest.raises(ValueError, match="^h:"):
        looped_forward(X, p, "lsa", 0.0, 3)
    with pytest.raises(ValueError, match="^model:"):
        looped_forward(X, p, "relu", 0.1, 3)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="^X0:"):
        looped_forward(bad, p, "lsa", 0.1, 3)
    assert looped_forward(X, p, "lsa", 0.1, 6, every=3).shape == (3, 5, 3)


ROT = np.array([[1.0, -1.0], [1.0, 1.0]])


@pytest.mark.parametrize("model", ["lsa", "usa"])
@pytest.mark.parametrize("A, V", [(np.eye(2), ROT), (np.eye(2), np.eye(2)), (np.eye(2), np.diag([1.0, -0.5]))])
def test_the_looped_layer_at_small_h_has_the_flows_certified_regime(model, A, V):
    from lsadyn import simulate_regime
    from lsadyn.looped import looped_regime

    p = Attention(A, V, 1.0)
    X0 = uniform_sphere(64, 2, 0)
    flow = simulate_regime(A, V, 1.0, n=64, model=model, X0=X0, horizon=100)
    loop = looped_regime(X0, p, model, 0.05, 4000)
    assert loop.regime == flow.regime != "undetermined", (loop.details, flow.details)
    assert loop.details["certified"] and loop.details["layers"] <= 4000


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_the_maps_certified_rotation_rate_is_the_networks_and_tends_to_the_flows_at_first_order(model):
    """Rotating clusters: the rate the map's certificate gives (the one-token map's orbit over whole turns) is the
    looped network's own (its iterates over whole turns), and differs from the flow's certified rate by O(h)."""
    from lsadyn import simulate_regime
    from lsadyn.looped import iterate_rate, looped_forward, looped_regime

    p = Attention(np.eye(2), ROT, 1.0)
    X0 = uniform_sphere(64, 2, 0)
    flow = simulate_regime(np.eye(2), ROT, 1.0, X0=X0, model=model)
    assert flow.regime == "cluster_rotate"
    errs = []
    for h in (0.04, 0.02, 0.01):
        res = looped_regime(X0, p, model, h, int(40 / h))
        assert res.regime == "cluster_rotate" and res.details["attractor"]["kind"] == "map_rotation"
        net = iterate_rate(looped_forward(X0, p, model, h, int(80 / h)), h)
        assert res.arg_R2_rate == pytest.approx(net, rel=1e-3)
        errs.append(abs(res.arg_R2_rate - flow.arg_R2_rate))
    assert errs[0] > errs[1] > errs[2] and 1.5 < errs[0] / errs[1] < 2.5 and 1.5 < errs[1] / errs[2] < 2.5, errs


def test_the_networks_label_is_found_on_its_own_map_not_the_flows():
    """The network's label comes from its own one-token map: A = I, V = diag(1, 0.5, -0.3), whose map
    F(x) = N(x + hVx) has the top eigenvector of V as a sink (Newton, multipliers < 1); the certificate names the map,
    and a window that is not one cluster is not labelled."""
    from lsadyn.looped import looped_forward, looped_regime
    from lsadyn.looped.certify import MapCertifier, map_fixed_point, one_token_map

    p = Attention(np.eye(3), np.diag([1.0, 0.5, -0.3]), 1.0)
    x = np.array([0.95, 0.3, 0.05])
    xs, mu = map_fixed_point(x, p, "lsa", 0.1)
    assert xs is not None and np.allclose(one_token_map(xs, p, "lsa", 0.1), xs, atol=1e-12)
    assert abs(abs(xs[0]) - 1) < 1e-10 and np.all(np.abs(mu) < 1)  # the top eigenvector of V is the map's sink
    res = looped_regime(uniform_sphere(32, 3, 1), p, "lsa", 0.1, 3000)
    assert res.regime == "cluster_converge" and res.details["attractor"]["kind"] == "map_fixed_point"
    assert "one-token map" in res.details["checked"]
    Xs = looped_forward(uniform_sphere(32, 3, 1), p, "lsa", 0.1, 20)  # 20 layers: spread, still moving
    cert, why = MapCertifier("lsa", p, 0.1).check(0.1 * np.arange(21), Xs)
    assert cert is None and why.startswith("not one cluster")


def _random_layer(seed, d=3):
    """(rng, a layer with Gaussian A, V of variance 1/d and beta = 1, a random unit vector), seeded."""
    rng = np.random.default_rng(seed)
    A, V = rng.standard_normal((2, d, d)) / np.sqrt(d)
    x = rng.standard_normal(d)
    return rng, Attention(A, V, 1.0), x / np.linalg.norm(x)


@settings(max_examples=15, deadline=None)
@given(model=st.sampled_from(["lsa", "usa", "sa"]), seed=st.integers(0, 10**6), h=st.floats(0.01, 0.3))
def test_the_spread_map_is_the_derivative_of_a_clustered_layer(model, seed, h):
    """A tight cluster c + ε e_k (mean-free e) after one layer: its members' spread about the centre is D_c e_k
    to O(ε²), whatever the model (the spread map of lsadyn.looped.certify)."""
    from lsadyn.looped.certify import spread_map
    from lsadyn.looped.forward import looped_forward

    rng, p, c = _random_layer(seed)
    d = c.size
    E = rng.standard_normal((6, d))
    E -= E @ np.outer(c, c)
    E -= E.mean(axis=0)
    for eps in (1e-4, 5e-5):
        X = c + eps * E
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        Y = looped_forward(X, p, model, h, 1)[1]
        m = Y.mean(axis=0)
        m /= np.linalg.norm(m)
        got = (Y - m) / eps
        want = (E @ spread_map(c, p, model, h).T)
        assert np.abs(got - want).max() < 50 * eps * (1 + np.abs(want).max())


@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_clustered_network_turns_at_its_one_cluster_map_s_rate_which_tends_to_the_flow_s(model, seed):
    """n tokens at one point move as one token, at any h: the looped network's rate over whole turns equals the
    one-token map's, and that rate approaches the flow's at first order in h (rotation in a random embedded plane)."""
    from lsadyn.looped import cluster_map_rate, iterate_rate

    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5)
    Q = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    V = Q @ np.diag([1.0, 1.0, 0.2]) @ Q.T + Q[:, :2] @ np.array([[0, -b], [b, 0]]) @ Q[:, :2].T
    p = Attention(a * np.eye(3), V, 1.0)
    x = Q[:, 0]
    X0 = x + 1e-3 * rng.standard_normal((20, 3))  # a tight cluster
    X0 /= np.linalg.norm(X0, axis=1, keepdims=True)
    h = 0.1
    net = iterate_rate(looped_forward(X0, p, model, h, 2000), h)
    assert net == pytest.approx(cluster_map_rate(x, p, model, h, 2000), rel=1e-3)
    # the flow turns the cluster's axis at angular speed k·b (k = h(β⟨x, Ax⟩) = a, e^a, 1): arg R2 at 2·k·b
    k = {"lsa": a, "usa": np.exp(a), "sa": 1.0}[model]
    errs = [abs(cluster_map_rate(x, p, model, hh, int(60 / hh)) - 2 * k * b) for hh in (0.02, 0.01)]
    assert 1.6 < errs[0] / errs[1] < 2.4, errs


@settings(max_examples=15, deadline=None)
@given(model=st.sampled_from(["lsa", "usa", "sa"]), seed=st.integers(0, 10**6), h=st.floats(0.01, 0.5))
def test_the_one_token_maps_jacobian_is_its_derivative(model, seed, h):
    """map_jacobian (docs/theory.md §8) against central differences of the one-token map, random weights."""
    from lsadyn.looped.certify import map_jacobian, one_token_map

    rng, p, x = _random_layer(seed)
    d = x.size
    eps = 1e-6
    num = np.column_stack([(one_token_map(x + eps * e, p, model, h) - one_token_map(x - eps * e, p, model, h))
                           / (2 * eps) for e in np.eye(d)])
    # one_token_map normalises its input, so compare on the tangent space of x, where the two agree
    T = np.eye(d) - np.outer(x, x)
    assert np.abs((map_jacobian(x, p, model, h) - num) @ T).max() < 1e-7
