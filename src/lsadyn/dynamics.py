r"""Attention dynamics on the unit sphere (SCIENCE.md §1).

Every vector field here is a pure function ``f(t, X, params)`` of the time ``t``
(unused: the fields are autonomous), the token matrix ``X`` of shape ``(n, d)``
whose rows lie on :math:`S^{d-1}`, and an :class:`Attention` parameter set. It returns
``dX/dt`` of shape ``(n, d)``:

.. math::
    \dot x_k = P^\perp_{x_k}\Big(\tfrac1n \sum_j h(\beta\langle x_k, A x_j\rangle)\, V x_j\Big),
    \qquad P^\perp_x y = y - \langle x, y\rangle x .

* LSA, :math:`h(y)=y`: evaluated through :math:`M = X^\top X / n` as
  :math:`\beta\, V M A^\top x_k`, cost :math:`O(n d^2)`.
* USA, :math:`h(y)=e^y`: one :math:`n\times n` kernel matrix, cost :math:`O(n^2 d)`.
* SA (normalised softmax): the USA sum divided by :math:`\sum_j e^{\beta\langle x_k, A x_j\rangle}`
  (no 1/n), evaluated with a row max-shift.

The ``*_pairwise`` functions are plain O(n² d) references used by tests and benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .validation import as_positive_float, as_square_matrix, check_scale

#: Largest logit ``beta * <x, A y>`` for which ``exp`` is evaluated in USA (exp(700) ~ 1e304).
USA_MAX_LOGIT = 700.0


@dataclass(frozen=True)
class Attention:
    """Parameters of one attention layer, fixed over depth: ``A = QᵀK``, ``V``, ``beta``."""

    A: np.ndarray
    V: np.ndarray
    beta: float = 1.0

    @property
    def d(self) -> int:
        return self.A.shape[0]


def attention(A, V, beta=1.0) -> Attention:
    """Validate and build an :class:`Attention` (nested lists accepted)."""
    A = as_square_matrix(A, "A")
    V = as_square_matrix(V, "V", d=A.shape[0])
    beta = as_positive_float(beta, "beta")
    check_scale(A, V, beta)  # no overflowing time unit (a rate would be noise times 1e308)
    return Attention(A=A, V=V, beta=beta)


def project_tangent(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Row-wise :math:`P^\\perp_{x_k}(y_k) = y_k - \\langle x_k, y_k\\rangle x_k`, shapes (n, d)."""
    return Y - np.einsum("ij,ij->i", X, Y)[:, None] * X


def second_moment(X: np.ndarray) -> np.ndarray:
    """:math:`M = \\frac1n \\sum_j x_j x_j^\\top` of shape (d, d)."""
    return X.T @ X / X.shape[0]


def lsa_field(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """LSA velocity :math:`P^\\perp_{x_k}(\\beta V M A^\\top x_k)`, X (n, d) -> (n, d); O(n d²)."""
    M = second_moment(X)
    G = p.beta * (p.A @ M @ p.V.T)  # row k of X @ G is (beta V M A^T x_k)^T
    return project_tangent(X, X @ G)


def _usa_kernel(X: np.ndarray, p: Attention) -> np.ndarray:
    logits = p.beta * (X @ p.A) @ X.T  # logits[k, j] = beta <x_k, A x_j>
    top = float(logits.max())
    if top > USA_MAX_LOGIT:
        raise OverflowError(
            f"beta: USA logit beta*<x, A y> reaches {top:.4g} > {USA_MAX_LOGIT:g}; exp would overflow "
            f"(use beta*||A||_2 <= {USA_MAX_LOGIT:g}, here {p.beta * np.linalg.norm(p.A, 2):.4g})"
        )
    return np.exp(logits)


def usa_field(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """USA velocity :math:`P^\\perp(\\frac1n \\sum_j e^{\\beta\\langle x_k,Ax_j\\rangle} V x_j)`; O(n² d).

    Raises ``OverflowError`` (naming ``beta``) instead of returning inf/NaN.
    """
    K = _usa_kernel(X, p)
    return project_tangent(X, (K @ X) @ p.V.T / X.shape[0])


def sa_field(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """SA velocity :math:`P^\\perp(\\sum_j \\mathrm{softmax}_j(\\beta\\langle x_k,Ax_j\\rangle) V x_j)`.

    Rows of the logits are shifted by their max before ``exp`` (no overflow for any beta).
    """
    logits = p.beta * (X @ p.A) @ X.T
    W = np.exp(logits - logits.max(axis=1, keepdims=True))
    W /= W.sum(axis=1, keepdims=True)
    return project_tangent(X, (W @ X) @ p.V.T)


FIELDS = {"lsa": lsa_field, "usa": usa_field, "sa": sa_field}


def field_for(model: str):
    """The vector field for ``model`` in {'lsa', 'usa', 'sa'}."""
    try:
        return FIELDS[model]
    except KeyError:
        raise ValueError(f"model: unknown model {model!r}; choose one of {sorted(FIELDS)}") from None


def _pairwise(X: np.ndarray, p: Attention, h, normalise: bool) -> np.ndarray:
    n = X.shape[0]
    out = np.empty_like(X)
    VX = X @ p.V.T
    AX = X @ p.A.T
    for k in range(n):  # reference implementation: explicit O(n^2 d) double sum
        w = h(p.beta * (AX @ X[k]))  # w[j] = h(beta <x_k, A x_j>)
        s = (w @ VX) / (w.sum() if normalise else n)
        out[k] = s - (X[k] @ s) * X[k]
    return out


def lsa_field_pairwise(t, X, p: Attention):
    """Reference O(n² d) LSA field (explicit sum over pairs)."""
    return _pairwise(X, p, lambda y: y, normalise=False)


def usa_field_pairwise(t, X, p: Attention):
    """Reference O(n² d) USA field (explicit sum over pairs, no overflow guard)."""
    return _pairwise(X, p, np.exp, normalise=False)


def sa_field_pairwise(t, X, p: Attention):
    """Reference O(n² d) SA field (explicit sum over pairs, no max-shift)."""
    return _pairwise(X, p, np.exp, normalise=True)
