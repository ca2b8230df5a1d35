"""Runs of the persistence stage (issue 12): the planned runs of one chunk (:mod:`lsadyn.paper.persistence.plan`)
integrated batch by batch with :func:`lsadyn.batch.regime_batch` and tabulated with the derived rotation
rate (:func:`lsadyn.paper.persistence.plan.plane_rotation_rate`) and, for runs that end in clusters, their
differential exponent measured from r(t) and predicted from the final cluster (:mod:`lsadyn.exponents.cluster`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...batch import batch_structure, regime_batch
from ...exponents.cluster import run_state_exponent
from ...fields.attention import attention
from ...sampling import uniform_sphere
from ..highdim.plan import embed_scenario, start_tokens
from .plan import plane_rotation_rate


def run_matrices(row, scenarios: dict):
    """(A, V) of one planned run: the embedded scenario, or N(0, 1/d) entries (``random`` study) drawn
    from ``default_rng((seed, d))``."""
    d = int(row["d"])
    if row["study"] == "random":
        rng = np.random.default_rng((int(row["seed"]), d))
        return rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d)
    sc = scenarios[row["scenario"]]
    return embed_scenario(sc["A"], sc["V"], d, sc["rest_A"], sc["rest_V"], sc.get("noise", 0.0), int(row["seed"]))


def run_chunk(runs: pd.DataFrame, scenarios: dict, *, n_samples: int, dt: float, budget: float, tol=None,
              progress=None) -> pd.DataFrame:
    """Integrate and decide the runs (rows of :func:`lsadyn.paper.persistence.plan.run_plan`), batch by batch;
    returns the rows with :data:`~lsadyn.paper.persistence.plan.RESULT_COLUMNS`; ``n_samples``: output times per
    horizon where the runs carry no ``n_samples`` column (the plan's column: a lengthened run keeps the sample
    spacing). Tokens: ``uniform_sphere(n, d, seed)`` (same seed, same tokens for every scenario and model), moved
    near the plane for a scenario with ``offplane`` (:func:`lsadyn.paper.highdim.plan.start_tokens`). The plan's batches that share model, d, n, horizon and samples (e.g. the β of the
    ``beta`` study) and the structure of A and V (:func:`lsadyn.batch.batch_structure`) are integrated as one
    batch: each run's numbers are those of its own batch, at less per-step overhead. ``progress(done, total)``
    after each integrated batch."""
    groups = {}  # integration key -> [(rows, A, V, X0)], in plan order
    labels = []  # the rows' order of the table: batch by batch, as before batches were integrated together
    for _, g in runs.groupby("batch", sort=False):
        labels.extend(g.index)
        AV = [run_matrices(r, scenarios) for _, r in g.iterrows()]
        A = np.stack([a for a, _ in AV])
        V = np.stack([v for _, v in AV])
        X0 = np.stack([start_tokens(uniform_sphere(int(r.n_tokens), int(r.d), int(r.seed)), scenarios.get(r.scenario, {}))
                       for r in g.itertuples()])  # uniform, or near the plane (scenario key offplane)
        first = g.iloc[0]
        samples = int(first.n_samples) if "n_samples" in g else n_samples  # a lengthened run keeps the spacing
        key = (first.model, int(first.d), int(first.n_tokens), float(first.horizon), samples,
               batch_structure(A, V))
        groups.setdefault(key, []).append((g, A, V, X0))
    recs = {}
    done = 0
    for (model, _, _, horizon, samples, _), parts in groups.items():
        g = pd.concat([p[0] for p in parts])
        A_all, V_all = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
        res = regime_batch(model, A_all, V_all, g.beta.to_numpy(), np.concatenate([p[3] for p in parts]),
                           horizon=horizon, n_samples=samples, dt=dt, tol=tol, budget=budget)
        for (i, r), b, A_i, V_i in zip(g.iterrows(), res, A_all, V_all):
            rec = r.to_dict()
            sc = scenarios.get(r.scenario)
            theory = (plane_rotation_rate(sc["A"], sc["V"], r.beta, r.model, b.cluster_shape, b.majority)
                      if sc is not None and b.result.regime == "cluster_rotate" else float("nan"))
            rate = abs(b.result.arg_R2_rate)  # d > 2: the unsigned angle swept by the leading axis
            rec.update(regime=b.result.regime, r_final=b.result.abs_R2, r_min=b.r_min, r_max=b.r_max,
                       r_mean=b.r_mean, rate=rate, period=b.result.period, cluster_shape=b.cluster_shape,
                       mean_token_norm=b.mean_token_norm, majority=b.majority, tau=b.tau,
                       budget_factor=b.result.details.get("budget_factor", np.nan), rate_theory=theory,
                       rate_rel_err=abs(rate / abs(theory) - 1) if np.isfinite(theory) and theory else np.nan,
                       r_change_last_quarter=b.r_change_last_quarter, contraction_exponent=b.contraction_exponent,
                       contraction_exponent_theory=run_state_exponent(
                           model, b.result.regime, b.X, attention(A_i, V_i, r.beta), b.tau, b.result.period),
                       certified=b.result.certified,
                       # the certificate (what was checked), or why the run has no label
                       checked=b.result.details.get("checked") or b.result.details.get("reason", ""))
            recs[i] = rec
        done += len(g)
        if progress is not None:
            progress(done, len(runs))
    return pd.DataFrame([recs[i] for i in labels])
