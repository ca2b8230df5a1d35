"""The fast sphere kernels and steppers against their references: compiled projection vs numpy,
fast DOP853 vs the scipy DOP853 path (states and regime labels), continuation from (t0, state),
and the one-eigendecomposition observer."""

import numpy as np
import pytest
from conftest import random_pair

from lsadyn import attention, integrate_sphere, lsa_field, sa_field, simulate_regime, uniform_sphere, usa_field
from lsadyn.fields.kernels import normalise_rows_inplace, project_tangent_inplace
from lsadyn.fields.attention import project_tangent
from lsadyn.observers import axis_observer, leading_axis, order_parameter_r
from lsadyn.paper.highdim.plan import embed_scenario

FIELDS = {"lsa": lsa_field, "usa": usa_field, "sa": sa_field}


def test_compiled_projection_equals_numpy(rng):
    X = uniform_sphere(300, 7, seed=2)
    Y = rng.standard_normal((300, 7))
    ref = project_tangent(X, Y)
    project_tangent_inplace(X, Y)
    np.testing.assert_allclose(Y, ref, atol=1e-15)
    assert np.max(np.abs(np.einsum("ij,ij->i", X, Y))) < 1e-14


def test_compiled_normalisation_reports_the_drift(rng):
    X = rng.standard_normal((50, 4))
    sq = np.einsum("ij,ij->i", X, X)
    drift = normalise_rows_inplace(X)
    assert drift == pytest.approx(np.max(np.abs(sq - 1)))
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-15)


