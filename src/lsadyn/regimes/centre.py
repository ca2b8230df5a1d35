r"""The flow of a single cluster's centre on :math:`S^{d-1}`: its rest points by Newton and their eigenvalues, its
closed orbits by shooting and their multipliers (the attractors a clustered token run is certified in).

All n tokens at one point x (or, for LSA, at ±x) move as one particle (:mod:`lsadyn.exponents.cluster`):

.. math:: \dot x = u(x) = h(\beta a)\,(Vx - v\,x),\qquad a = \langle x, Ax\rangle,\; v = \langle x, Vx\rangle,

LSA h(y) = y, USA h(y) = eʸ; x (d,). u is odd (u(−x) = −u(x)), so the flow on the sphere is also a flow on the
projective space of axes ±x, which is what a run observes (the leading axis of M). Its derivative (d, d) is

.. math:: Du(x) = \beta h'(\beta a)\, w\,\big((A + A^\top)x\big)^\top
          + h(\beta a)\,\big(V - vI - x\,((V + V^\top)x)^\top\big),\qquad w = Vx - vx,

and on the sphere it acts on the tangent space :math:`x^\perp` through an orthonormal basis Q (d, d − 1) of it
(:func:`tangent_basis`): J = QᵀDu(x)Q at a rest point. A cluster's *differential* modes δ (tangent, Σδ_k = 0)
follow δ̇ = D(x)δ (:func:`lsadyn.exponents.cluster.differential_map`); at a rest point D = −h(βa)v on the whole
tangent space.

* :func:`rest_point`: Newton on Qᵀu = 0 from a point, the tangent eigenvalues there (a sink when every Re < 0).
* :func:`closed_orbit`: Newton on the return map σ·φ_P(x) = x (σ = ±1: the axis returns, possibly reversed), with
  the phase condition ⟨x − x₀, u(x₀)⟩ = 0; the monodromy's multipliers (one is 1, along the orbit) and those of
  the differential modes over one period.
* :func:`lyapunov_shells`: a rest point's quadratic Lyapunov function, checked along sampled directions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import solve_continuous_lyapunov

from ..exponents.cluster import _kernel, cluster_velocity, differential_map
from ..fields.attention import Attention


def tangent_basis(x: np.ndarray) -> np.ndarray:
    """An orthonormal basis (d, d − 1) of the tangent space x⊥ of the unit vector x (d,)."""
    d = x.shape[0]
    q, _ = np.linalg.qr(np.column_stack([x, np.eye(d)]))
    return q[:, 1:d]


def centre_jacobian(model: str, x: np.ndarray, p: Attention) -> np.ndarray:
    """Du(x) (d, d) of the module's formula."""
    h, dh = _kernel(model)
    y = p.beta * (x @ p.A @ x)
    Vx = p.V @ x
    v = x @ Vx
    w = Vx - v * x
    return (p.beta * dh(y) * np.outer(w, (p.A + p.A.T) @ x)
            + h(y) * (p.V - v * np.eye(x.shape[0]) - np.outer(x, (p.V + p.V.T) @ x)))


@dataclass(frozen=True)
class RestPoint:
    """A rest point x (d,) of the centre flow, its tangent eigenvalues (d − 1,) and Jacobian J (d − 1, d − 1) in the
    basis Q (d, d − 1); ``differential``: the differential modes' exponent −h(βa)v there."""

    x: np.ndarray
    eigenvalues: np.ndarray
    J: np.ndarray
    Q: np.ndarray
    differential: float

    @property
    def sink(self) -> bool:
        return bool(np.all(self.eigenvalues.real < 0))

    @property
    def exponent(self) -> float:
        """max Re λ of J (the slowest decay of the centre's distance)."""
        return float(np.max(self.eigenvalues.real))


