r"""The observed regime of a looped layer: its iterates classified by the procedure that labels the flow.

Layer l of a looped layer at step h (:func:`lsadyn.looped.forward.looped_forward`) is the flow's time t = l·h. The
iterates X_l (n, d) are observed as the certifier of token runs reads a run (:mod:`lsadyn.regimes.tokens`):
r, the leading axis of M, |mean token| and the largest token speed, here the step's displacement
max_k ‖x_k^{(l+1)} − x_k^{(l)}‖ / h. Checkpoints at 1/8, 1/4, 1/2 and all of the depth read the last
``window`` of the iterates and stop at the first certificate; a label is given only when
:class:`~lsadyn.regimes.tokens.TokenCertifier` checks the attractor of the *flow* against the map's iterates, so the
observed label says that the looped network behaves, to the depth run, as the continuous model's attractor
predicts (contraction exponents within 10 %, for h small against the flow's rates).
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import Attention
from ..observers import axis_observer, mean_token_norm, pseudo_r2
from ..regimes.classify import RegimeResult
from ..regimes.tokens import TokenCertifier, certified_token_result
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
    """The certified regime of the looped layer (A, V, β) = ``p`` run L layers at step h from X0 (n, d); the result's
    times and rates are in the flow's time t = l·h. ``details['layers']``: the depth at which it was decided;
    ``details['observed_rate']``: the iterates' own rate of arg R₂ (d = 2; in d > 2 of the swept axis angle) over
    the checked window, beside the flow's ``arg_R2_rate`` from the certificate."""
    Xs = looped_forward(X0, p, model, h, L)
    obs = observe_iterates(Xs, h)
    t = h * np.arange(Xs.shape[0])
    certifier = TokenCertifier(model, p, t_end=h * L, speed_floor=1e-12, X0=Xs[0])
    d = p.d
    res = None
    for frac in CHECKPOINTS:
        end = max(int(round(frac * L)), 16)
        if end > L:
            continue
        start = int(np.floor((1 - window) * end))
        sl = slice(start, end + 1)
        res = certified_token_result(*certifier.check(t[sl], obs[sl], Xs[end]), t[sl], obs[sl, 0], obs[sl, 1:d + 1],
                                     Xs[end], f"looped-{model}")
        res.details["layers"] = end
        # what the network itself does over the window: the rate of arg r·e^{2iφ} (φ the axis's swept angle), per t
        phi = np.unwrap(np.angle(pseudo_r2(np.ones(end + 1 - start), obs[sl, 1:d + 1])))
        res.details["observed_rate"] = float((phi[-1] - phi[0]) / (t[end] - t[start]))
        if res.regime != "undetermined" or res.details.get("stop"):
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
