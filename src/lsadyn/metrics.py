r"""Observers: order parameters of a token configuration.

* :func:`order_parameter_r2`: :math:`R_2 = \frac1n\sum_j e^{2i\theta_j}` (d = 2).
* :func:`order_parameter_r`: :math:`r = (d\,\lambda_{max}(M) - 1)/(d - 1)` with
  :math:`M = \frac1n\sum_j x_j x_j^\top`; 0 for the uniform measure, 1 when every token lies on
  one axis, equal to :math:`|R_2|` in d = 2.
* :func:`leading_axis`: the unit eigenvector of M for :math:`\lambda_{max}` (sign fixed).
"""

from __future__ import annotations

import numpy as np


def order_parameter_r2(theta) -> np.ndarray:
    """:math:`R_2` from angles θ (..., n) → complex (...)."""
    return np.mean(np.exp(2j * np.asarray(theta, dtype=float)), axis=-1)


def order_parameter_r2_tokens(X) -> np.ndarray:
    """:math:`R_2` from d = 2 tokens X (..., n, 2): mean of (x₁ + i x₂)²."""
    X = np.asarray(X, dtype=float)
    return np.mean((X[..., 0] + 1j * X[..., 1]) ** 2, axis=-1)


def order_parameter_r(X) -> np.ndarray:
    """:math:`r = (d\\,\\lambda_{max}(M) - 1)/(d-1)` for tokens X (..., n, d) → (...)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape[-2:]
    M = np.swapaxes(X, -1, -2) @ X / n
    lam = np.linalg.eigvalsh(M)[..., -1]
    return (d * lam - 1.0) / (d - 1.0)


def leading_axis(X) -> np.ndarray:
    """Unit eigenvector of M for λ_max, tokens X (n, d) → (d,), sign chosen so the largest entry is > 0."""
    X = np.asarray(X, dtype=float)
    M = X.T @ X / X.shape[0]
    _, vecs = np.linalg.eigh(M)
    v = vecs[:, -1]
    return v * np.sign(v[np.argmax(np.abs(v))])


def mean_token_norm(X) -> np.ndarray:
    """|mean token| (..., n, d) → (...): ≈1 for one cluster, ≈0 for an antipodal pair."""
    return np.linalg.norm(np.mean(np.asarray(X, dtype=float), axis=-2), axis=-1)


def axis_observer(X) -> np.ndarray:
    """Observer for any d: ``[r, λ_max-eigenvector (d)]`` concatenated, shape (d + 1,)."""
    return np.concatenate([[order_parameter_r(X)], leading_axis(X)])


def pseudo_r2(r, axes) -> np.ndarray:
    r"""Complex series :math:`r(t)\,e^{2i\varphi(t)}` whose argument accumulates the angle swept by
    the leading axis (``axes`` (m, d)); equals :math:`R_2(t)` up to a constant phase in d = 2 with
    sign, and in d > 2 the (unsigned) swept angle. Used to classify regimes in any d."""
    axes = np.asarray(axes, dtype=float)
    if axes.shape[1] == 2:
        phi = np.unwrap(2 * np.arctan2(axes[:, 1], axes[:, 0])) / 2
    else:
        cos = np.abs(np.einsum("ij,ij->i", axes[1:], axes[:-1]))
        phi = np.concatenate([[0.0], np.cumsum(np.arccos(np.clip(cos, -1.0, 1.0)))])
    return np.asarray(r) * np.exp(2j * phi)