def rest_point(model: str, x0, p: Attention, *, tol: float = 1e-13, max_iter: int = 30,
               max_move: float = 0.2) -> RestPoint | None:
    """Newton on Qᵀu(x) = 0 over the sphere from x0 (d,): the rest point it converges to within ``max_move`` of x0, or
    None (no convergence, a singular J, or a point further away)."""
    h, _ = _kernel(model)
    x = np.asarray(x0, dtype=float) / np.linalg.norm(x0)
    scale = max(np.linalg.norm(p.V, 2), 1e-300) * max(1.0, abs(h(p.beta * np.linalg.norm(p.A, 2))))
    for _ in range(max_iter):
        Q = tangent_basis(x)
        F = Q.T @ cluster_velocity(model, x, p)
        if np.linalg.norm(F) <= tol * scale:
            break
        J = Q.T @ centre_jacobian(model, x, p) @ Q
        try:
            step = np.linalg.solve(J, -F)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        nrm = np.linalg.norm(step)
        if nrm > 0.1:
            step *= 0.1 / nrm
        x = x + Q @ step
        x /= np.linalg.norm(x)
    else:
        return None
    if min(np.linalg.norm(x - x0), np.linalg.norm(x + x0)) > max_move:
        return None
    Q = tangent_basis(x)
    J = Q.T @ centre_jacobian(model, x, p) @ Q
    a, v = x @ p.A @ x, x @ p.V @ x
    return RestPoint(x, np.linalg.eigvals(J), J, Q, float(-h(p.beta * a) * v))


def lyapunov_shells(model: str, rp: RestPoint, x, p: Attention, *, n_dirs: int = 64, shells=(1.0, 0.5, 0.25, 0.1),
                    seed: int = 0) -> tuple[bool, float]:
    """Does the quadratic Lyapunov function W(c) = cᵀPc of the sink ``rp`` (PJ + JᵀP = −I, c the tangent coordinates
    of a point about rp.x) decrease along the *nonlinear* flow at every sampled point of its level sets through the
    state x (d,) scaled by ``shells`` (``n_dirs`` directions each, drawn with ``seed``, and the state itself)? Returns
    (True when it does, the level W(x))."""
    P = solve_continuous_lyapunov(rp.J.T, -np.eye(rp.J.shape[0]))
    xs = np.asarray(x, dtype=float)
    if xs @ rp.x < 0:
        xs = -xs
    c0 = rp.Q.T @ (xs - rp.x)
    level = float(c0 @ P @ c0)
    if not level > 0:
        return True, 0.0
    rng = np.random.default_rng(seed)
    dirs = rng.standard_normal((n_dirs, c0.size))
    dirs = np.vstack([c0, dirs])
    dirs /= np.sqrt(np.einsum("ij,jk,ik->i", dirs, P, dirs))[:, None]
    for s in shells:
        for c in dirs * np.sqrt(s * level):
            y = rp.x + rp.Q @ c
            y /= np.linalg.norm(y)
            cdot = rp.Q.T @ cluster_velocity(model, y, p)  # tangent coordinates' velocity (to second order)
            if not 2 * c @ P @ cdot < 0:
                return False, level
    return True, level


def rest_manifold(model: str, rp: RestPoint, x, p: Attention, *, n_dirs: int = 64, seed: int = 0) -> bool:
    """Is the centre flow zero (to 1e-12 of ‖V‖) at every sampled point of the ball about the rest point ``rp``
    through the state x, so that every nearby cluster stays where it is (a manifold of rest points, e.g. V = cI)?"""
    xs = np.asarray(x, dtype=float)
    rad = max(2 * min(np.linalg.norm(xs - rp.x), np.linalg.norm(xs + rp.x)), 1e-3)
    rng = np.random.default_rng(seed)
    tol = 1e-12 * max(np.linalg.norm(p.V, 2), 1e-300)
    for c in rng.standard_normal((n_dirs, rp.Q.shape[1])):
        y = rp.x + rp.Q @ (rad * c / np.linalg.norm(c))
        y /= np.linalg.norm(y)
        if np.linalg.norm(cluster_velocity(model, y, p)) > tol * max(1.0, abs(p.beta) * np.linalg.norm(p.A, 2)) * 10:
            return False
    return True


