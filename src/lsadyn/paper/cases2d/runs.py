"""Runs of the d = 2 study: classify every point of a case's parameter frame (:mod:`lsadyn.paper.cases2d.plan`) by
three methods (OA ODE, Watanabe–Strogatz, n tokens), its representative trajectories, case 4's orbits.

These are the functions the pipeline's scripts call (one per job); each takes plain config dicts and DataFrames
and returns DataFrames / arrays, so they are unit-testable. The integrators (:mod:`lsadyn.api`: scipy.integrate and
numba, ~1 s of imports) are imported inside the functions that integrate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .plan import matches, matrices


def _columns(results, method):
    return {
        f"regime_{method}": [r.regime for r in results],
        f"certified_{method}": [r.certified for r in results],
        f"abs_R2_{method}": [r.abs_R2 for r in results],
        f"rate_{method}": [r.arg_R2_rate for r in results],
        f"period_{method}": [r.period for r in results],
        f"amplitude_{method}": [r.details.get("amplitude", np.nan) for r in results],
        f"t_decide_{method}": [r.details["t_decide"] for r in results],
        f"budget_factor_{method}": [r.details["budget_factor"] for r in results],
        f"note_{method}": [r.details.get("reason", "") for r in results],
    }


def classify_points(df: pd.DataFrame, oa: dict, agreement: dict, tol: dict, seed: int) -> pd.DataFrame:
    """Add OA, WS and particle regimes (and limit values) to every row of a parameter frame.

    ``oa``: {horizon, n_samples, budget_factor}; ``agreement``: {n_tokens, horizon, n_samples, budget_factor};
    ``tol``: the :class:`RegimeTolerances` fields. WS and particles start from the same ``n_tokens``
    uniform angles drawn with ``seed``. Every run goes through the decision procedure of
    :mod:`lsadyn.regimes.decision` (undecided runs continue up to ``budget_factor`` × the horizon); the OA batch also
    integrates one start from the tokens' own R₂(0) (column ``regime_oa_token_start``: tells
    multistability from finite-n effects).
    """
    from ...api import particles_regime_batch, predict_regime_batch, ws_regime_batch
    from ...budget import Progress
    from ...observers import order_parameter_r2
    from ...regimes.classify import RegimeTolerances
    from ...sampling import uniform_angles

    A, V, beta = matrices(df)
    tolerances = RegimeTolerances(**tol)
    out = df.copy()
    R0 = order_parameter_r2(uniform_angles(agreement["n_tokens"], seed))
    with Progress(desc=f"OA ({len(df)} points)") as progress:
        oa_res = predict_regime_batch(A, V, beta, horizon=oa["horizon"], n_samples=oa["n_samples"], tol=tolerances,
                                      budget=oa["budget_factor"], token_start=R0, progress=progress)
    out = out.assign(**_columns(oa_res, "oa"))
    out["regime_oa_token_start"] = [r.details["regime_token_start"] for r in oa_res]
    kw = dict(n=agreement["n_tokens"], seed=seed, horizon=agreement["horizon"], n_samples=agreement["n_samples"],
              tol=tolerances, budget=agreement["budget_factor"])
    with Progress(desc=f"WS ({len(df)} points)") as progress:
        out = out.assign(**_columns(ws_regime_batch(A, V, beta, progress=progress, **kw), "ws"))
    with Progress(desc=f"tokens ({len(df)} points x {agreement['n_tokens']})") as progress:
        out = out.assign(**_columns(particles_regime_batch(A, V, beta, progress=progress, **kw), "particles"))
    out["oa_matches_prediction"] = [matches(r, p) if p else np.nan for r, p in zip(out.regime_oa, out.prediction)]
    return out


def _time_to_cluster(sim: pd.DataFrame, cfg: dict, level: float = 0.99) -> np.ndarray:
    """A sort key that is 0 for one ``cluster_rotate`` row, 1 for every other row: the fastest-rotating
    (largest |rate_oa|, so that the window holds several turns and the mean rate can be read) among the
    rows whose OA R₂(t) (from the first start of :func:`oa_start_points`) reaches |R₂| ≥ ``level`` within
    the first half of the representative window, where the rotation rate is derived."""
    from ...api import integrate_oa, oa_start_points, time_scale

    key = np.ones(len(sim))
    rows = np.flatnonzero((sim.regime_oa == "cluster_rotate").to_numpy())
    rows = rows[np.argsort(-np.abs(sim.rate_oa.to_numpy(float)[rows]), kind="stable")]
    for i in rows:
        (a,), (v,), (b,) = matrices(sim.iloc[[i]])
        t = np.linspace(0, 0.5 * cfg["horizon"] * time_scale(a, v, b), 512)
        if np.abs(integrate_oa(a, v, b, oa_start_points()[0], t)[:, 0]).max() >= level:
            key[i] = 0.0
            break
    return key


def representative_trajectories(sim: pd.DataFrame, cfg: dict, seed: int) -> dict:
    """One point per OA regime of a case: OA R₂(t) and n tokens' angles θ(t) (d = 2 LSA).

    ``cfg``: {n_tokens, horizon (in units of τ), n_samples}. Returns arrays for ``np.savez``.
    """
    from ...api import integrate_oa, oa_start_points, time_scale
    from ...observers import order_parameter_r2
    from ...reductions.kuramoto import angle_field, kuramoto_coefficients
    from ...sampling import uniform_angles
    from ...solvers.integrate import integrate_flat

    # first point of each regime; for `oscillate` the shortest OA period, so the window shows oscillations;
    # for `cluster_rotate` a fast rotation whose OA solution reaches |R2| >= 0.99 early in the window, so that
    # the rotation on |R2| = 1 (where its rate is derived) is what the window shows
    key = np.where(sim.regime_oa == "oscillate", sim.period_oa.astype(float).fillna(np.inf), 0.0)
    key = np.where(sim.regime_oa == "cluster_rotate", _time_to_cluster(sim, cfg), key)
    picks = sim.assign(_key=key).sort_values(["_key"], kind="stable").drop_duplicates("regime_oa")
    picks = picks.drop(columns="_key").sort_values("regime_oa")
    A, V, beta = matrices(picks)
    theta0 = uniform_angles(cfg["n_tokens"], seed)
    out = {"regime": picks.regime_oa.to_numpy(str), "point_id": picks.point_id.to_numpy(),
           "x": picks.x.to_numpy(float), "y": picks.y.to_numpy(float)}
    ts, R_oa, R_p, th = [], [], [], []
    for a, v, b in zip(A, V, beta):
        t = np.linspace(0, cfg["horizon"] * time_scale(a, v, b), cfg["n_samples"])
        ts.append(t)
        R_oa.append(integrate_oa(a, v, b, oa_start_points()[0], t)[:, 0])
        theta = integrate_flat(angle_field, theta0, t, kuramoto_coefficients(a, v, b), rtol=1e-9, atol=1e-11).y
        th.append(theta)
        R_p.append(order_parameter_r2(theta))
    if ts:
        out.update(t=np.array(ts), R2_oa=np.array(R_oa), R2_particles=np.array(R_p), theta=np.array(th))
    return out


def case4_orbits(v11: float, v12: float, starts, horizon: float, n_samples: int, beta: float = 1.0) -> dict:
    """OA orbits of case 4 from several starts and the conserved 𝓗 along them."""
    from ...api import integrate_oa
    from ...reductions.kuramoto import case4_hamiltonian

    starts = np.asarray(starts, dtype=complex)
    V = np.array([[v11, v12], [-v12, -v11]])
    t = np.linspace(0, horizon, n_samples)
    R = integrate_oa(np.eye(2), V, beta, starts, t).T
    H = case4_hamiltonian(R, v11, v12)
    return {"t": t, "R2": R, "H": H, "H_rel_drift": np.max(np.abs(H - H[:, :1]) / np.abs(H[:, :1]), axis=1)}




def oa_exponents(sim: pd.DataFrame) -> np.ndarray:
    """The leading exponent (len(sim),) of the OA attractor each row's OA run reached
    (:func:`lsadyn.exponents.leading_exponent` from the near-uniform starts of :func:`lsadyn.api.oa_start_points`):
    the largest real part of the eigenvalues at an equilibrium, the normal Floquet exponent λ⊥ for rotating clusters,
    0 on a circle of fixed points; NaN for ``oscillate`` (interior limit cycles and centres: their multipliers are
    not computed here) and ``undetermined``. Rows with the same (A, V, β, regime) are computed once."""
    from ...api import oa_start_points
    from ...exponents import leading_exponent

    starts = oa_start_points()
    cache = {}
    out = np.full(len(sim), np.nan)
    A, V, B = matrices(sim)
    for i, (a, v, beta, regime, r) in enumerate(zip(A, V, B, sim.regime_oa, sim.abs_R2_oa)):
        key = (*a.ravel(), *v.ravel(), beta, regime)
        if key not in cache:
            cache[key] = leading_exponent(a, v, beta, regime, r, starts=starts)
        out[i] = cache[key]
    return out
