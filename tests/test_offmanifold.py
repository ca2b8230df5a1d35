"""Off the OA manifold: amplitude of the oscillation about an OA interior point against the distance."""

import numpy as np
import pytest

from lsadyn.observers import oa_manifold_distance
from lsadyn.paper.offmanifold.plan import density_angles
from lsadyn.paper.offmanifold.runs import oscillation_run
from lsadyn.paper.offmanifold.summary import amplitude_per_distance

A = np.array([[-0.5, 0.4], [0.0, -0.7]])  # sym(A) negative definite, V = I: OA interior point |R*| = 0.354


def test_density_distance_is_eps_over_four():
    for n in (1000, 5000):
        assert abs(oa_manifold_distance(density_angles(0.2, n, 0.7)) - 0.05) < 1e-6


def test_density_rejects_bad_eps():
    with pytest.raises(ValueError, match="eps"):
        density_angles(1.5, 10)


@pytest.mark.parametrize("eps", [0.1, 0.3])
def test_amplitude_independent_of_n_and_proportional_to_distance(eps):
    runs = [oscillation_run(A, np.eye(2), 1.0, density_angles(eps, n, 0.3), 150.0, 1500) for n in (1001, 4001)]
    for r in runs:
        assert r["regime_tokens"] == "oscillate" and r["regime_oa"] == "interior_converge"
        assert abs(r["abs_R2_oa"] - 0.5 ** 1.5) < 1e-6  # |R*| = |p/lambda| = sqrt(0.2 / 1.6)
    assert abs(runs[0]["amplitude"] / runs[1]["amplitude"] - 1) < 0.02
    k, dev = amplitude_per_distance(runs)
    assert 0.3 < k < 1.0 and dev < 0.02


def test_on_the_manifold_the_tokens_converge():
    r = oscillation_run(A, np.eye(2), 1.0, density_angles(0.0, 2001), 150.0, 1500)
    assert r["oa_distance"] < 1e-9 and r["amplitude"] < 1e-6 and r["regime_tokens"] == "interior_converge"
