"""Glue: representative OA and token trajectories, one per regime found in an experiment."""

import lsadyn.paper.handoff  # noqa: F401 (local builds: the job goes on in a pre-started process)

# isort: split
from lsadyn_workflow.io import load_table, setup_log, write_npz

from lsadyn.paper.study import representative_trajectories

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("trajectories_2d", case="case1")
sm = snakemake
log = setup_log(sm.log[0])
sim = load_table(sm.input.sim, "sim")
arrays = representative_trajectories(sim, sm.params.trajectories, sm.params.seed)
log.info("representatives: %s", list(arrays["regime"]))
write_npz(sm.output[0], **arrays)
