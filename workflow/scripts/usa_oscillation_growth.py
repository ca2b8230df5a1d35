"""Glue: the linearised first-harmonic growth rates about the symmetric orbit (lsadyn.paper.usa_oscillation.runs)."""

from lsadyn_workflow.io import setup_log, write_csv
from lsadyn_workflow.jobs import limit_threads

from lsadyn.paper.usa_oscillation.runs import growth_table

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("usa_oscillation_growth")
sm = snakemake
log = setup_log(sm.log[0])
limit_threads(sm.threads)
settings = {"V": sm.params.V, "dt": sm.params.dt, "sample_every": sm.params.sample_every, "growth": sm.params.growth}
write_csv(growth_table(settings, log), sm.output[0])
