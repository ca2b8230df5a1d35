r"""Runs of the structural-stability stage (claim C6): beyond the OA manifold.

Initial token distributions near the uniform one but *off* the OA manifold (not wrapped Cauchy in
ξ = 2θ) are integrated as n-token systems and compared with the OA solution started from the
same R₂(0). Distance to uniform: ε = d_BL(μ₀, uniform) on the θ-circle (:mod:`lsadyn.distances`); distance
from the OA manifold: D (:func:`lsadyn.observers.oa_manifold_distance`, in ξ = 2θ, conserved by the flow).

The families of starts are those of :mod:`lsadyn.paper.stability.plan`. Final-state discrepancy: mean over the
classification window of |R₂^tokens(t) − R₂^OA(t)|.
"""

from __future__ import annotations

import numpy as np

from ...api import integrate_oa, time_scale, token_r2_batch
from ...distances import bl_distance_to_uniform
from ...observers import oa_manifold_distance
from ...regimes.classify import RegimeTolerances, classify_r2_trajectory
from .plan import FAMILIES, perturbed_angles


def run_stability(A, V, beta, populations, horizon, n_samples, tol=None, rtol=1e-8, atol=1e-10, certify=True):
    """Integrate each population (list of angle arrays, possibly of different sizes) as tokens at
    ``rtol``/``atol`` (:func:`lsadyn.api.token_r2_batch`: compiled DOP853, each population its own step) and
    the OA ODE from its R₂(0) (every population's OA ODE in one scipy DOP853 system at rtol 1e-10);
    returns one dict per population. ``certify`` (default): both labels are certified at the horizon on the last
    window (the OA state by :class:`lsadyn.regimes.certify.OACertifier`, the tokens by
    :class:`lsadyn.regimes.tokens.TokenCertifier` from their final state), else ``undetermined`` with the reason
    (columns ``checked_tokens``, ``checked_oa``); ``certify=False``: the window classifier."""
    from ...regimes.certify import OACertifier, certified_result
    from ...regimes.tokens import doubled_phase_classifier

    tol = tol or RegimeTolerances()
    A, V = np.asarray(A, float), np.asarray(V, float)
    tau = time_scale(A, V, beta)
    s = np.linspace(0, horizon, n_samples)
    z0 = [np.exp(2j * np.asarray(theta, dtype=float)) for theta in populations]
    R_tokens, z_end = token_r2_batch(A, V, beta * tau, z0, s, rtol=rtol, atol=atol, states=True)
    R0s = np.array([z.mean() for z in z0])
    R_oas = integrate_oa(A, V, beta * tau, R0s, s).T  # in s = t/τ: the field scaled by τ; one batch
    start = int((1 - tol.window) * s.size)
    oa_certifier = OACertifier(A, V, beta) if certify else None
    out = []
    for theta, R_p, R0, R_oa, zp, zz in zip(populations, R_tokens, R0s, R_oas, z0, z_end):
        n = theta.size
        if certify:
            t = s[start:] * tau
            res_oa = certified_result(*oa_certifier.check(t, R_oa[start:]), t, R_oa[start:])
            res_p = doubled_phase_classifier(lambda i: zz, A[None], V[None], np.array([float(beta)]), np.array([tau]),
                                             zp, horizon, rtol, atol, "tokens")(0, s[start:], R_p[start:])
            res_oa.arg_R2_rate *= tau  # back to the rates per unit s, as the window rule reports them (below)
            res_p.arg_R2_rate *= tau
        else:
            res_p = classify_r2_trajectory(s, R_p, tol)
            res_oa = classify_r2_trajectory(s, R_oa, tol)
        out.append({
            "n": n, "eps": bl_distance_to_uniform(theta), "oa_distance": oa_manifold_distance(theta),
            "abs_R2_0": float(abs(R0)),
            "regime_tokens": res_p.regime, "regime_oa": res_oa.regime,
            "certified_tokens": res_p.certified, "certified_oa": res_oa.certified,
            "abs_R2_tokens": res_p.abs_R2, "abs_R2_oa": res_oa.abs_R2,
            "rate_tokens": res_p.arg_R2_rate / tau, "rate_oa": res_oa.arg_R2_rate / tau,
            "discrepancy": float(np.mean(np.abs(R_p[start:] - R_oa[start:]))),
            "amplitude_tokens": float(np.ptp(np.abs(R_p[start:]))),
            "checked_tokens": res_p.details.get("checked") or res_p.details.get("reason", ""),
            "checked_oa": res_oa.details.get("checked") or res_oa.details.get("reason", ""),
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
