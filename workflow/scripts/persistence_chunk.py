"""Glue: integrate and decide one chunk of the persistence run plan."""

from lsadyn_workflow.io import setup_log, write_csv
from lsadyn_workflow.job_params import param_frame
from lsadyn_workflow.jobs import limit_threads
from lsadyn.paper.persistence.runs import run_chunk

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("persistence_chunk", chunk="0")
sm = snakemake
log = setup_log(sm.log[0])
limit_threads(sm.threads)
job = sm.params.job  # this chunk's runs and what they read (lsadyn.paper.persistence.plan.chunk_jobs)
runs = param_frame(job["runs"], "params.job.runs")
log.info("chunk %s: %d runs (%s)", sm.wildcards.chunk, len(runs),
         ", ".join(f"{s} {m} d={d}" for (s, m, d), _ in runs.groupby(["study", "model", "d"], sort=False)))
table = run_chunk(runs, job["scenarios"], n_samples=job["n_samples"], dt=job["dt"], budget=job["budget_factor"],
                  progress=lambda done, total: log.info("progress: %d of %d runs", done, total))
write_csv(table, sm.output[0])
