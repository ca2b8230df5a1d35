"""High-dimensional observables and scenario construction (claim C7)."""

import numpy as np

from lsadyn import order_parameter_r, uniform_sphere
from lsadyn.paper.highdim import embed_scenario, r_noise_floor, run_highdim, step_size_check
from lsadyn.metrics import mean_token_norm, order_parameter_r2


def test_r_of_two_antipodal_clusters_is_one():
    rng = np.random.default_rng(0)
    e = rng.standard_normal(100)
    e /= np.linalg.norm(e)
    X = np.where(rng.random(300)[:, None] < 0.4, e, -e)
    assert abs(order_parameter_r(X) - 1) < 1e-12
    assert mean_token_norm(X) < 0.5  # an antipodal pair, not one cluster


def test_r_of_a_large_uniform_sample_is_near_zero():
    X = uniform_sphere(200_000, 100, seed=1)
    r = order_parameter_r(X)
    assert 0 <= r < 2 * r_noise_floor(200_000, 100) < 0.01


def test_r_equals_abs_R2_in_two_dimensions():
    theta = np.random.default_rng(2).uniform(0, 2 * np.pi, 500)
    X = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    assert abs(order_parameter_r(X) - abs(order_parameter_r2(theta))) < 1e-12


def test_embedding_puts_the_block_in_the_plane():
    A, V = embed_scenario([[1, 2], [3, 4]], [[0, -1], [1, 0]], 6, 0.5, -2.0)
    assert A.shape == (6, 6) and A[1, 0] == 3 and A[3, 3] == 0.5 and V[5, 5] == -2.0 and V[0, 1] == -1


def test_rotation_scenario_small_d_rotates_at_the_d2_rate():
    """d = 2 theory: A = I, V = I + J rotates at 2β (b = 1); embedded with a weaker complement it persists."""
    A, V = embed_scenario(np.eye(2), [[1, -1], [1, 1]], 6, 1.0, 0.5)
    coarse = run_highdim(A, V, 1.0, "lsa", n=64, seed=0, horizon=100, dt=0.1, n_samples=400)
    fine = run_highdim(A, V, 1.0, "lsa", n=64, seed=0, horizon=100, dt=0.05, n_samples=400)
    assert coarse["regime"] == "cluster_rotate"
    assert abs(coarse["drift_rate"] - 2.0) < 1e-3
    assert step_size_check(coarse, fine)
