r"""Transverse stability of the embedded plane (claim C7, issue 28 part 4).

With :math:`A = \mathrm{diag}(A_2, a_\perp I_{d-2})`, :math:`V = \mathrm{diag}(V_2, v_\perp I_{d-2})` (no noise) the
plane of the first two coordinates is invariant: tokens in it stay in it and move as the d = 2 system. Write a
token near the plane as :math:`x_k = (\sqrt{1-|\varepsilon_k|^2}\,p_k, \varepsilon_k)`, :math:`p_k = (\cos\theta_k,
\sin\theta_k)`, :math:`\varepsilon_k \in \mathbb R^{d-2}` small. Since
:math:`\langle x_k, A x_j\rangle = \langle p_k, A_2 p_j\rangle + O(\varepsilon^2)` (``rest_A`` enters only at second
order), the complement part of :math:`\dot x_k = P^\perp_{x_k} u_k`,
:math:`u_k = \tfrac1n\sum_j h(\beta\langle x_k, A x_j\rangle) V x_j`, is to first order

.. math:: \dot\varepsilon_k = v_\perp \sum_j K_{kj}\,\varepsilon_j - g_k\,\varepsilon_k,\qquad
          K_{kj} = \tfrac1n h(\beta\langle p_k, A_2 p_j\rangle),\quad
          g_k = \sum_j K_{kj}\langle p_k, V_2 p_j\rangle = \langle p_k, u_k\rangle,

with the plane angles following the d = 2 flow :math:`\dot\theta_k = \langle J p_k, \sum_j K_{kj} V_2 p_j\rangle`.
Each of the d − 2 complement coordinates obeys the same n-dimensional linear system (shapes: θ, ε of shape (n,)),
so one copy decides: the plane attracts near-plane tokens when the largest Lyapunov exponent
:math:`\lambda_\perp = \lim_T \tfrac1T \log|\varepsilon(T)|` of this system along the plane orbit is negative.
LSA :math:`h(y) = y`, USA :math:`h(y) = e^y`. ``v_perp`` (config ``rest_V``) enters through the collective term
:math:`v_\perp K` (K has rank 2 for LSA); :math:`-g_k` is each token's own radial rate.

Tested against a direct d = 3 simulation of a small perturbation (tests/test_highdim_transverse.py).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

_KERNELS = {"lsa": lambda y: y, "usa": np.exp}


def _h(model: str):
    try:
        return _KERNELS[model]
    except KeyError:
        raise ValueError(f"model: expected one of {sorted(_KERNELS)}, got {model!r}") from None


def transverse_rhs(theta, eps, A2, V2, rest_V: float, beta: float, model: str):
    """(dθ/dt, dε/dt) of the plane flow and its transverse linearisation (module doc); θ, ε of shape (n,)."""
    P = np.stack([np.cos(theta), np.sin(theta)], axis=1)  # (n, 2)
    K = _h(model)(beta * (P @ np.asarray(A2, float) @ P.T)) / len(theta)  # K[k, j] = h(β <p_k, A2 p_j>) / n
    U = K @ (P @ np.asarray(V2, float).T)  # u_k in the plane, (n, 2)
    dtheta = -P[:, 1] * U[:, 0] + P[:, 0] * U[:, 1]  # <J p_k, u_k>
    g = np.einsum("ki,ki->k", P, U)
    return dtheta, rest_V * (K @ eps) - g * eps


def transverse_flow(theta0, eps0, t_eval, A2, V2, rest_V: float, beta: float, model: str, *, rtol=1e-10,
                    atol=1e-12):
    """θ(t), ε(t) at ``t_eval`` (shapes (len(t_eval), n)) of the plane flow with its linearised complement
    coordinate, from ``theta0``, ``eps0`` (DOP853)."""
    theta0, eps0 = np.asarray(theta0, float), np.asarray(eps0, float)
    n = len(theta0)

    def rhs(_t, y):
        a, b = transverse_rhs(y[:n], y[n:], A2, V2, rest_V, beta, model)
        return np.concatenate([a, b])

    t_eval = np.asarray(t_eval, float)
    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), np.concatenate([theta0, eps0]), method="DOP853", t_eval=t_eval,
                    rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"transverse_flow: integration failed ({sol.message})")
    return sol.y[:n].T, sol.y[n:].T


def transverse_exponent(theta0, A2, V2, rest_V: float, beta: float, model: str, *, t_burn: float, t_avg: float,
                        n_segments: int = 50, seed: int = 0) -> float:
    """Largest transverse Lyapunov exponent λ⊥ (per unit physical time) of the plane orbit from angles ``theta0``:
    the plane flow is run for ``t_burn`` (onto its attractor), then a random unit ε is carried along for ``t_avg``
    in ``n_segments`` pieces, renormalised after each; λ⊥ = Σ log growth / ``t_avg``. Negative: the plane attracts
    tokens near it."""
    if not (t_burn >= 0 and t_avg > 0 and n_segments >= 1):
        raise ValueError(f"t_burn >= 0, t_avg > 0, n_segments >= 1 required, got {t_burn!r}, {t_avg!r}, "
                         f"{n_segments!r}")
    theta = np.asarray(theta0, float)
    eps = np.random.default_rng(seed).standard_normal(len(theta))
    eps /= np.linalg.norm(eps)
    if t_burn > 0:
        th, _ = transverse_flow(theta, eps, [0.0, t_burn], A2, V2, rest_V, beta, model)
        theta = th[-1]
    growth, dt = 0.0, t_avg / n_segments
    for _ in range(n_segments):
        th, ep = transverse_flow(theta, eps, [0.0, dt], A2, V2, rest_V, beta, model)
        theta, eps = th[-1], ep[-1]
        norm = np.linalg.norm(eps)
        growth += np.log(norm)
        eps = eps / norm
    return float(growth / t_avg)
