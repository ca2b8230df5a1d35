"""The run plan of the robustness study (claim C8, :mod:`lsadyn.paper.robustness.runs`): its runs, their batches, and
how the batches are dealt to the pipeline's chunks. Imported when the Snakefile is parsed (rule robustness_chunk's
params: :func:`chunk_jobs`), so it needs no integrator: numpy and pandas only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..chunks import chunk_entry


def _check_bits(bits) -> int:
    b = int(bits)
    if b != bits or b < 2 or b > 52:
        raise ValueError(f"bits: must be an integer in [2, 52], got {bits!r}")
    return b


def run_plan(scenarios, models, grids, batch_runs: int = 32) -> pd.DataFrame:
    """One row per run. ``grids``: one dict per dimension, ``{d, n_tokens, deltas, n_seeds, bits}``. For
    every (scenario, grid, model): one unperturbed run (kind ``none``), ``n_seeds`` perturbed runs per δ
    (``perturb``), one run per b (``quantise``). Columns: run (0, 1, …), batch, scenario, d, n_tokens, model, kind,
    delta, perturb_seed (−1 if none), bits (0 if none); ordered by (scenario, d, model).

    ``batch``: the runs integrated together
    (:func:`~lsadyn.paper.robustness.runs.run_chunk`; for d > 2 and USA one DOP853
    system with a shared step, so a run's numbers depend on its batch): consecutive runs of one (scenario, d,
    model), ``batch_runs`` at most. Fixed by the plan alone, so the results never depend on how the batches are
    split into jobs (:func:`chunk_of`)."""
    if not (isinstance(batch_runs, (int, np.integer)) and batch_runs >= 1):
        raise ValueError(f"robustness.batch_runs: must be an integer >= 1, got {batch_runs!r}")
    rows = []
    batch = -1
    for sc in scenarios:
        for grid in grids:
            d = int(grid["d"])
            for model in models:
                base = dict(scenario=sc, d=d, n_tokens=int(grid["n_tokens"]), model=model)
                group = [dict(base, kind="none", delta=0.0, perturb_seed=-1, bits=0)]
                for delta in grid["deltas"]:
                    for k in range(int(grid["n_seeds"])):
                        group.append(dict(base, kind="perturb", delta=float(delta), perturb_seed=k, bits=0))
                for b in grid["bits"]:
                    group.append(dict(base, kind="quantise", delta=0.0, perturb_seed=-1, bits=_check_bits(b)))
                for i, r in enumerate(group):
                    batch += i % batch_runs == 0
                    rows.append(dict(r, batch=batch))
    plan = pd.DataFrame(rows, columns=["batch", "scenario", "d", "n_tokens", "model", "kind", "delta", "perturb_seed",
                                       "bits"])
    plan.insert(0, "run", np.arange(len(plan)))
    return plan


def batch_cost(d: int, n_tokens: int, model: str, runs: int) -> float:
    """A rough relative cost of a batch, only to balance jobs (:func:`chunk_of`): runs × n² d for the sphere runs
    (the field's products), runs × n for d = 2 LSA (compiled phase points)."""
    return float(runs * n_tokens) if (d == 2 and model == "lsa") else float(runs * n_tokens * n_tokens * d)


def batch_chunks(plan: pd.DataFrame, n_chunks: int) -> pd.Series:
    """The chunk (0-based, of ``n_chunks``) of every batch (column ``batch`` of :func:`run_plan`), indexed by batch:
    whole batches, so a run's numbers do not depend on ``n_chunks``; dealt by :func:`batch_cost`, costliest first,
    each to the chunk with the least cost so far (ties: the lower chunk). Chunks beyond the number of batches get
    none."""
    first = plan.groupby("batch", sort=True).agg(d=("d", "first"), n=("n_tokens", "first"), model=("model", "first"),
                                                 runs=("run", "size"))
    cost = [batch_cost(int(r.d), int(r.n), r.model, int(r.runs)) for r in first.itertuples()]
    load = np.zeros(n_chunks)
    chunk = np.empty(len(first), dtype=int)
    for i in sorted(range(len(first)), key=lambda i: -cost[i]):  # stable: equal costs keep the plan's order
        chunk[i] = int(np.argmin(load))
        load[chunk[i]] += cost[i]
    return pd.Series(chunk, index=first.index, name="chunk")


def chunk_of(plan: pd.DataFrame, chunk: int, n_chunks: int) -> pd.DataFrame:
    """Runs of chunk ``chunk`` (0-based) of ``n_chunks``: the batches :func:`batch_chunks` deals to it."""
    if not 0 <= chunk < n_chunks:
        raise ValueError(f"chunk: must be in [0, {n_chunks}), got {chunk}")
    return plan[plan.batch.map(batch_chunks(plan, n_chunks)) == chunk]


#: The keys of a scenario that a run reads (:func:`base_weights`, the margin and the expectation).
RUN_SCENARIO_KEYS = ("A", "V", "rest_A", "rest_V", "expect")
#: The keys of config ``robustness`` that every run reads (:func:`run_chunk`'s settings).
RUN_SETTINGS = ("beta", "horizon", "n_samples", "budget_factor", "rtol", "atol")


def chunk_jobs(run: dict, scenarios: dict, n_chunks: int) -> list:
    """What each of the ``n_chunks`` chunks (pipeline jobs) reads, one dict per chunk
    (:func:`lsadyn.paper.chunks.chunk_entry`): ``runs`` (its rows of :func:`run_plan`, a DataFrame, which the
    workflow's ``chunk_params`` turns into plain values), ``scenarios`` (:data:`RUN_SCENARIO_KEYS` of the scenarios
    of its runs) and the settings :data:`RUN_SETTINGS` of config
    ``robustness`` (``run``). Rule robustness_chunk passes a chunk its entry as params, so a config edit reruns
    exactly the chunks whose runs it changes (a scenario's V: the chunks that hold its batches)."""
    plan = run_plan(run["scenarios"], run["models"], run["grids"], batch_runs=run["batch_runs"])
    chunk = plan.batch.map(batch_chunks(plan, n_chunks))
    settings = {k: run[k] for k in RUN_SETTINGS}
    return [chunk_entry(plan[chunk == c], scenarios, RUN_SCENARIO_KEYS, settings) for c in range(n_chunks)]