@dataclass(frozen=True)
class ClosedOrbit:
    """A closed orbit of the centre flow through x (d,), period P (the axis's: σ·φ_P(x) = x), its multipliers
    (d − 2,; the trivial one along the orbit removed) and the differential modes' largest multiplier over P."""

    x: np.ndarray
    period: float
    sign: int
    multipliers: np.ndarray
    differential_multiplier: float
    #: ln of the differential multiplier where it is known directly (the d = 2 quadrature; no underflow)
    differential_log: float | None = None

    @property
    def multiplier(self) -> float:
        """Largest modulus among the non-trivial multipliers (NaN in d = 2: the circle is the orbit)."""
        return float(np.max(np.abs(self.multipliers))) if self.multipliers.size else float("nan")

    @property
    def differential(self) -> float:
        """The differential exponent ln(multiplier) / P."""
        if self.differential_log is not None:
            return float(self.differential_log / self.period)
        return float(np.log(self.differential_multiplier) / self.period)


def _flow(model, p, x0, T, basis=None, rtol=1e-10, atol=1e-12):
    """φ_T(x0) and, with ``basis`` (d, k), the tangent flow Φ·basis and the differential flow Ψ of ``basis``.

    The field is evaluated at x/|x| (u(x/|x|) is tangent there, so |x| is conserved): u's own radial direction is
    unstable wherever v < 0 (d|x|²/dt = −2v|x|²(|x|² − 1) near the sphere), and an integrator's rounding off the
    sphere would grow like e^{2|v|t}. Φ follows that projected field's derivative Du(x̂)(I − x̂x̂ᵀ), which agrees
    with Du on the tangent space."""
    d = x0.size
    k = 0 if basis is None else basis.shape[1]

    def rhs(_t, z):
        x = z[:d] / np.linalg.norm(z[:d])
        out = [cluster_velocity(model, x, p)]
        if k:
            Phi = z[d:d + d * k].reshape(d, k)
            Psi = z[d + d * k:].reshape(d, k)
            Phi_t = Phi - np.outer(x, x @ Phi)
            out += [(centre_jacobian(model, x, p) @ Phi_t).ravel(), differential_map(model, x, Psi, p).ravel()]
        return np.concatenate(out)

    z0 = x0 if not k else np.concatenate([x0, basis.ravel(), basis.ravel()])
    sol = solve_ivp(rhs, (0.0, T), z0, method="DOP853", rtol=rtol, atol=atol)
    z = sol.y[:, -1]
    xT = z[:d] / np.linalg.norm(z[:d])
    if not k:
        return xT, None, None
    return xT, z[d:d + d * k].reshape(d, k), z[d + d * k:].reshape(d, k)


def _circle_point(theta: float):
    """The point x(θ) = (cos θ, sin θ) of the circle and its unit tangent t(θ) = (−sin θ, cos θ)."""
    return np.array([np.cos(theta), np.sin(theta)]), np.array([-np.sin(theta), np.cos(theta)])


def circle_speed(model: str, theta: float, p: Attention) -> float:
    """d = 2: the centre flow on the circle, θ̇ = s(θ) = ⟨t(θ), u(x(θ))⟩."""
    X, T = _circle_point(theta)
    return float(T @ cluster_velocity(model, X, p))


def circle_differential(model: str, theta: float, p: Attention) -> float:
    """d = 2: the differential exponent ⟨t(θ), D(x(θ)) t(θ)⟩ of a cluster at x(θ) (its spread's rate there)."""
    X, T = _circle_point(theta)
    return float(T @ differential_map(model, X, T, p))


