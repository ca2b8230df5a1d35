"""Regime classifier: every label is reached by an (A, V) whose regime is derived, not read off the code."""

import numpy as np
import pytest

from lsadyn import case4_hamiltonian, classify_r2_trajectory, integrate_oa, predict_regime, simulate_regime, ws_regime
from lsadyn.regimes.classify import RegimeTolerances

I2 = np.eye(2)
J = np.array([[0.0, -1.0], [1.0, 0.0]])


def test_cluster_converge_identity():
    """A = V = I: dR/dt = (β/2) R (1 − |R|²) ⇒ |R₂| → 1 along a ray (arg constant)."""
    res = predict_regime(I2, I2, beta=1.0)
    assert res.regime == "cluster_converge"
    assert abs(res.abs_R2 - 1) < 1e-6 and abs(res.arg_R2_rate) < 1e-6


def test_interior_converge_negative_value():
    """A = I, V = −I: dR/dt = −(β/2) R (1 − |R|²) ⇒ R₂ → 0 (claim 2, λ_max(V) < 0)."""
    res = predict_regime(I2, -I2)
    assert res.regime == "interior_converge"
    assert res.abs_R2 < 1e-6


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (0.5, -2.0)])
def test_cluster_rotate_rotation_value(a, b):
    """A = I, V = aI + bJ. Then c = (b + ia) R̄, tr B = b and
    dR/dt = iβbR + (iβb/2)(1 + |R|²)R + (βa/2)(1 − |R|²)R:
    for a > 0, |R| → 1 and arg R₂ turns at the constant rate 2βb ⇒ rotating clusters. The rate is read in the
    window where the run was decided (an early checkpoint: |R| there within ~1e-7 of 1, off the circle by
    βb(1 − |R|²)/2), so to 1e-5 relative."""
    beta = 0.8
    res = predict_regime(I2, a * I2 + b * J, beta=beta)
    assert res.regime == "cluster_rotate"
    assert abs(res.arg_R2_rate / (2 * beta * b) - 1) < 1e-5
    assert abs(res.period / (np.pi / abs(beta * b)) - 1) < 1e-5


def test_oscillate_hidden_hamiltonian():
    """A = I, V = [[p, q], [−q, −p]] with q > |p|: the OA flow conserves
    𝓗 = (q(1 + |R|²) + 2p Im R)/(1 − |R|²)² (case 4); its level sets near the interior centre
    on Re R = 0, ((1+y)/(1−y))³ = (q − p)/(q + p), are closed curves ⇒ persistent oscillation."""
    p, q = 0.5, 1.0
    V = np.array([[p, q], [-q, -p]])
    t = np.linspace(0, 200, 20001)
    R = integrate_oa(I2, V, 1.0, 0.2 + 0.1j, t)[:, 0]
    Hs = case4_hamiltonian(R, p, q)
    assert np.max(np.abs(Hs - Hs[0])) < 1e-7 * abs(Hs[0])
    res = classify_r2_trajectory(t, R)
    assert res.regime == "oscillate" and np.isfinite(res.period)
    assert predict_regime(I2, V).regime == "oscillate"


def test_undetermined_when_too_short():
    """A = V = I from |R₂| = 0.01 over t ∈ [0, 1]: |R₂| is still growing — too short to call."""
    t = np.linspace(0, 1, 500)
    R = integrate_oa(I2, I2, 1.0, 0.01, t)[:, 0]
    assert classify_r2_trajectory(t, R).regime == "undetermined"
    assert classify_r2_trajectory(t[:10], R[:10]).regime == "undetermined"


def test_classifier_on_synthetic_signals():
    t = np.linspace(0, 100, 5000)
    assert classify_r2_trajectory(t, np.full(t.shape, 0.5 + 0j)).regime == "interior_converge"
    rot = classify_r2_trajectory(t, np.exp(0.3j * t))
    assert rot.regime == "cluster_rotate" and abs(rot.arg_R2_rate - 0.3) < 1e-9
    osc = classify_r2_trajectory(t, (0.5 + 0.2 * np.sin(2 * np.pi * t / 7)) * np.exp(1j * np.sin(t)))
    assert osc.regime == "oscillate" and abs(osc.period - 7) < 0.05
    decay = classify_r2_trajectory(t, 0.5 + 0.2 * np.exp(-t / 15) * np.sin(2 * np.pi * t / 3))
    assert decay.regime == "undetermined"
    slow = classify_r2_trajectory(t, np.exp(1e-3j * t))
    assert slow.regime == "undetermined"
    tight = classify_r2_trajectory(t, np.exp(1e-3j * t), RegimeTolerances(tol_angle=0.1))
    assert tight.regime == "cluster_converge"


@pytest.mark.parametrize(
    "V,label",
    [(I2, "cluster_converge"), (-I2, "interior_converge"), (I2 + J, "cluster_rotate")],
)
def test_three_methods_agree_on_derived_cases(V, label):
    assert ws_regime(I2, V, n=400, seed=1).regime == label
    assert simulate_regime(I2, V, n=400, seed=1).regime == label


def test_particles_any_dimension_identity():
    """A = V = I in d = 4: tokens align with the leading axis of M (r → 1, axis fixed)."""
    res = simulate_regime(np.eye(4), np.eye(4), n=200, seed=2, horizon=200, n_samples=800)
    assert res.regime == "cluster_converge" and res.abs_R2 > 0.999


def test_api_validates():
    with pytest.raises(ValueError, match="^A: the OA reduction needs d = 2"):
        predict_regime(np.eye(3), np.eye(3))
    with pytest.raises(ValueError, match="^n:"):
        simulate_regime(I2, I2, n=1)
    with pytest.raises(ValueError, match="^d:"):
        simulate_regime(I2, I2, d=3)
    with pytest.raises(ValueError, match="^model:"):
        simulate_regime(I2, I2, model="relu")


def test_batch_equals_single_and_three_methods_agree():
    """Batched OA / WS / particles give the same labels as the derivations above, point by point."""
    from lsadyn import particles_regime_batch, predict_regime_batch, ws_regime_batch

    A = np.stack([I2, I2, I2, I2])
    V = np.stack([I2, -I2, I2 + J, np.array([[0.5, 1.0], [-1.0, -0.5]])])
    expected = ["cluster_converge", "interior_converge", "cluster_rotate", "oscillate"]
    oa = predict_regime_batch(A, V, 0.7, chunk=3)
    assert [r.regime for r in oa] == expected
    assert abs(oa[2].arg_R2_rate - 2 * 0.7) < 1e-6  # rate 2βb in physical time
    assert [r.regime for r in ws_regime_batch(A[:3], V[:3], 0.7, n=300)] == expected[:3]
    assert [r.regime for r in particles_regime_batch(A[:3], V[:3], 0.7, n=300)] == expected[:3]
