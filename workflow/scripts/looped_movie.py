"""Glue: the movie of one trained looped model (its first seed's uniform start, from the comparison's iterates):
tokens layer by layer on S^2 (d = 3; d > 3: projected on the last layer's three leading axes of M, renormalised;
d = 2: the circle), beside r(l) of the network and r(t = l h) of the flow (lsadyn.paper.movies.frames)."""

import numpy as np
from lsadyn_workflow.io import atomic_path, load_arrays, setup_log

from lsadyn.observers import leading_axis, order_parameter_r2_tokens
from lsadyn.paper.movies.frames import write_token_movie
from lsadyn.paper.plotting import style

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("looped_movie")
sm = snakemake
log = setup_log(sm.log[0])
arr = load_arrays(sm.input.arrays)
seed = min(int(k.split("_")[0][1:]) for k in arr if k.endswith("_uniform_X"))
get = {k: arr[f"s{seed}_uniform_{k}"] for k in ("l", "t", "r_loop", "r_flow", "X")}
pick = np.unique(np.linspace(0, len(get["l"]) - 1, int(sm.params.n_frames)).round().astype(int))
X = get["X"][pick]
d = X.shape[-1]
shown = d
if d > 3:  # the last layer's three leading axes of M
    M = X[-1].T @ X[-1] / X.shape[1]
    P = np.linalg.eigh(M)[1][:, ::-1][:, :3]
    X = X @ P
    X /= np.linalg.norm(X, axis=-1, keepdims=True)
    shown = 3
run = {"t": get["t"][pick], "X": X, "r": get["r_loop"][pick],
       "R2": order_parameter_r2_tokens(X) if shown == 2 else np.full(len(pick), np.nan + 0j),
       "axis": np.array([leading_axis(x) for x in X]), "t_label": "$t = l\\,h$",
       "stamps": [f"layer {int(v)}" for v in get["l"][pick]]}
task, model = sm.params.job.split("-")
caption = (f"trained looped {model.upper()} layer ({task}, seed {seed}) run to {int(get['l'][-1])} layers; "
           f"d = {d}{' (three leading axes shown)' if d > 3 else ''}, n = {X.shape[1]}")
style()
write_token_movie(sm.output.gif, sm.output.page, run, shown, caption, None, sm.params.fps, sm.params.dpi,
                  atomic=atomic_path, caption=caption)
log.info("looped movie: %d frames of %s", len(pick), sm.params.job)
