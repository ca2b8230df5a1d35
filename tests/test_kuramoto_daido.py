"""The d = 2 softmax fields by moments (lsadyn.fields.kuramoto_daido) against the direct O(n²) fields."""

import numpy as np
import pytest
from scipy.special import ive

from lsadyn import budget
from lsadyn.batch import BatchField
from lsadyn.fields import kuramoto_daido as kd
from lsadyn.fields.attention import attention, field_for, lsa_field, sa_field, usa_field


def _tokens(rng, n, kind):
    if kind == "uniform":
        th = rng.uniform(0, 2 * np.pi, n)
    else:  # a tight cluster plus a few tokens anywhere: some tokens see only small logits (SA's hard rows)
        k = max(1, n // 10)
        th = np.concatenate([rng.normal(0.3, 0.05, n - k), rng.uniform(0, 2 * np.pi, k)])
    return np.stack([np.cos(th), np.sin(th)], axis=1)


def _weights(rng, shape):
    if shape == "random":
        return rng.normal(size=(2, 2))
    if shape == "identity":
        return np.eye(2)
    if shape == "reflection":  # alpha = 0: only the gamma series
        return np.array([[1.0, 0.4], [0.4, -1.0]])
    return np.zeros((2, 2))


def _rel(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


GRID = [(beta, n, shape, kind, seed) for beta in (0.3, 1.0, 2.5, 5.0) for n in (2, 57, 300)
        for shape in ("random", "identity", "reflection") for kind in ("uniform", "cluster") for seed in (0, 1)]


@pytest.mark.parametrize("beta, n, shape, kind, seed", GRID)
def test_usa_and_sa_moments_match_the_direct_fields(beta, n, shape, kind, seed):
    rng = np.random.default_rng([seed, n, int(10 * beta)])
    A = _weights(rng, shape)
    p = attention(A, rng.normal(size=(2, 2)), beta)
    X = _tokens(rng, n, kind)
    assert _rel(kd.usa_field_moments(0, X, p), usa_field(0, X, p)) < 1e-12
    assert _rel(kd.sa_field_moments(0, X, p), sa_field(0, X, p)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_lsa_moment_form_is_the_pure_second_harmonic(seed):
    rng = np.random.default_rng(seed)
    p = attention(rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), 1.7)
    X = _tokens(rng, 200, "uniform")
    assert _rel(kd.lsa_field_moments(0, X, p), lsa_field(0, X, p)) < 1e-13
    # the LSA weights are u_{+-1} = x/2, u_0 = 0: the sums read C_{+-1} = nu Z_{+-1+1} + mu Z_{+-1-1}, i.e. Z_0 and
    # Z_{+-2} only; random odd moments (Z_1, Z_3) change nothing
    alpha, gamma = kd.complex_form(p.A)
    nu, mu = kd.complex_form(p.V)
    z = kd._unit_phases(X)
    Zpos = kd.moments(z, 3)
    odd = Zpos.copy()
    odd[1] = 0.4 - 0.3j
    s_true, _ = kd._sums(z, alpha, gamma, p.beta, kd.moment_combinations(Zpos, nu, mu, False), 1, lsa=True)
    s_odd, _ = kd._sums(z, alpha, gamma, p.beta, kd.moment_combinations(odd, nu, mu, False), 1, lsa=True)
    assert np.array_equal(s_true, s_odd)
    # theta_k enters through 2 theta_k only: flipping tokens x -> -x keeps every z^2, so LSA velocities flip with
    # them; USA's first harmonic sees the flip
    flip = np.where(rng.random(200) < 0.5, -1.0, 1.0)[:, None]
    assert _rel(kd.lsa_field_moments(0, flip * X, p), flip * kd.lsa_field_moments(0, X, p)) < 1e-13
    assert _rel(kd.usa_field_moments(0, flip * X, p), flip * kd.usa_field_moments(0, X, p)) > 1e-3


@pytest.mark.parametrize("beta", [0.01, 1.0, 5.0, 50.0, 300.0])
def test_compiled_passes_match_the_numpy_reference(beta):
    rng = np.random.default_rng(int(beta * 100))
    p = attention(rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), beta)
    X = _tokens(rng, 500, "uniform")
    for f in (kd.sa_field_moments, kd.lsa_field_moments) + ((kd.usa_field_moments,) if beta < 100 else ()):
        assert _rel(f(0, X, p), f(0, X, p, compiled=False)) < 1e-13


@pytest.mark.parametrize("x", [0.0, 1e-9, 1e-3, 0.5, 2.0, 5.0, 30.0, 300.0, 700.0])
def test_bessel_weights_match_scipy(x):
    M = kd.bessel_cutoff(max(x, 5.0))
    u = kd.bessel_weights(np.array([x, x]), M)
    assert u.shape == (M + 1, 2)
    assert np.abs(u[:, 0] - ive(np.arange(M + 1), x)).max() < 1e-14 * ive(0, x)  # seen: <= 1.2e-15


@pytest.mark.parametrize("a", [0.0, 1e-3, 0.5, 5.0, 40.0, 700.0])
def test_bessel_cutoff_is_the_smallest_with_the_tail_below_1e17(a):
    M = kd.bessel_cutoff(a)
    m = np.arange(M + 1, M + 400)
    assert 2 * ive(m, a).sum() <= kd.BESSEL_TAIL
    if M > 0:
        assert 2 * ive(np.arange(M, M + 400), a).sum() > kd.BESSEL_TAIL
    assert M <= 9 * np.sqrt(a) + 12


def test_field_for_gives_the_moment_form_in_d2_and_the_direct_field_on_request():
    assert field_for("usa", 2) is kd.usa_field_d2 and field_for("sa", 2) is kd.sa_field_d2
    assert field_for("usa", 2, direct=True) is usa_field and field_for("usa", 3) is usa_field
    assert field_for("lsa", 2) is lsa_field
    rng = np.random.default_rng(5)
    p = attention(rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), 2.0)
    for n in (20, 1500):  # below and above the crossover of the cost model
        X = _tokens(rng, n, "uniform")
        assert _rel(kd.usa_field_d2(0, X, p), usa_field(0, X, p)) < 1e-12
        assert _rel(kd.sa_field_d2(0, X, p), sa_field(0, X, p)) < 1e-12
    M = kd.harmonics(p.A, p.beta)
    assert not budget.softmax_d2_uses_moments(20, M) and budget.softmax_d2_uses_moments(1500, M)


