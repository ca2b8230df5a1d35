"""Glue: one high-dimensional scenario for every model, with the dt / 2 step-size check."""

import numpy as np
import pandas as pd

from lsadyn.paper.highdim import embed_scenario, run_highdim, step_size_check
from lsadyn.paper.io import setup_log, write_csv, write_npz
from lsadyn.paper.jobs import blas_threads, limit_threads

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
log.info("BLAS threads: %d from the job environment, %d in force (rule threads: %d)", blas_threads(),
         limit_threads(sm.threads), sm.threads)
sc, run = sm.params.scenario, sm.params.run
A, V = embed_scenario(sc["A"], sc["V"], run["d"], sc["rest_A"], sc["rest_V"], sc["noise"], sm.params.seed)
rows, arrays = [], {}
for model in run["models"]:
    kw = dict(n=run["n_tokens"], seed=sm.params.seed, horizon=sc["horizon"], n_samples=run["n_samples"],
              n_snapshots=run["n_snapshots"])
    coarse = run_highdim(A, V, run["beta"], model, dt=run["dt"], **kw)
    fine = run_highdim(A, V, run["beta"], model, dt=run["dt"] / 2, **kw)
    ok = step_size_check(coarse, fine)
    log.info("%s %s: %s (dt/2: %s), step check %s, %.1f s", sm.wildcards.scenario, model, coarse["regime"],
             fine["regime"], ok, coarse["seconds"] + fine["seconds"])
    rows.append({"scenario": sm.wildcards.scenario, "model": model, "d": run["d"], "n_tokens": run["n_tokens"],
                 "expect": sc["expect"], "regime": coarse["regime"], "r_final": coarse["r_final"],
                 "drift_rate": coarse["drift_rate"], "period": coarse["period"],
                 "mean_token_norm": coarse["mean_token_norm"], "cluster_shape": coarse["cluster_shape"],
                 "dt": run["dt"], "regime_half_dt": fine["regime"],
                 "r_final_half_dt": fine["r_final"], "drift_rate_half_dt": fine["drift_rate"],
                 "step_check_ok": ok, "seconds": coarse["seconds"] + fine["seconds"], "note": coarse["reason"]})
    for key in ("t", "r", "swept_angle", "snapshot_times", "histograms", "bin_edges"):
        arrays[f"{model}_{key}"] = np.asarray(coarse[key])
write_csv(pd.DataFrame(rows).drop(columns=["seconds"]), sm.output.table)
write_npz(sm.output.arrays, **arrays)
