"""Glue: OA orbits of case 4 (an oscillating and a converging V) with the conserved H."""

import numpy as np
from lsadyn_workflow.io import setup_log, write_npz

from lsadyn.paper.cases2d.runs import case4_orbits

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("case4_orbits")
sm = snakemake
log = setup_log(sm.log[0])
c = sm.params.case4
starts = np.array([0.05, 0.2, 0.35, 0.5, 0.65]) * 1j - 0.1
osc = case4_orbits(c["orbit_v11"], c["orbit_v12"], starts, c["orbit_horizon"], 3000)
conv = case4_orbits(c["converge_v11"], c["converge_v12"], starts, c["orbit_horizon"], 3000)
log.info("max relative drift of H along the oscillating orbits: %.3g", osc["H_rel_drift"].max())
write_npz(sm.output[0], t=osc["t"], R2=osc["R2"], H=osc["H"], H_rel_drift=osc["H_rel_drift"],
          R2_converge=conv["R2"], v=np.array([c["orbit_v11"], c["orbit_v12"], c["converge_v11"], c["converge_v12"]]))
