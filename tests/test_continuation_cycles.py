"""lsadyn.continuation.shooting: interior limit cycles of the OA flow by shooting, against direct integrations of the
OA ODE (lsadyn.api.integrate_oa, an independent implementation of the field), their Floquet multipliers, their birth
at a Hopf point, their continuation and their fold."""

import numpy as np
import pytest

from lsadyn.api import integrate_oa
from lsadyn.continuation import equilibrium_branch, interior_equilibria
from lsadyn.continuation.shooting import (
    cycle_branch,
    cycle_fold_curve,
    hopf_frequency,
    hopf_start,
    periodic_orbit,
    shoot,
)
from lsadyn.paper.continuation.plan import A_CYCLE, V_CYCLE, family

P0 = np.zeros(2)
FAM = family("limit_cycle", 1.0)  # A = A0 + da I, V = V0 + dv I; (dv, da) = (0, 0) is the known cycle


def _direct_period(A, V, x_start, t_end=3000.0, t_keep=1000.0, n=50001):
    """Period of the attractor reached from x_start by a long direct OA run: mean spacing of the upward crossings
    of Re R₂ through its mean over the last ``t_keep`` (linear interpolation between dense samples)."""
    t = np.linspace(t_end - t_keep, t_end, n)
    R = integrate_oa(A, V, 1.0, [complex(*x_start)], np.concatenate([[0.0], t]), rtol=1e-12, atol=1e-14)[1:, 0]
    a = R.real - R.real.mean()
    k = np.nonzero((a[:-1] < 0) & (a[1:] >= 0))[0]
    tc = t[k] - a[k] * (t[k + 1] - t[k]) / (a[k + 1] - a[k])
    return (tc[-1] - tc[0]) / (len(tc) - 1), R


@pytest.fixture(scope="module")
def known_cycle():
    R = integrate_oa(A_CYCLE, V_CYCLE, 1.0, [0.1], np.array([0.0, 500.0]), rtol=1e-12, atol=1e-14)[-1, 0]
    return periodic_orbit(FAM, P0, [R.real, R.imag], 19.0)


@pytest.mark.slow  # a long adaptive OA run at rtol 1e-12 (several seconds)
def test_known_cycle_attracts_and_its_period_matches_a_long_direct_run(known_cycle):
    """The attracting cycle of A0, V0 (β = 1): multiplier < 1; the period equals that of a 3000-time-unit direct OA
    run from near the uniform state to 1e-7 (relative), and the ≈ 19.28 of long stationary runs to 0.5 %."""
    c = known_cycle
    assert c["converged"]
    assert 0 < abs(c["multiplier"]) < 1 and c["multiplier"] < 0.95
    assert 0.15 < c["r_max"] < 1  # an interior cycle, well off the circle
    T_direct, _ = _direct_period(A_CYCLE, V_CYCLE, [0.01, 0.0])
    assert abs(c["T"] / T_direct - 1) < 1e-7
    assert abs(c["T"] / 19.28 - 1) < 5e-3


def test_the_cycle_agrees_with_a_direct_integration(known_cycle):
    """The shot orbit (fixed-step DOP853, 400 steps) against integrate_oa (adaptive, rtol 1e-12) at the same times;
    the orbit closes; refining the shot (1600 steps) changes T by < 1e-10."""
    c = known_cycle
    s = shoot(FAM, c["x0"], c["T"], P0, samples=True)
    t = np.linspace(0, c["T"], s["orbit"].shape[0])
    R = integrate_oa(A_CYCLE, V_CYCLE, 1.0, [complex(*c["x0"])], t, rtol=1e-12, atol=1e-14)[:, 0]
    assert np.max(np.abs(s["orbit"][:, 0] + 1j * s["orbit"][:, 1] - R)) < 1e-9
    assert np.linalg.norm(s["x"] - c["x0"]) < 1e-10
    fine = periodic_orbit(FAM, P0, c["x0"], c["T"], n_steps=1600)
    assert abs(fine["T"] - c["T"]) < 1e-10 * c["T"] and abs(fine["multiplier"] - c["multiplier"]) < 1e-9


def test_monodromy_multipliers_are_one_and_the_liouville_value(known_cycle):
    """Planar flow: the monodromy matrix has eigenvalues 1 and exp(∫ tr J dt); the multiplier also equals the
    contraction of a perturbation along a direct run, |δ(t + T)| / |δ(t)| after the transient."""
    c = known_cycle
    mu = c["multipliers"]
    assert abs(mu[0] - 1) < 1e-8 and abs(mu[1] - np.exp(c["log_mult"])) < 1e-8
    s = shoot(FAM, c["x0"], c["T"], P0)
    assert abs(np.linalg.det(s["Phi"]) - np.exp(s["log_mult"])) < 1e-9
    # a start displaced by ε along Φ's eigenvector of μ returns after T displaced by μ ε (to O(ε²))
    ev, vec = np.linalg.eig(s["Phi"])
    k = int(np.argmin(np.abs(ev - c["multiplier"])))
    v = vec[:, k].real
    for eps in (1e-4, 1e-5):
        back = shoot(FAM, c["x0"] + eps * v, c["T"], P0)["x"] - c["x0"]
        assert np.linalg.norm(back - c["multiplier"] * eps * v) < 50 * eps**2


