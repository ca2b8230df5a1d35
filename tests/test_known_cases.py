"""The known-cases suite (tests/known_cases.csv, derivations in tests/known_cases.md).

Fast tests check every closed-form right-hand side of the derivation against the OA field itself and
that the data file equals the formulas; slow tests run predict_regime and simulate_regime on every case.
"""

import numpy as np
import pandas as pd
import pytest

from lsadyn.paper.cases2d.known_cases import (
    KNOWN_CASES_CSV,
    build_known_cases,
    load_known_cases,
    run_known_cases,
    token_verdict,
)
from lsadyn.paper.cases2d.plan import case1_spiral_reach
from lsadyn.reductions.kuramoto import kuramoto_coefficients, oa_rhs_complex

J = np.array([[0.0, -1.0], [1.0, 0.0]])
RNG = np.random.default_rng(0)
R_TEST = 0.9 * np.sqrt(RNG.random(50)) * np.exp(2j * np.pi * RNG.random(50))


def _field(A, V, beta=1.0):
    return oa_rhs_complex(R_TEST, kuramoto_coefficients(np.asarray(A, float), np.asarray(V, float), beta))


def test_file_has_every_regime_and_equals_the_closed_forms():
    df = load_known_cases()
    assert len(df) >= 30 and df.case.is_unique
    assert set(df.expected) == {"cluster_converge", "cluster_rotate", "oscillate", "interior_converge"}
    fresh = build_known_cases()
    pd.testing.assert_frame_equal(df.drop(columns="token_label"), fresh.drop(columns="token_label"),
                                  check_exact=False, rtol=1e-8, check_dtype=False)
    assert list(df.token_label) == list(fresh.token_label)
    assert KNOWN_CASES_CSV.with_suffix(".md").is_file()


def test_v_identity_factorisation():
    A = np.array([[0.3, -1.2], [0.7, -0.8]])
    p = (A[0, 0] - A[1, 1]) + 1j * (A[0, 1] + A[1, 0])
    lam = np.trace(A) + 1j * (A[0, 1] - A[1, 0])
    beta = 1.7
    np.testing.assert_allclose(_field(A, np.eye(2), beta), beta / 4 * (1 - abs(R_TEST) ** 2) * (p + lam * R_TEST),
                               atol=1e-12)
    assert abs(abs(lam) ** 2 - abs(p) ** 2 - 4 * np.linalg.det(A)) < 1e-12
    assert abs(np.linalg.eigvalsh((A + A.T) / 2)[-1] - (np.trace(A) + abs(p)) / 2) < 1e-12


def test_hurwitz_examples_of_the_derivation():
    for A, r_star, reach in [([[-0.1, 3], [-0.5, -0.1]], 0.713, 1.84), ([[-0.5, 2], [-1, 0.3]], 0.426, 1.81)]:
        A = np.array(A, float)
        p = (A[0, 0] - A[1, 1]) + 1j * (A[0, 1] + A[1, 0])
        lam = np.trace(A) + 1j * (A[0, 1] - A[1, 0])
        assert abs(abs(p / lam) - r_star) < 1e-3 and abs(case1_spiral_reach(lam) - reach) < 1e-2


def test_symmetric_v_real_axis_and_fixed_point():
    l1, l2, beta = -1.0, -3.0, 0.6
    c = kuramoto_coefficients(np.eye(2), np.diag([l1, l2]), beta)
    a = np.linspace(-0.9, 0.9, 7)
    s, d = l1 + l2, l1 - l2
    np.testing.assert_allclose(oa_rhs_complex(a + 0j, c), -beta / 4 * (a * a - 1) * (a * s + d), atol=1e-12)
    a_star = -d / s
    h = 1e-6
    jac_b = (oa_rhs_complex(a_star + 1j * h, c) - oa_rhs_complex(a_star - 1j * h, c)).imag / (2 * h)
    assert abs(jac_b + beta * (3 * d * d + s * s) / (4 * abs(s))) < 1e-6


def test_rotation_equivariant_polar_form():
    a0, a1, v0, v1, beta = 0.8, 0.5, 1.2, -0.6, 0.9
    f = _field(a0 * np.eye(2) + a1 * J, v0 * np.eye(2) + v1 * J, beta)
    r = abs(R_TEST)
    np.testing.assert_allclose(np.real(f * np.conj(R_TEST)) / r, beta / 2 * r * (1 - r * r) * (a0 * v0 - a1 * v1),
                               atol=1e-12)
    np.testing.assert_allclose(np.imag(f / R_TEST), beta / 2 * (a0 * v1 * (r * r + 3) + a1 * v0 * (r * r - 1)),
                               atol=1e-12)


def test_case3_and_saddle_node_on_the_circle():
    phi = np.linspace(0, 2 * np.pi, 17)
    R = np.exp(1j * phi)
    h = 1e-6
    for sigma, mu, beta in [(0.5, 1.0, 1.0), (-0.5, 0.7, 0.8)]:
        c = kuramoto_coefficients(np.diag([1.0, sigma]), np.eye(2) + mu * J, beta)
        np.testing.assert_allclose(np.imag(oa_rhs_complex(R, c) / R),
                                   beta * mu * ((1 + sigma) + (1 - sigma) * np.cos(phi)), atol=1e-12)
        inner = np.real(oa_rhs_complex(R * (1 - h), c) * np.conj(R))  # dr/dt at r = 1 - h: h times the transverse rate
        np.testing.assert_allclose(inner / h, beta / 2 * ((1 + sigma) + (1 - sigma) * (np.cos(phi) + mu * np.sin(phi))),
                                   atol=1e-4)
    a, s, mu, beta = 1.0, 0.5, 0.6, 1.3
    c = kuramoto_coefficients(np.eye(2), np.array([[a + s, -mu], [mu, a - s]]), beta)
    np.testing.assert_allclose(np.imag(oa_rhs_complex(R, c) / R), 2 * beta * (mu - s * np.sin(phi)), atol=1e-12)
    inner = np.real(oa_rhs_complex(R * (1 - h), c) * np.conj(R))
    np.testing.assert_allclose(inner / h, beta * (a + s * np.cos(phi)), atol=1e-4)


