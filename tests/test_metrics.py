"""Observers of lsadyn.observers: cluster shape and the distance from the OA manifold (docs/theory.md §5)."""

import numpy as np
import pytest

from lsadyn.sampling import uniform_angles
from lsadyn.solvers.integrate import integrate_flat
from lsadyn.reductions.kuramoto import angle_field, kuramoto_coefficients
from lsadyn.observers import cluster_shape, conformal_barycentre, oa_manifold_distance


def _axis_tokens(n, d, frac_plus, spread=0.0, seed=0):
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(d)
    e /= np.linalg.norm(e)
    sign = np.where(np.arange(n) < round(frac_plus * n), 1.0, -1.0)
    X = sign[:, None] * e + spread * rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_cluster_shape_single_pair_none():
    assert cluster_shape(_axis_tokens(200, 10, 1.0, 1e-3)) == "single"
    assert cluster_shape(_axis_tokens(200, 10, 0.5, 1e-3)) == "antipodal_pair"
    assert cluster_shape(_axis_tokens(200, 10, 0.995, 1e-3)) == "antipodal_pair"  # one token at the far pole
    rng = np.random.default_rng(1)
    X = rng.standard_normal((500, 10))
    assert cluster_shape(X / np.linalg.norm(X, axis=1, keepdims=True)) == "none"


def test_cluster_shape_rejects_bad_shape():
    with pytest.raises(ValueError, match="X"):
        cluster_shape(np.ones(5))


def _density_angles(eps, n):
    """θ with ξ = 2θ stratified from the density ∝ 1 + ε cos 2ξ (off the OA manifold at first order)."""
    grid = np.linspace(0, 2 * np.pi, 200001)
    cdf = (grid + eps / 2 * np.sin(2 * grid)) / (2 * np.pi)
    xi = np.interp((np.arange(n) + 0.5) / n, cdf, grid)
    return xi / 2


def test_distance_of_a_fixed_density_is_proportional_to_eps_and_independent_of_n():
    for eps in (0.1, 0.3):
        for n in (1001, 4001):
            assert abs(oa_manifold_distance(_density_angles(eps, n)) - eps / 4) < 2e-3


def test_distance_of_iid_angles_scales_as_one_over_sqrt_n():
    scaled = [np.mean([oa_manifold_distance(uniform_angles(n, s)) for s in range(8)]) * np.sqrt(n)
              for n in (250, 4000)]
    assert 0.4 < scaled[0] < 1.2 and 0.4 < scaled[1] < 1.2
    assert abs(scaled[0] / scaled[1] - 1) < 0.35


def test_wrapped_cauchy_sample_is_on_the_manifold_up_to_sampling():
    """A wrapped Cauchy in ξ (an OA state, |R₂| = 0.6) sits at the distance of an i.i.d. sample, ~1/√n."""
    n = 20000
    u = (np.arange(n) + 0.5) / n  # stratified: the sampling noise is O(1/n)
    r = 0.6
    xi = 2 * np.arctan(np.tan(np.pi * (u - 0.5)) * (1 - r) / (1 + r)) + 1.0
    assert abs(abs(np.exp(1j * xi).mean()) - r) < 1e-3
    assert oa_manifold_distance(xi / 2) < 1e-3


def test_distance_is_conserved_by_the_flow():
    """Direct simulation of n tokens (angle field), a general (A, V) driving |R₂| from 0.04 to ~1."""
    theta0 = uniform_angles(300, 3)
    A = np.array([[1.0, 0.3], [-0.4, -0.5]])
    V = np.array([[0.5, 1.0], [-1.0, -0.2]])
    traj = integrate_flat(angle_field, theta0, np.linspace(0, 30, 4), kuramoto_coefficients(A, V, 1.0),
                          rtol=1e-11, atol=1e-12)
    d = [oa_manifold_distance(th) for th in traj.y]
    R = np.abs(np.exp(2j * traj.y).mean(axis=1))
    assert R[-1] > 0.99 and R[0] < 0.1
    assert np.ptp(d) < 1e-9 * d[0] * 1e3


def test_conformal_barycentre_zeroes_the_mean():
    z = np.exp(2j * uniform_angles(50, 0)) * 0.3 + 0.6
    z /= np.abs(z)
    a = conformal_barycentre(z)
    assert abs(np.mean((z - a) / (1 - np.conj(a) * z))) < 1e-9


def test_observers_are_public():
    import lsadyn

    assert lsadyn.cluster_shape is cluster_shape and lsadyn.oa_manifold_distance is oa_manifold_distance
