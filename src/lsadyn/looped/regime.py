r"""The observed regime of a looped layer: its iterates' own attractor, found and checked on the layer's map.

Layer l of a looped layer at step h (:func:`lsadyn.looped.forward.looped_forward`) is the flow's time t = l·h. The
iterates X_l (n, d) are a discrete dynamical system of their own, and their label is certified on it
(:class:`lsadyn.looped.certify.MapCertifier`: the one-token map of the cluster's centre, its fixed point or its
returns, and the spread map's contraction), never by the continuous flow's attractor. Checkpoints at 1/8, 1/4, 1/2
and all of the depth read the last ``window`` of the iterates and stop at the first certificate. So the network's
label and the flow's (:func:`lsadyn.simulate_regime`) are found independently, and their agreement is a result.
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import Attention
from ..observers import axis_observer, mean_token_norm, pseudo_r2
from ..observers import cluster_shape
from ..regimes.classify import RegimeResult
from .certify import MapCertifier
from .forward import looped_forward

#: fractions of the depth at which the iterates are checked
CHECKPOINTS = (0.125, 0.25, 0.5, 1.0)


def observe_iterates(Xs: np.ndarray, h: float) -> np.ndarray:
    """[r, axis (d), |m|, speed] per iterate of Xs (m, n, d) (the last iterate repeats its predecessor's speed)."""
    Xs = np.asarray(Xs, dtype=float)
    step = np.max(np.linalg.norm(np.diff(Xs, axis=0), axis=-1), axis=-1) / h
    speed = np.concatenate([step, step[-1:]])
    rows = [np.concatenate([axis_observer(X), [mean_token_norm(X), s]]) for X, s in zip(Xs, speed)]
    return np.array(rows)


def looped_regime(X0, p: Attention, model: str, h: float, L: int, *, window: float = 0.3) -> RegimeResult:
    """The certified regime of the looped layer (A, V, β) = ``p`` run L layers at step h from X0 (n, d), from its own
    map (:mod:`lsadyn.looped.certify`); the result's times and rates are in the flow's time t = l·h.
    ``details['layers']``: the depth at which it was decided; ``details['observed_rate']``: the iterates' own rate of
    arg R₂ (d = 2; in d > 2 of the swept axis angle) over the checked window; a rotation's ``arg_R2_rate`` and
    ``period`` are those of the map's attractor (the centre's orbit over its whole turns)."""
    Xs = looped_forward(X0, p, model, h, L)
    obs = observe_iterates(Xs, h)
    t = h * np.arange(Xs.shape[0])
    certifier = MapCertifier(model, p, h)
    d = p.d
    res = None
    for frac in CHECKPOINTS:
        end = max(int(round(frac * L)), 16)
        if end > L:
            continue
        start = int(np.floor((1 - window) * end))
        sl = slice(start, end + 1)
        cert, why = certifier.check(t[sl], Xs[sl])
        shape = cluster_shape(Xs[end])
        r = obs[sl, 0]
        if cert is None:
            res = RegimeResult("undetermined", float(r[-1]), float("nan"), float("nan"), f"looped-{model}",
                               {"certified": False, "reason": "no attractor certified: " + why, "cluster_shape": shape})
        else:
            att = cert.attractor
            res = RegimeResult(att.regime, 1.0, float(att.rate), float(att.period), f"looped-{model}",
                               {"certified": True, "attractor": att.as_dict(), "checked": cert.checked,
                                "t_certified": float(cert.t), "cluster_shape": shape})
        res.details["layers"] = end
        # what the network itself does over the window: the rate of arg r·e^{2iφ} (φ the axis's swept angle), per t
        phi = np.unwrap(np.angle(pseudo_r2(np.ones(end + 1 - start), obs[sl, 1:d + 1])))
        res.details["observed_rate"] = float((phi[-1] - phi[0]) / (t[end] - t[start]))
        if res.regime != "undetermined":
            break
    return res


def iterate_rate(Xs: np.ndarray, h: float, window: float = 0.5) -> float:
    """The rate of arg r·e^{2iφ} (φ the leading axis's swept angle; d = 2: arg R₂) per unit t = l·h, over the last
    ``window`` of the iterates Xs (m, n, d), read over the largest whole number of turns in it (a rotation that is
    not uniform along its orbit gives the wrong mean over a part of a turn); over the whole window when it holds
    less than one turn."""
    Xs = np.asarray(Xs, dtype=float)
    obs = observe_iterates(Xs, h)
    start = int(np.floor((1 - window) * (Xs.shape[0] - 1)))
    d = Xs.shape[2]
    phi = np.unwrap(np.angle(pseudo_r2(np.ones(Xs.shape[0] - start), obs[start:, 1:d + 1])))
    t = h * np.arange(start, Xs.shape[0])
    swept = phi[-1] - phi
    turns = np.floor(abs(swept[0]) / (2 * np.pi))
    if turns >= 1:
        # the time at which |swept| = 2π·turns, by linear interpolation along the (monotone enough) phase
        i = int(np.nonzero(np.abs(swept) >= 2 * np.pi * turns)[0][-1])
        a, b = abs(swept[i]), abs(swept[i + 1])
        t0 = t[i] + (a - 2 * np.pi * turns) / (a - b) * (t[i + 1] - t[i]) if a != b else t[i]
        return float(np.sign(swept[0]) * 2 * np.pi * turns / (t[-1] - t0))
    return float(swept[0] / (t[-1] - t[0]))


def cluster_map_rate(x: np.ndarray, p: Attention, model: str, h: float, L: int, window: float = 0.5) -> float:
    """:func:`iterate_rate` of the looped map of one token from x (d,): the map of a single cluster, since n tokens
    at one point move as one (LSA: M = x xᵀ; USA: n·e^{β⟨x, Ax⟩}/n; SA: softmax weights 1/n). Beside the flow's
    rate it separates the discrete step's effect (O(h·rate)) from the continuous model's."""
    return iterate_rate(looped_forward(np.asarray(x, dtype=float)[None], p, model, h, L), h, window)