def _circle_orbit(model: str, x: np.ndarray, p: Attention) -> ClosedOrbit | None:
    """d = 2: the centre flow is θ̇ = s(θ) = ⟨t(θ), u(x(θ))⟩ on the circle (t the unit tangent), so the orbit is the
    circle itself when s has no root, its half-turn period (u is odd: the axis returns after π) is
    P = ∫₀^π dθ / |s(θ)|, and the differential modes' multiplier is exp ∫₀^π ⟨t, D(x) t⟩ / |s| dθ: quadratures
    instead of shooting (what :func:`closed_orbit` returns in d = 2; ``tests/test_certify_tokens.py`` compares
    them)."""
    from scipy.integrate import quad

    th0 = float(np.arctan2(x[1], x[0]))

    def speed(th):
        return circle_speed(model, th, p)

    grid = th0 + np.linspace(0, np.pi, 721)
    vals = np.array([speed(g) for g in grid])
    if np.any(vals == 0) or np.any(np.sign(vals) != np.sign(vals[0])):
        return None  # a rest point on the circle: no closed orbit
    if np.min(np.abs(vals)) < 1e-12 * max(1.0, float(np.max(np.abs(vals)))):
        return None

    def diff(th):
        return circle_differential(model, th, p) / abs(speed(th))

    opts = dict(limit=400, epsabs=0.0, epsrel=1e-11)
    period = quad(lambda th: 1.0 / abs(speed(th)), th0, th0 + np.pi, points=None, **opts)[0]
    log_m = quad(diff, th0, th0 + np.pi, **opts)[0]
    return ClosedOrbit(x.copy(), float(period), -1, np.empty(0), float(np.exp(max(log_m, -745.0))), float(log_m))


def closed_orbit(model: str, x0, period0: float, p: Attention, *, tol: float = 1e-10, max_iter: int = 12,
                 max_move: float = 0.05, shoot: bool = False) -> ClosedOrbit | None:
    """Shooting (see the module) from x0 (d,) with the period guess ``period0``: the closed orbit through a point
    within ``max_move`` of x0, or None. In d = 2 the quadratures of :func:`_circle_orbit` instead (``shoot=True``
    shoots there too: the reference they are tested against)."""
    x = np.asarray(x0, dtype=float) / np.linalg.norm(x0)
    u0 = cluster_velocity(model, x, p)
    if not np.linalg.norm(u0) > 0 or not period0 > 0:
        return None
    if x.size == 2 and not shoot:
        return _circle_orbit(model, x, p)
    Q = tangent_basis(x)
    d = x.size
    c, T = np.zeros(d - 1), float(period0)
    n0 = Q.T @ u0 / np.linalg.norm(u0)  # the phase condition: c ⟂ u(x0) in the tangent coordinates
    for _ in range(max_iter):
        y = x + Q @ c
        y /= np.linalg.norm(y)
        yT, Phi, _ = _flow(model, p, y, T, Q)
        sign = 1 if yT @ y >= 0 else -1
        F = Q.T @ (sign * yT - y)
        if np.linalg.norm(F) <= tol:
            break
        # d(y)/dc ≈ Q (the normalisation is second order at c = 0 … small c)
        Jc = sign * Q.T @ Phi - np.eye(d - 1)
        JT = sign * Q.T @ cluster_velocity(model, yT, p)
        M = np.zeros((d, d))
        M[:d - 1, :d - 1] = Jc
        M[:d - 1, d - 1] = JT
        M[d - 1, :d - 1] = n0
        try:
            step = np.linalg.solve(M, -np.concatenate([F, [n0 @ c]]))
        except np.linalg.LinAlgError:
            return None
        c, T = c + step[:d - 1], T + step[d - 1]
        if not (np.all(np.isfinite(c)) and T > 0) or np.linalg.norm(c) > max_move:
            return None
    else:
        return None
    y = x + Q @ c
    y /= np.linalg.norm(y)
    Qy = tangent_basis(y)
    yT, Phi, Psi = _flow(model, p, y, T, Qy)
    sign = 1 if yT @ y >= 0 else -1
    mult = np.linalg.eigvals(sign * Qy.T @ Phi)
    if mult.size:
        mult = np.delete(mult, np.argmin(np.abs(mult - 1.0)))  # the trivial multiplier, along the orbit
    dmult = float(np.max(np.abs(np.linalg.eigvals(sign * Qy.T @ Psi))))
    return ClosedOrbit(y, T, sign, mult, dmult)
