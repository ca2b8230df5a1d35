"""The transverse linearisation of the embedded plane (lsadyn.paper.highdim.transverse) against a direct d = 3
simulation of tokens a small distance off the plane, and the near-plane start of the highdim and persistence runs."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lsadyn.fields.attention import attention, lsa_field, usa_field_pairwise
from lsadyn.paper.highdim.plan import embed_scenario, near_plane, offplane_mass, start_tokens
from lsadyn.paper.highdim.transverse import transverse_exponent, transverse_flow
from lsadyn.sampling import uniform_sphere

# the attracting limit cycle of the OA flow of issue 28 (config highdim.scenarios.limit_cycle)
A2 = np.array([[-0.495, 0.95], [0.723, 2.783]])
V2 = np.array([[-1.089, -0.106], [-0.146, 0.254]])
FIELDS = {"lsa": lsa_field, "usa": usa_field_pairwise}


def _direct(theta0, eps0, delta, t_end, model, rest_A, rest_V):
    """The d = 3 token system from x_k = (p_k, δ ε_k) / norm, integrated with the library's field: (angles, third
    coordinates / δ) at t_end."""
    n = len(theta0)
    X0 = np.column_stack([np.cos(theta0), np.sin(theta0), delta * eps0])
    X0 /= np.linalg.norm(X0, axis=1, keepdims=True)
    A, V = embed_scenario(A2, V2, 3, rest_A, rest_V)
    p = attention(A, V, 1.0)
    sol = solve_ivp(lambda t, y: FIELDS[model](t, y.reshape(n, 3), p).ravel(), (0, t_end), X0.ravel(),
                    method="DOP853", rtol=1e-11, atol=1e-14)
    X = sol.y[:, -1].reshape(n, 3)
    return np.arctan2(X[:, 1], X[:, 0]), X[:, 2] / delta


@pytest.mark.parametrize("model", ["lsa", "usa"])
@pytest.mark.parametrize("rest_V", [-2.0, 0.7])
def test_linearised_complement_coordinate_follows_a_small_perturbation_of_the_direct_simulation(model, rest_V):
    rng = np.random.default_rng(4)
    theta0 = rng.uniform(0, 2 * np.pi, 12)
    eps0 = rng.standard_normal(12)
    t_end = 6.0
    th_lin, ep_lin = transverse_flow(theta0, eps0, [0.0, t_end], A2, V2, rest_V, 1.0, model)
    # rest_A enters only at second order in the distance from the plane: two values, one linearisation
    for rest_A in (1.0, -1.7):
        th, ep = _direct(theta0, eps0, 1e-6, t_end, model, rest_A, rest_V)
        assert np.max(np.abs(np.angle(np.exp(1j * (th - th_lin[-1]))))) < 1e-6  # the plane flow, to O(δ²)
        assert np.max(np.abs(ep - ep_lin[-1])) < 1e-4 * np.max(np.abs(ep_lin[-1]))
    # and the complement coordinate did move: v_perp and the radial rate act (not a trivially constant ε)
    assert np.max(np.abs(ep_lin[-1] - eps0)) > 0.1 * np.max(np.abs(eps0))


@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_transverse_exponent_is_the_growth_rate_of_a_small_perturbation(model):
    """Without burn-in, λ⊥ · T = log |ε(T)| for the seeded unit ε(0): the direct simulation's off-plane part grows
    (or shrinks) by the same factor, whatever the segments."""
    theta0 = np.random.default_rng(5).uniform(0, 2 * np.pi, 10)
    t_end = 8.0
    lam = transverse_exponent(theta0, A2, V2, -0.5, 1.0, model, t_burn=0.0, t_avg=t_end, n_segments=7, seed=11)
    eps0 = np.random.default_rng(11).standard_normal(10)
    eps0 /= np.linalg.norm(eps0)
    _, ep = _direct(theta0, eps0, 1e-7, t_end, model, 1.0, -0.5)
    assert lam == pytest.approx(np.log(np.linalg.norm(ep)) / t_end, abs=1e-5)
    with pytest.raises(ValueError, match="t_avg > 0"):
        transverse_exponent(theta0, A2, V2, -0.5, 1.0, model, t_burn=0.0, t_avg=0.0)
    with pytest.raises(ValueError, match="model"):
        transverse_exponent(theta0, A2, V2, -0.5, 1.0, "sa", t_burn=0.0, t_avg=1.0)


def test_near_plane_start_keeps_the_plane_angles_and_shrinks_the_off_plane_mass():
    X = uniform_sphere(4000, 10, 3)
    Y = near_plane(X, 0.01)
    assert np.allclose(np.linalg.norm(Y, axis=1), 1.0)
    assert np.allclose(np.arctan2(Y[:, 1], Y[:, 0]), np.arctan2(X[:, 1], X[:, 0]))
    assert offplane_mass(X) == pytest.approx(0.8, rel=0.03)  # (d - 2) / d for uniform tokens
    c, p = np.sum(X[:, 2:] ** 2, 1), np.sum(X[:, :2] ** 2, 1)
    assert offplane_mass(Y) == pytest.approx(np.mean(1e-4 * c / (p + 1e-4 * c)), rel=1e-12)
    assert offplane_mass(Y) < 0.01
    assert start_tokens(X, {}) is X and start_tokens(X, {"offplane": None}) is X
    assert np.array_equal(start_tokens(X, {"offplane": 0.01}), Y)
    assert offplane_mass(X[:, :2] / np.linalg.norm(X[:, :2], axis=1, keepdims=True)) == 0.0
    with pytest.raises(ValueError, match="offplane"):
        near_plane(X, 0.0)