def _check_limits(row, res):
    if np.isfinite(row.abs_R2):
        tol = 2e-3 if row.slow else 1e-4
        assert abs(res.abs_R2 - row.abs_R2) < tol, (row.case, res.abs_R2, row.abs_R2)
    if np.isfinite(row.rate):
        assert abs(res.arg_R2_rate / row.rate - 1) < 1e-3, (row.case, res.arg_R2_rate, row.rate)
    if np.isfinite(row.period):
        assert abs(res.period / row.period - 1) < 2e-3, (row.case, res.period, row.period)


@pytest.mark.slow
def test_predict_regime_is_right_on_every_known_case():
    from lsadyn import predict_regime

    for row in load_known_cases().itertuples():
        A = np.array([[row.a11, row.a12], [row.a21, row.a22]])
        V = np.array([[row.v11, row.v12], [row.v21, row.v22]])
        res = predict_regime(A, V, row.beta)
        assert res.regime == row.expected, (row.case, res.regime, row.expected)
        _check_limits(row, res)


@pytest.mark.slow
def test_simulate_regime_from_iid_tokens_is_right_or_off_manifold():
    df = load_known_cases()
    out = run_known_cases(df, n_tokens=400, seed=0, methods=("tokens",))
    verdicts = [token_verdict(e, t, lab) for e, t, lab in zip(df.expected, df.token_label, out.tokens)]
    wrong = [(c, lab) for c, lab, v in zip(df.case, out.tokens, verdicts) if v == "wrong"]
    assert not wrong, wrong
    # certified labels: a finite-n token run whose OA limit is an oscillation (a centre, a limit cycle) or an interior
    # point with moving tokens (token_label oscillate) is neutral or quasi-periodic off the OA manifold; it is labelled
    # only where the WS trap holds, else undetermined with the reason. Every other case is decided.
    neutral = (df.expected == "oscillate") | (df.token_label == "oscillate")
    und = [c for c, v, nt in zip(df.case, verdicts, neutral) if v == "undetermined" and not nt]
    assert len(und) <= len(df) / 50, und


def test_circle_averaged_radial_velocity_has_one_sign():
    """For every (A, V): the mean over φ of the radial OA velocity on |R| = r is κ r (1 − r²) with
    κ = (β/4)(Im c₁ + Re c₂) (known_cases.md, 'Limit cycles'), so no circle about 0 traps orbits."""
    phi = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    for _ in range(5):
        A, V, beta = RNG.standard_normal((2, 2)), RNG.standard_normal((2, 2)), RNG.uniform(0.2, 2)
        c = kuramoto_coefficients(A, V, beta)
        kappa = beta / 4 * (c.c[1].imag + c.c[2].real)
        for r in (0.2, 0.5, 0.9):
            R = r * np.exp(1j * phi)
            mean_radial = np.mean(np.real(oa_rhs_complex(R, c) * np.exp(-1j * phi)))
            assert abs(mean_radial - kappa * r * (1 - r * r)) < 1e-12


def test_limit_cycle_certificate():
    """known_cases.md §7: one interior fixed point, an unstable focus; the boundary circle rotates and repels."""
    from scipy.optimize import fsolve

    df = load_known_cases()
    row = df[df.family == "limit_cycle"].iloc[0]
    A = np.array([[row.a11, row.a12], [row.a21, row.a22]])
    V = np.array([[row.v11, row.v12], [row.v21, row.v22]])
    c = kuramoto_coefficients(A, V, row.beta)
    f = lambda R: oa_rhs_complex(R, c)  # noqa: E731
    roots = []
    for x in np.linspace(-0.95, 0.95, 13):
        for y in np.linspace(-0.95, 0.95, 13):
            if x * x + y * y < 0.96:
                sol, _, ok, _ = fsolve(lambda v: [f(v[0] + 1j * v[1]).real, f(v[0] + 1j * v[1]).imag], [x, y],
                                       full_output=True, xtol=1e-13)
                R = sol[0] + 1j * sol[1]
                if ok == 1 and abs(R) < 0.999 and abs(f(R)) < 1e-10 and all(abs(R - q) > 1e-6 for q in roots):
                    roots.append(R)
    assert len(roots) == 1
    h = 1e-7
    jac = np.array([[((f(roots[0] + d) - f(roots[0] - d)) / (2 * h)).real for d in (h, 1j * h)],
                    [((f(roots[0] + d) - f(roots[0] - d)) / (2 * h)).imag for d in (h, 1j * h)]]).T
    ev = np.linalg.eigvals(jac)
    assert ev.real.min() > 0 and abs(ev.imag).max() > 0.1  # unstable focus
    phi = np.linspace(0, 2 * np.pi, 20000, endpoint=False)
    R = np.exp(1j * phi)
    phidot = np.imag(f(R) / R)
    assert phidot.min() > 0.4  # no fixed point on the circle
    transverse = np.real(f(R * (1 - 1e-6)) * np.conj(R)) / 1e-6  # > 0: moving towards the circle
    assert np.sum(transverse / phidot) / np.sum(1 / phidot) < -0.02  # on average the circle repels
