"""The USA-oscillation stage (issue 28 part 3): the compiled phase form of d = 2 USA (A = I) against the direct
field, its tangent flow against two nearby direct runs, the exit-time and growth detectors on synthetic series,
the plan, and the linearised first-harmonic growth rate against a direct run from the symmetric start."""

import numpy as np
import pytest

from lsadyn.batch import usa_time_scale
from lsadyn.fields.attention import Attention, usa_field
from lsadyn.paper.usa_oscillation import plan, runs
from lsadyn.sampling import tokens_from_angles, uniform_angles
from lsadyn.solvers import usa_phase

I2 = np.eye(2)
V = np.array([[0.5, 1.0], [-1.0, -0.5]])


def _settings(**kw):
    s = {"V": V.tolist(), "betas": [0.5, 1.0], "n_tokens": [100, 300], "extra_runs": [{"beta": 0.5, "n_tokens": [1000]}], "n_seeds": 2, "n_symmetric": 64,
         "t_max": 400.0, "dt": 0.25, "sample_every": 10.0, "series_every": 50.0, "exit_abs_z1": 0.5,
         "after_exit": 50.0, "fit_low": 1e-12, "fit_high": 1e-4, "n_jobs": 2,
         "growth": {"betas": [0.5], "n_tokens": 32, "t_max": 400.0, "neutral_rate": 5e-4}}
    s.update(kw)
    return {"usa_oscillation": s}


@pytest.mark.parametrize("beta", [0.25, 1.0, 2.0, 4.0])
def test_phase_velocity_is_the_direct_usa_field(beta):
    rng = np.random.default_rng(3)
    Vr = rng.standard_normal((2, 2))
    th = uniform_angles(200, 1)
    th[:50] = 0.3 + 0.01 * rng.standard_normal(50)  # a cluster as well
    X = tokens_from_angles(th)
    ref = usa_field(0.0, X, Attention(I2, Vr, beta))
    w = -np.sin(th) * ref[:, 0] + np.cos(th) * ref[:, 1]
    got = usa_phase.velocity(th, *usa_phase.coefficients(I2, Vr, beta))
    assert np.abs(got - w).max() <= 1e-12 * np.abs(w).max()


def test_phase_run_needs_a_identity():
    with pytest.raises(ValueError, match="A = I"):
        usa_phase.coefficients(np.diag([1.0, 2.0]), V, 1.0)


def test_tangent_flow_is_the_derivative_of_two_nearby_runs():
    beta = 0.5
    coef = usa_phase.coefficients(I2, V, beta, usa_time_scale(I2, V, beta))
    th = uniform_angles(120, 2)
    d = np.cos(th) + 0.3 * np.sin(3 * th)
    eps = 1e-6
    ends = []
    for sign in (1, -1):
        y = th + sign * eps * d
        usa_phase.phase_run(y, *coef, 0.25, 11, 8, 2.0, 0, np.zeros((11, 2)), np.zeros((11, 2)))
        ends.append(y)
    fd = (ends[0] - ends[1]) / (2 * eps)
    lg, dz, dth = np.zeros(11), np.zeros((11, 2)), d.copy()
    usa_phase.tangent_run(th.copy(), dth, *coef, 0.25, 11, 8, False, lg, dz)
    rms = np.sqrt(np.mean(fd ** 2))
    assert lg[-1] == pytest.approx(np.log(rms / np.sqrt(np.mean(d ** 2))), abs=1e-7)
    assert np.abs(dth - fd / rms).max() < 1e-6


def test_exit_time_on_synthetic_series():
    t = np.arange(0, 1000.0, 10.0)
    a = 1e-3 * np.exp(t / 100)
    assert runs.exit_time(t, a, 0.5) == t[np.argmax(a >= 0.5)]
    assert 600 < runs.exit_time(t, a, 0.5) < 640  # 100 ln 500 = 621.5
    assert np.isnan(runs.exit_time(t, np.full_like(t, 0.1), 0.5))
    flat = np.r_[np.full(50, 0.1), np.full(50, 0.7)]
    assert runs.exit_time(t, flat, 0.5) == 500.0


def test_measured_growth_recovers_an_exponential_and_refuses_a_flat_series():
    t = np.arange(0, 2000.0, 10.0)
    a = np.minimum(1e-16 * np.exp(0.02 * t), 0.9)
    assert runs.measured_growth(t, a, 1e-12, 1e-4) == pytest.approx(0.02, rel=1e-9)
    assert np.isnan(runs.measured_growth(t, np.full_like(t, 1e-13), 1e-12, 1e-4))


