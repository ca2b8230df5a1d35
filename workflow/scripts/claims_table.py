"""Glue: the claims table from the results tables."""

from pathlib import Path

import numpy as np

from lsadyn.paper.claims import claims_2d, claims_highdim, claims_offmanifold, claims_stability, claims_table
from lsadyn.paper.io import read_csv, setup_log, write_csv

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
sims = {Path(p).stem: read_csv(p) for p in sm.input.sims}
rows = claims_2d(sims, read_csv(sm.input.bifurcation), dict(np.load(sm.input.orbits)), sm.params.n_tokens,
                 sm.params.max_undetermined)
rows += claims_stability(read_csv(sm.input.stability), sm.params.eps_small)
rows += claims_offmanifold(read_csv(sm.input.offmanifold))
rows += claims_highdim(read_csv(sm.input.highdim))
table = claims_table(rows)
log.info("claims: %d rows, %d passing", len(table), int((table["pass"] == True).sum()))  # noqa: E712
write_csv(table, sm.output[0])
