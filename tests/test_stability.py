"""Perturbation families and the OA comparison of claim C6."""

import numpy as np
import pytest

from lsadyn.distances import bl_distance_to_uniform
from lsadyn.paper.stability.plan import FAMILIES, perturbed_angles
from lsadyn.paper.stability.runs import run_stability


@pytest.mark.parametrize("family,small,large", [("harmonics", 0.01, 0.5), ("von_mises", 0.01, 0.9),
                                                ("clumps", 256, 2), ("random", 4096, 16)])
def test_families_are_deterministic_and_strength_sets_the_distance(family, small, large):
    a = perturbed_angles(family, small, 1000, seed=3)
    np.testing.assert_array_equal(a, perturbed_angles(family, small, 1000, seed=3))
    assert bl_distance_to_uniform(a) < bl_distance_to_uniform(perturbed_angles(family, large, 1000, seed=3))


def test_unknown_family():
    with pytest.raises(ValueError, match="^family"):
        perturbed_angles("gaussian", 0.1, 10, 0)
    assert set(FAMILIES) == {"harmonics", "von_mises", "clumps", "random"}


def test_theorem_regime_small_perturbation_reaches_the_oa_state():
    """A = I, V = diag(1, −0.5) (λ_max(V) > 0): a small harmonic perturbation clusters like OA."""
    theta = perturbed_angles("harmonics", 0.02, 500, seed=1)
    (res,) = run_stability(np.eye(2), np.diag([1.0, -0.5]), 1.0, [theta], horizon=200, n_samples=1500)
    assert res["regime_tokens"] == res["regime_oa"] == "cluster_converge"
    assert res["discrepancy"] < 1e-3 and res["eps"] < 0.05


@pytest.mark.parametrize("family,strengths", [("harmonics", (0.01, 0.02, 0.04)), ("von_mises", (0.01, 0.02, 0.04))])
def test_families_leave_the_oa_manifold_at_first_order(family, strengths):
    """|Z2 − Z1²| (moments of ξ = 2θ) and the distance D grow linearly with the strength (ratio ≈ 2 per doubling)."""
    from lsadyn.observers import oa_manifold_distance

    dev, dist = [], []
    for s in strengths:
        th = perturbed_angles(family, s, 4000, seed=5)
        z = np.exp(2j * th)
        dev.append(abs((z * z).mean() - z.mean() ** 2))
        dist.append(oa_manifold_distance(th))
    for q in (dev, dist):
        assert 1.7 < q[1] / q[0] < 2.3 and 1.7 < q[2] / q[1] < 2.3
    assert dist[0] > 3e-4  # first order: not ~strength²


def test_clumps_and_random_are_off_the_manifold():
    from lsadyn.observers import oa_manifold_distance

    assert oa_manifold_distance(perturbed_angles("clumps", 3, 999, 0)) > 0.1
    assert np.isnan(oa_manifold_distance(perturbed_angles("clumps", 2, 1000, 0)))  # one point in ξ: a cluster
    assert 0.01 < oa_manifold_distance(perturbed_angles("random", 1024, 0, 0)) < 0.05


def test_interior_regime_does_not_converge_off_the_manifold():
    """V = I, sym(A) negative definite: OA converges to an interior point, the tokens keep oscillating."""
    theta = perturbed_angles("harmonics", 0.1, 1000, seed=2)
    (res,) = run_stability(np.array([[-0.5, 0.4], [0.0, -0.7]]), np.eye(2), 1.0, [theta], horizon=200,
                           n_samples=1500)
    assert res["regime_oa"] == "interior_converge" and res["regime_tokens"] == "oscillate"
    assert res["amplitude_tokens"] > 0.1 * res["oa_distance"]


def test_token_r2_batch_matches_the_scipy_reference_for_mixed_sizes():
    """The compiled per-population DOP853 against scipy's DOP853 on phase_point_field, one population at a
    time (the previous path of run_stability), for populations of different sizes in one call."""
    from lsadyn.api import time_scale, token_r2_batch
    from lsadyn.reductions.kuramoto import kuramoto_coefficients, phase_point_field
    from lsadyn.solvers.integrate import integrate_observed

    A, V = np.array([[1.0, 0.3], [-0.1, 0.7]]), np.eye(2)
    bt = time_scale(A, V, 1.0)
    s = np.linspace(0, 60, 600)
    pops = [perturbed_angles("harmonics", 0.3, 300, 1), perturbed_angles("random", 64, 0, 2),
            perturbed_angles("von_mises", 0.3, 300, 3)]
    z0 = [np.exp(2j * th) for th in pops]
    R = token_r2_batch(A, V, bt, z0, s, rtol=1e-8, atol=1e-10)
    assert R.shape == (3, s.size)
    for z, Rc in zip(z0, R):
        n = z.size
        ref = integrate_observed(phase_point_field, np.concatenate([z.real, z.imag]), s,
                                 kuramoto_coefficients(A, V, bt), rtol=1e-8, atol=1e-10,
                                 observer=lambda y, n=n: y[:n].mean() + 1j * y[n:].mean()).y
        assert abs(Rc[0] - z.mean()) < 1e-15
        assert np.max(np.abs(Rc - ref)) < 1e-6
