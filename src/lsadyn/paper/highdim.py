r"""High-dimensional experiments (claim C7): d = 2 matrices embedded in d dimensions, n tokens
uniform on :math:`S^{d-1}`, LSA and USA with the same seeds.

A scenario embeds a 2×2 block (A₂, V₂) in the first two coordinates and puts ``rest_A``·I,
``rest_V``·I on the complement, plus optional Gaussian noise of size ``noise``/√d:

.. math:: A = \mathrm{diag}(A_2, a_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_A,\quad
          V = \mathrm{diag}(V_2, v_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_V .

With :math:`v_\perp` below the real parts of V₂'s eigenvalues, the complement contracts relative to
the plane, mass concentrates in the plane and the d = 2 behaviour of (A₂, V₂) should reappear.

Observables: :math:`r(t) = (d\lambda_{max}(M) - 1)/(d-1)`, the angle swept by the leading axis of
M, histograms of pairwise inner products at a few times, |mean token| and the cluster shape of the final
state (:func:`lsadyn.metrics.cluster_shape`: one cluster or an antipodal pair). An r below the noise floor of
i.i.d. uniform tokens (:func:`r_noise_floor`) counts as an interior (unclustered) state. Each run is repeated
with half the RK4 step to check step-size convergence.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ..api import time_scale
from ..dynamics import attention, field_for
from ..integrate import integrate_sphere, uniform_sphere
from ..metrics import axis_observer, cluster_shape, mean_token_norm, pseudo_r2
from ..regimes import RegimeTolerances, classify_r2_trajectory


def embed_scenario(A2, V2, d: int, rest_A: float, rest_V: float, noise: float = 0.0, seed: int = 0):
    """(A, V) of shape (d, d) from 2×2 blocks, complement scalings and seeded noise (see module doc)."""
    rng = np.random.default_rng(seed)
    A = np.eye(d) * rest_A
    V = np.eye(d) * rest_V
    A[:2, :2] = np.asarray(A2, dtype=float)
    V[:2, :2] = np.asarray(V2, dtype=float)
    if noise:
        A = A + noise / np.sqrt(d) * rng.standard_normal((d, d))
        V = V + noise / np.sqrt(d) * rng.standard_normal((d, d))
    return A, V


def inner_product_histogram(X, bins):
    """Histogram (density) of ⟨x_i, x_j⟩, i < j, on the given bin edges."""
    G = X @ X.T
    iu = np.triu_indices(X.shape[0], 1)
    return np.histogram(np.clip(G[iu], -1, 1), bins=bins, density=True)[0]


def r_noise_floor(n: int, d: int) -> float:
    """r of n i.i.d. uniform tokens in d dimensions at the Marchenko–Pastur edge:
    λ_max(M) ≈ (1 + √(d/n))² / d, so r ≈ ((1 + √(d/n))² − 1)/(d − 1). Below it the leading axis of
    M is noise and its swept angle is meaningless."""
    return ((1 + np.sqrt(d / n)) ** 2 - 1) / (d - 1)


def run_highdim(A, V, beta, model, n, seed, horizon, dt, n_samples, n_snapshots=5, tol=None, bins=41):
    """Integrate one (A, V, model) from n seeded uniform tokens with RK4 (step ``dt``·τ) and
    classify; returns a dict of observables and limit values."""
    p = attention(A, V, beta)
    tau = time_scale(p.A, p.V, p.beta)
    t = np.linspace(0, horizon * tau, n_samples)
    snap_idx = np.linspace(0, n_samples - 1, n_snapshots).astype(int)
    edges = np.linspace(-1, 1, bins + 1)
    snaps = {}
    snap_set = set(snap_idx.tolist())
    calls = itertools.count()

    def observe(X):
        i = next(calls)
        if i in snap_set:
            snaps[i] = (inner_product_histogram(X, edges), mean_token_norm(X), cluster_shape(X))
        return axis_observer(X)

    start = time.perf_counter()
    traj = integrate_sphere(field_for(model), uniform_sphere(n, p.d, seed), t, p, method="rk4", dt=dt * tau,
                            observer=observe)
    seconds = time.perf_counter() - start
    signal = pseudo_r2(traj.y[:, 0], traj.y[:, 1:])
    tol = tol or RegimeTolerances(tol_zero=r_noise_floor(n, p.d))
    res = classify_r2_trajectory(t, signal, tol, method=f"particles-{model}")
    return {
        "regime": res.regime, "r_final": res.abs_R2, "drift_rate": res.arg_R2_rate, "period": res.period,
        "mean_token_norm": float(snaps[snap_idx[-1]][1]), "cluster_shape": snaps[snap_idx[-1]][2],
        "seconds": seconds,
        "t": t, "r": traj.y[:, 0], "swept_angle": np.unwrap(np.angle(signal)) / 2,
        "snapshot_times": t[snap_idx], "histograms": np.array([snaps[i][0] for i in snap_idx]), "bin_edges": edges,
        "reason": res.details.get("reason", ""),
    }


def step_size_check(coarse: dict, fine: dict, tol_r: float = 1e-3, tol_rate: float = 1e-2) -> bool:
    """Same regime, |Δ r_final| ≤ tol_r and relative |Δ rate| ≤ tol_rate (when rotating)."""
    if coarse["regime"] != fine["regime"] or abs(coarse["r_final"] - fine["r_final"]) > tol_r:
        return False
    a, b = coarse["drift_rate"], fine["drift_rate"]
    if np.isfinite(a) and np.isfinite(b) and max(abs(a), abs(b)) > 1e-6:
        return abs(a - b) <= tol_rate * max(abs(a), abs(b))
    return True
