r"""Compiled (numba) row-wise kernels for token fields on :math:`S^{d-1}` (any d).

The matrix products of the fields stay in BLAS; what numpy cannot do without temporaries is the
row-wise tangent projection :math:`y_k \leftarrow y_k - \langle x_k, y_k\rangle x_k`, which used
to cost more than the two GEMMs of the LSA field at n = 10⁴, d = 100. Here it is one pass over
X and Y, in place. :func:`lsadyn.fields.attention.project_tangent` (plain numpy) stays as the reference.
"""

from __future__ import annotations

import numba
import numpy as np

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)

_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split for an exact k·ln2 (Cody–Waite)
_LN2_LO = 1.90821492927058770002e-10
_MAGIC = 6755399441055744.0  # 1.5·2^52: adding it rounds to an integer kept in the low mantissa bits
_MAGIC_BITS = int(np.array([_MAGIC]).view(np.int64)[0])


@numba.njit(cache=True, nogil=True)
def project_tangent_inplace(X: np.ndarray, Y: np.ndarray) -> None:
    r"""In place, row by row: :math:`Y_k \leftarrow Y_k - \langle X_k, Y_k\rangle X_k`; X, Y (n, d) C-contiguous."""
    n, d = X.shape
    for k in range(n):
        s = 0.0
        for i in range(d):
            s += X[k, i] * Y[k, i]
        for i in range(d):
            Y[k, i] -= s * X[k, i]


@numba.njit(cache=True, nogil=True, inline="always")
def _row_norm_sq(X: np.ndarray, k: int) -> float:
    r""":math:`\|X_k\|^2` of row k of X (n, d)."""
    s = 0.0
    for i in range(X.shape[1]):
        s += X[k, i] * X[k, i]
    return s


@numba.njit(cache=True, nogil=True)
def normalise_rows_inplace(X: np.ndarray) -> float:
    r"""In place, row by row: :math:`X_k \leftarrow X_k / \|X_k\|`; returns the largest
    :math:`|\,\|X_k\|^2 - 1|` before normalising (the norm drift)."""
    n, d = X.shape
    drift = 0.0
    for k in range(n):
        s = _row_norm_sq(X, k)
        drift = max(drift, abs(s - 1.0))
        inv = 1.0 / np.sqrt(s)
        for i in range(d):
            X[k, i] *= inv
    return drift


@numba.njit(cache=True, nogil=True)
def norm_drift(X: np.ndarray) -> float:
    r"""Largest :math:`|\,\|X_k\|^2 - 1|` over the rows of X (n, d)."""
    drift = 0.0
    for k in range(X.shape[0]):
        drift = max(drift, abs(_row_norm_sq(X, k) - 1.0))
    return drift


@numba.njit(cache=True, nogil=True)
def _exp_flat(a: np.ndarray, tmp: np.ndarray) -> None:
    n = a.size
    for i in range(n):
        x = min(max(a[i], -708.0), 709.0)
        kd = x * _INV_LN2 + _MAGIC
        k = kd - _MAGIC
        r = x - k * _LN2_HI - k * _LN2_LO  # |r| <= ln2 / 2
        p = 1.0 / 6227020800.0  # Taylor to r^13: truncation < 5e-18 relative
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        a[i] = p * r + 1.0
        tmp[i] = kd
    bits = tmp.view(np.int64)
    for i in range(n):
        bits[i] = (bits[i] - _MAGIC_BITS + 1023) << 52  # 2^k
    for i in range(n):
        a[i] *= tmp[i]


def exp_inplace(A: np.ndarray) -> np.ndarray:
    r"""In place :math:`e^{A}` for a C-contiguous float64 array, within 1 ulp of ``numpy.exp`` for
    :math:`-708 \le A \le 709` (range reduction by k·ln 2, Taylor polynomial, 2^k from the exponent
    bits; about 2× faster than ``numpy.exp``). Entries below −708 give e^−708 ≈ 3e−308 instead of a
    subnormal or 0 (the softmax fields only add them to sums ≥ 1); callers check the upper end."""
    flat = A.reshape(-1)
    _exp_flat(flat, np.empty_like(flat))
    return A


def project_tangent_fast(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """:func:`project_tangent_inplace` on ``Y`` (made C-contiguous float64 if needed); returns ``Y``."""
    X = np.ascontiguousarray(X, dtype=float)
    if not (Y.flags.c_contiguous and Y.dtype == np.float64 and Y.flags.writeable):
        Y = np.ascontiguousarray(Y, dtype=float).copy()
    project_tangent_inplace(X, Y)
    return Y


def warm_up() -> None:
    """Compile (or load from numba's cache) this module's kernels on tiny arrays, with the argument types the
    integrators pass (C-contiguous float64: (n, d) states, 1-d for the exponential), so that parallel jobs find them
    compiled instead of each compiling them (rule ``compile_sphere_kernels``)."""
    X = np.full((2, 3), 0.5)
    project_tangent_inplace(X, np.ones((2, 3)))
    normalise_rows_inplace(X)
    norm_drift(X)
    exp_inplace(np.zeros((2, 3)))
