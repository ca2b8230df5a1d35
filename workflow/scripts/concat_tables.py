"""Glue: concatenate per-job tables (one per scenario or regime) into one results table."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("highdim_table")
sm = snakemake
log = setup_log(sm.log[0])
table = pd.concat([load_table(p, sm.params.kind, rows=sm.params.rows) for p in sm.input.tables], ignore_index=True)
log.info("%d runs", len(table))
write_csv(table, sm.output[0])
