"""The differential exponent of a single cluster (lsadyn.exponents.cluster): its linearisation against the token
field's tangent map, its value against the OA flow at d = 2 and against closed forms, and the rate at which the r(t)
of direct token runs approaches 1."""

import numpy as np
import pytest

from lsadyn.api import time_scale
from lsadyn.continuation import circle_cycle, circle_rate
from lsadyn.exponents import attractors, constant_family, field_and_jvp
from lsadyn.exponents.cluster import (
    cluster_centre,
    cluster_state_exponent,
    cluster_velocity,
    contraction_exponent,
    differential_exponent,
    differential_map,
)
from lsadyn.exponents.oa import P0
from lsadyn.fields.attention import attention, field_for
from lsadyn.paper.highdim.plan import embed_scenario
from lsadyn.paper.highdim.runs import run_highdim

J = np.array([[0.0, -1.0], [1.0, 0.0]])


@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
def test_differential_map_is_the_token_field_linearised_at_consensus(model):
    """Three tokens at x, perturbed by (δ, −δ, 0): the tangent map of the n-token field moves token 0 by D(x) δ, and
    the field itself is the single cluster's velocity."""
    rng = np.random.default_rng(3)
    d = 5
    p = attention(rng.standard_normal((d, d)) / 2, rng.standard_normal((d, d)) / 2, 1.3)
    x = rng.standard_normal(d)
    x /= np.linalg.norm(x)
    delta = rng.standard_normal(d)
    delta -= (delta @ x) * x
    X, W = np.stack([x, x, x]), np.stack([delta, -delta, 0 * delta])
    if model == "sa":  # no tangent map for softmax: central differences of the direct field (error O(eps^2))
        field, eps = field_for("sa", d, direct=True), 1e-5
        f = field(0.0, X, p)
        df = ((field(0.0, X + eps * W, p) - field(0.0, X - eps * W, p)) / (2 * eps))[None]
        tol = 1e-8
    else:
        f, df = field_and_jvp(model, X, W[None], p)
        tol = 1e-14
    assert np.allclose(df[0, 0], differential_map(model, x, delta, p), rtol=0, atol=tol)
    assert np.allclose(df[0, 1], -differential_map(model, x, delta, p), rtol=0, atol=tol)
    assert np.allclose(f[0], cluster_velocity(model, x, p), rtol=0, atol=1e-14)
    assert abs(x @ differential_map(model, x, delta, p) + cluster_velocity(model, x, p) @ delta) < 1e-14  # tangent


def test_cluster_at_rest_has_the_closed_form_exponent():
    """At an eigenvector x of V, D = −h(βa) v on the whole tangent space: λ_diff = −h(β⟨x, Ax⟩) ⟨x, Vx⟩ (LSA h(y) = y,
    USA h(y) = eʸ, SA h ≡ 1), in d = 4 with a non-normal A."""
    A = np.array([[1.0, 0.3, 0, 0], [-0.2, 0.8, 0, 0], [0, 0, 0.5, 0], [0, 0, 0, 0.4]])
    V = np.diag([1.4, 0.6, 0.5, 0.2])
    x = np.array([1.0, 0, 0, 0])
    for model, h in (("lsa", lambda y: y), ("usa", np.exp), ("sa", lambda y: 1.0)):
        lam = differential_exponent(model, x, attention(A, V, 0.7), t_transient=0.0, t_measure=20.0, dt=0.01)
        assert lam == pytest.approx(-h(0.7 * 1.0) * 1.4, rel=1e-8)  # RK4's error at λ dt ≤ 0.03


def test_d2_lsa_exponents_are_the_oa_flows_normal_exponents():
    """d = 2 LSA: at a clustered equilibrium λ_diff is the OA flow's normal eigenvalue ν (not its leading exponent
    max(g′, ν), which the centre's motion along the circle sets), and for rotating clusters the normal Floquet
    exponent λ⊥ of the closed form."""
    A, V = np.eye(2), np.array([[1.5, -0.4], [0.4, 0.5]])
    (conv,) = [a for a in attractors(A, V, 1.0) if a.regime == "cluster_converge"]
    phi = float(np.angle(conv.R2))
    _, dg, nu = circle_rate(constant_family(A, V, 1.0), phi, P0)
    x = np.array([np.cos(phi / 2), np.sin(phi / 2)])
    lam = differential_exponent("lsa", x, attention(A, V, 1.0), t_transient=0.0, t_measure=30.0, dt=0.02)
    assert lam == pytest.approx(nu, rel=1e-8) and nu < dg  # the spread contracts faster than the centre settles
    A, V = np.diag([1.0, 0.5]), np.eye(2) + J
    T, lam_perp, _ = circle_cycle(constant_family(A, V, 1.0), P0)
    lam = differential_exponent("lsa", np.array([1.0, 0.0]), attention(A, V, 1.0), t_transient=0.0,
                                t_measure=40 * T, dt=0.025)
    assert lam == pytest.approx(lam_perp, rel=2e-3)


def _orbit_average_off_plane(model, A2, V2, beta, n=20000):
    """−⟨h(βa) v⟩ over the time of one turn of a cluster rotating in the plane (quadrature in the angle θ)."""
    h = np.exp if model == "usa" else (lambda y: y)
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    P = np.stack([np.cos(th), np.sin(th)], axis=1)
    a = np.einsum("ki,ij,kj->k", P, A2, P)
    v = np.einsum("ki,ij,kj->k", P, V2, P)
    speed = np.abs(np.einsum("ki,ij,kj->k", P @ J.T, V2, P) * h(beta * a))  # |θ̇| = |⟨Jx, h V x⟩|
    w = 1 / speed
    return float(np.sum(-h(beta * a) * v * w) / np.sum(w))


