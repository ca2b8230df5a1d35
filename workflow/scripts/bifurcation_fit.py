"""Glue: threshold bracket and square-root law of the saddle-node sweep."""

from lsadyn_workflow.io import load_table, setup_log, write_csv
from lsadyn.paper.cases2d.summary import bifurcation_summary

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("bifurcation_fit")
sm = snakemake
log = setup_log(sm.log[0])
summary = bifurcation_summary(load_table(sm.input.sim, "sim"), sm.params.s, sm.params.beta)
log.info("%s", summary.to_dict("records"))
write_csv(summary, sm.output[0])
