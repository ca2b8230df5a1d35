"""Glue: the atlas tables from the rows of its jobs."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

from lsadyn.paper.atlas.summary import atlas_table, invariant_table, phase_table

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("atlas_table")
sm = snakemake
log = setup_log(sm.log[0])
rows = {part: pd.concat([load_table(p, f"atlas_{part}", min_rows=0) for p in getattr(sm.input, part)],
                        ignore_index=True) for part in ("d2", "tokens", "phase")}
atlas = atlas_table(rows["d2"], rows["tokens"], sm.params.beta)
log.info("atlas: %d rows from %d d = 2 samples and %d token runs", len(atlas), len(rows["d2"]), len(rows["tokens"]))
write_csv(atlas, sm.output.atlas)
write_csv(invariant_table(rows["d2"], sm.params.bins), sm.output.invariants)
write_csv(phase_table(rows["phase"], sm.params.r_threshold), sm.output.phase)
