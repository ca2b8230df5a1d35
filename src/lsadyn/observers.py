r"""Observers: order parameters of a token configuration.

* :func:`order_parameter_r2`: :math:`R_2 = \frac1n\sum_j e^{2i\theta_j}` (d = 2).
* :func:`order_parameter_r`: :math:`r = (d\,\lambda_{max}(M) - 1)/(d - 1)` with
  :math:`M = \frac1n\sum_j x_j x_j^\top`; 0 for the uniform measure, 1 when every token lies on
  one axis, equal to :math:`|R_2|` in d = 2.
* :func:`leading_axis`: the unit eigenvector of M for :math:`\lambda_{max}` (sign fixed).
* :func:`axis_observer` ``[r, leading axis]`` (d + 1,) of X (n, d), and :func:`batch_axis_observer` of a stack
  X (B, n, d) -> (B, d + 1).
* :func:`cluster_shape`: one cluster or an antipodal pair, from |mean token| of a clustered state.
* :func:`oa_manifold_distance`: distance of a d = 2 population's doubled phases from the OA manifold.
"""

from __future__ import annotations

import functools

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


@functools.cache
def _top_eigenpair_lapack(d: int):
    """(LAPACK ``dsyevr``, its workspace sizes) for symmetric d × d float64 matrices: what
    ``scipy.linalg.eigh(M, subset_by_index=[d - 1, d - 1])`` looks up and queries on every call."""
    from scipy.linalg import get_lapack_funcs
    from scipy.linalg.lapack import _compute_lwork

    drv, drv_lwork = get_lapack_funcs(("syevr", "syevr_lwork"), [np.zeros((d, d))])
    return drv, dict(zip(("lwork", "liwork"), _compute_lwork(drv_lwork, n=d, lower=True)))


def top_eigenpair(M):
    """Largest eigenvalue and its unit eigenvector of a symmetric float64 matrix M (d, d) (lower triangle read):
    the LAPACK call of ``scipy.linalg.eigh(M, subset_by_index=[d - 1, d - 1], check_finite=False)`` (driver
    ``syevr``, the same arguments and workspace, so the same numbers) without its per-call checks and queries."""
    d = M.shape[0]
    drv, lwork = _top_eigenpair_lapack(d)
    w, v, m, _, info = drv(a=M, overwrite_a=False, range="I", il=d, iu=d, lower=True, compute_v=1, **lwork)
    if info != 0 or m != 1:
        raise np.linalg.LinAlgError(f"M: LAPACK syevr failed (info {info}) on a {d} x {d} matrix")
    return float(w[0]), v[:, 0]


