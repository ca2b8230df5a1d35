"""Glue: the claims table from the results tables."""

from pathlib import Path

import pandas as pd
from lsadyn_workflow.io import load_arrays, load_table, setup_log, write_csv

from lsadyn.paper.atlas.summary import claim_rows as atlas_claim_rows
from lsadyn.paper.claims import (
                                 claims_2d,
                                 claims_highdim,
                                 claims_offmanifold,
                                 claims_robustness,
                                 claims_stability,
                                 claims_table,
)
from lsadyn.paper.continuation.summary import claim_rows as continuation_claim_rows
from lsadyn.paper.exponents.summary import claim_rows as exponents_claim_rows
from lsadyn.paper.looped.summary import claim_rows as looped_claim_rows
from lsadyn.paper.persistence.summary import claim_rows as persistence_claim_rows
from lsadyn.paper.usa_oscillation.summary import claim_rows as usa_oscillation_claim_rows

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("claims_table")
sm = snakemake
log = setup_log(sm.log[0])
sims = {Path(p).stem: load_table(p, "sim", rows_like=q) for p, q in zip(sm.input.sims, sm.input.params)}
rows = claims_2d(sims, load_table(sm.input.bifurcation, "bifurcation_fit"), load_arrays(sm.input.orbits, "orbits"),
                 sm.params.n_tokens, sm.params.max_undetermined)
rows += claims_stability(load_table(sm.input.stability, "stability_run"), sm.params.eps_small)
rows += claims_offmanifold(load_table(sm.input.offmanifold))
highdim = load_table(sm.input.highdim, "highdim_run")
rows += claims_highdim(highdim)
rows += claims_robustness(load_table(sm.input.robustness, "robustness_run"))
persistence = load_table(sm.input.persistence, "persistence_run")
rows += persistence_claim_rows(persistence, sm.params.max_undetermined)
rows += continuation_claim_rows(load_table(sm.input.continuation, "continuation"), sm.params.continuation["planes"],
                                sm.params.beta, sims)
rows += usa_oscillation_claim_rows(load_table(sm.input.usa_oscillation, "usa_oscillation_run"),
                                   load_table(sm.input.usa_oscillation_growth, "usa_oscillation_growth"),
                                   sm.params.usa_exit_abs_z1)
# the atlas (C12): its tables and the d = 2 rows (where the limit cycles live)
atlas_d2 = pd.concat([load_table(p, "atlas_d2") for p in sm.input.atlas_d2], ignore_index=True)
rows += atlas_claim_rows(load_table(sm.input.atlas, "atlas"), load_table(sm.input.atlas_invariants, "atlas_invariants"),
                         load_table(sm.input.atlas_phase, "atlas_phase_table"), atlas_d2, sm.params.max_undetermined,
                         sm.params.atlas_r_threshold)
rows += exponents_claim_rows(load_table(sm.input.exponents, "exponents"), load_table(sm.input.floquet, "floquet"),
                             load_table(sm.input.basins, "basins"), load_table(sm.input.regimes, "regimes"),
                             sm.params.exponents_tol, highdim, persistence)
rows += looped_claim_rows(load_table(sm.input.looped, "looped"))
table = claims_table(rows)
log.info("claims: %d rows, %d passing", len(table), int((table["pass"] == True).sum()))  # noqa: E712
write_csv(table, sm.output[0])