def _hopf_on_slice(free=0):
    x = interior_equilibria(FAM, P0)
    events = []
    for x0 in x:
        for sgn in (1.0, -1.0):
            events += equilibrium_branch(FAM, x0, P0, free, (-0.06, 0.06), sgn)[1]
    return [e["u"] for e in events if e["kind"] == "hopf"]


def test_cycles_near_a_hopf_point_have_its_frequency_and_vanishing_amplitude():
    """At ξ = ε from the Hopf equilibrium the cycle's period → 2π/ω and its parameter → the Hopf value, both like
    ε² (supercritical Hopf); the orbit's size is ~ ε."""
    (hopf,) = _hopf_on_slice()
    T_h = 2 * np.pi / hopf_frequency(FAM, hopf)
    errs = []
    for eps in (1e-2, 3e-3, 1e-3):
        sec, u, ok = hopf_start(FAM, hopf, 0, eps)
        assert ok
        s = shoot(FAM, sec.point(u[0]), np.exp(u[1]), sec.params(u[2:]), samples=True)
        amp = np.max(np.linalg.norm(s["orbit"] - s["centre"], axis=1))
        assert 0.5 * eps < amp < 3 * eps
        errs.append((abs(np.exp(u[1]) - T_h), abs(u[2] - hopf[2])))
    errs = np.array(errs)
    assert errs[-1, 0] < 1e-4 * T_h and errs[-1, 1] < 1e-6
    assert np.all(np.diff(errs[:, 0]) < 0) and errs[0, 0] / errs[-1, 0] > 50  # ~ ε²: 100 for ε / 10


def test_branch_from_hopf_passes_the_known_cycle_and_turns_at_a_cycle_fold():
    """The branch born at the Hopf point on da = 0: attracting from the Hopf point on, through dv = 0 with the
    known cycle's period and multiplier, to a cycle fold (multiplier 1, parameter turning), after which the cycles
    repel; the located fold continued in (dv, da) keeps multiplier 1 and each of its points is a periodic orbit."""
    (hopf,) = _hopf_on_slice()
    br, folds, _ = cycle_branch(FAM, hopf, 0, (-0.06, 0.06), ds_max=0.1, max_steps=40)
    T_h = 2 * np.pi / hopf_frequency(FAM, hopf)
    assert abs(br.period.iloc[0] / T_h - 1) < 1e-3 and br.amplitude.iloc[0] < 0.02
    assert br.stability.iloc[0] == "stable" and br.stability.iloc[-1] == "unstable"
    assert (br.stability != br.stability.shift()).sum() == 2  # one change (plus the first row)
    k = np.nonzero(np.diff(np.sign(br.p1.to_numpy())))[0][0]
    w = br.p1.iloc[k] / (br.p1.iloc[k] - br.p1.iloc[k + 1])
    T0 = (1 - w) * br.period.iloc[k] + w * br.period.iloc[k + 1]
    ref = periodic_orbit(FAM, P0, [br.re.iloc[k], br.im.iloc[k]], T0)
    assert abs(T0 / ref["T"] - 1) < 2e-3  # linear interpolation between branch points
    assert len(folds) == 1
    u = folds[0]["u"]
    assert u[3] <= br.p1.min() + 1e-12 and br.p1.min() - u[3] < 1e-4 and u[4] == 0.0  # at the turn, da = 0
    at_fold = shoot(FAM, u[:2], u[2], u[3:5])
    assert abs(at_fold["log_mult"]) < 1e-8 and np.linalg.norm(at_fold["x"] - u[:2]) < 1e-8
    curve, _ = cycle_fold_curve(FAM, u, ((-0.06, 0.06), (-0.12, 0.12)), ds_max=0.1, max_steps=8)
    assert len(curve) > 5 and np.ptp(curve.p2) > 0.01
    assert np.all(np.abs(curve.log_mult) < 1e-8)
    for _, r in curve.iloc[:: max(1, len(curve) // 4)].iterrows():  # closed orbits, double multiplier 1 (finer shot)
        s = shoot(FAM, [r.re, r.im], r.period, np.array([r.p1, r.p2]), n_steps=1600)
        assert np.hypot(s["x"][0] - r.re, s["x"][1] - r.im) < 1e-8
        assert np.all(np.abs(np.linalg.eigvals(s["Phi"]) - 1) < 1e-3) and abs(s["log_mult"]) < 1e-8


@pytest.mark.slow  # a long adaptive OA run at rtol 1e-12 (several seconds)
def test_stable_cycle_between_hopf_and_fold_is_what_a_direct_run_reaches():
    """At a point of the branch between the Hopf point and the cycle fold, a direct OA run from near the
    uniform state oscillates with the branch's period (the attracting cycle is the attractor)."""
    (hopf,) = _hopf_on_slice()
    br, _, _ = cycle_branch(FAM, hopf, 0, (-0.06, 0.06), ds_max=0.1, max_steps=20)
    st = br[br.stability == "stable"]
    r = st.loc[st.multiplier.idxmin()]  # the most attracting one: the direct run's transient dies fastest
    assert r.multiplier < 0.85
    A, V, _ = FAM(np.array([r.p1, r.p2]))
    T_direct, _ = _direct_period(A, V, [0.01, 0.0], t_end=2500.0, t_keep=600.0)
    assert abs(T_direct / r.period - 1) < 1e-6