def axis_observer(X) -> np.ndarray:
    """Observer for any d: ``[r, λ_max-eigenvector (d)]`` concatenated, shape (d + 1,) — the values of
    :func:`order_parameter_r` and :func:`leading_axis` from one partial eigendecomposition of M (LAPACK
    ``syevr``, the top eigenpair only (:func:`top_eigenpair`); 3–5× cheaper than the two full ones at d = 100)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    lam, v = top_eigenpair(X.T @ X / n)
    v = v * np.sign(v[np.argmax(np.abs(v))])
    return np.concatenate([[(d * lam - 1.0) / (d - 1.0)], v])


def batch_axis_observer(X) -> np.ndarray:
    """``[r, leading axis of M]`` for every member of X (B, n, d) → (B, d + 1) (batched
    :func:`lsadyn.observers.axis_observer`: same sign convention, largest entry of the axis > 0)."""
    B, n, d = X.shape
    M = np.matmul(np.swapaxes(X, 1, 2), X) / n
    if d <= 8:
        lam, vec = np.linalg.eigh(M)
        lam, v = lam[:, -1], vec[:, :, -1]
    else:  # the top eigenpair only (LAPACK syevr), member by member
        lam, v = np.empty(B), np.empty((B, d))
        for b in range(B):
            lam[b], v[b] = top_eigenpair(M[b])
    v = v * np.sign(v[np.arange(B), np.argmax(np.abs(v), axis=1)])[:, None]
    r = (d * lam - 1.0) / (d - 1.0)
    return np.concatenate([r[:, None], v], axis=1)


def state_observer(field, p):
    """Observer ``X (n, d) -> [r, leading axis (d), |mean token|, max_k |ẋ_k|]`` (d + 3,) for token runs under
    ``field(t, X, p)``: :func:`axis_observer`, the first harmonic :func:`mean_token_norm` and the largest token speed
    (one field evaluation per sample), what :mod:`lsadyn.regimes.tokens` certifies from."""

    def observe(X):
        X = np.asarray(X, dtype=float)
        speed = float(np.max(np.linalg.norm(field(0.0, X, p), axis=1)))
        return np.concatenate([axis_observer(X), [float(mean_token_norm(X)), speed]])

    return observe


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


#: Labels of :func:`cluster_shape`.
CLUSTER_SHAPES = ("single", "antipodal_pair", "none")


def cluster_shape(X, tol: float = 1e-2) -> str:
    r"""Shape of a clustered token state X (n, d): ``"single"``, ``"antipodal_pair"`` or ``"none"``.

    ``"none"`` when the state is not clustered, :math:`1 - r > ` ``tol`` with
    :math:`r = (d\lambda_{max}(M) - 1)/(d-1)` (:func:`order_parameter_r`). In a clustered state every
    token sits at ±u (u the leading axis of M), with masses p and 1 − p, so the mean token has norm
    :math:`m = |2p - 1|`: m = 1 for one cluster, m < 1 as soon as one token sits at the other pole
    (m = 0 for a balanced pair). ``"single"`` iff no token is on the far side of the hyperplane
    :math:`u^\perp`, i.e. :math:`m = 1 - O(\mathrm{tol})`; otherwise ``"antipodal_pair"``.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X: expected tokens of shape (n, d), got {X.shape}")
    if 1.0 - float(order_parameter_r(X)) > tol:
        return "none"
    side = X @ leading_axis(X)
    minority = min(int(np.sum(side > 0)), int(np.sum(side < 0)))
    return "single" if minority == 0 else "antipodal_pair"


def conformal_barycentre(z, tol: float = 1e-10, max_iter: int = 200) -> complex:
    r"""Conformal (Douady–Earle) barycentre of points z (n,) on the unit circle: the α, |α| < 1, with
    :math:`\frac1n\sum_k M_\alpha(z_k) = 0`, :math:`M_\alpha(z) = (z - \alpha)/(1 - \bar\alpha z)`.

    Newton's method in the composition form :math:`M_\beta\circ M_\alpha = e^{i\cdot}M_{\alpha'}`,
    :math:`\alpha' = (\alpha + \beta)/(1 + \bar\alpha\beta)`: with :math:`w = M_\alpha(z)`,
    :math:`m = \langle w\rangle`, :math:`Z = \langle w^2\rangle`, the step solving
    :math:`\beta - \bar\beta Z = m` zeroes the mean to first order. Defined (unique) when no point
    carries half the mass or more; raises ``ValueError`` naming ``z`` if it does not converge.
    """
    z = np.asarray(z, dtype=complex)
    alpha, best = 0j, np.inf
    for _ in range(max_iter):
        w = (z - alpha) / (1 - np.conj(alpha) * z)
        m = w.mean()
        if abs(m) < tol or (abs(m) >= best and best < 1e3 * tol):  # converged to rounding
            return complex(alpha)
        best = min(best, abs(m))
        Z = (w * w).mean()
        den = 1 - abs(Z) ** 2
        beta = (m + Z * np.conj(m)) / den if den > 1e-12 else m
        if abs(beta) > 0.5:  # damp far from the solution
            beta *= 0.5 / abs(beta)
        alpha = (alpha + beta) / (1 + np.conj(alpha) * beta)
    raise ValueError("z: conformal barycentre did not converge (half the mass or more on one point?)")


