"""Glue: merge the classified points, tabulate agreement of the three methods and list disagreements."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv

from lsadyn.paper.cases2d.runs import oa_exponents
from lsadyn.paper.cases2d.summary import agreement_table

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("regimes_table")
sm = snakemake
log = setup_log(sm.log[0])
sim = pd.concat([load_table(p, "sim", rows_like=q) for p, q in zip(sm.input.sims, sm.input.params)], ignore_index=True)
summary, disagreements = agreement_table(sim, sm.params.n_tokens)
sim["exponent_oa"] = oa_exponents(sim)  # the OA attractor's leading exponent (lsadyn.exponents), the last column
log.info("leading exponents: %d of %d rows", int(sim["exponent_oa"].notna().sum()), len(sim))
log.info("%d points, %d disagreements", len(sim), len(disagreements))
write_csv(sim, sm.output.regimes)
write_csv(summary, sm.output.agreement)
write_csv(disagreements, sm.output.disagreements)
