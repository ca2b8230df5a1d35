r"""Initial conditions: seeded uniform starts, and the d = 2 change of variables between angles and tokens.

* :func:`uniform_sphere`: n points i.i.d. uniform on :math:`S^{d-1}`, (n, d), from ``numpy.random.default_rng(seed)``
  (normalised Gaussian vectors);
* :func:`uniform_angles`: n angles i.i.d. uniform on [0, 2π), (n,);
* :func:`tokens_from_angles` / :func:`angles_from_tokens`: :math:`x_k = (\cos\theta_k, \sin\theta_k)`, (n,) <-> (n, 2);
* :func:`initial_tokens`: a user's start (tokens (n, d) or, in d = 2, angles (n,)) validated into (n, d) unit rows.

Every start is a deterministic function of its seed: the same seed gives the same tokens on every machine.
"""

from __future__ import annotations

import numpy as np

from .validation import as_tokens


def uniform_sphere(n: int, d: int, seed: int) -> np.ndarray:
    """``n`` points i.i.d. uniform on :math:`S^{d-1}` from ``numpy.random.default_rng(seed)``, shape (n, d)."""
    g = np.random.default_rng(seed).standard_normal((n, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def uniform_angles(n: int, seed: int) -> np.ndarray:
    """``n`` angles i.i.d. uniform on [0, 2π) from ``default_rng(seed)``, shape (n,)."""
    return np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n)


def tokens_from_angles(theta) -> np.ndarray:
    """Angles θ (n,) to tokens x_k = (cos θ_k, sin θ_k), shape (n, 2)."""
    theta = np.asarray(theta, dtype=float)
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def angles_from_tokens(X) -> np.ndarray:
    """Tokens (…, 2) to angles θ = atan2(x₂, x₁) in (−π, π]."""
    X = np.asarray(X)
    return np.arctan2(X[..., 1], X[..., 0])


def initial_tokens(X0, d: int) -> np.ndarray:
    """Validate the user's initial tokens: an (n, d) array of unit vectors, or (d = 2) angles of shape (n,).
    Returns (n, d) floats; raises a one-line ``ValueError`` naming ``X0``."""
    try:
        arr = np.asarray(X0, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("X0: not a numeric array") from None
    if arr.ndim == 1:
        if d != 2:
            raise ValueError(f"X0: angles of shape (n,) only in d = 2; give an (n, {d}) array of tokens")
        if not np.all(np.isfinite(arr)):
            raise ValueError("X0: contains NaN or inf")
        arr = tokens_from_angles(arr)
    arr = as_tokens(arr, "X0")
    if arr.shape[1] != d:
        raise ValueError(f"X0: expected tokens of dimension d = {d}, got shape {arr.shape}")
    if arr.shape[0] < 2:
        raise ValueError(f"X0: need at least 2 tokens, got {arr.shape[0]}")
    dev = float(np.max(np.abs(np.linalg.norm(arr, axis=1) - 1.0)))
    if dev > 1e-9:
        raise ValueError(f"X0: tokens must have unit norm to 1e-9 (largest deviation {dev:.3g})")
    return arr
