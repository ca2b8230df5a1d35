r"""Structural stability beyond the OA manifold (claim C6).

Initial token distributions near the uniform one but *off* the OA manifold (not wrapped Cauchy in
ξ = 2θ) are integrated as n-token systems and compared with the OA solution started from the
same R₂(0). Distance to uniform: ε = d_BL(μ₀, uniform) on the θ-circle (:mod:`lsadyn.bl`); distance
from the OA manifold: D (:func:`lsadyn.metrics.oa_manifold_distance`, in ξ = 2θ, conserved by the flow).

Every family leaves the OA manifold at first order in its strength: the OA family has moments
:math:`Z_k = Z_1^k` of ξ, and each family below makes :math:`Z_2 - Z_1^2` (or a higher
:math:`Z_k - Z_1^k`) of the order of the strength. (Odd θ-harmonics would not: they leave every
moment of ξ = 2θ unchanged.)

* ``harmonics``: density ∝ 1 + s Σ_{k=1..3} cos(2kθ + φ_k)/k (harmonics of ξ: Z_k = s e^{-iφ_k}/(2k)),
  stratified quantiles;
* ``von_mises``: mixture (1 − s)·uniform + s·von Mises(θ₀, κ = 4), stratified quantiles;
* ``clumps``: n tokens in m equal clumps on a rotated regular m-gon (m = strength), tiny jitter;
* ``random``: n i.i.d. uniform tokens (n = strength): ε ~ n^(−1/2).

Final-state discrepancy: mean over the classification window of |R₂^tokens(t) − R₂^OA(t)|.
"""

from __future__ import annotations

import numpy as np

from ..api import integrate_oa, time_scale, token_r2_batch
from ..bl import bl_distance_to_uniform
from ..metrics import oa_manifold_distance
from ..regimes import RegimeTolerances, classify_r2_trajectory

FAMILIES = ("harmonics", "von_mises", "clumps", "random")


def _inverse_cdf(density, n, offset=0.5):
    grid = np.linspace(0, 2 * np.pi, 20001)
    pdf = np.clip(density(grid), 0, None)
    cdf = np.concatenate([[0], np.cumsum((pdf[1:] + pdf[:-1]) / 2 * np.diff(grid))])
    cdf /= cdf[-1]
    return np.interp((np.arange(n) + offset) / n, cdf, grid)


def perturbed_angles(family: str, strength: float, n: int, seed: int) -> np.ndarray:
    """n initial angles of one perturbation family at one strength (see module doc)."""
    rng = np.random.default_rng(seed)
    if family == "harmonics":
        phases = rng.uniform(0, 2 * np.pi, 3)
        dens = lambda t: 1 + strength * sum(np.cos(2 * k * t + phases[k - 1]) / k for k in (1, 2, 3))  # noqa: E731
        return _inverse_cdf(dens, n, offset=rng.uniform())
    if family == "von_mises":
        mu = rng.uniform(0, 2 * np.pi)
        vm = lambda t: np.exp(4 * np.cos(t - mu)) / (2 * np.pi * np.i0(4))  # noqa: E731
        return _inverse_cdf(lambda t: (1 - strength) / (2 * np.pi) + strength * vm(t), n, offset=rng.uniform())
    if family == "clumps":
        m = int(strength)
        base = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(m) / m
        return base[np.arange(n) % m] + 1e-6 * rng.standard_normal(n)  # clump sizes differ by at most 1
    if family == "random":
        return rng.uniform(0, 2 * np.pi, int(strength))
    raise ValueError(f"family: unknown family {family!r}; choose one of {FAMILIES}")


def run_stability(A, V, beta, populations, horizon, n_samples, tol=None, rtol=1e-8, atol=1e-10):
    """Integrate each population (list of angle arrays, possibly of different sizes) as tokens at
    ``rtol``/``atol`` (:func:`lsadyn.api.token_r2_batch`: compiled DOP853, each population its own step) and
    the OA ODE from its R₂(0) (every population's OA ODE in one scipy DOP853 system at rtol 1e-10);
    returns one dict per population."""
    tol = tol or RegimeTolerances()
    tau = time_scale(np.asarray(A), np.asarray(V), beta)
    s = np.linspace(0, horizon, n_samples)
    z0 = [np.exp(2j * np.asarray(theta, dtype=float)) for theta in populations]
    R_tokens = token_r2_batch(A, V, beta * tau, z0, s, rtol=rtol, atol=atol)
    R0s = np.array([z.mean() for z in z0])
    R_oas = integrate_oa(A, V, beta * tau, R0s, s).T  # in s = t/τ: the field scaled by τ; one batch
    out = []
    for theta, R_p, R0, R_oa in zip(populations, R_tokens, R0s, R_oas):
        n = theta.size
        res_p = classify_r2_trajectory(s, R_p, tol)
        res_oa = classify_r2_trajectory(s, R_oa, tol)
        start = int((1 - tol.window) * s.size)
        out.append({
            "n": n, "eps": bl_distance_to_uniform(theta), "oa_distance": oa_manifold_distance(theta),
            "abs_R2_0": float(abs(R0)),
            "regime_tokens": res_p.regime, "regime_oa": res_oa.regime,
            "abs_R2_tokens": res_p.abs_R2, "abs_R2_oa": res_oa.abs_R2,
            "rate_tokens": res_p.arg_R2_rate / tau, "rate_oa": res_oa.arg_R2_rate / tau,
            "discrepancy": float(np.mean(np.abs(R_p[start:] - R_oa[start:]))),
            "amplitude_tokens": float(np.ptp(np.abs(R_p[start:]))),
        })
    return out


def stability_sweep(A, V, beta, strengths: dict, n_tokens: int, horizon: float, n_samples: int, seed: int):
    """Every family × strength for one (A, V): a list of row dicts (family, strength, seed, ...)."""
    labels, pops = [], []
    for k, family in enumerate(FAMILIES):
        for j, s in enumerate(strengths.get(family, [])):
            sd = seed + 1000 * k + j
            pops.append(perturbed_angles(family, s, n_tokens, sd))
            labels.append({"family": family, "strength": s, "seed": sd})
    results = run_stability(np.asarray(A, float), np.asarray(V, float), beta, pops, horizon, n_samples)
    return [{**lab, **res} for lab, res in zip(labels, results)]
