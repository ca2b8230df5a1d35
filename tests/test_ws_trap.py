"""The WS trap of d = 2 LSA tokens off the OA manifold (lsadyn.regimes.ws_trap): its three facts checked on random
draws (the mean-field bound, the barycentre's motion, the constants of motion), and each certified neutral
oscillation confirmed by an independent integration ten times longer."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from lsadyn import simulate_regime
from lsadyn.reductions.kuramoto import angle_field, kuramoto_coefficients
from lsadyn.regimes.ws_trap import WSTrap, mean_field_bound, ws_constants
from lsadyn.sampling import uniform_sphere

J2 = np.array([[0.0, -1.0], [1.0, 0.0]])


def _population(seed, n, clump):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0, np.pi, n)
    theta[: int(clump * n)] = rng.normal(0.3, 0.2, int(clump * n))
    return theta


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(5, 400), clump=st.floats(0.0, 0.45),
       a=st.floats(0.0, 0.9), arg=st.floats(0.0, 6.3))
def test_the_mean_field_lies_within_eps_of_the_barycentre(seed, n, clump, a, arg):
    """|R2 − α| ≤ ε(|α|) for any population (moved by a random Möbius map), and the series is R2 itself."""
    theta = _population(seed, n, clump)
    b = a * np.exp(1j * arg)
    z = np.exp(2j * theta)
    z = (z + b) / (1 + np.conj(b) * z)  # a Möbius image: the barycentre moves near b
    alpha, moduli = ws_constants(z, k_max=n)
    R2 = z.mean()
    assert abs(R2 - alpha) <= mean_field_bound(abs(alpha), moduli) + 1e-12
    w = (z - alpha) / (1 - np.conj(alpha) * z)
    series = alpha + (1 - abs(alpha) ** 2) * sum((-np.conj(alpha)) ** k * (w ** (k + 1)).mean() for k in range(1, 400))
    if abs(alpha) < 0.9:
        assert abs(series - R2) < 1e-9


def _random_system(rng):
    P = rng.standard_normal((2, 2))
    A = -(P @ P.T + 0.2 * np.eye(2)) + rng.uniform(-1, 1) * J2
    V = np.eye(2) + rng.uniform(-0.3, 0.3) * rng.standard_normal((2, 2))
    return A, V, float(rng.uniform(0.5, 2.0))


def _run(A, V, beta, theta0, t_eval):
    coeffs = kuramoto_coefficients(A, V, beta)
    sol = solve_ivp(angle_field, (0, t_eval[-1]), theta0, t_eval=t_eval, args=(coeffs,), method="DOP853",
                    rtol=1e-11, atol=1e-12)
    assert sol.success
    return sol.y.T, coeffs


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(20, 200))
def test_the_barycentre_moves_in_the_tokens_riccati_field_and_the_moduli_are_constant(seed, n):
    """α̇ = G(α; R2) (the barycentre is carried by the Möbius flow) and |W_k| do not change."""
    rng = np.random.default_rng(seed)
    A, V, beta = _random_system(rng)
    theta0 = rng.uniform(0, np.pi, n)
    h = 1e-4
    th, coeffs = _run(A, V, beta, theta0, np.array([0.0, 2.0, 2.0 + h, 2.0 + 2 * h, 6.0]))
    (a0, m0), (a1, _), (a2, m2), (a3, _), (_, m4) = [ws_constants(np.exp(2j * t)) for t in th]
    R2 = np.exp(2j * th[2]).mean()
    omega, H = coeffs.omega_H(R2)
    G = 1j * omega * a2 + 0.5 * (H - np.conj(H) * a2 * a2)
    assert abs((a3 - a1) / (2 * h) - G) <= 1e-5 * max(1.0, abs(G))
    assert np.max(np.abs(m4 - m0)) <= 1e-8 and np.max(np.abs(m2 - m0)) <= 1e-8


def _certified_draws():
    rng = np.random.default_rng(20261207)
    out = []
    for _ in range(8):
        A, V, beta = _random_system(rng)
        out.append((A, V, beta, int(rng.choice([64, 200])), int(rng.integers(1000))))
    return out


@pytest.mark.parametrize("A, V, beta, n, seed", _certified_draws())
def test_a_certified_neutral_oscillation_holds_over_ten_times_its_certification_time(A, V, beta, n, seed):
    """Every ws_neutral label: an independent run (scipy DOP853 in the angles) to 10 × t_certified keeps the
    barycentre in the certified Lyapunov level, 1 − |R2| above the certified gap, and the tokens moving. An
    uncertified draw names why."""
    res = simulate_regime(A, V, beta, n=n, seed=seed, horizon=60, budget=2)
    if res.regime != "oscillate":
        assert res.regime == "undetermined" or res.details.get("certified"), res.details
        return
    assert res.details["attractor"]["kind"] == "ws_neutral"
    X0 = uniform_sphere(n, 2, seed)
    trap = WSTrap(A, V, beta)
    t_c = res.details["t_certified"]
    theta0 = np.arctan2(X0[:, 1], X0[:, 0])
    t_eval = np.linspace(0, 10 * t_c, 2001)
    th, coeffs = _run(A, V, beta, theta0, t_eval)
    z = np.exp(2j * th)
    cert, why = trap.check(t_c, z[200])  # the state at t_c (a sample of the independent run)
    assert cert is not None, why
    last = trap.last
    R2 = z.mean(axis=1)[200:]
    assert np.min(1 - np.abs(R2)) >= last["gap"] - 1e-9
    from lsadyn.regimes.certify import sink_region

    reg = sink_region(trap.pt, last["R_star"], np.array(cert.attractor.eigenvalues))
    levels = [reg.value(ws_constants(zz)[0]) for zz in z[200::50]]
    assert max(levels) <= last["level"] * (1 + 1e-6)
    speed = np.abs(angle_field(0, th[-1], coeffs))
    assert speed.max() > 1e-3 * trap.pt.scale


def test_at_least_half_the_draws_are_certified():
    """The certificate is not vacuous on the family above (a sink inside the disc, uniform start)."""
    kinds = [simulate_regime(A, V, beta, n=n, seed=seed, horizon=60, budget=2).details.get("attractor", {}).get("kind")
             for A, V, beta, n, seed in _certified_draws()]
    assert kinds.count("ws_neutral") >= 4, kinds


def test_a_case4_centre_is_not_trapped_and_says_so():
    trap = WSTrap(np.eye(2), np.array([[0.5, 1.0], [-1.0, -0.5]]), 1.0)
    theta = np.random.default_rng(0).uniform(0, np.pi, 300)
    cert, why = trap.check(0.0, np.exp(2j * theta))
    assert cert is None and "centre" in why
