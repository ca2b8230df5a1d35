"""Glue: the parameter points of one d = 2 experiment (results/params/{case}.csv), every point classified by
OA, WS and particles (results/sim/{case}.csv), then representative OA and token trajectories, one per regime
found (results/sim/{case}_traj.npz)."""

from lsadyn_workflow.io import load_table, setup_log, write_csv, write_npz
from lsadyn_workflow.jobs import limit_threads
from lsadyn.paper.cases2d.plan import build_case
from lsadyn.paper.cases2d.runs import classify_points, representative_trajectories

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("simulate_2d", case="case1")
sm = snakemake
log = setup_log(sm.log[0])
# the d = 2 kernels are single-threaded numba; this keeps numpy/BLAS to the rule's threads as well
log.info("BLAS threads: %d (rule threads: %d)", limit_threads(sm.threads), sm.threads)
points = build_case(sm.wildcards.case, sm.params.case_config, sm.params.params_seed, sm.params.beta)
log.info("%s: %d parameter points", sm.wildcards.case, len(points))
write_csv(points, sm.output.params)
df = load_table(sm.output.params, "params")  # the points as every later reader sees them (written and read back)
out = classify_points(df, sm.params.oa, sm.params.agreement, sm.params.classifier, sm.params.seed)
log.info("regimes (OA): %s", out.regime_oa.value_counts().to_dict())
write_csv(out, sm.output.sim)
sim = load_table(sm.output.sim, "sim")  # the table as written, as the figures read it
arrays = representative_trajectories(sim, sm.params.trajectories, sm.params.traj_seed)
log.info("representatives: %s", list(arrays["regime"]))
write_npz(sm.output.traj, **arrays)
