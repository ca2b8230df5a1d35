r"""The runs of the USA-oscillation stage (pure: no computation), from config ``usa_oscillation``.

The system: USA in d = 2 with A = I and the config's V (the case-4 centre V = [[0.5, 1], [−1, −0.5]]), time in units
of :math:`\tau = 1/(\|V\|_2 e^{\beta})` (:func:`lsadyn.batch.usa_time_scale`), at each β of ``betas``:

* ``start = <seed>``: n i.i.d. uniform angles (:func:`lsadyn.sampling.uniform_angles`) for each n of ``n_tokens`` and
  each seed ``seed + k``, k < ``n_seeds`` (the same starts at every β);
* ``start = symmetric``: the ``n_symmetric`` (even) equispaced angles θ_k = 2π(k + ½)/n, an exactly antipodally
  symmetric set (Z_m = 0 for 0 < |m| < n): the n-point quadrature of the mean-field orbit from the uniform density,
  whose first harmonic Z₁ stays 0 but for round-off (~1e-16) and what round-off grows into;
* ``extra_runs``: entries ``{beta, n_tokens}``: more i.i.d. sizes at one β (where the runs leave early, large n is
  cheap), seeds as above;

each to ``t_max`` τ (or ``after_exit`` τ past its exit), RK4 step ``dt`` τ, sampled every ``sample_every`` τ. And the
linearisation (``growth``): the tangent flow about the symmetric orbit at each β of ``growth.betas``
(``growth.n_tokens`` equispaced tokens, ``growth.t_max`` τ).

Jobs: the runs sorted by estimated cost (n, and n/10 for ``extra_runs``, which are meant for β where the runs leave
within a tenth of t_max) and dealt to ``n_jobs`` jobs by longest-first greedy, so the jobs take about the same time;
the linearisation is a job of its own.
"""

from __future__ import annotations

import numpy as np

KEYS = ("V", "betas", "n_tokens", "extra_runs", "n_seeds", "n_symmetric", "t_max", "dt", "sample_every", "series_every",
        "exit_abs_z1", "after_exit", "fit_low", "fit_high", "n_jobs", "growth")
GROWTH_KEYS = ("betas", "n_tokens", "t_max", "neutral_rate")
SYMMETRIC = "symmetric"


def settings(cfg: dict) -> dict:
    """The stage's config block ``cfg['usa_oscillation']``, checked (one line naming the key on bad input)."""
    s = cfg["usa_oscillation"]
    missing = [k for k in KEYS if k not in s] + [f"growth.{k}" for k in GROWTH_KEYS if k not in s.get("growth", {})]
    if missing:
        raise ValueError(f"usa_oscillation: missing {', '.join(missing)}")
    for k, e in enumerate(s["extra_runs"]):
        if set(e) != {"beta", "n_tokens"}:
            raise ValueError(f"usa_oscillation.extra_runs[{k}]: needs exactly the keys beta, n_tokens")
    if np.shape(s["V"]) != (2, 2):
        raise ValueError("usa_oscillation.V: must be a 2 x 2 matrix")
    if int(s["n_symmetric"]) % 2 or int(s["growth"]["n_tokens"]) % 2:
        raise ValueError("usa_oscillation.n_symmetric / growth.n_tokens: must be even (antipodal pairs)")
    for k in ("dt", "sample_every", "series_every", "after_exit"):
        ratio = float(s[k]) / float(s["dt"])
        if k != "dt" and abs(ratio - round(ratio)) > 1e-9:
            raise ValueError(f"usa_oscillation.{k}: must be a multiple of usa_oscillation.dt")
    if float(s["series_every"]) % float(s["sample_every"]) > 1e-9 * float(s["sample_every"]):
        raise ValueError("usa_oscillation.series_every: must be a multiple of usa_oscillation.sample_every")
    if not 0 < float(s["fit_low"]) < float(s["fit_high"]) < float(s["exit_abs_z1"]) <= 1:
        raise ValueError("usa_oscillation: need 0 < fit_low < fit_high < exit_abs_z1 <= 1")
    return s


def run_plan(cfg: dict, seed: int) -> list[dict]:
    """Every run: ``{run_id, n, beta, start, cost}`` (start: a seed, or ``"symmetric"``), β-major, then symmetric first,
    then n, then seed; then the ``extra_runs``."""
    s = settings(cfg)
    runs = []
    seeds = [str(int(seed) + k) for k in range(int(s["n_seeds"]))]
    for beta in s["betas"]:
        runs.append({"n": int(s["n_symmetric"]), "beta": float(beta), "start": SYMMETRIC})
        runs += [{"n": int(n), "beta": float(beta), "start": st} for n in s["n_tokens"] for st in seeds]
    for e in s["extra_runs"]:
        runs += [{"n": int(n), "beta": float(e["beta"]), "start": st, "extra": True} for n in e["n_tokens"]
                 for st in seeds]
    return [{"run_id": i, **{k: v for k, v in r.items() if k != "extra"}, "cost": r["n"] / (10 if r.get("extra") else 1)}
            for i, r in enumerate(runs)]


def jobs(cfg: dict, seed: int) -> list[list[dict]]:
    """The runs dealt to ``n_jobs`` jobs (longest first, each to the job with the least cost so far); every job
    non-empty, runs in run_id order within a job."""
    s = settings(cfg)
    runs = run_plan(cfg, seed)
    k = max(1, min(int(s["n_jobs"]), len(runs)))
    load = [0.0] * k
    out = [[] for _ in range(k)]
    for r in sorted(runs, key=lambda r: (-r["cost"], r["run_id"])):
        j = int(np.argmin(load))
        out[j].append(r)
        load[j] += r["cost"]
    return [sorted(o, key=lambda r: r["run_id"]) for o in out]


def symmetric_angles(n: int) -> np.ndarray:
    """θ_k = 2π(k + ½)/n, k < n (n even): the second half is the first + π (the antipodal pairs)."""
    if n % 2:
        raise ValueError(f"n: the symmetric start needs an even number of tokens, got {n}")
    half = 2 * np.pi * (np.arange(n // 2) + 0.5) / n
    return np.concatenate([half, half + np.pi])
