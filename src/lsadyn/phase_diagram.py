r"""Clustering over layer time: a stack of B softmax token systems (n tokens on :math:`S^{d-1}`, each member its
own A, V, β) integrated together by fixed-step RK4 (:func:`lsadyn.solvers.rk4.rk4_stack_step`, rows renormalised
after each step), observed on a grid of layer times — the (β, t) phase diagrams of clustering.

Member b, tokens X (n, d), logits :math:`L_{kj} = \beta\langle x_k, A x_j\rangle`:

* SA (normalised softmax), physical time t: :math:`\dot x_k = P^\perp_{x_k}\big(\sum_j \mathrm{softmax}_j(L_{k\cdot})
  V x_j\big)` (speed ≤ ‖V‖₂ whatever β);
* USA, in the rescaled time s = t/τ, :math:`\tau = 1/(\|V\|_2 e^{\beta\|A\|_2})` (:func:`lsadyn.batch.usa_time_scale`,
  the unit of every USA run of lsadyn): :math:`x_k' = P^\perp_{x_k}\big(\tfrac{1}{n\|V\|_2}\sum_j
  e^{L_{kj} - \beta\|A\|_2} V x_j\big)` (exponents ≤ 0: no overflow at any β).

Observed at each time (:func:`gram_order`), from the Gram matrix :math:`G = X X^\top` (B, n, n): the order
parameter :math:`r = (d\,\lambda_{max}(X^\top X/n) - 1)/(d - 1)` (docs/theory.md §1; 1 when every token sits on one axis,
one cluster or an antipodal pair; :math:`\lambda_{max}(X^\top X) = \lambda_{max}(X X^\top)`) and the fraction of
pairs k ≠ j with :math:`\langle x_k, x_j\rangle > 1 - \varepsilon` (the peers' "density" of clustered pairs).
"""

from __future__ import annotations

import numpy as np

from .solvers.rk4 import rk4_stack_step

PHASE_MODELS = ("usa", "sa")


def stack_field(model: str, A, V, beta):
    """The field X (B, n, d) -> dX (B, n, d) of the stack (module docstring); A, V (B, d, d), beta (B,)."""
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    beta = np.broadcast_to(np.asarray(beta, dtype=float), A.shape[:1])[:, None, None]
    At = np.swapaxes(A, 1, 2)
    Vt = np.swapaxes(V, 1, 2)
    if model == "usa":
        shift = beta * np.linalg.norm(A, 2, axis=(1, 2))[:, None, None]
        nv = np.linalg.norm(V, 2, axis=(1, 2))[:, None, None]
        scale = 1.0 / np.where(nv > 0, nv, 1.0)
    elif model != "sa":
        raise ValueError(f"model: unknown model {model!r}; choose one of {', '.join(PHASE_MODELS)}")

    def f(X):
        L = X @ np.swapaxes(X @ At, 1, 2)  # L[b, k, j] = <x_k, A x_j>
        L *= beta
        if model == "sa":
            L -= L.max(axis=2, keepdims=True)
            np.exp(L, out=L)
            L /= L.sum(axis=2, keepdims=True)
        else:
            L -= shift
            np.exp(L, out=L)
            L *= scale / X.shape[1]
        Y = L @ (X @ Vt)
        Y -= np.sum(Y * X, axis=2, keepdims=True) * X
        return Y

    return f


def gram_order(X, eps: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """(r, pair fraction) of a stack X (B, n, d) (module docstring), each (B,)."""
    X = np.asarray(X, dtype=float)
    B, n, d = X.shape
    G = X @ np.swapaxes(X, 1, 2)
    lam = np.linalg.eigvalsh(G)[:, -1] / n
    r = (d * lam - 1) / (d - 1) if d > 1 else np.ones(B)
    off = ~np.eye(n, dtype=bool)
    pairs = (G[:, off] > 1 - eps).mean(axis=1) if n > 1 else np.ones(B)
    return r, pairs


def clustering_over_time(model: str, A, V, beta, X0, times, dt: float, eps: float = 1e-3):
    """Integrate the stack from X0 (B, n, d) and observe it at ``times`` (ascending, from 0; physical t for SA,
    s = t/τ for USA). Between two output times the step is the largest ≤ ``dt`` dividing the gap. Returns
    (r, pairs), each (B, len(times)) (:func:`gram_order`)."""
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or times.size == 0 or times[0] < 0 or np.any(np.diff(times) <= 0):
        raise ValueError("times: expected an ascending 1-d array of times >= 0")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt: must be a positive number, got {dt!r}")
    X = np.array(X0, dtype=float)
    if X.ndim != 3 or X.shape[2] != np.shape(A)[1]:
        raise ValueError(f"X0: expected tokens of shape (B, n, {np.shape(A)[1]}), got {X.shape}")
    f = stack_field(model, A, V, beta)
    r = np.empty((X.shape[0], times.size))
    pairs = np.empty_like(r)
    t = 0.0
    for i, te in enumerate(times):
        gap = te - t
        if gap > 0:
            k = int(np.ceil(gap / dt - 1e-9))
            for _ in range(k):
                rk4_stack_step(f, X, gap / k)
            if not np.all(np.isfinite(X)):
                raise FloatingPointError(f"{model} stack: NaN/inf at t = {te:.6g}")
        t = te
        r[:, i], pairs[:, i] = gram_order(X, eps)
    return r, pairs
