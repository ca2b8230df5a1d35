"""Runs of the atlas stage: one job's entry of :func:`lsadyn.paper.atlas.plan.chunk_jobs` into rows, one per run.

* :func:`run_d2`: the OA regime (:func:`lsadyn.predict_regime_batch`, the compiled batch) of each weight pair of the
  job's slices (``failed``: the integrator failed on it, labelled ``undetermined``), with its invariants tr A, det A, disc A, tr V, det V, disc V (disc M = (tr M)² − 4 det M);
* :func:`run_tokens`: the decided regime of each token run (:func:`lsadyn.batch.regime_batch`), one batch per group;
* :func:`run_phase`: per run and layer time, r(t) and the fraction of clustered pairs
  (:func:`lsadyn.phase_diagram.clustering_over_time`), every β of a group in one stack.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...api import oa_start_points, predict_regime_batch
from ...batch import regime_batch
from ...ensembles import weight_pairs
from ...phase_diagram import clustering_over_time
from ...regimes.classify import RegimeResult
from ...sampling import uniform_sphere
from .plan import phase_times

D2_COLUMNS = ["ensemble", "sample", "trA", "detA", "discA", "trV", "detV", "discV", "regime", "certified",
              "abs_R2", "budget_factor", "failed"]
#: d = 2 samples per call of predict_regime_batch (results do not depend on it: every point is integrated alone)
D2_BATCH = 2000
TOKEN_COLUMNS = ["ensemble", "model", "d", "n_tokens", "sample", "beta", "regime", "certified", "settled",
                 "cluster_shape", "budget_factor"]
PHASE_COLUMNS = ["ensemble", "model", "d", "n_tokens", "beta", "run", "t", "r", "pairs"]


def invariants(M) -> dict:
    """tr, det and disc = tr² − 4 det of a stack of 2 × 2 matrices (N, 2, 2)."""
    tr = M[:, 0, 0] + M[:, 1, 1]
    det = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    return {"tr": tr, "det": det, "disc": tr * tr - 4 * det}


def _oa_regimes(A, V, job, starts):
    """(results, failed) of predict_regime_batch over A, V in batches of :data:`D2_BATCH`. A batch whose
    integration fails (the compiled integrator's FloatingPointError) is redone point by point; a point that fails
    alone is labelled ``undetermined`` with ``failed`` True (counted, never guessed)."""
    kw = {"horizon": float(job["horizon"]), "n_samples": int(job["n_times"]), "starts": starts,
          "budget": float(job["budget_factor"])}
    beta = float(job["beta"])
    res, failed = [], []
    for lo in range(0, len(A), D2_BATCH):
        a, v = A[lo:lo + D2_BATCH], V[lo:lo + D2_BATCH]
        try:
            res += predict_regime_batch(a, v, beta, **kw)
            failed += [False] * len(a)
            continue
        except FloatingPointError:
            pass
        for i in range(len(a)):
            try:
                res += predict_regime_batch(a[i:i + 1], v[i:i + 1], beta, **kw)
                failed.append(False)
            except FloatingPointError as err:
                res.append(RegimeResult("undetermined", np.nan, np.nan, np.nan, "oa", {"error": str(err)}))
                failed.append(True)
    return res, failed


def run_d2(job: dict, progress=None) -> pd.DataFrame:
    """Rows :data:`D2_COLUMNS` of the job's slices (sample = index in the ensemble's whole draw)."""
    parts = []
    starts = oa_start_points(count=int(job["n_starts"]))
    for sl in job["slices"]:
        A, V = weight_pairs(sl["ensemble"], 2, int(sl["n_total"]), tuple(sl["seed"]))
        a, b = int(sl["start"]), int(sl["stop"])
        A, V = A[a:b], V[a:b]
        res, failed = _oa_regimes(A, V, job, starts)
        ia, iv = invariants(A), invariants(V)
        parts.append(pd.DataFrame({
            "ensemble": sl["ensemble"], "sample": np.arange(a, b), "trA": ia["tr"], "detA": ia["det"],
            "discA": ia["disc"], "trV": iv["tr"], "detV": iv["det"], "discV": iv["disc"],
            "regime": [r.regime for r in res], "certified": [r.certified for r in res], "abs_R2": [r.abs_R2 for r in res],
            "budget_factor": [r.details.get("budget_factor", np.nan) for r in res], "failed": failed}))
        if progress is not None:
            progress(sl["ensemble"], b - a)
    return pd.concat(parts, ignore_index=True)[D2_COLUMNS]


def run_tokens(job: dict, progress=None) -> pd.DataFrame:
    """Rows :data:`TOKEN_COLUMNS` of the job's groups; run k of a group starts from
    ``uniform_sphere(n, d, token_seed + k)``."""
    rows = []
    n = int(job["n_tokens"])
    for g in job["groups"]:
        d, m = int(g["d"]), int(g["n_samples"])
        A, V = weight_pairs(g["ensemble"], d, m, tuple(g["seed"]))
        X0 = np.stack([uniform_sphere(n, d, int(g["token_seed"]) + k) for k in range(m)])
        res = regime_batch(g["model"], A, V, float(job["beta"]), X0, horizon=float(job["horizon"]),
                           n_samples=int(job["n_times"]), dt=float(job["dt"]), budget=float(job["budget_factor"]))
        for k, b in enumerate(res):
            rows.append((g["ensemble"], g["model"], d, n, k, float(job["beta"]), b.result.regime, b.result.certified,
                         bool(b.settled),
                         b.cluster_shape, b.result.details.get("budget_factor", np.nan)))
        if progress is not None:
            progress(g, m)
    return pd.DataFrame(rows, columns=TOKEN_COLUMNS)


def run_phase(job: dict, progress=None) -> pd.DataFrame:
    """Rows :data:`PHASE_COLUMNS` (one per run, β and layer time) of the job's groups: run k at every β shares its
    weight pair k and its start ``uniform_sphere(n, d, token_seed + k)``."""
    n = int(job["n_tokens"])
    betas = np.asarray(job["beta"], dtype=float)
    times = phase_times(job)
    parts = []
    for g in job["groups"]:
        d, m = int(g["d"]), int(g["n_runs"])
        A, V = weight_pairs(g["ensemble"], d, m, tuple(g["seed"]))
        X0 = np.stack([uniform_sphere(n, d, int(g["token_seed"]) + k) for k in range(m)])
        nb = betas.size
        # member (i, k): β_i, pair k
        r, pairs = clustering_over_time(g["model"], np.tile(A, (nb, 1, 1)), np.tile(V, (nb, 1, 1)),
                                        np.repeat(betas, m), np.tile(X0, (nb, 1, 1)), times, float(job["dt"]),
                                        float(job["pair_eps"]))
        T = times.size
        parts.append(pd.DataFrame({
            "ensemble": g["ensemble"], "model": g["model"], "d": d, "n_tokens": n,
            "beta": np.repeat(np.repeat(betas, m), T), "run": np.tile(np.repeat(np.arange(m), T), nb),
            "t": np.tile(times, nb * m), "r": r.ravel(), "pairs": pairs.ravel()}))
        if progress is not None:
            progress(g, m * nb)
    return pd.concat(parts, ignore_index=True)[PHASE_COLUMNS]
