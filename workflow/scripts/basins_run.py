"""Glue: basin fractions of the OA attractors at the multistable points of config exponents.basins
(results/tables/basins.csv)."""

from lsadyn_workflow.io import setup_log, write_csv

from lsadyn.paper.exponents.plan import basin_points
from lsadyn.paper.exponents.runs import basin_table

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("basins")
sm = snakemake
log = setup_log(sm.log[0])
table = basin_table(basin_points({"exponents": {"basins": sm.params.basins}}), sm.params.beta, sm.params.basins)
log.info("%d basin rows over %d points", len(table), table["point"].nunique())
write_csv(table, sm.output[0])
