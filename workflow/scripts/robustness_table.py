"""Glue: the robustness chunks in one table, checked against the run plan (every run exactly once)."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

from lsadyn.paper.robustness_plan import run_plan  # the plan only: neither numba nor scipy

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("robustness_table")
sm = snakemake
log = setup_log(sm.log[0])
run = sm.params.run
plan = run_plan(run["scenarios"], run["models"], run["grids"])
table = pd.concat([load_table(p, "robustness_run", min_rows=0) for p in sm.input.tables], ignore_index=True)
table = table.sort_values("run", kind="stable").reset_index(drop=True)
if list(table.run) != list(plan.run):
    raise ValueError(f"{', '.join(sm.input.tables)}: the chunks hold {len(table)} runs, the plan {len(plan)}; "
                     "delete them and rerun")
log.info("%d runs", len(table))
write_csv(table, sm.output[0])
