"""Glue: one job of USA-oscillation runs (lsadyn.paper.usa_oscillation.runs.run_job)."""

from lsadyn_workflow.io import setup_log, write_csv
from lsadyn_workflow.jobs import limit_threads

from lsadyn.paper.usa_oscillation.runs import run_job

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("usa_oscillation_runs", usa_job="0")
sm = snakemake
log = setup_log(sm.log[0])
limit_threads(sm.threads)
runs = list(sm.params.runs)
log.info("job %s: %d runs", sm.wildcards.usa_job, len(runs))
rows, series = run_job(runs, dict(sm.params.settings), progress=lambda i, k, r: log.info(
    "run %d of %d: n = %d, beta = %g, start %s: exit %s, final |Z1| %.3g (%.1f s)", i, k, r["n"], r["beta"],
    r["start"], f"{r['exit_time']:g}" if r["exit_time"] == r["exit_time"] else "none", r["final_abs_Z1"],
    r["seconds"]))
write_csv(rows, sm.output.rows)
write_csv(series, sm.output.series)