@pytest.mark.parametrize("model", ["lsa", "usa"])
@pytest.mark.parametrize("skew", [0.3, -0.3])
def test_embedded_rotation_exponent_is_the_slower_of_plane_and_complement(model, skew):
    """A = diag(A₂, I), V = diag(V₂, v⊥ I) at d = 3: the complement direction contracts at the orbit average
    −⟨h(βa) v⟩ (v⊥ does not enter a differential mode), the plane at its d = 2 exponent; λ_diff is the larger. A₂'s
    antisymmetric part (``skew``) sets which one is slower (see the symmetric case below)."""
    A2, V2, beta = np.array([[1.0, skew], [-skew, 0.3]]), np.array([[0.4, -1.0], [1.0, 0.3]]), 1.0
    lam_plane = differential_exponent(model, np.array([1.0, 0.0]), attention(A2, V2, beta), t_transient=0.0,
                                      t_measure=300.0, dt=0.05)
    off = _orbit_average_off_plane(model, A2, V2, beta)
    A, V = embed_scenario(A2, V2, 3, 1.0, -5.0)
    lam = differential_exponent(model, np.array([1.0, 0.0, 0.0]), attention(A, V, beta), t_transient=10.0,
                                t_measure=300.0, dt=0.05)
    assert abs(off - lam_plane) > 0.1  # the two directions differ: the test tells them apart
    assert lam == pytest.approx(max(lam_plane, off), abs=5e-3)


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_symmetric_A_plane_and_complement_contract_alike(model):
    """For symmetric A₂ the in-plane term β(h′/h)⟨Jx, Ax⟩ dθ = d log h(βa)/2 integrates to 0 over a turn, so the
    rotating cluster's in-plane exponent equals the off-plane orbit average −⟨h(βa) v⟩."""
    A2, V2 = np.diag([1.0, 0.3]), np.array([[0.4, -1.0], [1.0, 0.3]])
    lam_plane = differential_exponent(model, np.array([1.0, 0.0]), attention(A2, V2, 1.0), t_transient=0.0,
                                      t_measure=600.0, dt=0.05)
    assert lam_plane == pytest.approx(_orbit_average_off_plane(model, A2, V2, 1.0), abs=3e-3)


def test_contraction_exponent_recovers_a_synthetic_rate_and_refuses_without_samples():
    t = np.linspace(0, 40, 400)
    r = 1 - 0.3 * np.exp(2 * -0.25 * t) * (1 + 0.01 * np.sin(3 * t))
    assert contraction_exponent(t, r) == pytest.approx(-0.25, rel=1e-2)
    assert np.isnan(contraction_exponent(t, np.ones_like(t)))  # tight to rounding throughout: nothing to fit
    assert np.isnan(contraction_exponent(t, np.full_like(t, 0.5)))  # never tight
    modulated = 1 - 1e-4 * np.exp(2 * -0.25 * t + 0.8 * np.sin(2 * np.pi * t / 3.7))  # a rotating cluster, P = 3.7
    assert contraction_exponent(t, modulated, 3.7) == pytest.approx(-0.25, rel=1e-3)  # stroboscopic: exact per turn
    assert np.isnan(contraction_exponent(t[:70], modulated[:70], 3.7))  # 7 time units: fewer than two turns
    drifting = 1 - 1e-4 * np.exp(-(0.1 * t + 0.02 * t**2))  # the slope keeps steepening: not a limit's
    assert np.isnan(contraction_exponent(t, drifting))
    with pytest.raises(ValueError, match="t, r"):
        contraction_exponent(t, r[:-1])


def test_cluster_centre_and_state_exponent_follow_the_shape():
    X = np.zeros((6, 3))
    X[:, 0] = 1.0
    X[3:] *= -1  # an antipodal pair
    assert np.allclose(np.abs(cluster_centre("lsa", X)), [1, 0, 0])
    assert cluster_centre("usa", X) is None
    p = attention(np.eye(3), np.diag([1.2, 0.5, 0.5]), 1.0)
    assert np.isnan(cluster_state_exponent("usa", X, p, 1.0))
    assert cluster_state_exponent("lsa", X, p, 1.0) == pytest.approx(-1.2, rel=1e-5)  # RK4 at dt 0.1 τ
    with pytest.raises(ValueError, match="model"):
        cluster_centre("relu", X[:3])


@pytest.mark.parametrize("model,d", [("lsa", 2), ("usa", 2), ("lsa", 10), ("usa", 10)])
def test_token_runs_tighten_at_the_predicted_exponent(model, d):
    """Direct token runs (n = 64, uniform start) of rotating clusters, case 3 embedded with a contracting complement:
    half the slope of log(1 − r) over the run equals the differential exponent of the final cluster."""
    A, V = embed_scenario(np.diag([1.0, 0.5]), np.eye(2) + J, d, 1.0, 0.3)
    res = run_highdim(A, V, 1.0, model, 64, 3, 150.0, 600)
    assert res["regime"] == "cluster_rotate"
    tau = time_scale(A, V, 1.0)
    assert np.isfinite(res["contraction_exponent"]) and np.isfinite(res["contraction_exponent_theory"])
    assert res["contraction_exponent"] == pytest.approx(res["contraction_exponent_theory"], rel=3e-2)
    assert res["contraction_exponent_theory"] == pytest.approx(
        differential_exponent(model, cluster_centre(model, np.eye(d)[:1]), attention(A, V, 1.0), t_transient=0.0,
                              t_measure=400 * tau, dt=0.05 * tau), rel=1e-2)