def test_usa_moments_refuse_an_overflowing_beta():
    p = attention(np.eye(2), np.eye(2), 701.0)  # every token looks along itself: x_k = 701
    with pytest.raises(OverflowError, match="^beta: "):
        kd.usa_field_moments(0, _tokens(np.random.default_rng(0), 10, "uniform"), p)


def test_batch_field_uses_the_moments_in_d2():
    rng = np.random.default_rng(7)
    B, n = 3, 400
    A, V = rng.normal(size=(B, 2, 2)), rng.normal(size=(B, 2, 2))
    beta, tau = np.array([0.5, 1.0, 3.0]), np.array([1.0, 0.5, 0.2])
    X = np.stack([_tokens(rng, n, "uniform") for _ in range(B)])
    f = BatchField("usa", A, V, beta, tau)
    assert budget.softmax_d2_uses_moments(n, f.forms.M)
    Y = f(X)
    for b in range(B):
        assert _rel(Y[b], tau[b] * usa_field(0, X[b], attention(A[b], V[b], beta[b]))) < 1e-12
    assert np.array_equal(f.take(np.array([2]))(X[[2]])[0], Y[2])


def test_budget_estimates_the_moment_form_and_no_longer_refuses_large_d2_softmax():
    L = kd.harmonics(np.eye(2), 1.0)
    with pytest.raises(ValueError, match="^n: .*memory"):
        budget.check_budget(100_000, 2, "usa", 10, 1000)  # the n×n kernel: 400 GB
    b = budget.check_budget(100_000, 2, "usa", 10, 1000, harmonics=L)
    assert b.bytes < 1e9
    assert b.seconds == pytest.approx(b.evaluations * budget.moment_eval_seconds(100_000, L) + 1000 * 100_000 * 4e-9)


def test_simulate_regime_d2_usa_agrees_with_the_direct_field():
    from lsadyn import simulate_regime

    A, V = [[1.0, 0.3], [-0.2, 0.8]], [[0.5, 1.0], [-1.0, 0.2]]
    kw = {"n": 300, "model": "usa", "seed": 3, "horizon": 20.0, "n_samples": 400, "budget": 1}
    auto = simulate_regime(A, V, 1.0, **kw)
    ref = simulate_regime(A, V, 1.0, direct=True, **kw)
    assert auto.regime == ref.regime
    assert auto.abs_R2 == pytest.approx(ref.abs_R2, abs=1e-6)
