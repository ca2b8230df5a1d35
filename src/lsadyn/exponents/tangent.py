r"""Tangent maps of the token fields of :mod:`lsadyn.fields.attention`: Jacobian-vector products.

For tokens X (n, d) and m tangent vectors W (m, n, d) (rows of W[i] tangent to the sphere at the rows of X),
:func:`field_and_jvp` returns the field f(X) (n, d) and :math:`Df(X)[W_i]` (m, n, d), analytic and vectorised over
tokens and vectors (matrix products only). With :math:`P^\perp_x y = y - \langle x, y\rangle x`, f = P⊥(Y) row-wise:

.. math::
    \delta f_k = \delta y_k - (\langle\delta x_k, y_k\rangle + \langle x_k, \delta y_k\rangle)\,x_k
                 - \langle x_k, y_k\rangle\,\delta x_k,

with :math:`Y = \frac1n K X V^\top`, :math:`\Lambda = \beta X A X^\top` (n, n) the logits and
:math:`\delta\Lambda = \beta(\delta X A X^\top + X A\,\delta X^\top)`:

* LSA: :math:`K = \Lambda`, :math:`\delta K = \delta\Lambda`;   USA: :math:`K = e^{\Lambda}` (entry-wise),
  :math:`\delta K = K\odot\delta\Lambda`;
* :math:`\delta Y = \frac1n(\delta K\,X V^\top + K\,\delta X V^\top)`.

Cost O(m (n² d + n d²)) per call: the token runs here have few tokens (n ≲ 100), where the n × n form is cheaper
than the O(n d²) moment form of LSA's field (whose tangent map would need m d × d products with A and V).

:func:`jvp_reference` is the plain reference (an explicit loop over token pairs); :func:`jvp_fd` the central
finite difference :math:`(f(X + hW) - f(X - hW)) / 2h` of the library field (h = 1e-6 by default), both for tests.
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import Attention, field_for

MODELS = ("lsa", "usa")


def _project(X, Y, dX, dY):
    s = np.einsum("kd,kd->k", X, Y)
    ds = np.einsum("mkd,kd->mk", dX, Y) + np.einsum("kd,mkd->mk", X, dY)
    return Y - s[:, None] * X, dY - ds[..., None] * X - s[None, :, None] * dX


def field_and_jvp(model: str, X: np.ndarray, W: np.ndarray, p: Attention):
    """(f(X) (n, d), Df(X)[W] (m, n, d)) for ``model`` in {'lsa', 'usa'}; W (m, n, d)."""
    if model not in MODELS:
        raise ValueError(f"model: the tangent map knows {MODELS}, not {model!r}")
    n = X.shape[0]
    XA = X if p.A_is_identity else X @ p.A  # rows x_k^T A
    XV = X if p.V_is_identity else X @ p.V.T  # rows (V x_j)^T
    K = p.beta * (XA @ X.T)  # logits β<x_k, A x_j>
    WA = W if p.A_is_identity else W @ p.A
    dK = p.beta * (WA @ X.T + XA @ np.swapaxes(W, 1, 2))  # (m, n, n)
    if model == "usa":
        K = np.exp(K)
        dK *= K
    Y = K @ XV / n
    dY = (dK @ XV + K @ (W if p.V_is_identity else W @ p.V.T)) / n
    return _project(X, Y, W, dY)


def jvp_reference(model: str, X: np.ndarray, w: np.ndarray, p: Attention) -> np.ndarray:
    """Df(X)[w] (n, d) for one tangent vector w (n, d) by an explicit loop over token pairs (reference)."""
    n = X.shape[0]
    h = (lambda y: y) if model == "lsa" else np.exp
    dh = (lambda y: np.ones_like(y)) if model == "lsa" else np.exp
    out = np.zeros_like(X)
    for k in range(n):
        y = np.zeros(X.shape[1])
        dy = np.zeros(X.shape[1])
        for j in range(n):
            logit = p.beta * X[k] @ p.A @ X[j]
            dlogit = p.beta * (w[k] @ p.A @ X[j] + X[k] @ p.A @ w[j])
            y += h(logit) * (p.V @ X[j]) / n
            dy += (dh(logit) * dlogit * (p.V @ X[j]) + h(logit) * (p.V @ w[j])) / n
        out[k] = dy - (w[k] @ y + X[k] @ dy) * X[k] - (X[k] @ y) * w[k]
    return out


def jvp_fd(model: str, X: np.ndarray, w: np.ndarray, p: Attention, h: float = 1e-6) -> np.ndarray:
    """Central finite difference of the library field ``field_for(model, direct=True)`` along w (n, d)."""
    f = field_for(model, direct=True)
    return (f(0.0, X + h * w, p) - f(0.0, X - h * w, p)) / (2 * h)
