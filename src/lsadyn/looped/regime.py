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
