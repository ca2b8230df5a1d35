"""lsadyn.solvers.dop853_method, the one source of DOP853's tableau, error norm, step-size controller and dense
output: its compiled functions and their Python bodies (what the numba and the numpy loops call) agree, and they
are scipy's DOP853 (the reference path)."""

import numpy as np
from scipy.integrate import DOP853
from scipy.integrate._ivp import dop853_coefficients as scipy_dop
from scipy.integrate._ivp.common import select_initial_step
from scipy.integrate._ivp.rk import Dop853DenseOutput

from lsadyn.reductions.kuramoto import kuramoto_coefficients, oa_field
from lsadyn.runs import SmallRunCompiled
from lsadyn.solvers import dop853_method as m
from lsadyn.solvers.dop853 import _dense_weights, initial_step
from lsadyn.solvers.phase_points import OA_KIND


def test_the_tableau_is_scipys():
    for name in ("A", "B", "C", "E3", "E5", "D"):
        assert np.array_equal(getattr(m, name), getattr(scipy_dop, name)), name
    assert m.N_STAGES == scipy_dop.N_STAGES and m.ERROR_EXPONENT == -1 / (DOP853.error_estimator_order + 1)


def test_compiled_functions_equal_their_python_bodies():
    """The numba loops call the compiled functions, dop853_sphere their Python bodies: the same numbers (error_norm
    to rounding: numba may contract s5 + 0.01 s3 into one multiply-add)."""
    rng = np.random.default_rng(0)
    for t, h_abs, t_end in ((0.0, 0.1, 1.0), (0.95, 0.1, 1.0), (123.4, 1e-9, 200.0), (1e6, 3.0, 1e6 + 1.0)):
        assert m.min_step(t) == m.min_step.py_func(t) > 0
        assert m.trial_step(t, h_abs, t_end) == m.trial_step.py_func(t, h_abs, t_end)
    for err in np.concatenate([[1.0], rng.uniform(1, 1e4, 20)]):
        assert m.reject_factor(err) == m.reject_factor.py_func(err)
    for err in np.concatenate([[0.0, 1e-300], rng.uniform(0, 1, 20)]):
        for rejected in (False, True):
            assert m.accept_factor(err, rejected) == m.accept_factor.py_func(err, rejected)
    for d0, d1, d2 in ((1e-6, 1.0, 1.0), (1.0, 1e-6, 1.0), (2.0, 3.0, 0.5), (1.0, 1e-16, 1e-16), (5.0, 0.2, 40.0)):
        h0 = m.initial_trial_step(d0, d1, 10.0)
        assert h0 == m.initial_trial_step.py_func(d0, d1, 10.0) > 0
        assert m.initial_step_size(h0, d1, d2, 10.0) == m.initial_step_size.py_func(h0, d1, d2, 10.0) > 0
    for h, s5, s3, size in ((0.1, 0.0, 0.0, 4), (0.1, 2.0, 3.0, 4), (0.01, 1e-8, 5e-7, 2000)):
        np.testing.assert_allclose(m.error_norm(h, s5, s3, size), m.error_norm.py_func(h, s5, s3, size), rtol=1e-15)


def test_error_norm_is_scipys():
    rng = np.random.default_rng(1)
    n, h = 6, 0.07
    K = rng.standard_normal((13, n))
    y, y_new = rng.standard_normal(n), rng.standard_normal(n)
    rtol, atol = 1e-6, 1e-8
    scale = atol + np.maximum(np.abs(y), np.abs(y_new)) * rtol
    s5 = np.sum((m.E5 @ K / scale) ** 2)
    s3 = np.sum((m.E3 @ K / scale) ** 2)
    # scipy's DOP853._estimate_error_norm, written out: err5 = h E5·K / scale, err3 = h E3·K / scale
    err5, err3 = h * (K.T @ m.E5) / scale, h * (K.T @ m.E3) / scale
    e5, e3 = np.linalg.norm(err5) ** 2, np.linalg.norm(err3) ** 2
    ref = np.abs(h) * e5 / np.sqrt(e5 + 0.01 * e3) / np.sqrt(n) / np.abs(h)
    np.testing.assert_allclose(m.error_norm.py_func(h, s5, s3, n), ref, rtol=1e-13)
    np.testing.assert_allclose(m.error_norm(h, s5, s3, n), ref, rtol=1e-13)


