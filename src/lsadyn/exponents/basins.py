r"""Basin fractions of the OA flow where it is multistable.

N initial values R₂(0) uniform in the unit disc (:math:`R_2(0) = \sqrt u\,e^{2\pi i v}`, u, v ~ U(0, 1), seeded)
are integrated together (:func:`lsadyn.api.integrate_oa`, shape (N,)) for
:math:`t = \max(h\tau,\ 3\log(1/\mathrm{tol}) / \min_a|\lambda_a|)` (``horizon`` h in time units
τ = 1/(β‖A‖₂‖V‖₂); λ_a the leading exponents of the attractors: three times the time the slowest one needs to pull
an O(1) distance below ``tol``); each end point goes to the attractor of :func:`lsadyn.exponents.oa.attractors` it lies within
``tol`` of (an equilibrium; the rotating circle when :math:`1 - |R_2| <` tol and no equilibrium is that close), or
is left ``unresolved``. The fraction k/N of each attractor carries the Wilson score interval at 95 %,

.. math:: \frac{\hat p + z^2/2N \pm z\sqrt{\hat p(1-\hat p)/N + z^2/4N^2}}{1 + z^2/N},\qquad z = 1.959964.
"""

from __future__ import annotations

import numpy as np

from .oa import attractors

Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval (low, high) of a binomial fraction k/n (n ≥ 1)."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"wilson_interval: need 0 <= k <= n, n >= 1 (got k = {k}, n = {n})")
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (0.0 if k == 0 else float(mid - half)), (1.0 if k == n else float(mid + half))


def disc_starts(n: int, seed: int) -> np.ndarray:
    """n points (complex, (n,)) uniform in the open unit disc, from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    u, v = rng.random(n), rng.random(n)
    return np.sqrt(u) * (1 - 1e-12) * np.exp(2j * np.pi * v)


def basin_fractions(A, V, beta, n_samples: int, seed: int, horizon: float = 200.0, tol: float = 1e-3) -> list[dict]:
    """One dict per attractor (and one ``unresolved``): ``attractor`` (index, -1 unresolved), ``regime``,
    ``exponent``, ``re_R2``, ``im_R2``, ``count``, ``n_samples``, ``fraction``, ``ci_low``, ``ci_high``."""
    from ..api import integrate_oa, time_scale

    if n_samples < 1:
        raise ValueError(f"n_samples: at least 1, got {n_samples}")
    att = attractors(A, V, beta)
    R0 = disc_starts(n_samples, seed)
    slowest = min((abs(a.exponent) for a in att if a.exponent != 0), default=np.inf)
    t_end = max(horizon * time_scale(A, V, beta), 3 * np.log(1 / tol) / slowest)
    end = integrate_oa(A, V, beta, R0, np.array([0.0, t_end]))[-1]
    label = np.full(n_samples, -1)
    eq = [(k, a.R2) for k, a in enumerate(att) if np.isfinite(a.R2)]
    if eq:
        dist = np.abs(end[:, None] - np.array([r for _, r in eq])[None, :])
        near = dist.min(axis=1) < tol
        label[near] = np.array([k for k, _ in eq])[dist.argmin(axis=1)[near]]
    for k, a in enumerate(att):
        if a.regime == "cluster_rotate":
            label[(label < 0) & (1 - np.abs(end) < tol)] = k
    rows = []
    for k, a in [*enumerate(att), (-1, None)]:
        c = int((label == k).sum())
        lo, hi = wilson_interval(c, n_samples)
        rows.append({"attractor": k, "regime": a.regime if a else "unresolved",
                     "exponent": a.exponent if a else float("nan"),
                     "re_R2": a.R2.real if a else float("nan"), "im_R2": a.R2.imag if a else float("nan"),
                     "count": c, "n_samples": n_samples, "fraction": c / n_samples, "ci_low": lo, "ci_high": hi})
    return rows
