r"""The runs of the USA-oscillation stage and what is read off them (results/tables/usa_oscillation.csv,
usa_oscillation_growth.csv, results/usa_oscillation/series.csv).

**Exit time** (:func:`exit_time`): the first sample time at which the first harmonic :math:`|Z_1| = |\langle
e^{i\theta}\rangle|` reaches ``exit_abs_z1`` (config, 0.25). Why Z₁: the case-4 oscillation lives on the
antipodally symmetric states (LSA reads θ only through 2θ, so Z₁ does not enter it and stays at its start; the
symmetric orbit has Z₁ = 0), while USA's kernel has every harmonic, so the tokens can leave that set, towards one
cluster (:math:`|Z_1| \to 1`). An i.i.d. start has :math:`|Z_1| \approx n^{-1/2}` (0.1 at n = 100); where the
symmetric orbit is unstable, |Z₁| grows from there at the linearised rate until it saturates at 0.1–0.4 (measured:
a state with a first harmonic that is no longer the oscillation), and reaches one cluster only later. 0.25 is above
the start for n ≥ 100 and inside that band, so the exit time is the end of the growth out of the oscillation, not
the later (slower, wandering) approach to one cluster. The |R₂| range over the second half of the time before the
exit is kept as columns.

**Measured growth** (:func:`measured_growth`): the least-squares slope of ln|Z₁| against t over the samples from the
first with |Z₁| ≥ ``fit_low`` up to the first with |Z₁| ≥ ``fit_high`` (exclusive); NaN when |Z₁| never reaches
``fit_high`` or fewer than 3 samples lie between.

**Linearised growth** (:func:`growth_rate`): the tangent flow of the n-token system about the symmetric orbit
(:func:`lsadyn.solvers.usa_phase.tangent_run`, the Kuramoto–Daido moment equations linearised; base orbit kept on the
symmetric subspace, perturbation δθ_k = cos θ_k in the symmetry-breaking one, which holds δZ₁), renormalised at every
sample: λ is the slope of the accumulated ln‖δθ‖ over t ∈ [t_max/4, t_max] — the largest Lyapunov (for a
periodic orbit: Floquet) exponent of the first-harmonic perturbations, the orbit average of their growth. With
equispaced tokens it is the mean field's: it agrees to all printed digits between 64, 128 and 256 tokens.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ...batch import usa_time_scale
from ...sampling import uniform_angles
from ...solvers import usa_phase
from .plan import SYMMETRIC, symmetric_angles

COLUMNS = ["run_id", "n", "beta", "start", "exit_time", "t_max", "t_end", "final_abs_Z1", "initial_abs_Z1",
           "r2_min", "r2_max", "growth_measured", "seconds"]
SERIES_COLUMNS = ["run_id", "t", "abs_Z1", "abs_R2"]
GROWTH_COLUMNS = ["beta", "growth_rate", "neutral", "n_tokens", "t_max", "measured_rate", "symmetric_exit_time"]
I2 = np.eye(2)


def exit_time(t, abs_z1, threshold: float) -> float:
    """The first t with abs_z1 ≥ threshold; NaN when there is none."""
    hit = np.nonzero(np.asarray(abs_z1) >= threshold)[0]
    return float(np.asarray(t)[hit[0]]) if hit.size else float("nan")


def measured_growth(t, abs_z1, low: float, high: float) -> float:
    """Slope of ln|Z₁| between the first sample ≥ ``low`` and the first ≥ ``high`` (module docstring); NaN if none."""
    t = np.asarray(t, dtype=float)
    a = np.asarray(abs_z1, dtype=float)
    top = np.nonzero(a >= high)[0]
    bottom = np.nonzero(a >= low)[0]
    if not top.size or not bottom.size or top[0] - bottom[0] < 3:
        return float("nan")
    sel = slice(bottom[0], top[0])
    return float(np.polyfit(t[sel], np.log(a[sel]), 1)[0])


def start_angles(n: int, start: str) -> np.ndarray:
    """The angles of a run's start: :func:`~lsadyn.paper.usa_oscillation.plan.symmetric_angles` or i.i.d. from the
    seed ``start``."""
    return symmetric_angles(n) if start == SYMMETRIC else uniform_angles(n, int(start))


def integrate(V, beta: float, theta0, s: dict, stop: bool = True):
    """(t, Z₁, Z₂) sampled every ``sample_every`` τ up to ``t_max`` τ, stopping ``after_exit`` τ past the exit if
    ``stop``; times in τ (:func:`lsadyn.batch.usa_time_scale`)."""
    tau = usa_time_scale(I2, np.asarray(V, dtype=float), beta)
    coef = usa_phase.coefficients(I2, V, beta, tau)
    dt = float(s["dt"])
    every = round(float(s["sample_every"]) / dt)
    n_samples = int(np.floor(float(s["t_max"]) / float(s["sample_every"]) + 1e-9)) + 1
    extra = round(float(s["after_exit"]) / float(s["sample_every"]))
    Z1 = np.zeros((n_samples, 2))
    Z2 = np.zeros((n_samples, 2))
    th = np.array(theta0, dtype=float)
    m = usa_phase.phase_run(th, *coef, dt, n_samples, every, float(s["exit_abs_z1"]) if stop else 2.0, extra, Z1, Z2)
    t = np.arange(m) * float(s["sample_every"])
    return t, Z1[:m, 0] + 1j * Z1[:m, 1], Z2[:m, 0] + 1j * Z2[:m, 1]


def summarise(run: dict, t, z1, z2, s: dict, seconds: float) -> dict:
    """The table row of one run (columns :data:`COLUMNS`)."""
    a1, a2 = np.abs(z1), np.abs(z2)
    ex = exit_time(t, a1, float(s["exit_abs_z1"]))
    end = ex if np.isfinite(ex) else t[-1]
    win = (t >= end / 2) & (t <= end)
    return {"run_id": run["run_id"], "n": run["n"], "beta": run["beta"], "start": run["start"], "exit_time": ex,
            "t_max": float(s["t_max"]), "t_end": float(t[-1]), "final_abs_Z1": float(a1[-1]),
            "initial_abs_Z1": float(a1[0]), "r2_min": float(a2[win].min()), "r2_max": float(a2[win].max()),
            "growth_measured": measured_growth(t, a1, float(s["fit_low"]), float(s["fit_high"])),
            "seconds": seconds}


def run_job(runs: list[dict], s: dict, progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows (:data:`COLUMNS`) and series (:data:`SERIES_COLUMNS`, every ``series_every`` τ) of the runs."""
    rows, series = [], []
    step = round(float(s["series_every"]) / float(s["sample_every"]))
    for i, run in enumerate(runs):
        t0 = time.perf_counter()
        t, z1, z2 = integrate(s["V"], run["beta"], start_angles(run["n"], run["start"]), s)
        rows.append(summarise(run, t, z1, z2, s, time.perf_counter() - t0))
        keep = np.r_[np.arange(0, t.size, step), [t.size - 1]] if (t.size - 1) % step else np.arange(0, t.size, step)
        series.append(pd.DataFrame({"run_id": run["run_id"], "t": t[keep], "abs_Z1": np.abs(z1[keep]),
                                    "abs_R2": np.abs(z2[keep])}))
        if progress is not None:
            progress(i + 1, len(runs), rows[-1])
    return pd.DataFrame(rows, columns=COLUMNS), pd.concat(series, ignore_index=True)[SERIES_COLUMNS]


