"""Glue: one chunk of the robustness runs (perturbed and quantised weights) → a CSV."""

from lsadyn_workflow.io import setup_log, write_csv
from lsadyn_workflow.job_params import param_frame
from lsadyn_workflow.jobs import blas_threads, limit_threads
from lsadyn.paper.robustness.runs import run_chunk

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("robustness_chunk", chunk="0")
sm = snakemake
log = setup_log(sm.log[0])
log.info("BLAS threads: %d from the job environment, %d in force (rule threads: %d)", blas_threads(),
         limit_threads(sm.threads), sm.threads)
job = sm.params.job  # this chunk's runs and what they read (lsadyn.paper.robustness.plan.chunk_jobs)
part = param_frame(job["runs"], "params.job.runs")
log.info("chunk %s: %d runs, %d batches", sm.wildcards.chunk, len(part), part.batch.nunique())
table = run_chunk(part, job["scenarios"], beta=job["beta"], horizon=job["horizon"], n_samples=job["n_samples"],
                  budget=job["budget_factor"], tol=sm.params.classifier, seed=sm.params.seed, rtol=job["rtol"],
                  atol=job["atol"], log=log)
write_csv(table, sm.output[0])
