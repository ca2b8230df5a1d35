r"""The network's own attractor: certified regimes of a looped layer's iterates, found and checked on its map.

A looped layer iterates X ← N(X + h·a(X)) (N: each row normalised; :func:`lsadyn.looped.forward.looped_forward`).
Its iterates are a discrete dynamical system of their own, so its label is certified on that map, never by the
continuous flow's attractor (which :mod:`lsadyn.regimes.tokens` checks for the flow). When the tokens form one
cluster they move as one token, the cluster's centre c (its normalised mean), under the *one-token map*

.. math:: F(x) = N(x + h\,u(x)),\qquad u(x) = k(\beta\langle x, Ax\rangle)\,Vx,

with the self-attention weight k(s) = s (LSA), e^s (USA), 1 (SA). The cluster's spread e (a tangent vector at c,
|e|² ∝ 1 − r) moves to first order under the *spread map*

.. math:: D_c\,e = \frac{P^\perp_{y}}{|y|}\big(e + h\,\beta\,k'(s)\,\langle Ac, e\rangle\,Vc\big),\qquad
          y = c + h\,u(c),\ s = \beta\langle c, Ac\rangle,

since the weight of token k on token j depends on x_k through ⟨x_k, A x_j⟩ ≈ ⟨x_k, A c⟩, and everything that
depends on the other tokens is common to the cluster (SA: k' = 0, its weights sum to 1). The checks, on the last
``window`` of the iterates X_l (m, n, d):

==========================  ==========================================================================================
attractor (``kind``)        check
==========================  ==========================================================================================
spread (always)             1 − r < :data:`~lsadyn.exponents.cluster.R_TIGHT` and either 1 − r is at rounding (≤
                            :data:`GAP_FLOOR`) or its measured per-layer log-ratio, settled over ≥ 3 e-folds, equals
                            2λ_D within :data:`EXPONENT_RTOL`, where λ_D < 0 is the spread map's top Lyapunov exponent
                            along the window's centres (the log growth per layer of a tangent vector carried by the
                            D_{c_l}).
fixed point                 the centre's orbit under F (iterated from the last centre: the network's own map of one
(``map_fixed_point``)       cluster) settles; Newton on F(x) = x from there converges to x*, and every multiplier μ of
                            DF(x*) on the tangent space has |μ| < 1: ``cluster_converge``.
fixed manifold              as above, but the multipliers with |μ| = 1 belong to directions along which F fixes every
(``map_fixed_manifold``)    point (V = cI: F is the identity): the centre rests where it is, ``cluster_converge``.
any state                   (not one cluster) the tokens' largest step per layer decays geometrically, settled over ≥
(``map_equilibrium``)       3 e-folds, or is at rounding: the iterates converge to a fixed point of the n-token map
                            (``cluster_converge`` when 1 − r ≤ 10⁻³, else ``interior_converge``).
rotation                    the centre's orbit under F keeps turning (≥ :data:`MIN_RETURNS` returns to the hyperplane
(``map_rotation``)          through its start normal to its first step, none settling) and its tangent map's Lyapunov
                            spectrum (QR of DF along the orbit's second half) is one neutral exponent along the curve
                            the orbit fills, |λ₁| ≤ :data:`NEUTRAL_RTOL`·|λ₂|, and all others negative: an attracting
                            invariant curve with no fixed point on it (d = 2: the circle, whose map has no fixed point
                            when an orbit turns past it), ``cluster_rotate``, at the rate of arg R₂ (twice the
                            centre's angular speed; d = 2 signed) over the whole turns between the first and last
                            returns.
==========================  ==========================================================================================

Otherwise the iterates are not labelled: ``undetermined``, with what was found (an unclustered state, whose map has
no theory here, a spread that does not contract at the spread map's rate, a centre still on its way).
"""

from __future__ import annotations

import numpy as np

