"""Vector fields: fast forms equal the explicit pairwise sums; integration stays on the sphere."""

import numpy as np
import pytest
from conftest import random_pair

from lsadyn import attention, integrate_sphere, lsa_field, sa_field, uniform_sphere, usa_field
from lsadyn.fields.attention import lsa_field_pairwise, sa_field_pairwise, usa_field_pairwise
from lsadyn.sampling import angles_from_tokens, tokens_from_angles
from lsadyn.reductions.kuramoto import angle_field, kuramoto_coefficients


def rel_err(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("d", [2, 3, 100])
def test_lsa_equals_pairwise(rng, d):
    A, V = random_pair(rng, d)
    X = uniform_sphere(60, d, seed=d)
    p = attention(A, V, 0.7)
    assert rel_err(lsa_field(0, X, p), lsa_field_pairwise(0, X, p)) < 1e-12


@pytest.mark.parametrize("d", [2, 3, 100])
@pytest.mark.parametrize("fast,ref", [(usa_field, usa_field_pairwise), (sa_field, sa_field_pairwise)])
def test_softmax_fields_equal_loop(rng, d, fast, ref):
    A, V = random_pair(rng, d, scale=0.3)
    X = uniform_sphere(40, d, seed=1)
    p = attention(A, V, 1.3)
    assert rel_err(fast(0, X, p), ref(0, X, p)) < 1e-12


def test_fields_tangent(rng):
    A, V = random_pair(rng, 5)
    X = uniform_sphere(30, 5, seed=3)
    p = attention(A, V)
    for f in (lsa_field, usa_field, sa_field):
        assert np.max(np.abs(np.einsum("ij,ij->i", X, f(0, X, p)))) < 1e-13


def test_usa_overflow_is_a_clear_error():
    X = uniform_sphere(10, 3, seed=0)
    p = attention(np.eye(3), np.eye(3), beta=1000.0)
    with pytest.raises(OverflowError, match="beta"):
        usa_field(0, X, p)
    assert np.all(np.isfinite(sa_field(0, X, p)))  # SA is max-shifted: fine at any beta


def test_attention_validation():
    with pytest.raises(ValueError, match="^A: matrix is not square"):
        attention([[1, 2, 3], [4, 5, 6]], np.eye(2))
    with pytest.raises(ValueError, match="^V: expected shape 2x2"):
        attention(np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="^V: contains NaN"):
        attention(np.eye(2), [[1, np.nan], [0, 1]])
    with pytest.raises(ValueError, match="^beta"):
        attention(np.eye(2), np.eye(2), beta=-1)


def test_angle_form_equals_vector_form(rng):
    A, V = random_pair(rng, 2)
    theta = rng.uniform(0, 2 * np.pi, 200)
    p = attention(A, V, 0.9)
    X = tokens_from_angles(theta)
    dX = lsa_field(0, X, p)
    J = np.array([[0, -1], [1, 0]])
    dtheta_vec = np.einsum("ij,ij->i", X @ J.T, dX)  # <J x, dx/dt>
    dtheta = angle_field(0, theta, kuramoto_coefficients(A, V, 0.9))
    np.testing.assert_allclose(dtheta, dtheta_vec, atol=1e-13)


@pytest.mark.parametrize("method", ["DOP853", "rk4"])
def test_integration_stays_on_sphere_and_methods_agree(rng, method):
    A, V = random_pair(rng, 3)
    X0 = uniform_sphere(50, 3, seed=7)
    p = attention(A, V)
    t = np.linspace(0, 5, 11)
    tr = integrate_sphere(lsa_field, X0, t, p, method=method, dt=1e-3, rtol=1e-10, atol=1e-12)
    assert tr.y.shape == (11, 50, 3)
    assert np.max(np.abs(np.linalg.norm(tr.y, axis=-1) - 1)) <= 1e-10
    ref = integrate_sphere(lsa_field, X0, t, p, method="DOP853", rtol=1e-12, atol=1e-13)
    assert np.max(np.abs(tr.y - ref.y)) < 1e-7


def test_seeded_initial_conditions_are_deterministic():
    np.testing.assert_array_equal(uniform_sphere(20, 4, seed=3), uniform_sphere(20, 4, seed=3))
    assert not np.array_equal(uniform_sphere(20, 4, seed=3), uniform_sphere(20, 4, seed=4))
    theta = np.array([0.1, 2.0, -1.0])
    np.testing.assert_allclose(angles_from_tokens(tokens_from_angles(theta)), theta)
