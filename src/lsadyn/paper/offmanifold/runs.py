r"""Runs of the off-manifold stage: tokens that keep moving about an OA interior fixed point (docs/theory.md §5).

The d = 2 dynamics moves the doubled phases :math:`z_k = e^{2i\theta_k}` by Möbius maps only, so a
population's distance from the OA manifold, :math:`D` (:func:`lsadyn.observers.oa_manifold_distance`),
is a constant of motion. Where the OA ODE converges to an interior point (V = I, sym(A) negative
definite), a population at D > 0 cannot converge to the OA state: |R₂| keeps oscillating. This stage
measures the oscillation's peak-to-peak amplitude against D (starts: :mod:`lsadyn.paper.offmanifold.plan`)

* at a fixed off-manifold density :math:`\propto 1 + \varepsilon\cos 2\xi` in ξ = 2θ (D = ε/4 for every
  n; stratified quantiles with a seeded phase), for several n: the amplitude depends on ε, not on n;
* for i.i.d. uniform angles (D ≈ 0.8/√n), which is why finite-n runs from random starts oscillate.
"""

from __future__ import annotations

import numpy as np

from ...api import integrate_oa, time_scale, token_r2_batch
from ...observers import oa_manifold_distance
from ...regimes.classify import RegimeTolerances, classify_r2_trajectory
from ...sampling import uniform_angles
from .plan import density_angles


def oscillation_runs(A, V, beta, thetas, horizon: float, n_samples: int, tol: RegimeTolerances | None = None,
                     rtol: float = 1e-8, atol: float = 1e-10) -> list[dict]:
    """Integrate populations of tokens (list of angle arrays, sizes may differ) and the OA ODE from each one's
    R₂(0) to ``horizon``·τ; per population the distance from the OA manifold, the peak-to-peak of |R₂| over
    the classifier's final window, and the labels. Tokens: :func:`lsadyn.api.token_r2_batch` (compiled DOP853,
    each population its own step, at ``rtol``/``atol``); OA: every population's OA ODE in one scipy system."""
    tol = tol or RegimeTolerances()
    A, V = np.asarray(A, float), np.asarray(V, float)
    tau = time_scale(A, V, beta)
    s = np.linspace(0, horizon, n_samples)
    z0 = [np.exp(2j * np.asarray(theta, float)) for theta in thetas]
    R_toks = token_r2_batch(A, V, beta * tau, z0, s, rtol=rtol, atol=atol)
    R_oas = integrate_oa(A, V, beta * tau, np.array([z.mean() for z in z0]), s).T
    start = int(np.floor((1 - tol.window) * s.size))
    out = []
    for theta, z, R_tok, R_oa in zip(thetas, z0, R_toks, R_oas):
        mod = np.abs(R_tok[start:])
        res = classify_r2_trajectory(s, R_tok, tol)
        res_oa = classify_r2_trajectory(s, R_oa, tol)
        out.append({"n": z.size, "oa_distance": oa_manifold_distance(theta), "amplitude": float(np.ptp(mod)),
                    "abs_R2_mean": float(mod.mean()), "abs_R2_oa": res_oa.abs_R2, "regime_tokens": res.regime,
                    "regime_oa": res_oa.regime, "period": float(res.period * tau),
                    "trace": {"t": s * tau, "R2_tokens": R_tok, "R2_oa": R_oa}})
    return out


def oscillation_run(A, V, beta, theta, horizon: float, n_samples: int, tol: RegimeTolerances | None = None,
                    rtol: float = 1e-8, atol: float = 1e-10) -> dict:
    """:func:`oscillation_runs` for one population (angles ``theta``)."""
    return oscillation_runs(A, V, beta, [theta], horizon, n_samples, tol, rtol, atol)[0]


def offmanifold_sweep(A, V, beta, eps_list, n_list, iid_seeds: int, horizon: float, n_samples: int, seed: int,
                      tol: RegimeTolerances | None = None) -> list[dict]:
    """Every (ε, n) of the fixed density and ``iid_seeds`` i.i.d. populations per n: one row dict each
    (with ``trace``: times and R₂ of tokens and OA, for the figure); all populations in one batch."""
    rng = np.random.default_rng(seed)
    labels, thetas = [], []
    for eps in eps_list:
        phase = float(rng.uniform(0, 2 * np.pi))
        for n in n_list:
            thetas.append(density_angles(eps, n, phase))
            labels.append({"start": "density", "eps": float(eps), "seed": seed})
    for n in n_list:
        for k in range(iid_seeds):
            sd = seed + 1 + k
            thetas.append(uniform_angles(n, sd))
            labels.append({"start": "iid", "eps": np.nan, "seed": sd})
    runs = oscillation_runs(A, V, beta, thetas, horizon, n_samples, tol)
    return [{**lab, **run} for lab, run in zip(labels, runs)]


