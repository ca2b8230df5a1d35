r"""One job of the looped stage: train a (task, model) at each seed, then, for each trained model read back from its
weight file, the flow's regime against the looped network's.

:func:`train_models` trains (:func:`lsadyn.looped.train.train`) and writes each model's safetensors file; its
``train`` table has one row per (seed, logged step) of the training curve and the test set's losses.

:func:`compare` reads one weight file through :mod:`lsadyn.weights` (the file a user would give the CLI) and, from
two starts — one test sequence of the task (``task``) and ``n_uniform`` i.i.d. uniform tokens (``uniform``) —

* *predicts*: :func:`lsadyn.simulate_regime` of the head's (A, V, β = 1) and model, certified, from that start;
* *observes*: :func:`lsadyn.looped.looped_regime`, the trained map itself at its own h, looped ``loop_factor`` × its
  training depth L (layer l is the flow's time t = l·h), certified on the map itself (:mod:`lsadyn.looped.certify`),
  independently of the flow's label;
* *quantises*: every weight matrix to b bits (:func:`lsadyn.paper.robustness.runs.quantise`, as C8 does) and
  predicts again from the same start.

Rates are the rate of arg R₂ (d = 2) or of twice the leading axis's swept angle (d > 2), per unit t, so the
network's per-layer turn is ``rate · h``. The network's rate is read over whole turns of the second half of its run
(:func:`lsadyn.looped.iterate_rate`). Where the network ends clustered, ``map_rate`` is the rate of the looped map of
one token started at its cluster's centre (:func:`lsadyn.looped.cluster_map_rate`): the discrete step's prediction,
which the flow's ``predicted_rate`` approaches as h → 0 at first order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...api import simulate_regime
from ...fields.attention import Attention, field_for
from ...exponents.cluster import cluster_centre
from ...looped import cluster_map_rate, iterate_rate, looped_forward, looped_regime
from ...looped.train import save_weights, train
from ...observers import order_parameter_r
from ...sampling import uniform_sphere
from ...solvers.integrate import integrate_sphere
from ...weights import read_head
from ..robustness.runs import quantise

#: layers the one-cluster map (a single token, cheap) is followed for its rate: whole turns even for slow rotations
MAP_LAYERS = 20_000
TRAIN_COLUMNS = ["task", "model", "seed", "step", "loss", "test_loss", "baseline_loss", "reference_loss", "accuracy",
                 "baseline_accuracy", "d", "n", "L", "h"]


def train_models(task, model, seeds, settings, paths, progress=None) -> pd.DataFrame:
    """Train ``task`` × ``model`` at each of ``seeds`` (``settings``: h, depth, steps, batch, lr, n_test), write the
    weights to ``paths`` (one per seed) and return the ``train`` table (:data:`TRAIN_COLUMNS`)."""
    rows = []
    for k, (seed, path) in enumerate(zip(seeds, paths)):
        tr = train(task, model, h=float(settings["h"]), L=int(settings["depth"]), steps=int(settings["steps"]),
                   batch=int(settings["batch"]), lr=float(settings["lr"]), seed=int(seed),
                   n_test=int(settings["n_test"]),
                   progress=None if progress is None else (lambda f, k=k: progress((k + f) / len(seeds))))
        save_weights(tr, path)
        for step, loss in tr.curve:
            rows.append({"task": task.name, "model": model, "seed": int(seed), "step": int(step), "loss": loss,
                         "test_loss": tr.test["loss"], "baseline_loss": tr.test["baseline_loss"],
                         "reference_loss": tr.test["reference_loss"], "accuracy": tr.test["accuracy"],
                         "baseline_accuracy": tr.test["baseline_accuracy"], "d": task.d, "n": task.n, "L": tr.L,
                         "h": tr.h})
    return pd.DataFrame(rows, columns=TRAIN_COLUMNS)


def _quantised_head(head, bits):
    """(A, V) of the head with each of W_Q, W_K, W_V, W_O quantised to ``bits``."""
    Q, K, Vv, O = (quantise(M, bits) for M in (head.W_Q, head.W_K, head.W_V, head.W_O))
    return Q.T @ K / np.sqrt(Q.shape[0]), O @ Vv


def _rate(res) -> float:
    return float(res.arg_R2_rate) if res.regime in ("cluster_rotate", "oscillate") else 0.0 if res.regime in (
        "cluster_converge", "interior_converge") else float("nan")


def _why(res) -> str:
    det = res.details
    return str(det.get("checked") or det.get("reason") or "")


def compare(path, task, settings, seed: int, n_traj: int = 200):
    """The rows of ``results/tables/looped.csv`` for the model in ``path`` (see the module; ``settings``:
    loop_factor, n_uniform, bits) and, for the figure and the movie, the iterates of its uniform start:
    ``{start: {"l", "t", "r_loop", "r_flow", "X"}}`` with X the iterates at ``n_traj`` + 1 layers."""
    head = read_head(path)
    meta = _metadata(path)
    h, L = float(meta["h"]), int(meta["L"])
    model = head.model
    p = Attention(head.A, head.V, head.beta)
    L_obs = int(settings["loop_factor"]) * L
    starts = {"task": task.batch(np.random.default_rng(seed + 2), 1)[0][0],
              "uniform": uniform_sphere(int(settings["n_uniform"]), task.d, seed + 3)}
    rows, arrays = [], {}
    for start, X0 in starts.items():
        pred = simulate_regime(head.A, head.V, head.beta, X0=X0, model=model, seed=seed)
        obs = looped_regime(X0, p, model, h, L_obs)
        X_obs = looped_forward(X0, p, model, h, L_obs)
        centre = cluster_centre(model, X_obs[-1])
        # the one-cluster map is one token: follow it long enough to read its rate over whole turns
        map_rate = np.nan if centre is None else cluster_map_rate(centre, p, model, h, max(L_obs, MAP_LAYERS))
        quant = {}
        for b in settings["bits"]:
            Ab, Vb = _quantised_head(head, int(b))
            quant[int(b)] = simulate_regime(Ab, Vb, head.beta, X0=X0, model=model, seed=seed).regime
        decided = [q for q in quant.values() if q != "undetermined"]
        both = pred.regime != "undetermined" and obs.regime != "undetermined"
        rows.append({
            "task": task.name, "model": model, "seed": int(seed), "start": start, "d": task.d, "n": X0.shape[0],
            "L": L, "h": h, "L_observed": L_obs, "t_observed": h * L_obs,
            "predicted_regime": pred.regime, "observed_regime": obs.regime,
            "predicted_certified": pred.certified, "observed_certified": obs.certified,
            "agree": bool(both and pred.regime == obs.regime), "decided": bool(both),
            "predicted_rate": _rate(pred), "observed_rate": iterate_rate(X_obs, h), "map_rate": float(map_rate),
            "predicted_period": float(pred.period), "observed_period": float(obs.period),
            "predicted_t": float(pred.details.get("t_certified", pred.details.get("t_decide", np.nan))),
            "observed_layers": int(obs.details.get("layers", L_obs)),
            "predicted_checked": _why(pred), "observed_checked": _why(obs),
            "quantised": "; ".join(f"{b} bits: {q}" for b, q in quant.items()),
            "quantised_changed": bool(pred.regime != "undetermined" and any(q != pred.regime for q in decided)),
            "weights": str(path),
        })
        step = max(L_obs // n_traj, 1)
        Xs = X_obs[::step]  # the iterates every `step` layers
        t = h * step * np.arange(Xs.shape[0])
        flow = integrate_sphere(field_for(model, task.d), X0, t, p, rtol=1e-8, atol=1e-10).y
        arrays[start] = {"l": step * np.arange(Xs.shape[0]), "t": t, "r_loop": order_parameter_r(Xs),
                         "r_flow": order_parameter_r(flow), "X": Xs}
    return rows, arrays


def _metadata(path) -> dict:
    from ...weights.files import load_arrays

    meta = load_arrays(path)[1]
    for key in ("h", "L"):
        if key not in meta:
            raise ValueError(f"weights: {path}: metadata has no {key!r} (a looped model's step and depth)")
    return meta
