"""Glue: the off-manifold sweep (fixed density at several n, i.i.d. starts) for one (A, V)."""

import numpy as np
import pandas as pd
from lsadyn_workflow.io import setup_log, write_csv, write_npz

from lsadyn.paper.offmanifold.runs import offmanifold_sweep
from lsadyn.paper.offmanifold.summary import amplitude_per_distance
from lsadyn.regimes.classify import RegimeTolerances

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("offmanifold_run")
sm = snakemake
log = setup_log(sm.log[0])
run = sm.params.run
rows = offmanifold_sweep(run["A"], run["V"], sm.params.beta, run["eps"], run["n_tokens"], run["iid_seeds"],
                         run["horizon"], run["n_samples"], sm.params.seed, RegimeTolerances(**sm.params.classifier))
k, dev = amplitude_per_distance(rows)
log.info("%d runs; amplitude / distance %.4g (largest relative deviation %.3g)", len(rows), k, dev)
traces = {}
dens = [r for r in rows if r["start"] == "density"]
top = max(r["eps"] for r in dens) if dens else None
for i, r in enumerate(rows):  # |R2(t)| of the strongest density at every n, and one i.i.d. run per n
    tr = r.pop("trace")
    if (r["start"] == "density" and r["eps"] == top) or (r["start"] == "iid" and r["seed"] == sm.params.seed + 1):
        key = f"{r['start']}_n{r['n']}"
        traces[f"{key}_t"], traces[f"{key}_abs_R2"] = tr["t"], np.abs(tr["R2_tokens"])
        traces["oa_t"], traces[f"{key}_abs_R2_oa"] = tr["t"], np.abs(tr["R2_oa"])
df = pd.DataFrame(rows)
df.insert(0, "A", str(run["A"]))
df.insert(1, "V", str(run["V"]))
write_csv(df, sm.output.table)
write_npz(sm.output.traces, **traces)
