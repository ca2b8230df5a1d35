"""Public entry points: the long-time regime of (A, V, β) from the OA ODE, from WS, or from tokens.

All three integrate to ``T = horizon · τ`` with the time scale ``τ = 1 / (β ‖A‖₂ ‖V‖₂)``, sample
``n_samples`` equally spaced times and classify the trajectory of R₂ (d = 2) or of
``r(t) e^{2iφ(t)}`` (d > 2, φ the angle swept by the leading axis of M) with
:func:`lsadyn.regimes.classify_r2_trajectory`.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .dynamics import attention, field_for
from .integrate import integrate_flat, integrate_sphere, uniform_angles, uniform_sphere
from .kuramoto import kuramoto_coefficients, oa_field
from .metrics import axis_observer, order_parameter_r2_tokens, pseudo_r2
from .regimes import RegimeResult, RegimeTolerances, classify_r2_trajectory
from .validation import as_int_at_least, as_positive_float
from .watanabe_strogatz import ws_field, ws_from_angles, ws_order_parameter

#: Initial points of :func:`predict_regime`: R₂(0) = 0.01·exp(i(π/8 + kπ/4)), k = 0..7,
#: i.e. wrapped-Cauchy (OA) states close to the uniform measure (R₂ = 0), around it on a circle.
OA_START_RADIUS = 1e-2
OA_N_STARTS = 8


def oa_start_points(radius: float = OA_START_RADIUS, count: int = OA_N_STARTS) -> np.ndarray:
    """The near-uniform initial values of R₂ used by :func:`predict_regime`, shape (count,)."""
    return radius * np.exp(1j * (np.pi / 8 + 2 * np.pi * np.arange(count) / count))


def time_scale(A, V, beta) -> float:
    """τ = 1 / (β ‖A‖₂ ‖V‖₂) (1 when A or V is zero)."""
    s = beta * np.linalg.norm(A, 2) * np.linalg.norm(V, 2)
    return 1.0 / s if s > 0 else 1.0


def _times(A, V, beta, horizon, n_samples):
    horizon = as_positive_float(horizon, "horizon")
    n_samples = as_int_at_least(n_samples, "n_samples", 64)
    return np.linspace(0.0, horizon * time_scale(A, V, beta), n_samples)


def integrate_oa(A, V, beta, R2_0, t_eval, rtol=1e-10, atol=1e-12):
    """Integrate the OA ODE for a batch of initial values ``R2_0`` (N,) → R₂(t) of shape (m, N)."""
    R2_0 = np.atleast_1d(np.asarray(R2_0, dtype=complex))
    coeffs = kuramoto_coefficients(np.broadcast_to(A, R2_0.shape + (2, 2)), V, beta)
    traj = integrate_flat(oa_field, np.concatenate([R2_0.real, R2_0.imag]), t_eval, coeffs, rtol=rtol, atol=atol)
    N = R2_0.size
    return traj.y[:, :N] + 1j * traj.y[:, N:]


def predict_regime(A, V, beta=1.0, *, horizon=400.0, n_samples=8000, tol: RegimeTolerances | None = None):
    """Regime predicted by the Ott–Antonsen ODE (d = 2 LSA) from near-uniform starts.

    The OA ODE is integrated from the 8 points of :func:`oa_start_points` (|R₂(0)| = 0.01); the
    regime is the label shared by a strict majority of them, else ``undetermined`` (the
    per-start labels are in ``details['start_regimes']``). Limit values are the median over
    the starts that carry the reported label.
    """
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the OA reduction needs d = 2, got {p.d}x{p.d}")
    t = _times(p.A, p.V, p.beta, horizon, n_samples)
    R2 = integrate_oa(p.A, p.V, p.beta, oa_start_points(), t)
    results = [classify_r2_trajectory(t, R2[:, k], tol, method="oa") for k in range(R2.shape[1])]
    labels = [r.regime for r in results]
    label, count = Counter(labels).most_common(1)[0]
    if count * 2 <= len(labels):
        label = "undetermined"
    chosen = [r for r in results if r.regime == label] or results
    out = RegimeResult(
        label,
        float(np.median([r.abs_R2 for r in chosen])),
        float(np.median([r.arg_R2_rate for r in chosen])),
        float(np.median([r.period for r in chosen])),
        "oa",
        {"start_regimes": labels, "horizon_time": float(t[-1])},
    )
    return out


def ws_regime(A, V, beta=1.0, *, n=1000, seed=0, horizon=400.0, n_samples=8000, tol=None, rtol=1e-10, atol=1e-12):
    """Regime from the Watanabe–Strogatz reduction of n tokens with i.i.d. uniform seeded angles (d = 2)."""
    p = attention(A, V, beta)
    if p.d != 2:
        raise ValueError(f"A: the WS reduction needs d = 2, got {p.d}x{p.d}")
    n = as_int_at_least(n, "n", 2)
    t = _times(p.A, p.V, p.beta, horizon, n_samples)
    y0, const = ws_from_angles(uniform_angles(n, seed), kuramoto_coefficients(p.A, p.V, p.beta))
    traj = integrate_flat(ws_field, y0, t, const, rtol=rtol, atol=atol)
    R2 = np.array([ws_order_parameter(y, const) for y in traj.y])
    return classify_r2_trajectory(t, R2, tol, method="ws")


def simulate_regime(
    A,
    V,
    beta=1.0,
    *,
    n=1000,
    d=None,
    model="lsa",
    seed=0,
    horizon=400.0,
    n_samples=4000,
    tol=None,
    method="DOP853",
    rtol=1e-8,
    atol=1e-10,
    dt=None,
):
    """Regime from n tokens i.i.d. uniform on S^{d-1} (seeded), for model 'lsa', 'usa' or 'sa'.

    ``d`` defaults to the size of A (and must match it). In d = 2 the classified signal is R₂(t);
    in d > 2 it is r(t)·e^{2iφ(t)} with φ the (unsigned) angle swept by the leading axis of M.
    """
    p = attention(A, V, beta)
    if d is not None and as_int_at_least(d, "d", 2) != p.d:
        raise ValueError(f"d: A and V are {p.d}x{p.d} but d = {d}")
    n = as_int_at_least(n, "n", 2)
    field = field_for(model)
    t = _times(p.A, p.V, p.beta, horizon, n_samples)
    X0 = uniform_sphere(n, p.d, seed)
    if p.d == 2:
        traj = integrate_sphere(field, X0, t, p, method=method, rtol=rtol, atol=atol, dt=dt,
                                observer=order_parameter_r2_tokens)
        signal = traj.y
    else:
        traj = integrate_sphere(field, X0, t, p, method=method, rtol=rtol, atol=atol, dt=dt, observer=axis_observer)
        signal = pseudo_r2(traj.y[:, 0], traj.y[:, 1:])
    res = classify_r2_trajectory(t, signal, tol, method=f"particles-{model}")
    res.details["n_steps"] = traj.n_steps
    return res
