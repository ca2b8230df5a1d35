"""Glue: one high-dimensional scenario for every model (or the scenario's ``models``), each run with its convergence
check (the same run at tolerances tighter by ``check_tighten``); for the limit-cycle scenarios also the plane's
transverse exponent along the d = 2 orbit from the run's own plane angles (lsadyn.paper.highdim.transverse)."""

import numpy as np
import pandas as pd
from lsadyn_workflow.io import setup_log, write_csv, write_npz
from lsadyn_workflow.jobs import blas_threads, limit_threads

from lsadyn.api import time_scale
from lsadyn.observers import r_change_last_quarter
from lsadyn.paper.highdim.plan import embed_scenario, run_horizon, samples_for
from lsadyn.paper.highdim.runs import checked_run, end_shape
from lsadyn.paper.highdim.transverse import transverse_exponent
from lsadyn.paper.persistence.plan import LIMIT_CYCLE
from lsadyn.sampling import uniform_sphere

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("highdim_run", scenario="identity")
sm = snakemake
log = setup_log(sm.log[0])
log.info("BLAS threads: %d from the job environment, %d in force (rule threads: %d)", blas_threads(),
         limit_threads(sm.threads), sm.threads)
sc, run = sm.params.scenario, sm.params.run
A, V = embed_scenario(sc["A"], sc["V"], run["d"], sc["rest_A"], sc["rest_V"], sc["noise"], sm.params.seed)
rtol_check = run["rtol"] / run["check_tighten"]
rows, arrays = [], {}
for model in sc.get("models") or run["models"]:
    horizon = run_horizon(sc, model)  # settle_horizon[model] where r(t) needs longer than horizon to settle
    n_samples = samples_for(horizon, sc["horizon"], run["n_samples"])  # n_samples' spacing over the longer run
    res, check, ok = checked_run(A, V, run["beta"], model, n=run["n_tokens"], seed=sm.params.seed,
                                 horizon=horizon, n_samples=n_samples, rtol=run["rtol"],
                                 atol=run["atol"], check_tighten=run["check_tighten"],
                                 n_snapshots=run["n_snapshots"], offplane=sc.get("offplane"))
    log.info("%s %s: %s over %g tau (%d samples; rtol %.3g, %d steps, %.1f s); check at rtol %.3g: %s (%d steps, "
             "%.1f s), agree: %s", sm.wildcards.scenario, model, res["regime"], horizon, n_samples, res["rtol"],
             res["n_steps"], res["seconds"], check["rtol"], check["regime"], check["n_steps"], check["seconds"], ok)
    change = r_change_last_quarter(res["r"])
    lam = float("nan")  # per tau: the plane's transverse exponent along the d = 2 orbit of the run's plane angles
    if sm.wildcards.scenario in LIMIT_CYCLE and run["d"] > 2 and not sc["noise"]:
        X0 = uniform_sphere(run["n_tokens"], run["d"], sm.params.seed)  # the run's start (near_plane keeps angles)
        tau = time_scale(A, V, run["beta"])
        lam = tau * transverse_exponent(np.arctan2(X0[:, 1], X0[:, 0]), sc["A"], sc["V"], sc["rest_V"], run["beta"],
                                        model, t_burn=horizon * tau / 2, t_avg=horizon * tau / 2)
        log.info("%s %s: transverse exponent of the plane %+.4f per tau", sm.wildcards.scenario, model, lam)
    rows.append({"scenario": sm.wildcards.scenario, "model": model, "d": run["d"], "n_tokens": run["n_tokens"],
                 "horizon": horizon, "expect": sc["expect"], "regime": res["regime"],
                 "certified": res["certified"], "r_final": res["r_final"],
                 "drift_rate": res["drift_rate"], "period": res["period"],
                 "mean_token_norm": res["mean_token_norm"],
                 "cluster_shape": end_shape(res["regime"], res["cluster_shape"]),  # "" for an undetermined run
                 "rtol": run["rtol"], "rtol_check": rtol_check, "regime_check": check["regime"],
                 "certified_check": check["certified"],
                 "r_final_check": check["r_final"], "drift_rate_check": check["drift_rate"],
                 "check_ok": ok, "r_change_last_quarter": change, "offplane_start": res["offplane_start"],
                 "offplane_final": res["offplane_final"], "transverse_rate": lam,
                 "contraction_exponent": res["contraction_exponent"],
                 "contraction_exponent_theory": res["contraction_exponent_theory"], "note": res["reason"]})
    for key in ("t", "r", "swept_angle", "snapshot_times", "histograms", "bin_edges"):
        arrays[f"{model}_{key}"] = np.asarray(res[key])
write_csv(pd.DataFrame(rows), sm.output.table)
write_npz(sm.output.arrays, **arrays)
