"""Glue: run one job of one part of the atlas (lsadyn.paper.atlas.plan.chunk_jobs) into its rows."""

from lsadyn_workflow.io import setup_log, write_csv
from lsadyn_workflow.jobs import limit_threads

from lsadyn.paper.atlas.runs import run_d2, run_phase, run_tokens

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("atlas_part", part="d2", chunk="0")
sm = snakemake
log = setup_log(sm.log[0])
limit_threads(sm.threads)
job = sm.params.job
run = {"d2": run_d2, "tokens": run_tokens, "phase": run_phase}[job["part"]]
table = run(job, progress=lambda what, n: log.info("done: %s (%d runs)", what, n))
log.info("%s job %s: %d rows", job["part"], sm.wildcards.chunk, len(table))
write_csv(table, sm.output[0])