def oa_manifold_distance(theta, k_max: int = 64) -> float:
    r"""Distance of a d = 2 token population (angles θ (n,)) from the Ott–Antonsen manifold, in the
    doubled angle ξ = 2θ (docs/theory.md §5).

    The OA (wrapped-Cauchy) family is the orbit of the uniform measure under Möbius maps of the
    disc, and the d = 2 dynamics moves the points :math:`z_k = e^{i\xi_k}` only by Möbius maps. So:
    map z by :math:`M_\alpha` with α the conformal barycentre (:func:`conformal_barycentre`,
    after which :math:`\langle w\rangle = 0`) and measure how far the mapped points w from uniform,

    .. math:: D = \Big(\sum_{k=2}^{K} |W_k|^2 / k^2\Big)^{1/2},\qquad W_k = \tfrac1n\sum_j w_j^k,

    an :math:`H^{-1}` norm (up to a constant, the L² distance between the centred cumulative
    distribution of the w's and the uniform one), truncated at K = ``k_max``. Conserved by the flow
    (the barycentre is Möbius-equivariant, the |W_k| rotation-invariant); 0 on the OA manifold;
    ≈ (Σ 1/k²)^{1/2}/√n ≈ 0.8/√n for n i.i.d. uniform angles; ε/4 for the density
    :math:`\propto 1 + \varepsilon\cos 2\xi` (W₂ = ε/2), whatever n is. NaN when half the mass or more
    sits at one point of ξ (e.g. two clumps θ, θ + π): no conformal barycentre exists there.
    """
    theta = np.asarray(theta, dtype=float)
    if theta.ndim != 1 or theta.size < 3 or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta: expected finite angles of shape (n,), n >= 3, got shape {theta.shape}")
    z = np.exp(2j * theta)
    if 1 - abs(z.mean()) < 1e-8:  # (nearly) one point in ξ: a clustered state, no barycentre
        return float("nan")
    try:
        alpha = conformal_barycentre(z)
    except ValueError:
        return float("nan")
    w = (z - alpha) / (1 - np.conj(alpha) * z)
    K = int(min(k_max, theta.size))
    total, p = 0.0, w.copy()
    for k in range(2, K + 1):  # loop over harmonics, vectorised over tokens
        p *= w
        total += abs(p.mean()) ** 2 / k ** 2
    return float(np.sqrt(total))


def r_noise_floor(n: int, d: int) -> float:
    """r of n i.i.d. uniform tokens in d dimensions at the Marchenko–Pastur edge:
    λ_max(M) ≈ (1 + √(d/n))² / d, so r ≈ ((1 + √(d/n))² − 1)/(d − 1). Below it the leading axis of
    M is noise and its swept angle is meaningless."""
    return ((1 + np.sqrt(d / n)) ** 2 - 1) / (d - 1)


#: |mean r over the run's last quarter − mean r over its third quarter| above this: r(t) is still changing at the
#: end of the run, so its r_final and period describe a transient, not a settled state (a longer horizon is needed).
SETTLED_R_CHANGE = 0.02


def r_change_last_quarter(r, n_run: int | None = None) -> float:
    """mean r(t) over the last quarter of a run's samples minus its mean over the third quarter (r: samples equally
    spaced in time; the whole run, or with ``n_run`` — the number of samples of the whole run — only its last ones,
    at least the last half). Near 0 for a settled state, converged or oscillating (each quarter then averages over
    many periods); positive while r is still growing. Settled: :func:`r_settled`."""
    r = np.asarray(r, float)
    n_run = len(r) if n_run is None else int(n_run)
    q = n_run // 4
    if q < 1 or len(r) < 2 * q or len(r) > n_run:
        raise ValueError(f"r: {len(r)} samples cannot be the last half (or more) of a run of {n_run} samples")
    return float(np.mean(r[len(r) - q:]) - np.mean(r[len(r) - 2 * q:len(r) - q]))


def r_settled(change: float) -> bool:
    """Whether a run's r(t) had settled at its end: ``abs(change) <= SETTLED_R_CHANGE`` for ``change`` =
    :func:`r_change_last_quarter` of its r samples (the one criterion of the highdim and persistence stages)."""
    return bool(abs(change) <= SETTLED_R_CHANGE)
