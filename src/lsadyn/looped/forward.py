r"""The forward pass of a looped attention layer on the sphere, and its continuous limit.

One shared single-head layer, no MLP, applied L times at step h:

.. math:: x_k \leftarrow \frac{x_k + h\,a_k(X)}{\lVert x_k + h\,a_k(X)\rVert},\qquad
          a_k(X) = \sum_j w_{kj}\, V x_j,

with weights w_kj = β⟨x_k, Ax_j⟩/n (LSA), e^{β⟨x_k, Ax_j⟩}/n (USA) or softmax_j β⟨x_k, Ax_j⟩ (SA): the raw
attention output a (n, d), X (n, d) unit rows. Since normalise(x + h a) = x + h P⊥_x a + O(h²), the map is a
first-order scheme for the flow ẋ_k = P⊥_{x_k} a_k(X) of :mod:`lsadyn.fields.attention`, and L steps of the loop
approximate the flow at t = L·h with an O(h) error (``tests/test_looped.py`` measures the order). A trained looped
transformer is this map at its own h; its depth L plays the role of time.
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import USA_MAX_LOGIT, Attention

MODELS = ("lsa", "usa", "sa")


def attention_update(X: np.ndarray, p: Attention, model: str) -> np.ndarray:
    """The raw attention output a (n, d) of tokens X (n, d) (see the module; not projected on the sphere)."""
    if model not in MODELS:
        raise ValueError(f"model: unknown model {model!r}; choose one of {', '.join(MODELS)}")
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if model == "lsa":  # Σ_j β⟨x_k, A x_j⟩ V x_j / n = β V M Aᵀ x_k, M = XᵀX / n
        return X @ ((p.beta / n) * (p.A @ (X.T @ X)) @ p.V.T)
    logits = p.beta * (X @ p.A) @ X.T
    if model == "usa":
        top = float(logits.max())
        if top > USA_MAX_LOGIT:
            raise OverflowError(f"beta: USA logit beta*<x, A y> reaches {top:.4g} > {USA_MAX_LOGIT:g}")
        W = np.exp(logits) / n
    else:
        W = np.exp(logits - logits.max(axis=1, keepdims=True))
        W /= W.sum(axis=1, keepdims=True)
    return W @ (X @ p.V.T)


def looped_forward(X0, p: Attention, model: str, h: float, L: int, *, every: int = 1) -> np.ndarray:
    """Iterates of the looped layer from X0 (n, d) (unit rows): an array (L // every + 1, n, d) holding X after
    0, every, 2·every, … steps of size ``h`` (layer l is time l·h)."""
    X = np.array(X0, dtype=float)
    if X.ndim != 2 or X.shape[1] != p.d:
        raise ValueError(f"X0: expected tokens of shape (n, {p.d}), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X0: contains NaN or inf")
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"h: must be a positive step, got {h!r}")
    L, every = int(L), int(every)
    if L < 0 or every < 1:
        raise ValueError(f"L, every: need L >= 0 and every >= 1, got {L}, {every}")
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    out = [X.copy()]
    for step in range(1, L + 1):
        Y = X + h * attention_update(X, p, model)
        X = Y / np.linalg.norm(Y, axis=1, keepdims=True)
        if step % every == 0:
            out.append(X.copy())
    return np.stack(out)
