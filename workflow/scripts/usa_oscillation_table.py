"""Glue: the USA-oscillation jobs in one table, the growth rates beside the measured ones, the series in one file."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

from lsadyn.paper.usa_oscillation.runs import with_measured

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("usa_oscillation_table")
sm = snakemake
log = setup_log(sm.log[0])
table = pd.concat([load_table(p, "usa_oscillation_run") for p in sm.input.rows], ignore_index=True)
table = table.sort_values("run_id", kind="stable")
if len(table) != sm.params.n_runs or table.run_id.duplicated().any():
    raise ValueError(f"usa_oscillation: the jobs hold {len(table)} runs, the config plans {sm.params.n_runs}")
series = pd.concat([load_table(p, "usa_oscillation_series") for p in sm.input.series], ignore_index=True)
series = series.sort_values(["run_id", "t"], kind="stable")
growth = with_measured(load_table(sm.input.growth, "usa_oscillation_growth"), table)
log.info("%d runs, %d left the oscillation by t_max; growth rates at %d betas", len(table),
         int(table.exit_time.notna().sum()), len(growth))
write_csv(table, sm.output.table)
write_csv(growth, sm.output.growth)
write_csv(series, sm.output.series)
