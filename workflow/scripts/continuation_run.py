"""Glue: continue the planes of config continuation.planes into results/tables/continuation.csv."""

from lsadyn_workflow.io import setup_log, write_csv

from lsadyn.paper.continuation.plan import planes
from lsadyn.paper.continuation.runs import run_planes

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("continuation")
sm = snakemake
log = setup_log(sm.log[0])
table = run_planes(planes({"continuation": {"planes": sm.params.planes}}), sm.params.beta, sm.params.a,
                   sm.params.settings, log)
log.info("%d rows", len(table))
write_csv(table, sm.output[0])
