"""Glue: the token runs' Lyapunov exponents (results/tables/exponents.csv) and the rotating clusters' Floquet
exponents (results/tables/floquet.csv) of config exponents."""

from lsadyn_workflow.io import setup_log, write_csv

from lsadyn.paper.exponents.plan import floquet_points, runs, scenarios
from lsadyn.paper.exponents.runs import floquet_table, run_token_table
from lsadyn.solvers.integrate import one_blas_thread

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("exponents")
sm = snakemake
log = setup_log(sm.log[0])
cfg = {"exponents": sm.params.exponents}
with one_blas_thread():  # small matrices: one thread (the rule has one)
    tokens = run_token_table(runs(cfg), scenarios(cfg), sm.params.beta, sm.params.exponents, log)
floquet = floquet_table(floquet_points(cfg), sm.params.beta)
log.info("%d token runs, %d Floquet points", len(tokens), len(floquet))
write_csv(tokens, sm.output.exponents)
write_csv(floquet, sm.output.floquet)
