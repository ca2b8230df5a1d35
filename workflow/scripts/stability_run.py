"""Glue: the perturbation sweep of one (A, V) against the OA prediction."""

import pandas as pd
from lsadyn_workflow.io import setup_log, write_csv

from lsadyn.paper.stability.runs import stability_sweep

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("stability_run", regime="interior")
sm = snakemake
log = setup_log(sm.log[0])
reg, run = sm.params.regime, sm.params.run
rows = stability_sweep(reg["A"], reg["V"], sm.params.beta, run["strengths"], run["n_tokens"], run["horizon"],
                       run["n_samples"], sm.params.seed)
df = pd.DataFrame(rows)
df.insert(0, "regime", sm.wildcards.regime)
df.insert(1, "hypothesis", reg["hypothesis"])
df.insert(2, "statement", reg["statement"])
log.info("%d runs; labels differ in %d", len(df), int((df.regime_tokens != df.regime_oa).sum()))
write_csv(df, sm.output[0])