@pytest.mark.parametrize("A_eye,V_eye", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("model", ["usa", "sa"])
def test_identity_shortcuts_equal_the_general_formula(rng, model, A_eye, V_eye):
    d = 6
    A, V = random_pair(rng, d, scale=0.4)
    A = np.eye(d) if A_eye else A
    V = np.eye(d) if V_eye else V
    X = uniform_sphere(40, d, seed=5)
    p = attention(A, V, 1.3)
    q = attention(A + 0.0, V + 0.0, 1.3)
    q.__dict__["_A_is_identity"] = False  # force the general branch
    q.__dict__["_V_is_identity"] = False
    assert p.A_is_identity == A_eye and p.V_is_identity == V_eye
    np.testing.assert_allclose(FIELDS[model](0, X, p), FIELDS[model](0, X, q), atol=1e-13)


@pytest.mark.parametrize("model", ["lsa", "usa", "sa"])
def test_fast_dop853_matches_scipy_reference(rng, model):
    A, V = random_pair(rng, 4, scale=0.7)
    p = attention(A, V, 0.9)
    X0 = uniform_sphere(30, 4, seed=11)
    t = np.linspace(0, 15, 151)
    kw = dict(rtol=1e-9, atol=1e-11)
    fast = integrate_sphere(FIELDS[model], X0, t, p, **kw)
    ref = integrate_sphere(FIELDS[model], X0, t, p, method="scipy-DOP853", rtol=1e-12, atol=1e-13)
    assert fast.y.shape == ref.y.shape == (151, 30, 4)
    assert np.max(np.abs(fast.y - ref.y)) < 1e-6
    assert np.max(np.abs(np.linalg.norm(fast.y, axis=-1) - 1)) < 1e-12
    np.testing.assert_allclose(fast.state, fast.y[-1], atol=1e-15)
    assert fast.n_evals > 0 and fast.next_step > 0


def test_continuing_from_the_returned_state_equals_one_run(rng):
    A, V = random_pair(rng, 3)
    p = attention(A, V)
    X0 = uniform_sphere(25, 3, seed=4)
    t = np.linspace(0, 10, 101)
    whole = integrate_sphere(lsa_field, X0, t, p, rtol=1e-10, atol=1e-12)
    first = integrate_sphere(lsa_field, X0, t[:41], p, rtol=1e-10, atol=1e-12)
    rest = integrate_sphere(lsa_field, first.state, t[40:], p, t0=t[40], first_step=first.next_step,
                            rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.concatenate([first.y, rest.y[1:]]), whole.y, atol=1e-8)
    # observing only a final window gives the same samples as observing everything
    window = integrate_sphere(lsa_field, X0, t[70:], p, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(window.y, whole.y[70:], atol=1e-8)


def test_rk4_is_fourth_order_and_on_the_sphere(rng):
    A, V = random_pair(rng, 3)
    p = attention(A, V)
    X0 = uniform_sphere(20, 3, seed=9)
    t = np.array([0.0, 0.7, 2.0])
    ref = integrate_sphere(lsa_field, X0, t, p, method="scipy-DOP853", rtol=1e-12, atol=1e-13).y
    e1 = np.max(np.abs(integrate_sphere(lsa_field, X0, t, p, method="rk4", dt=0.02).y - ref))
    e2 = np.max(np.abs(integrate_sphere(lsa_field, X0, t, p, method="rk4", dt=0.01).y - ref))
    assert 10 < e1 / e2 < 24  # 2^4 = 16 for a fourth-order method
    assert np.max(np.abs(np.linalg.norm(integrate_sphere(lsa_field, X0, t, p, method="rk4", dt=0.1).y, axis=-1)
                         - 1)) < 1e-14


def test_unknown_method_is_a_clear_error():
    with pytest.raises(ValueError, match="^method: unknown method 'euler'"):
        integrate_sphere(lsa_field, uniform_sphere(5, 3, 0), [0.0, 1.0], attention(np.eye(3), np.eye(3)),
                         method="euler")


def test_axis_observer_equals_the_full_eigendecompositions():
    for n, d in [(200, 100), (40, 3), (30, 2)]:
        X = uniform_sphere(n, d, seed=n)
        obs = axis_observer(X)
        assert obs[0] == pytest.approx(order_parameter_r(X), abs=1e-13)
        np.testing.assert_allclose(obs[1:], leading_axis(X), atol=1e-12)


def test_top_eigenpair_is_scipys_subset_eigh_bit_for_bit():
    """top_eigenpair makes the LAPACK call of scipy.linalg.eigh(M, subset_by_index=[d-1, d-1]) directly: same numbers."""
    from scipy.linalg import eigh

    from lsadyn.observers import top_eigenpair

    rng = np.random.default_rng(5)
    for d in (2, 3, 8, 20, 100):
        for n in (5, 64):
            X = uniform_sphere(n, d, seed=int(rng.integers(1000)))
            M = X.T @ X / n
            w, v = eigh(M, subset_by_index=[d - 1, d - 1], check_finite=False)
            lam, u = top_eigenpair(M)
            assert lam == w[0] and np.array_equal(u, v[:, 0])


SCENARIOS = {  # 2x2 blocks embedded in d = 4 (paper/highdim scenarios at a size the scipy reference handles)
    "identity": ([[1, 0], [0, 1]], [[1, 0], [0, 1]], 1.0, 1.0),
    "rotation": ([[1, 0], [0, 1]], [[1, -1], [1, 1]], 1.0, 0.5),
    "oscillation": ([[1, 0], [0, 1]], [[0.5, 1], [-1, -0.5]], 1.0, -2.0),
    "negative_definite": ([[1, 0], [0, 1]], [[-1, 0], [0, -1]], 1.0, -1.0),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("model", ["lsa", "usa"])
def test_simulate_regime_labels_agree_with_the_scipy_reference(scenario, model):
    A2, V2, ra, rv = SCENARIOS[scenario]
    A, V = embed_scenario(A2, V2, 4, ra, rv)
    kw = dict(n=40, model=model, seed=3, horizon=150.0, n_samples=1500)
    fast = simulate_regime(A, V, **kw)
    ref = simulate_regime(A, V, method="scipy-DOP853", **kw)
    assert fast.regime == ref.regime
    if ref.regime == "undetermined":  # at the budget both report their last state, which separates over 2400 tau
        assert fast.details["reason"].split(":")[0] == ref.details["reason"].split(":")[0]
        return
    assert fast.abs_R2 == pytest.approx(ref.abs_R2, abs=1e-5)
    if np.isfinite(ref.arg_R2_rate) and abs(ref.arg_R2_rate) > 1e-6:
        assert fast.arg_R2_rate == pytest.approx(ref.arg_R2_rate, rel=1e-4)


def test_compiled_exp_is_within_one_ulp_of_numpy():
    from lsadyn.fields.kernels import exp_inplace

    x = np.concatenate([np.random.default_rng(0).uniform(-708, 709, 200_000), np.linspace(-3, 3, 1001), [0.0]])
    ref = np.exp(x)
    got = exp_inplace(x.copy())
    assert np.max(np.abs(got - ref) / np.spacing(ref)) <= 1.0
    assert exp_inplace(np.array([[-1e5, 0.0]]))[0, 0] == pytest.approx(np.exp(-708.0))  # clamped, never 0/NaN


def test_a_trial_step_that_overflows_the_field_is_rejected_not_fatal():
    """USA at a loose tolerance: steps grow until a trial's stages leave the sphere far enough that the logits
    overflow; the stepper must shrink that step (as for a large error) instead of failing the run."""
    A, V = embed_scenario(np.eye(2), [[1, -1], [1, 1]], 6, 1.0, 0.5)
    p = attention(A, V, 1.0)
    X0 = uniform_sphere(64, 6, 0)
    traj = integrate_sphere(usa_field, X0, np.linspace(0, 100, 50), p, rtol=1e-4, atol=1e-4)
    assert np.all(np.isfinite(traj.y)) and traj.n_steps > 0


def test_a_field_that_always_overflows_still_raises():
    def bad(t, X, args):
        raise OverflowError("beta: always")

    with pytest.raises(OverflowError, match="^beta: always"):
        integrate_sphere(bad, uniform_sphere(8, 3, 0), np.linspace(0, 1, 5), None)


def test_dense_weights_in_python_floats_equal_the_recurrence_on_an_array():
    """_dense_weights runs scipy's Dop853DenseOutput recurrence on Python floats: the same roundings as on an array."""
    from lsadyn.solvers.dop853 import _dense_weights

    def on_array(x):
        w = np.zeros(7)
        for j, k in enumerate(range(6, -1, -1)):
            w[k] += 1.0
            w *= x if j % 2 == 0 else 1.0 - x
        return w

    xs = np.concatenate([np.random.default_rng(3).random(2000), [0.0, 1.0, 0.5, 1e-300, 1 - 2 ** -53]])
    for x in xs:
        assert np.array_equal(_dense_weights(x), on_array(x))