def growth_rate(V, beta: float, n: int, t_max: float, dt: float, sample_every: float) -> float:
    """λ (per τ) of the first-harmonic perturbations about the symmetric orbit of n equispaced tokens (module
    docstring)."""
    tau = usa_time_scale(I2, np.asarray(V, dtype=float), beta)
    coef = usa_phase.coefficients(I2, V, beta, tau)
    th = symmetric_angles(n)
    d = np.cos(th)
    every = round(sample_every / dt)
    n_samples = int(np.floor(t_max / sample_every + 1e-9)) + 1
    lg = np.zeros(n_samples)
    dz = np.zeros((n_samples, 2))
    usa_phase.tangent_run(th, d, *coef, dt, n_samples, every, True, lg, dz)
    t = np.arange(n_samples) * sample_every
    sel = t >= t_max / 4
    return float(np.polyfit(t[sel], lg[sel], 1)[0])


def growth_table(s: dict, log=None) -> pd.DataFrame:
    """λ at each β of ``growth.betas`` (columns beta, growth_rate, neutral, n_tokens, t_max)."""
    g = s["growth"]
    rows = []
    for beta in g["betas"]:
        t0 = time.perf_counter()
        lam = growth_rate(s["V"], float(beta), int(g["n_tokens"]), float(g["t_max"]), float(s["dt"]),
                          float(s["sample_every"]))
        rows.append({"beta": float(beta), "growth_rate": lam, "neutral": bool(lam <= float(g["neutral_rate"])),
                     "n_tokens": int(g["n_tokens"]), "t_max": float(g["t_max"])})
        if log is not None:
            log.info("beta %.4g: growth rate %.4g per tau (%.2f s)", beta, lam, time.perf_counter() - t0)
    return pd.DataFrame(rows)


def with_measured(growth: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """The growth table with the symmetric runs' measured rate and exit time at the same β (NaN where none)."""
    sym = table[table["start"].astype(str) == SYMMETRIC].set_index("beta")
    out = growth.copy()
    out["measured_rate"] = [float(sym.loc[b, "growth_measured"]) if b in sym.index else np.nan for b in out["beta"]]
    out["symmetric_exit_time"] = [float(sym.loc[b, "exit_time"]) if b in sym.index else np.nan for b in out["beta"]]
    return out[GROWTH_COLUMNS]
