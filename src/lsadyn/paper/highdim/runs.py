r"""Runs of the high-dimensional stage (claim C7): d = 2 matrices embedded in d dimensions, n tokens
uniform on :math:`S^{d-1}`, LSA and USA with the same seeds.

A scenario (:func:`lsadyn.paper.highdim.plan.embed_scenario`) embeds a 2×2 block (A₂, V₂) in the first two
coordinates and puts ``rest_A``·I, ``rest_V``·I on the complement, plus optional Gaussian noise of size
``noise``/√d:

.. math:: A = \mathrm{diag}(A_2, a_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_A,\quad
          V = \mathrm{diag}(V_2, v_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_V .

With :math:`v_\perp` below the real parts of V₂'s eigenvalues, the complement contracts relative to
the plane, mass concentrates in the plane and the d = 2 behaviour of (A₂, V₂) should reappear.

Observables: :math:`r(t) = (d\lambda_{max}(M) - 1)/(d-1)`, the angle swept by the leading axis of
M, histograms of pairwise inner products at a few times, |mean token| and the cluster shape of the final
state (:func:`lsadyn.observers.cluster_shape`: one cluster or an antipodal pair). An r below the noise floor of
i.i.d. uniform tokens (:func:`lsadyn.observers.r_noise_floor`) counts as an interior (unclustered) state.

The differential exponent of a clustered run — how fast its cluster tightens — is measured from r(t) and
predicted from its final cluster (:mod:`lsadyn.exponents.cluster`).

Runs use the adaptive DOP853 sphere stepper (:mod:`lsadyn.solvers.dop853`) at tolerances ``rtol``/``atol``;
each is repeated (same seed) at tolerances tighter by a factor ``check_tighten`` (:func:`checked_run`) and
the two must agree in regime, r and rotation rate (:func:`convergence_check`): a check that the reported
limits do not depend on the integration error.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ...api import time_scale
from ...exponents.cluster import run_contraction_exponent, run_state_exponent
from ...fields.attention import attention, field_for
from ...observers import axis_observer, cluster_shape, mean_token_norm, pseudo_r2, r_noise_floor, state_observer
from ...regimes.classify import RegimeTolerances, classify_r2_trajectory
from ...regimes.decision import window_tolerances
from ...regimes.tokens import TokenCertifier, certified_token_result
from ...sampling import uniform_sphere
from ...solvers.integrate import integrate_sphere
from .plan import near_plane, offplane_mass


def inner_product_histogram(X, bins):
    """Histogram (density) of ⟨x_i, x_j⟩, i < j, on the given bin edges."""
    G = X @ X.T
    iu = np.triu_indices(X.shape[0], 1)
    return np.histogram(np.clip(G[iu], -1, 1), bins=bins, density=True)[0]


def run_highdim(A, V, beta, model, n, seed, horizon, n_samples, *, rtol=1e-7, atol=1e-9, n_snapshots=5, tol=None,
                bins=41, window_only=False, offplane=None, certify=True):
    """Integrate one (A, V, model) from n seeded uniform tokens and classify; returns a dict of
    observables and limit values.

    The run is the adaptive DOP853 sphere stepper (:func:`lsadyn.solvers.integrate.integrate_sphere`,
    ``method="DOP853"``, tolerances ``rtol``/``atol``, one BLAS thread for n ≤ 2000) to ``horizon``·τ,
    observed at ``n_samples`` equally spaced times: r(t) and the leading axis of M (the classified signal
    r e^{2iφ}), and at ``n_snapshots`` of those times the histogram of pairwise inner products.
    |mean token| and the cluster shape are read from the final state.

    ``window_only``: observe only the samples the classifier reads (its final window; nothing before it, no
    histograms) — the cheaper form used for the convergence check; ``t``, ``r``, ``swept_angle`` then hold
    the window only and ``histograms`` is empty.

    ``certify`` (default True): the label is :class:`lsadyn.regimes.tokens.TokenCertifier`'s on the classifier's
    window (the last ``tol.window`` of the run) and the final tokens: ``undetermined``, with the reason, unless the
    attractor is found and checked (a fixed-horizon run: nothing continues); ``certify=False``: the window rule.

    ``offplane``: start near the plane of the first two coordinates (:func:`lsadyn.paper.highdim.plan.near_plane`
    of the uniform tokens); None: uniform on the sphere. ``offplane_start``, ``offplane_final``: the mean squared
    complement part of the tokens (:func:`lsadyn.paper.highdim.plan.offplane_mass`) at t = 0 and at the end.
    """
    p = attention(A, V, beta)
    tau = time_scale(p.A, p.V, p.beta)
    t = np.linspace(0, horizon * tau, n_samples)
    tol = tol or RegimeTolerances(tol_zero=r_noise_floor(n, p.d))
    edges = np.linspace(-1, 1, bins + 1)
    if window_only:
        first = int(np.floor((1 - tol.window) * n_samples))  # the classifier's cut (lsadyn.regimes)
        t_obs, snap_idx = t[first:], np.zeros(0, dtype=int)
        classify_tol = window_tolerances(tol)
    else:
        t_obs, snap_idx = t, np.linspace(0, n_samples - 1, n_snapshots).astype(int)
        classify_tol = tol
    snaps = {}
    snap_set = set(snap_idx.tolist())
    calls = itertools.count()

    def observe(X):
        i = next(calls)
        if i in snap_set:
            snaps[i] = inner_product_histogram(X, edges)
        return observe_state(X) if certify else axis_observer(X)

    observe_state = state_observer(field_for(model), p)
    X0 = uniform_sphere(n, p.d, seed)
    if offplane is not None and p.d > 2:
        X0 = near_plane(X0, offplane)
    start = time.perf_counter()
    traj = integrate_sphere(field_for(model), X0, t_obs, p, method="DOP853", rtol=rtol,
                            atol=atol, observer=observe)
    seconds = time.perf_counter() - start
    signal = pseudo_r2(traj.y[:, 0], traj.y[:, 1:p.d + 1])
    X_end = np.asarray(traj.state, dtype=float).reshape(X0.shape)
    if certify:
        cut = slice(None) if window_only else slice(int(np.floor((1 - tol.window) * len(t_obs))), None)
        w = traj.y[cut]
        cert = TokenCertifier(model, p, speed_floor=100 * atol / tau).check(t_obs[cut], w, X_end)
        res = certified_token_result(*cert, t_obs[cut], w[:, 0], w[:, 1:p.d + 1], X_end, f"particles-{model}")
    else:
        res = classify_r2_trajectory(t_obs, signal, classify_tol, method=f"particles-{model}")
    lam = run_contraction_exponent(res.regime, t_obs, traj.y[:, 0], res.period)
    # the window-only convergence check skips the prediction (it compares regime, r and rate only)
    lam_theory = float("nan") if window_only else run_state_exponent(model, res.regime, X_end, p, tau, res.period)
    return {
        "regime": res.regime, "certified": res.certified, "r_final": res.abs_R2, "drift_rate": res.arg_R2_rate, "period": res.period,
        "mean_token_norm": float(mean_token_norm(X_end)), "cluster_shape": cluster_shape(X_end),
        "seconds": seconds, "n_steps": traj.n_steps, "n_evals": traj.n_evals, "rtol": rtol, "atol": atol,
        "t": t_obs, "r": traj.y[:, 0], "swept_angle": np.unwrap(np.angle(signal)) / 2,
        "snapshot_times": t[snap_idx],
        "histograms": np.array([snaps[i] for i in snap_idx]).reshape(len(snap_idx), bins),
        "bin_edges": edges, "reason": res.details.get("checked") or res.details.get("reason", ""),
        "offplane_start": offplane_mass(X0), "offplane_final": offplane_mass(X_end),
        "contraction_exponent": lam, "contraction_exponent_theory": lam_theory,
    }


def end_shape(regime: str, shape: str) -> str:
    """The cluster shape a table reports for a run: the final state's shape (:func:`lsadyn.observers.cluster_shape`)
    when the run reached a regime, ``""`` (not determined) for an ``undetermined`` run, which has no end state
    yet (its momentary shape is not a limit)."""
    return "" if regime == "undetermined" else shape


def convergence_check(run: dict, check: dict, tol_r: float = 1e-3, tol_rate: float = 1e-2) -> bool:
    """Do two runs of the same system at different integration accuracy (e.g. :func:`run_highdim` at
    ``rtol`` and at ``rtol / check_tighten``) agree? Same regime, |Δ r_final| ≤ ``tol_r`` and relative
    |Δ rate| ≤ ``tol_rate`` (when rotating)."""
    if run["regime"] != check["regime"] or abs(run["r_final"] - check["r_final"]) > tol_r:
        return False
    a, b = run["drift_rate"], check["drift_rate"]
    if np.isfinite(a) and np.isfinite(b) and max(abs(a), abs(b)) > 1e-6:
        return abs(a - b) <= tol_rate * max(abs(a), abs(b))
    return True


def checked_run(A, V, beta, model, n, seed, horizon, n_samples, *, rtol, atol, check_tighten, n_snapshots=5,
                tol=None, offplane=None):
    """:func:`run_highdim` at (``rtol``, ``atol``) and its convergence check: the same run (same seed) at
    tolerances tighter by the factor ``check_tighten``, observed on the classifier's window only.
    Returns ``(run, check, ok)`` with ``ok`` from :func:`convergence_check`."""
    if not check_tighten > 1:
        raise ValueError(f"check_tighten: must be > 1 (the check runs at rtol / check_tighten), got {check_tighten}")
    kw = {"n": n, "seed": seed, "horizon": horizon, "n_samples": n_samples, "tol": tol, "offplane": offplane}
    run = run_highdim(A, V, beta, model, rtol=rtol, atol=atol, n_snapshots=n_snapshots, **kw)
    check = run_highdim(A, V, beta, model, rtol=rtol / check_tighten, atol=atol / check_tighten, window_only=True,
                        **kw)
    return run, check, convergence_check(run, check)
