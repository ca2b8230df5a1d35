r"""Attention dynamics on the unit sphere (docs/theory.md §1).

Every vector field here is a pure function ``f(t, X, params)`` of the time ``t``
(unused: the fields are autonomous), the token matrix ``X`` of shape ``(n, d)``
whose rows lie on :math:`S^{d-1}`, and an :class:`Attention` parameter set. It returns
``dX/dt`` of shape ``(n, d)``:

.. math::
    \dot x_k = P^\perp_{x_k}\Big(\tfrac1n \sum_j h(\beta\langle x_k, A x_j\rangle)\, V x_j\Big),
    \qquad P^\perp_x y = y - \langle x, y\rangle x .

* LSA, :math:`h(y)=y`: evaluated through :math:`M = X^\top X / n` as
  :math:`\beta\, V M A^\top x_k`, cost :math:`O(n d^2)`: two GEMMs (:math:`X^\top X` and
  :math:`X G`, :math:`G = \beta A M V^\top`) and a compiled in-place row-wise projection
  (:mod:`lsadyn.fields.kernels`), so the field runs close to the cost of the two GEMMs.
* USA, :math:`h(y)=e^y`: one :math:`n\times n` kernel matrix, cost :math:`O(n^2 d)` (in d = 2,
  :func:`field_for` gives the moment form of :mod:`lsadyn.fields.kuramoto_daido` instead, O(n L + L²)).
* SA (normalised softmax): the USA sum divided by :math:`\sum_j e^{\beta\langle x_k, A x_j\rangle}`
  (no 1/n), evaluated with a row max-shift.

USA and SA skip the product with A or V when it is the identity (the paper's high-dimensional
scenarios mostly have A = I): the logits are then the Gram matrix :math:`X X^\top` (one symmetric
rank-k update). The ``*_pairwise`` functions are plain O(n² d) references used by tests and
benchmarks; :func:`project_tangent` is the numpy reference of the compiled projection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import as_positive_float, as_square_matrix, check_scale
from .kernels import exp_inplace, project_tangent_fast

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

    @property
    def A_is_identity(self) -> bool:
        """A = I exactly (the softmax fields then skip the product with A); cached per instance."""
        return _is_identity(self, "A")

    @property
    def V_is_identity(self) -> bool:
        """V = I exactly (the fields then skip the product with V); cached per instance."""
        return _is_identity(self, "V")


def _is_identity(p: Attention, name: str) -> bool:
    key = f"_{name}_is_identity"
    cached = p.__dict__.get(key)
    if cached is None:
        M = getattr(p, name)
        cached = bool(np.array_equal(M, np.eye(M.shape[0])))
        p.__dict__[key] = cached  # frozen dataclass: write the cache directly
    return cached


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
    """LSA velocity :math:`P^\\perp_{x_k}(\\beta V M A^\\top x_k)`, X (n, d) -> (n, d); O(n d²).

    Cost: the two GEMMs M = XᵀX/n and X G (G = β A M Vᵀ, d × d) plus one compiled in-place pass
    for the projection."""
    X = np.ascontiguousarray(X, dtype=float)
    M = X.T @ X
    G = (p.beta / X.shape[0]) * (p.A @ M if not p.A_is_identity else M)
    if not p.V_is_identity:
        G = G @ p.V.T  # row k of X @ G is (beta V M A^T x_k)^T
    return project_tangent_fast(X, X @ G)


def _logits(X: np.ndarray, p: Attention) -> np.ndarray:
    """β⟨x_k, A x_j⟩ as an (n, n) array (the Gram matrix X Xᵀ, a symmetric update, when A = I)."""
    L = X @ X.T if p.A_is_identity else (X @ p.A) @ X.T
    if p.beta != 1.0:
        L *= p.beta
    return L


def _usa_kernel(X: np.ndarray, p: Attention) -> np.ndarray:
    logits = _logits(X, p)  # logits[k, j] = beta <x_k, A x_j>
    top = float(logits.max())
    if top > USA_MAX_LOGIT:
        raise OverflowError(
            f"beta: USA logit beta*<x, A y> reaches {top:.4g} > {USA_MAX_LOGIT:g}; exp would overflow "
            f"(use beta*||A||_2 <= {USA_MAX_LOGIT:g}, here {p.beta * np.linalg.norm(p.A, 2):.4g})"
        )
    return exp_inplace(logits)


def usa_field(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """USA velocity :math:`P^\\perp(\\frac1n \\sum_j e^{\\beta\\langle x_k,Ax_j\\rangle} V x_j)`; O(n² d).

    Raises ``OverflowError`` (naming ``beta``) instead of returning inf/NaN.
    """
    X = np.ascontiguousarray(X, dtype=float)
    K = _usa_kernel(X, p)
    S = K @ X if p.V_is_identity else K @ (X @ p.V.T)
    S *= 1.0 / X.shape[0]
    return project_tangent_fast(X, S)


def sa_field(t, X: np.ndarray, p: Attention) -> np.ndarray:
    """SA velocity :math:`P^\\perp(\\sum_j \\mathrm{softmax}_j(\\beta\\langle x_k,Ax_j\\rangle) V x_j)`.

    Rows of the logits are shifted by their max before ``exp`` (no overflow for any beta).
    """
    X = np.ascontiguousarray(X, dtype=float)
    W = _logits(X, p)
    W -= W.max(axis=1, keepdims=True)
    exp_inplace(W)
    W /= W.sum(axis=1, keepdims=True)
    S = W @ X if p.V_is_identity else W @ (X @ p.V.T)
    return project_tangent_fast(X, S)


FIELDS = {"lsa": lsa_field, "usa": usa_field, "sa": sa_field}


def field_for(model: str, d: int | None = None, *, direct: bool = False):
    """The vector field for ``model`` in {'lsa', 'usa', 'sa'}. For ``d = 2`` tokens USA and SA are
    :func:`lsadyn.fields.kuramoto_daido.usa_field_d2` / ``sa_field_d2`` (the moment form whenever it is the cheaper,
    from a few hundred tokens on); ``direct=True`` keeps the O(n² d) kernel fields of this module."""
    try:
        field = FIELDS[model]
    except KeyError:
        raise ValueError(f"model: unknown model {model!r}; choose one of {sorted(FIELDS)}") from None
    if d == 2 and model != "lsa" and not direct:
        from . import kuramoto_daido

        return kuramoto_daido.usa_field_d2 if model == "usa" else kuramoto_daido.sa_field_d2
    return field


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