def test_plan_runs_jobs_and_symmetric_start():
    cfg = _settings()
    rp = plan.run_plan(cfg, 7)
    assert len(rp) == 2 * (1 + 2 * 2) + 2
    assert [(r["n"], r["beta"]) for r in rp[-2:]] == [(1000, 0.5), (1000, 0.5)]
    assert [r["run_id"] for r in rp] == list(range(len(rp)))
    assert {r["start"] for r in rp} == {"symmetric", "7", "8"}
    js = plan.jobs(cfg, 7)
    assert len(js) == 2 and sorted(r["run_id"] for j in js for r in j) == list(range(len(rp)))
    loads = [sum(r["cost"] for r in j) for j in js]
    assert max(loads) - min(loads) <= 300
    th = plan.symmetric_angles(64)
    np.testing.assert_array_equal(th[32:], th[:32] + np.pi)
    assert abs(np.exp(1j * th).mean()) < 1e-15 and abs(np.exp(2j * th).mean()) < 1e-15
    with pytest.raises(ValueError, match="n_symmetric"):
        plan.settings(_settings(n_symmetric=63))
    with pytest.raises(ValueError, match="sample_every"):
        plan.settings(_settings(sample_every=0.3))
    with pytest.raises(ValueError, match="missing"):
        plan.settings({"usa_oscillation": {"V": V.tolist()}})


def test_run_job_rows_and_series():
    s = plan.settings(_settings(t_max=200.0))
    rows, series = runs.run_job([{"run_id": 0, "n": 100, "beta": 1.0, "start": "5"},
                                 {"run_id": 1, "n": 64, "beta": 1.0, "start": "symmetric"}], s)
    assert list(rows.columns) == runs.COLUMNS and len(rows) == 2
    assert rows.initial_abs_Z1[0] == pytest.approx(abs(np.exp(1j * uniform_angles(100, 5)).mean()))
    assert rows.initial_abs_Z1[1] < 1e-15 and rows.final_abs_Z1[1] < 1e-10  # the symmetric start stays symmetric
    assert set(series.run_id) == {0, 1} and series.t.max() == 200.0


def test_linearised_growth_rate_is_the_measured_one_at_an_unstable_beta():
    """At β = 0.5 the symmetric orbit is unstable to the first harmonic: a direct run from the symmetric start, whose
    |Z₁| grows from round-off, grows at the rate of the tangent flow."""
    s = _settings(t_max=3000.0, after_exit=0.0)["usa_oscillation"]
    lam = runs.growth_rate(V, 0.5, 64, 1000.0, 0.25, 10.0)
    t, z1, _ = runs.integrate(V, 0.5, plan.symmetric_angles(64), s)
    measured = runs.measured_growth(t, np.abs(z1), 1e-12, 1e-4)
    assert lam > 0.01
    assert measured == pytest.approx(lam, rel=0.1)
    assert runs.growth_rate(V, 1.0, 64, 1000.0, 0.25, 10.0) < 5e-4  # neutral at β = 1


def test_linearised_growth_rate_does_not_depend_on_the_number_of_equispaced_tokens():
    """The equispaced tokens are a quadrature of the mean-field orbit: the rate is the mean field's."""
    rates = [runs.growth_rate(V, 0.5, n, 600.0, 0.25, 10.0) for n in (32, 64)]
    assert rates[0] == pytest.approx(rates[1], rel=1e-6)


def test_lifetime_growth_reports_every_exit_and_the_slope_over_the_runs_that_left():
    import numpy as np
    import pandas as pd

    from lsadyn.paper.usa_oscillation.summary import lifetime_growth

    t = pd.DataFrame({"n": [100, 100, 1000, 1000, 3200, 3200, 64], "beta": 1.0,
                      "start": ["1", "2", "1", "2", "1", "2", "symmetric"],
                      "exit_time": [490, 3440, 1540, 3580, 2650, np.nan, np.nan], "t_max": 10000.0})
    life = lifetime_growth(t, 1.0)
    assert [n for n, _ in life["per_n"]] == [100, 1000, 3200]  # the symmetric start is not an i.i.d. run
    assert life["per_n"][2][1] == [2650.0, float("inf")] and life["n_stayed"] == 1
    left = t.iloc[:5]
    assert life["slope"] == np.polyfit(np.log(left.n), np.log(left.exit_time), 1)[0]
    assert abs(life["decades"] - np.log10(32)) < 1e-12
    assert lifetime_growth(t, 0.5) is None


def test_the_paper_config_measures_the_lifetime_at_beta_1_over_one_and_a_half_decades_of_n():
    """Issue 42 part 4: at the paper's beta = 1, at least three n spanning >= 1.5 decades, n >= 3000, >= 2 seeds."""
    from pathlib import Path

    import numpy as np
    import yaml

    from lsadyn.paper.usa_oscillation.plan import SYMMETRIC, run_plan

    cfg = yaml.safe_load((Path(__file__).resolve().parents[1] / "workflow/config/config.yaml").read_text())
    runs = [r for r in run_plan(cfg, int(cfg["seed"])) if r["beta"] == 1.0 and r["start"] != SYMMETRIC]
    ns = sorted({r["n"] for r in runs})
    assert len(ns) >= 3 and max(ns) >= 3000 and np.log10(max(ns) / min(ns)) >= 1.5
    assert all(sum(r["n"] == n for r in runs) >= 2 for n in ns)
