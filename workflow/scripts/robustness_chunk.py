"""Glue: one chunk of the robustness runs (perturbed and quantised weights) → a CSV."""

import lsadyn.paper.handoff  # noqa: F401 (local builds: the job goes on in a pre-started process)

# isort: split
from lsadyn.paper.io import setup_log, write_csv
from lsadyn.paper.jobs import blas_threads, limit_threads
from lsadyn.paper.robustness import chunk_of, run_chunk, run_plan

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
log.info("BLAS threads: %d from the job environment, %d in force (rule threads: %d)", blas_threads(),
         limit_threads(sm.threads), sm.threads)
run = sm.params.run
plan = run_plan(run["scenarios"], run["models"], run["grids"], batch_runs=run["batch_runs"])
part = chunk_of(plan, int(sm.wildcards.chunk), sm.params.n_chunks)
log.info("chunk %s: %d of %d runs, %d of %d batches", sm.wildcards.chunk, len(part), len(plan), part.batch.nunique(),
         plan.batch.nunique())
table = run_chunk(part, sm.params.scenarios, beta=run["beta"], horizon=run["horizon"], n_samples=run["n_samples"],
                  budget=run["budget_factor"], tol=sm.params.classifier, seed=sm.params.seed, rtol=run["rtol"],
                  atol=run["atol"], log=log)
write_csv(table, sm.output[0])
