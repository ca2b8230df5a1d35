r"""Lyapunov exponents of token runs (Benettin's method) and tokens placed on the OA manifold.

Tokens X (n, d) on :math:`(S^{d-1})^n` follow :math:`\dot X = f(X)` (LSA or USA); m tangent vectors W (m, n, d)
follow the variational equation :math:`\dot W_i = Df(X)[W_i]` (:mod:`.tangent`). The joint state is advanced by the
classical RK4 of :mod:`lsadyn.solvers.rk4` with a fixed step ``dt``; after every step the token rows are renormalised
and each W_i is projected onto the tangent spaces (:math:`w_k \leftarrow w_k - \langle w_k, x_k\rangle x_k`), and
every ``renorm`` steps the m vectors, flattened to the columns of an (n d, m) matrix, are re-orthonormalised by QR:
:math:`W = Q R`, :math:`W \leftarrow Q`. After a transient ``t_transient`` (QR without accumulation), the exponents
are :math:`\lambda_i = \frac1{t}\sum \log|R_{ii}|` over the measured time t, sorted descending (shape (m,)).
m ≤ n (d − 1), the dimension of the tangent space.

On the OA manifold at d = 2 (docs/theory.md §5) the tokens' doubled phases are the Möbius image of n evenly spaced
points, :math:`z_k = (e^{i\psi_k} + R)/(1 + \bar R e^{i\psi_k})`, :math:`\psi_k = 2\pi k/n`, so that
:math:`\frac1n\sum z_k = R` (exactly, up to O(|R|ⁿ)); :func:`oa_manifold_tokens` returns
:math:`x_k = (\cos\theta_k, \sin\theta_k)`, θ_k = arg z_k / 2. There the token spectrum is the OA flow's, spread over
the n directions: a converging cluster at :math:`e^{i\varphi^*}` has g′ once and the normal eigenvalue ν n − 1 times
(the differential modes :math:`\sum_k\delta\xi_k = 0` leave R₂ unchanged to first order and contract at
:math:`\nu = -\mathrm{Re}(He^{-i\varphi^*})`); rotating clusters have 0 once and λ⊥ n − 1 times; an interior
equilibrium has its two OA eigenvalues (real parts) and n − 2 zeros (the time shift and the Watanabe–Strogatz
constants of motion). :func:`oa_token_spectrum` returns that prediction.
"""

from __future__ import annotations

import numpy as np

from ..fields.attention import Attention
from ..solvers.rk4 import rk4_step
from .tangent import MODELS, field_and_jvp, jvp_reference


def oa_manifold_tokens(R2: complex, n: int, offset: float = 0.0) -> np.ndarray:
    """n tokens (n, 2) on the OA manifold with second-harmonic order parameter R₂ (|R₂| < 1); see the module."""
    R2 = complex(R2)
    if not abs(R2) < 1:
        raise ValueError(f"R2: the OA manifold needs |R2| < 1, got {abs(R2):.6g}")
    w = np.exp(1j * (2 * np.pi * np.arange(n) / n + offset))
    z = (w + R2) / (1 + np.conj(R2) * w)
    theta = np.angle(z) / 2
    return np.stack([np.cos(theta), np.sin(theta)], axis=1)


def oa_token_spectrum(regime: str, n: int, A, V, beta, attractor) -> np.ndarray:
    """The d = 2 token spectrum (n,) the OA flow predicts at its attractor (see the module), descending."""
    from ..continuation import circle_rate, field_and_jacobian
    from .oa import P0, constant_family

    fam = constant_family(A, V, beta)
    if regime == "cluster_converge":
        phi = float(np.angle(attractor.R2))
        _, dg, nu = circle_rate(fam, phi, P0)
        lam = [dg] + [nu] * (n - 1)
    elif regime == "cluster_rotate":
        lam = [0.0] + [attractor.exponent] * (n - 1)
    elif regime == "interior_converge":
        J = field_and_jacobian(fam, np.array([attractor.R2.real, attractor.R2.imag]), P0)[1]
        lam = list(np.linalg.eigvals(J).real) + [0.0] * (n - 2)
    else:
        raise ValueError(f"regime: no OA token spectrum for {regime!r}")
    return np.sort(np.array(lam, dtype=float))[::-1]


def _tangent_project(X, W):
    W -= np.einsum("mkd,kd->mk", W, X)[..., None] * X
    return W


def lyapunov_spectrum(model: str, X0, p: Attention, *, m: int = 1, t_transient: float = 50.0, t_measure: float = 200.0,
                      dt: float = 0.02, renorm: int = 10, seed: int = 0, reference: bool = False) -> np.ndarray:
    """The m largest Lyapunov exponents (m,) of the token run from X0 (n, d) under ``model`` (see the module).
    ``seed`` draws the initial tangent vectors; ``reference=True`` takes the tangent map one vector at a time
    through :func:`lsadyn.exponents.tangent.jvp_reference` (plain loops; tests only)."""
    if model not in MODELS:
        raise ValueError(f"model: Lyapunov exponents for {MODELS}, not {model!r}")
    X = np.array(X0, dtype=float)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    n, d = X.shape
    if not 1 <= m <= n * (d - 1):
        raise ValueError(f"m: between 1 and n (d - 1) = {n * (d - 1)}, got {m}")
    if dt <= 0 or renorm < 1 or t_measure <= 0 or t_transient < 0:
        raise ValueError("dt, renorm, t_measure: positive; t_transient: >= 0")
    rng = np.random.default_rng(seed)
    W = _tangent_project(X, rng.standard_normal((m, n, d)))
    W = np.linalg.qr(W.reshape(m, -1).T)[0].T.reshape(m, n, d)
    y = np.concatenate([X.ravel(), W.ravel()])
    nX = n * d

    def f(t, y):
        Xs = y[:nX].reshape(n, d)
        Ws = y[nX:].reshape(m, n, d)
        if reference:
            from ..fields.attention import field_for

            fx = field_for(model, direct=True)(0.0, Xs, p)
            fw = np.stack([jvp_reference(model, Xs, w, p) for w in Ws])
        else:
            fx, fw = field_and_jvp(model, Xs, Ws, p)
        return np.concatenate([fx.ravel(), fw.ravel()])

    n_tr = round(t_transient / dt / renorm)
    n_me = max(1, round(t_measure / dt / renorm))
    acc = np.zeros(m)
    for block in range(n_tr + n_me):
        for _ in range(renorm):
            rk4_step(f, 0.0, y, dt)
            Xs = y[:nX].reshape(n, d)
            Xs /= np.linalg.norm(Xs, axis=1, keepdims=True)
            _tangent_project(Xs, y[nX:].reshape(m, n, d))
        if not np.all(np.isfinite(y)):
            raise FloatingPointError(f"lyapunov_spectrum: NaN/inf at t = {(block + 1) * renorm * dt:.6g}")
        Q, R = np.linalg.qr(y[nX:].reshape(m, -1).T)
        y[nX:] = Q.T.ravel()
        if block >= n_tr:
            acc += np.log(np.abs(np.diag(R)))
    return np.sort(acc / (n_me * renorm * dt))[::-1]
