"""Bounded-Lipschitz distance on the circle: axioms, closed forms, W1 bound, n^(-1/2) decay, speed-free."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsadyn.distances import bl_distance, bl_distance_to_uniform, wasserstein1_circle

angles = st.lists(st.floats(0, 2 * np.pi, allow_nan=False), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(angles, angles, angles)
def test_metric_axioms(a, b, c):
    dab, dba = bl_distance(a, b), bl_distance(b, a)
    assert abs(dab - dba) < 1e-9
    assert bl_distance(a, a) < 1e-9
    assert 0 <= dab <= 2 + 1e-9
    assert bl_distance(a, c) <= dab + bl_distance(b, c) + 1e-9


@pytest.mark.parametrize("x,y", [(0.0, 1.0), (0.3, 2.5), (0.1, 0.1 + np.pi), (6.0, 0.2), (1.0, 4.0)])
def test_two_point_masses_closed_form(x, y):
    d = min(abs(x - y), 2 * np.pi - abs(x - y))  # arc length
    assert abs(bl_distance([x], [y]) - min(d, 2.0)) < 1e-9


def test_point_mass_to_uniform_closed_form():
    """f = max(1 − d(·, a), −1) is optimal: d_BL(δ_a, U) = 1 − ∫f dU = 2 − 2/π."""
    value, bound = bl_distance_to_uniform([1.234], return_bound=True)
    assert abs(value - (2 - 2 / np.pi)) <= bound + 1e-9
    assert bound < 1e-3


@settings(max_examples=30, deadline=None)
@given(angles, angles)
def test_bl_at_most_w1(a, b):
    assert bl_distance(a, b) <= wasserstein1_circle(a, b) + 1e-9


def test_weights_and_validation():
    assert abs(bl_distance([0, 1], [0], weights_a=[1, 0]) - 0) < 1e-12
    assert abs(bl_distance([0, 1], [0], weights_a=[0.5, 0.5]) - 0.5) < 1e-9
    with pytest.raises(ValueError, match="weights for angles_a"):
        bl_distance([0, 1], [0], weights_a=[1])
    with pytest.raises(ValueError, match="angles_b"):
        bl_distance([0], [np.nan])


def test_uniform_sample_distance_decays_like_inverse_sqrt_n():
    ns = np.array([64, 256, 1024, 4096])
    means = [np.mean([bl_distance_to_uniform(np.random.default_rng(s).uniform(0, 2 * np.pi, n)) for s in range(6)])
             for n in ns]
    slope = np.polyfit(np.log(ns), np.log(means), 1)[0]
    assert -0.65 < slope < -0.35, (slope, means)


def test_cycle_programme_equals_the_reference_lp():
    """The compiled dynamic programme (bl._lp) against scipy's HiGHS on the same LP: random node sets (spread
    over the circle, or crowded on a short arc so the clip to [−1, 1] binds), random signed weights."""
    from lsadyn.distances import _lp, _lp_highs

    rng = np.random.default_rng(0)
    for trial in range(200):
        m = int(rng.integers(2, 40))
        nodes = np.sort(rng.uniform(0, 2 * np.pi if trial % 3 else 0.5, m))
        c = rng.standard_normal(m) * (10.0 if trial % 2 else 0.1)
        ref = _lp_highs(nodes, c)
        assert abs(_lp(nodes, c) - ref) <= 1e-8 * max(1.0, abs(ref)), (trial, m)


@pytest.mark.parametrize("seed", [0, 1])
def test_distance_to_uniform_equals_the_reference_lp_on_large_samples(seed, monkeypatch):
    import lsadyn.distances as bl

    rng = np.random.default_rng(seed)
    for th in (rng.uniform(0, 2 * np.pi, 2000), np.repeat(rng.uniform(0, 2 * np.pi, 8), 50),
               rng.vonmises(1.0, 4.0, 1500)):
        fast = bl.bl_distance_to_uniform(th)
        monkeypatch.setattr(bl, "_lp", bl._lp_highs)
        ref = bl.bl_distance_to_uniform(th)
        monkeypatch.undo()
        assert abs(fast - ref) < 1e-8, (fast, ref)