from ..exponents.cluster import R_TIGHT, _kernel, cluster_centre
from ..fields.attention import Attention
from ..observers import order_parameter_r
from ..regimes.certify import Certificate
from ..regimes.portrait import Attractor
from ..regimes.tokens import _slope
from .forward import attention_update

#: relative agreement of a measured and a predicted multiplier's logarithm
EXPONENT_RTOL = 0.1
#: 1 − r (or a distance) at or below which there is nothing left to measure
GAP_FLOOR = 1e-12
#: e-folds a measured decay must span
MIN_EFOLDS = 3.0
#: largest return-map ratio read as convergence
MAX_RATIO = 0.98
#: returns of the centre's orbit to its section that a rotation needs
MIN_RETURNS = 4
#: the neutral (along-curve) exponent of a rotation may be at most this fraction of the transverse one
NEUTRAL_RTOL = 0.1



def _lone_token(x: np.ndarray, p: Attention, model: str, h: float):
    """A lone token's layer, in closed form: (k(s), k'(s), Vx, y) with s = β⟨x, Ax⟩ and y = x + h k(s) Vx, the
    unnormalised F(x); k, k' are the single-cluster kernel of :mod:`lsadyn.exponents.cluster` (its h, h')."""
    k, dk = _kernel(model)
    s = p.beta * float(x @ p.A @ x)
    Vx = p.V @ x
    ks = float(k(s))
    return ks, float(dk(s)), Vx, x + h * ks * Vx


def one_token_map(x: np.ndarray, p: Attention, model: str, h: float) -> np.ndarray:
    """F(x) (d,) of the module: one layer applied to a lone token (a cluster's centre)."""
    x = np.asarray(x, dtype=float)
    y = x + h * attention_update(x[None], p, model)[0]
    return y / np.linalg.norm(y)


def spread_map(c: np.ndarray, p: Attention, model: str, h: float) -> np.ndarray:
    """D_c (d, d) of the module: a cluster's spread e ⟂ c (d,) after one layer is D_c e (⟂ F(c))."""
    c = np.asarray(c, dtype=float)
    _, dks, Vc, y = _lone_token(c, p, model, h)
    ny = np.linalg.norm(y)
    u = y / ny
    P = np.eye(c.size) - np.outer(u, u)
    return P @ (np.eye(c.size) + h * p.beta * dks * np.outer(Vc, p.A @ c)) / ny


def _tangent_basis(x):
    """(d, d − 1) orthonormal basis of x⊥."""
    q, _ = np.linalg.qr(np.column_stack([x, np.eye(x.size)]))
    return q[:, 1:x.size]


def map_fixed_point(x0, p: Attention, model: str, h: float, *, tol: float = 1e-13, max_iter: int = 50):
    """(x*, multipliers) of F near x0 by Newton in the tangent coordinates of x0 (finite-difference Jacobian), or
    (None, None) when Newton does not converge within ``max_iter`` or leaves the hemisphere of x0."""
    x0 = np.asarray(x0, dtype=float)
    x0 = x0 / np.linalg.norm(x0)
    B = _tangent_basis(x0)

    def point(xi):
        z = x0 + B @ xi
        return z / np.linalg.norm(z)

    def g(xi):
        return B.T @ (one_token_map(point(xi), p, model, h) - point(xi))

    xi = np.zeros(x0.size - 1)
    eps = 1e-7
    for _ in range(max_iter):
        r = g(xi)
        if np.linalg.norm(r) <= tol:
            break
        J = np.column_stack([(g(xi + eps * e) - g(xi - eps * e)) / (2 * eps) for e in np.eye(xi.size)])
        try:
            xi = xi - np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            return None, None
        if not np.all(np.isfinite(xi)) or np.linalg.norm(xi) > 1.0:
            return None, None
    else:
        return None, None
    x = point(xi)
    Bx = _tangent_basis(x)  # at a fixed point DF maps x⊥ to F(x)⊥ = x⊥
    return x, np.linalg.eigvals(Bx.T @ map_jacobian(x, p, model, h) @ Bx)


