"""Glue: concatenate per-job tables (one per scenario or regime) into one results table."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("highdim_table")
sm = snakemake
log = setup_log(sm.log[0])
rows = sm.params.rows if isinstance(sm.params.rows, list) else [sm.params.rows] * len(sm.input.tables)  # per table
table = pd.concat([load_table(p, sm.params.kind, rows=r) for p, r in zip(sm.input.tables, rows, strict=True)],
                  ignore_index=True)
log.info("%d runs", len(table))
write_csv(table, sm.output[0])
