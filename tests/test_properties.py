"""Property-based tests (hypothesis): sphere invariance and orthogonal equivariance."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import special_ortho_group

from lsadyn import attention, integrate_sphere, lsa_field, sa_field, uniform_sphere, usa_field

FIELDS = [lsa_field, usa_field, sa_field]
cases = st.tuples(st.integers(2, 5), st.integers(2, 30), st.integers(0, 10_000), st.integers(0, 2))


def _setup(d, n, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d)) * 0.7
    V = rng.standard_normal((d, d)) * 0.7
    return attention(A, V, rng.uniform(0.2, 1.5)), uniform_sphere(n, d, seed)


@settings(max_examples=25, deadline=None)
@given(cases)
def test_tokens_stay_on_sphere(case):
    d, n, seed, k = case
    p, X0 = _setup(d, n, seed)
    t = np.linspace(0, 4, 5)
    for method in ("DOP853", "rk4"):
        tr = integrate_sphere(FIELDS[k], X0, t, p, method=method, dt=0.01)
        assert np.max(np.abs(np.linalg.norm(tr.y, axis=-1) - 1)) <= 1e-10


@settings(max_examples=25, deadline=None)
@given(cases)
def test_orthogonal_conjugation_rotates_trajectory(case):
    """(A, V, X) → (QAQᵀ, QVQᵀ, XQᵀ) maps the solution X(t) to X(t)Qᵀ."""
    d, n, seed, k = case
    p, X0 = _setup(d, n, seed)
    Q = special_ortho_group.rvs(d, random_state=seed)
    q = attention(Q @ p.A @ Q.T, Q @ p.V @ Q.T, p.beta)
    t = np.linspace(0, 3, 4)
    a = integrate_sphere(FIELDS[k], X0, t, p, rtol=1e-11, atol=1e-12).y
    b = integrate_sphere(FIELDS[k], X0 @ Q.T, t, q, rtol=1e-11, atol=1e-12).y
    assert np.max(np.abs(a @ Q.T - b)) < 1e-7
