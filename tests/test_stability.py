"""Perturbation families and the OA comparison of claim C6."""

import numpy as np
import pytest

from lsadyn.bl import bl_distance_to_uniform
from lsadyn.paper.stability import FAMILIES, perturbed_angles, run_stability


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