def spread_exponent(centres: np.ndarray, p: Attention, model: str, h: float) -> float:
    """λ_D: the top Lyapunov exponent per layer of the spread map along the centres (m, d) (a tangent vector carried
    by D_{c_l}, renormalised each layer; the mean log growth over the second half)."""
    c0 = centres[0]
    e = _tangent_basis(c0) @ np.linspace(1.0, 2.0, c0.size - 1)
    logs = []
    for c in centres[:-1]:
        e = spread_map(c, p, model, h) @ (e - (e @ c) * c)
        n = np.linalg.norm(e)
        if not n > 0:
            return float("-inf")
        logs.append(np.log(n))
        e = e / n
    logs = np.array(logs)
    return float(logs[len(logs) // 2:].mean())


def _settled_slope(y: np.ndarray) -> tuple[float, bool]:
    """Per-layer slope of y (m,) and whether it is settled (:func:`lsadyn.regimes.tokens._slope`, the two halves'
    slopes within its SLOPE_RTOL); (NaN, False) for fewer than 8 layers."""
    if y.size < 8:
        return float("nan"), False
    return _slope(np.arange(y.size, dtype=float), y)


def map_jacobian(x: np.ndarray, p: Attention, model: str, h: float) -> np.ndarray:
    """DF(x) (d, d) of the one-token map in the ambient space: (I − F Fᵀ)(I + h[k(s)V + βk'(s) Vx (A + Aᵀ)x ᵀ])/|y|,
    s = β⟨x, Ax⟩, y = x + h k(s) Vx."""
    ks, dks, Vx, y = _lone_token(x, p, model, h)
    ny = np.linalg.norm(y)
    f = y / ny
    Dy = np.eye(x.size) + h * (ks * p.V + p.beta * dks * np.outer(Vx, (p.A + p.A.T) @ x))
    return (Dy - np.outer(f, f @ Dy)) / ny


def reduced_orbit(x0, p: Attention, model: str, h: float, n_max: int) -> np.ndarray:
    """The centre's orbit x0, F(x0), F²(x0), … (≤ n_max + 1, d) under the one-token map, stopped once a step moves
    less than 1e-14 (settled)."""
    x = np.asarray(x0, dtype=float) / np.linalg.norm(x0)
    out = [x]
    for _ in range(int(n_max)):
        y = _lone_token(x, p, model, h)[3]
        y = y / np.sqrt(float(y @ y))
        out.append(y)
        if np.linalg.norm(y - x) < 1e-14:
            break
        x = y
    return np.array(out)


def tangent_spectrum(orbit: np.ndarray, p: Attention, model: str, h: float) -> np.ndarray:
    """The d − 1 Lyapunov exponents per layer (descending) of the one-token map's tangent map along ``orbit``
    (m, d): tangent frames carried by DF and re-orthonormalised (QR) each layer, averaged over the second half."""
    d = orbit.shape[1]
    Q = _tangent_basis(orbit[0])
    logs = []
    for x in orbit[:-1]:
        Q, R = np.linalg.qr(map_jacobian(x, p, model, h) @ Q)
        logs.append(np.log(np.abs(np.diag(R))))
    logs = np.array(logs).reshape(-1, d - 1)
    return np.sort(logs[len(logs) // 2:].mean(axis=0))[::-1]


class MapCertifier:
    """The checks of the module for the looped layer (A, V, β) = ``p`` of ``model`` at step ``h``; ``n_max``: the
    longest orbit of the one-token map to follow (layers)."""

    def __init__(self, model: str, p: Attention, h: float, n_max: int = 20_000):
        _kernel(model)  # an unknown model is named here
        self.model, self.p, self.h, self.n_max = model, p, float(h), int(n_max)

    def check(self, t: np.ndarray, Xs: np.ndarray) -> tuple[Certificate | None, str]:
        """(certificate, "") or (None, why) for the iterates Xs (m, n, d) at times t (m,) = layer · h."""
        Xs = np.asarray(Xs, dtype=float)
        gaps = np.array([1.0 - float(order_parameter_r(X)) for X in Xs])
        centres = [cluster_centre(self.model, X) for X in Xs] if gaps[-1] < R_TIGHT else [None]
        if any(c is None for c in centres):
            cert, why = self._equilibrium(t, Xs, gaps)
            if cert is not None:
                return cert, ""
            what = (f"not one cluster (1 - r = {gaps[-1]:.3g})" if gaps[-1] >= R_TIGHT
                    else "clustered, but not as one cluster")
            return None, f"{what}: the one-token map does not describe the tokens; {why}"
        C = np.array(centres)
        ok, spread = self._spread(gaps, C)
        if not ok:
            return None, spread
        orbit = reduced_orbit(C[-1], self.p, self.model, self.h, self.n_max)
        if np.linalg.norm(orbit[-1] - orbit[-2]) < 1e-14:
            return self._fixed_point(t, orbit, spread)
        return self._rotation(t, orbit, spread)

    def _spread(self, gaps, C) -> tuple[bool, str]:
        lam = spread_exponent(C, self.p, self.model, self.h)
        if gaps[-1] <= GAP_FLOOR:
            return True, f"the spread 1 - r = {gaps[-1]:.2g} is at rounding (spread map: {lam:.4g} per layer)"
        if not lam < 0:
            return False, f"the spread map does not contract along the centres ({lam:.3g} per layer)"
        y = np.log(gaps[gaps > GAP_FLOOR])
        slope, settled = _settled_slope(y)
        span = float(y[0] - y[-1])
        if settled and span >= MIN_EFOLDS and abs(slope - 2 * lam) <= EXPONENT_RTOL * abs(2 * lam):
            return True, (f"the spread 1 - r decays at {slope:.4g} per layer over {span:.1f} e-folds, twice the "
                          f"spread map's exponent {lam:.4g}")
        return False, (f"the spread 1 - r = {gaps[-1]:.2g} decays at {slope:.3g} per layer (settled: {settled}, "
                       f"{span:.1f} e-folds), the spread map predicts {2 * lam:.3g}")

    def _equilibrium(self, t, Xs, gaps) -> tuple[Certificate | None, str]:
        """Any state: the layers' largest token displacement decays geometrically (settled over ≥ 3 e-folds), or is
        at rounding: the iterates converge to a fixed point of the n-token map."""
        step = np.max(np.linalg.norm(np.diff(Xs, axis=0), axis=-1), axis=-1)
        regime = "cluster_converge" if gaps[-1] <= 1e-3 else "interior_converge"
        att = Attractor("map_equilibrium", regime, rate=0.0)
        if step[-1] <= 1e-14:
            return Certificate(att, f"the tokens' step per layer is at rounding ({step[-1]:.2g})", float(t[-1])), ""
        use = step > 1e-14
        y = np.log(step[use])
        slope, settled = _settled_slope(y)
        span = float(y[0] - y[-1])
        if settled and span >= MIN_EFOLDS and slope < 0:
            return Certificate(att, (f"the tokens' step per layer decays at {slope:.4g} per layer over {span:.1f} "
                                     "e-folds, settled"), float(t[-1])), ""
        return None, f"the tokens' step per layer is {step[-1]:.2g}, decaying at {slope:.3g} (settled: {settled})"

    def _fixed_point(self, t, orbit, spread) -> tuple[Certificate | None, str]:
        x, mu = map_fixed_point(orbit[-1], self.p, self.model, self.h)
        if x is None:
            return None, "the centre's orbit under the map settles, but Newton finds no fixed point there"
        top = float(np.max(np.abs(mu)))
        if not top < 1 and self._fixed_manifold(x, mu):
            att = Attractor("map_fixed_manifold", "cluster_converge", exponent=0.0, rate=0.0,
                            eigenvalues=tuple(complex(m) for m in mu))
            return Certificate(att, (f"the centre's orbit settles on a manifold of fixed points of the one-token map "
                                     f"(F(x) = x along every neutral direction, multipliers |mu| <= {top:.4g}); "
                                     f"{spread}"), float(t[-1])), ""
        if not top < 1:
            return None, f"the centre's orbit settles at a fixed point that is not a sink (|multiplier| {top:.4g})"
        att = Attractor("map_fixed_point", "cluster_converge", exponent=float(np.log(top) / self.h), rate=0.0,
                        eigenvalues=tuple(complex(m) for m in mu))
        return Certificate(att, (f"the centre's orbit under the one-token map reaches its fixed point, a sink "
                                 f"(multipliers |mu| <= {top:.4g}), {orbit.shape[0] - 1} layers on; {spread}"),
                           float(t[-1])), ""

    def _fixed_manifold(self, x, mu) -> bool:
        """Whether F fixes the points next to x (1e-3 away, both sides) along every eigen-direction of DF(x) on x⊥
        whose multiplier has |μ| ≥ 1 − 1e-9, and there is one: those directions are then a manifold of fixed points
        through x (e.g. V = cI, where F is the identity), along which a cluster rests wherever it is."""
        B = _tangent_basis(x)
        w, vec = np.linalg.eig(B.T @ map_jacobian(x, self.p, self.model, self.h) @ B)
        neutral = np.abs(w) >= 1 - 1e-9
        if not neutral.any():
            return False
        for v in vec[:, neutral].T:
            e = B @ np.real(v)
            e /= np.linalg.norm(e)
            for sign in (1.0, -1.0):
                z = x + sign * 1e-3 * e
                z /= np.linalg.norm(z)
                if np.linalg.norm(one_token_map(z, self.p, self.model, self.h) - z) > 1e-13:
                    return False
        return True

    def _rotation(self, t, orbit, spread) -> tuple[Certificate | None, str]:
        d = orbit.shape[1]
        x0 = orbit[0]
        normal = orbit[1] - orbit[0]
        s = (orbit - x0) @ normal
        near = np.linalg.norm(orbit - x0, axis=1) < 1.0  # the crossing near the start, not its antipode
        idx = np.flatnonzero((s[:-1] < 0) & (s[1:] >= 0) & near[:-1])
        if idx.size < MIN_RETURNS:
            return None, (f"the centre's orbit under the one-token map returned {idx.size} times in "
                          f"{orbit.shape[0] - 1} layers, neither settling nor turning")
        w = -s[idx] / (s[idx + 1] - s[idx])
        if d == 2:
            how = f"the centre's orbit turns {idx.size - 1} times round the circle (no fixed point on it)"
            theta = np.unwrap(np.arctan2(orbit[:, 1], orbit[:, 0]))
            angle = theta - theta[0]
        else:
            lam = tangent_spectrum(orbit, self.p, self.model, self.h)
            if not (lam[1] < 0 and abs(lam[0]) <= NEUTRAL_RTOL * abs(lam[1])):
                return None, (f"the centre's orbit turns, but its tangent map's exponents {lam[0]:.3g}, {lam[1]:.3g} "
                              "per layer are not one neutral and the rest negative")
            how = (f"the centre's orbit turns {idx.size - 1} times on an attracting invariant curve (tangent "
                   f"exponents {lam[0]:.2g} along it, {lam[1]:.4g} across, per layer)")
            steps = np.arccos(np.clip(np.einsum("ij,ij->i", orbit[1:], orbit[:-1]), -1.0, 1.0))
            angle = np.concatenate([[0.0], np.cumsum(steps)])
        # the whole turns between the first and the last return: time and swept angle
        a0, a1 = float(idx[0] + w[0]), float(idx[-1] + w[-1])
        grid = np.arange(angle.size)
        sweep = float(np.interp(a1, grid, angle) - np.interp(a0, grid, angle))
        rate = 2.0 * sweep / ((a1 - a0) * self.h)
        att = Attractor("map_rotation", "cluster_rotate", rate=rate, period=2 * np.pi / abs(rate))
        return Certificate(att, f"{how}; {spread}", float(t[-1])), ""