def test_dense_output_is_scipys_interpolant():
    """dense_head + D rows build scipy's F; dense_eval (and the numpy loop's weights) evaluate it as scipy does."""
    rng = np.random.default_rng(2)
    n, h, t_old = 5, 0.3, 2.0
    K = rng.standard_normal((16, n))
    y_old, y_new = rng.standard_normal(n), rng.standard_normal(n)
    F = np.empty((7, n))
    F[0], F[1], F[2] = m.dense_head.py_func(y_new - y_old, K[0], K[12], h)
    F[3:] = h * (m.D @ K)
    delta = y_new - y_old  # scipy's RkDenseOutput of DOP853 (rk.py _dense_output_impl), without its extra stages
    ref_F = np.vstack([delta, h * K[0] - delta, 2 * delta - h * (K[12] + K[0]), h * np.dot(m.D, K)])
    assert np.array_equal(F, ref_F)
    for i in range(n):
        heads = m.dense_head(delta[i], K[0, i], K[12, i], h)
        np.testing.assert_allclose(heads, ref_F[:3, i], rtol=1e-14, atol=1e-15)
    scipy_dense = Dop853DenseOutput(t_old, t_old + h, y_old, F)
    for x in (0.0, 0.13, 0.5, 0.999, 1.0):
        t = t_old + x * h
        ref = scipy_dense(t)
        x = (t - t_old) / scipy_dense.h
        assert np.array_equal(y_old + np.array([m.dense_eval.py_func(F, i, x) for i in range(n)]), ref)
        np.testing.assert_allclose(y_old + np.array([m.dense_eval(F, i, x) for i in range(n)]), ref, rtol=1e-14)
        np.testing.assert_allclose(y_old + _dense_weights(x) @ F, ref, rtol=1e-13, atol=1e-14)


def test_initial_step_is_scipys():
    rng = np.random.default_rng(3)
    y0 = rng.standard_normal(8)

    def f(t, y, args=None):
        return np.sin(3 * y) + 0.1 * t

    for rtol, atol, t_end in ((1e-6, 1e-8, 10.0), (1e-10, 1e-12, 0.001)):
        ref = select_initial_step(f, 0.0, y0, t_end, np.inf, f(0.0, y0), 1, 7, rtol, atol)
        ours = initial_step(f, 0.0, y0, f(0.0, y0), y0.shape, None, t_end, rtol, atol)
        np.testing.assert_allclose(ours, ref, rtol=1e-12)


def test_the_compiled_small_loop_takes_scipys_steps():
    """advance_small (numba, the controller of dop853_method) on one OA system takes the steps scipy's DOP853 takes
    on the same ODE: the same number, and the same end state to rounding."""
    rng = np.random.default_rng(4)
    coeffs = kuramoto_coefficients(rng.standard_normal((1, 2, 2)), rng.standard_normal((1, 2, 2)), np.ones(1))
    y0 = np.array([0.2, -0.1])
    rtol, atol, t_end = 1e-10, 1e-12, 100.0
    run = SmallRunCompiled(OA_KIND, coeffs, y0[None], rtol=rtol, atol=atol)
    run.advance(np.arange(1), np.array([t_end]))
    solver = DOP853(lambda t, y: oa_field(t, y, coeffs), 0.0, y0, t_end, rtol=rtol, atol=atol)
    steps = 0
    while solver.status == "running":
        solver.step()
        steps += 1
    assert solver.status == "finished" and steps > 40
    assert run.nsteps[0] == steps
    np.testing.assert_allclose(run.Y[0], solver.y, rtol=1e-9, atol=1e-12)
