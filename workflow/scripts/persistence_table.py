"""Glue: the persistence chunks in one table, each checked against the run plan of the config."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

from lsadyn.paper.persistence.plan import chunk_ids, run_plan

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("persistence_table")
sm = snakemake
log = setup_log(sm.log[0])
cfg = sm.params.persistence
ids = chunk_ids(run_plan(cfg, sm.params.scenarios, sm.params.seed), cfg["chunk_size"])  # the plan once, not per chunk
parts = [load_table(path, "persistence_run", rows=int((ids == i).sum())) for i, path in enumerate(sm.input.chunks)]
table = pd.concat(parts, ignore_index=True).sort_values("run_id", kind="stable")
log.info("%d runs; regimes: %s", len(table), table.regime.value_counts().to_dict())
write_csv(table, sm.output[0])
