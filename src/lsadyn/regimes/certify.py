r"""Certified long-time labels of the d = 2 OA flow: find the attractor a trajectory is in, and check it.

A label is a statement about t → ∞, so it is given only when the trajectory's current state lies in a region that
is *proved* (up to the sampling stated per check) to flow to one attractor of :class:`~.portrait.OAPortrait`:

==========================  ===========================================================================================
attractor (``kind``)        check, and when the state counts as inside
==========================  ===========================================================================================
hyperbolic sink (``sink``)  Newton from the state, both eigenvalues of J* with Re < 0; the Lyapunov function
                            V(x) = (x − x*)ᵀP(x − x*), PJ* + J*ᵀP = −I, has dV/dt < 0 on {V ≤ c} ∩ disc (exact
                            quartic along 720 rays); inside when V(x) ≤ c. Interior (``interior_converge``) or on the
                            circle (``cluster_converge``).
interior focus              a sink with complex eigenvalues, the state outside its Lyapunov region but winding about it:
(``sink``)                  the return map P of the ray from R* through the state has 0 < P(ξ) < ξ and 0 < P′(ξ) < 1
                            at 5 points of (0, ξ₀] (sampled; ``interior_converge``).
circle node                 an equilibrium on the circle with g′ < 0 and ν ≈ 0 (λ_max(V) = 0, det A = 0: 1 − |R| ~ c/t):
(``circle_node``)           the box |φ − φ*| ≤ w, s ≤ s_c (s = 1 − |R|) is trapping (φ̇ points inward on its sides, ṡ < 0
                            inside; 33 × 13 samples); inside when the state is in the box.
circle of equilibria        g ≡ 0 (e.g. V = I): on the tube s ≤ s₀ over an arc |φ − φ₀| ≤ w, ṡ ≤ −κs and |φ̇| ≤ Ks
(``circle_of_equilibria``)  (sampled), with s₀K/κ < w/2: the state converges to a circle point within s₀K/κ of φ₀.
rotation (``rotation``)     g has no root, λ⊥ < 0: u = s·e^{−Ψ(φ)}, Ψ′ = (ν − λ⊥)/g, has u̇/u ≤ λ⊥/2 on the tube
                            s ≤ s_c (sampled, 2048 × 12 points); inside when u ≤ s_c·min e^{−Ψ} (``cluster_rotate``).
interior limit cycle        the window winds around an interior equilibrium; Newton on the periodic orbit from the state
(``cycle``)                 (:func:`lsadyn.continuation.shooting.periodic_orbit`), multiplier μ = e^ℓ < 1; the state's
                            section crossing ξ has 0 < P′ < 1 at 5 points of [0, ξ] and |P(ξ)| < |ξ| (``oscillate``).
centre (``centre``)         the flow is Hamiltonian (div(BF) ≡ 0, :attr:`~.portrait.OAPortrait.dulac`), its conserved
                            𝓗 drifts by ≤ 1e-6 (relative) over the window, which winds once around an equilibrium:
                            the orbit is closed (``oscillate``, neutral).
==========================  ===========================================================================================

A state in none of these regions is not labelled: :meth:`OACertifier.check` then says which candidate is nearest
and how fast the state approaches it (the run continues, and is ``undetermined`` with that reason at its budget).
Rates are per unit of the times passed (physical time in :mod:`lsadyn.api`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .classify import RegimeResult
from .portrait import TWO_PI, Attractor, OAPortrait

#: rays of the Lyapunov-region check of a sink
N_RAYS = 720
#: the circle grid of the rotation tube
N_TUBE_PHI = 2048


@dataclass(frozen=True)
class Certificate:
    """A checked attractor and what was checked (``checked``, one sentence), at time ``t``."""

    attractor: Attractor
    checked: str
    t: float


@dataclass(frozen=True)
class SinkRegion:
    R2: complex
    eigenvalues: np.ndarray
    P: np.ndarray
    level: float

    def value(self, R) -> float:
        e = np.array([np.real(R) - self.R2.real, np.imag(R) - self.R2.imag])
        return float(e @ self.P @ e)


def sink_region(pt: OAPortrait, R_star: complex, eig) -> SinkRegion | None:
    """The Lyapunov region of a hyperbolic sink R* (see the module table), or None if J* is not Hurwitz."""
    from scipy.linalg import solve_continuous_lyapunov

    if eig.real.max() >= -1e-12 * pt.scale:
        return None
    J = pt.jacobian(R_star)
    P = solve_continuous_lyapunov(J.T, -np.eye(2))
    P = 0.5 * (P + P.T)
    p, Q = np.linalg.eigh(P)
    if p.min() <= 0:
        return None
    L = Q @ np.diag(p ** -0.5) @ Q.T
    th = np.linspace(0, TWO_PI, N_RAYS, endpoint=False)
    D = L @ np.vstack([np.cos(th), np.sin(th)])  # x-space direction of each ray at ρ = 1 (V = ρ²)
    dz = D[0] + 1j * D[1]
    nd = np.abs(dz)
    PD = P @ D
    x = np.array([R_star.real, R_star.imag])

    def q(rho):  # (dV/dt) / ρ² along each ray: a2 + a3 ρ + a4 ρ² (exact: F is cubic, F(x*) = 0)
        F = pt.field(R_star + rho * dz)
        return 2 * (PD[0] * F.real + PD[1] * F.imag) / rho

    rs = np.array([0.25, 0.5, 1.0])[:, None] / nd[None, :]
    vals = np.array([q(r) for r in rs])
    vander = rs.T[:, :, None] ** np.arange(3)[None, None, :]  # (rays, 3, 3)
    a2, a3, a4 = np.linalg.solve(vander, vals.T[:, :, None])[:, :, 0].T
    disc = a3 * a3 - 4 * a4 * a2
    with np.errstate(invalid="ignore", divide="ignore"):
        sq = np.sqrt(np.maximum(disc, 0))
        r1 = np.where(a4 != 0, (-a3 - sq) / (2 * a4), np.where(a3 > 0, -a2 / a3, np.inf))
        r2 = np.where(a4 != 0, (-a3 + sq) / (2 * a4), np.inf)
    roots = np.where(disc >= 0, np.minimum(np.where(r1 > 0, r1, np.inf), np.where(r2 > 0, r2, np.inf)), np.inf)
    # the ray's part inside the closed disc: |x* + ρ d|² ≤ 1
    xd = x[0] * D[0] + x[1] * D[1]
    c0 = x @ x - 1
    rho_disc = np.where(c0 < -1e-15, (-xd + np.sqrt(np.maximum(xd * xd - nd * nd * c0, 0))) / (nd * nd),
                        np.maximum(-2 * xd / (nd * nd), 0))
    rho_ok = np.where(roots < rho_disc, roots, np.inf)
    level = (0.9 * rho_ok.min()) ** 2
    return SinkRegion(R_star, np.asarray(eig), P, float(level))


class OACertifier:
    """Checks of OA states against the attractors of one (A, V, β) (see the module table); caches what it finds."""

    def __init__(self, A, V, beta):
        self.pt = OAPortrait(A, V, beta)
        self._sinks: dict = {}
        self._tube = None
        self._boxes: dict = {}
        self._newton = None

    # ------------------------------------------------------------ the entry point
    def check(self, t, R):
        """(Certificate or None, reason) for a trajectory window ``t`` (m,), ``R`` (m,) complex ending at the state
        to be certified. ``reason`` ('' when certified) names the nearest candidate and its rate."""
        t = np.asarray(t, dtype=float)
        R = np.asarray(R, dtype=complex)
        Re = complex(R[-1])
        self._newton = None  # Newton from this state, run at most once per check
        s_end = 1.0 - abs(Re)
        circle = self.pt.circle
        for check in (self._sinks_known, self._circle, self._global, self._linear, self._newton_sink, self._centre,
                      self._cycle):
            cert = check(t, R, Re, s_end, circle)
            if cert is not None:
                return cert, ""
        return None, self._nearest(t, R, Re, s_end, circle)

    # ------------------------------------------------------------ sinks
    def _sink(self, R_star, eig):
        key = (round(R_star.real, 9), round(R_star.imag, 9))
        if key not in self._sinks:
            self._sinks[key] = sink_region(self.pt, R_star, eig)
        return self._sinks[key]

    def _sink_certificate(self, reg: SinkRegion, t_end):
        on_circle = abs(abs(reg.R2) - 1) <= 1e-9
        regime = "cluster_converge" if on_circle else "interior_converge"
        lam = reg.eigenvalues
        att = Attractor("sink", regime, reg.R2, float(lam.real.max()), eigenvalues=tuple(complex(v) for v in lam),
                       rate=0.0)
        where = "on the circle" if on_circle else "inside the disc"
        return Certificate(att, f"equilibrium {where} by Newton, eigenvalues {_fmt_eig(lam)}; the state lies in the "
                                f"Lyapunov region V = (x - x*)'P(x - x*) <= {reg.level:.3g}, where dV/dt < 0 "
                                f"({N_RAYS} rays)", t_end)

    def _sinks_known(self, t, R, Re, s_end, circle):
        for reg in self._sinks.values():
            if reg is not None and reg.value(Re) <= reg.level:
                return self._sink_certificate(reg, t[-1])
        return None

    def _equilibrium_at(self, Re):
        """The equilibrium Newton finds from this check's state (computed once per check)."""
        if self._newton is None:
            self._newton = (self.pt.equilibrium(Re),)
        return self._newton[0]

    def _newton_sink(self, t, R, Re, s_end, circle):
        eq = self._equilibrium_at(Re)
        if eq is None:
            return None
        reg = self._sink(*eq)
        if reg is not None and reg.value(Re) <= reg.level:
            return self._sink_certificate(reg, t[-1])
        if reg is not None and abs(reg.R2) < 1 - 1e-9 and np.any(np.abs(reg.eigenvalues.imag) > 0):
            with np.errstate(all="ignore"):
                try:
                    return self._focus(t, R, Re, reg)
                except (np.linalg.LinAlgError, FloatingPointError, ZeroDivisionError):
                    return None
        return None

    def _focus(self, t, R, Re, reg: SinkRegion):
        """A state spiralling into an interior focus R* outside its Lyapunov region: the return map P of the ray
        from R* through the state (one turn about R*) has 0 < P(ξ) < ξ and 0 < P'(ξ) < 1 at 5 points of (0, ξ₀],
        ξ₀ the state's distance (sampled): the segment flows into the focus."""
        if abs(self._winding(R, reg.R2)) < TWO_PI:  # the window must turn about R* at least once
            return None
        x_star = np.array([reg.R2.real, reg.R2.imag])
        d = np.array([Re.real, Re.imag]) - x_star
        xi0 = float(np.hypot(*d))
        if not 0 < xi0 < 1 - abs(reg.R2):
            return None
        e = d / xi0
        nvec = np.array([-e[1], e[0]])
        T = TWO_PI / float(np.max(np.abs(reg.eigenvalues.imag)))
        n_steps = int(min(4000, max(400, 40 * T * self.pt.scale)))
        samples = []
        for xi in xi0 * np.array([0.2, 0.4, 0.6, 0.8, 1.0]):
            sh, tc = self._to_section(x_star + xi * e, x_star, nvec, T, n_steps)
            if not 0.5 * T < tc < 2 * T:  # landed on the opposite ray, or not after one turn
                return None
            fe = self._f2(sh["x"])
            proj = np.eye(2) - np.outer(fe, nvec) / float(nvec @ fe)
            samples.append((xi, float(e @ (sh["x"] - x_star)), float(e @ proj @ sh["Phi"] @ e)))
        xs, Ps, slopes = (np.array(v) for v in zip(*samples))
        if not (np.all(Ps > 0) and np.all(Ps < xs) and np.all(slopes > 0) and np.all(slopes < 1)):
            return None
        lam = reg.eigenvalues
        att = Attractor("sink", "interior_converge", reg.R2, float(lam.real.max()),
                        eigenvalues=tuple(complex(v) for v in lam), rate=0.0)
        return Certificate(att, f"equilibrium inside the disc by Newton, eigenvalues {_fmt_eig(lam)} (a focus); the "
                                f"return map of the ray from R* through the state (xi = {xi0:.3g}) has 0 < P(xi) < xi "
                                f"and P'(xi) in [{slopes.min():.3g}, {slopes.max():.3g}] on (0, xi] (5 points)",
                           t[-1])

    # ------------------------------------------------------------ the circle
    def _circle(self, t, R, Re, s_end, circle):
        if s_end > 0.5:
            return None
        if circle.degenerate:
            return self._arc(t, Re, s_end)
        if circle.rotation is not None:
            return self._rotation(t, Re, s_end, circle.rotation)
        tol = 1e-9 * self.pt.scale
        for phi, dg, nu in circle.roots:
            if dg < -tol and nu < -tol:
                reg = self._sink(complex(np.exp(1j * phi)), np.array([dg, nu], dtype=complex))
                if reg is not None and reg.value(Re) <= reg.level:
                    return self._sink_certificate(reg, t[-1])
            elif dg < -tol and abs(nu) <= tol:
                box = self._node_box(phi, circle.roots[:, 0])
                if box is not None:
                    k, c = box
                    W = max(s_end, 0.0) + k * _wrap(np.angle(Re) - phi) ** 2
                    if W <= c:
                        att = Attractor("circle_node", "cluster_converge", complex(np.exp(1j * phi)), 0.0,
                                        eigenvalues=(complex(dg), complex(nu)), rate=0.0)
                        return Certificate(att, f"non-hyperbolic circle equilibrium at phi = {phi:.6g} (g' = {dg:.3g},"
                                                f" nu = {nu:.1e}, an algebraic approach); W = (1 - |R2|) + {k:g} (phi - "
                                                f"phi*)^2 decreases on W <= {c:.3g} (21 nested shells x 33 points) and "
                                                f"the state has W = {W:.3g}", t[-1])
        return None

    def _node_box(self, phi, others):
        """(k, c) of the trapping region W = s + k·(φ − φ*)² ≤ c about a non-hyperbolic circle node at φ (s = 1 − |R|):
        dW/dt < 0 on 21 nested shells W = c·2⁻ʲ (33 points each), so W decreases to 0; or None."""
        if phi in self._boxes:
            return self._boxes[phi]
        gaps = [abs(_wrap(o - phi)) for o in others if abs(_wrap(o - phi)) > 1e-9]
        w_max = min([1.0] + [0.5 * g for g in gaps])
        out = None
        u = np.linspace(-1, 1, 33)
        for k in (1.0, 0.1, 10.0):
            for c in 0.2 * 2.0 ** -np.arange(12):
                if np.sqrt(c / k) > w_max:
                    continue
                levels = c * 2.0 ** -np.arange(21)
                C, U = np.meshgrid(levels, u)
                dphi = U * np.sqrt(C / k)
                s = C - k * dphi**2
                s = np.where(s <= 0, 0.0, s)
                R = (1 - s) * np.exp(1j * (phi + dphi))
                sdot, phidot = self.pt.polar(R)
                wdot = sdot + 2 * k * dphi * phidot
                if np.all(wdot < 0):
                    out = (float(k), float(c))
                    break
            if out is not None:
                break
        self._boxes[phi] = out
        return out

    def _arc(self, t, Re, s_end):
        s_end = max(s_end, 0.0)  # on the circle to rounding
        phi0 = float(np.angle(Re))
        s = max(s_end, 1e-6) * 2.0 ** -np.arange(16)  # a tube at least 1e-6 wide: rates resolved above rounding
        for w in 0.2 * 2.0 ** -np.arange(6):
            ph = phi0 + np.linspace(-w, w, 41)
            S, PH = np.meshgrid(s, ph)
            sdot, phidot = self.pt.polar((1 - S) * np.exp(1j * PH))
            kappa = float((-sdot / S).min())
            K = float((np.abs(phidot) / S).max())
            if kappa > 0 and s_end * K / kappa < w / 2:
                break
        else:
            return None
        nu = float(self.pt.circle_rates(phi0)[2])
        att = Attractor("circle_of_equilibria", "cluster_converge", complex(np.exp(1j * phi0)), nu, rate=0.0)
        return Certificate(att, f"every circle point is fixed (g = 0); on 1 - |R2| <= {s_end:.3g} over |phi - "
                                f"{phi0:.4g}| <= {w:.3g}: d(1-|R2|)/dt <= -{kappa:.3g} (1-|R2|) and |dphi/dt| <= {K:.3g} "
                                f"(1-|R2|), so the limit lies within {s_end * K / kappa:.2g} of phi0 (41 x 16 samples)",
                           t[-1])

    def _rotation_tube(self, rotation):
        """(phi grid, Ψ on it, λ_grid, s_c, u_c) of the rotation's Lyapunov tube, or None."""
        if self._tube is not None:
            return self._tube or None
        T, lam, sense = rotation
        self._tube = False
        if lam >= 0:
            return None
        phi = np.linspace(0, TWO_PI, N_TUBE_PHI, endpoint=False)
        g, _, nu = self.pt.circle_rates(phi)
        h = TWO_PI / N_TUBE_PHI
        lam_g = float((nu / np.abs(g)).sum() / (1 / np.abs(g)).sum())
        dpsi = (nu - lam_g) / g
        psi = np.concatenate([[0.0], np.cumsum(0.5 * (dpsi[1:] + dpsi[:-1]) * h)])
        # Ψ on the grid from the trapezoid rule, made exactly periodic (its closure error is the grid's λ error)
        close = psi[-1] + 0.5 * (dpsi[-1] + dpsi[0]) * h
        psi = psi - close * np.arange(N_TUBE_PHI) / N_TUBE_PHI
        s_c = 0.3
        for _ in range(14):
            s = s_c * 2.0 ** -np.arange(12)
            S, PH = np.meshgrid(s, phi)
            sdot, phidot = self.pt.polar((1 - S) * np.exp(1j * PH))
            rate = sdot / S - dpsi[:, None] * phidot
            if np.all(rate <= 0.5 * lam_g):
                self._tube = (phi, psi, lam_g, s_c, float(s_c * np.exp(-psi).min()))
                return self._tube
            s_c *= 0.5
        return None

    def _rotation(self, t, Re, s_end, rotation):
        tube = self._rotation_tube(rotation)
        if tube is None:
            return None
        phi, psi, lam_g, s_c, u_c = tube
        u = s_end * np.exp(-np.interp(np.angle(Re) % TWO_PI, phi, psi, period=TWO_PI))
        if s_end > s_c or u > u_c:
            return None
        T, lam, sense = rotation
        att = _rotation_attractor(T, lam, sense)
        return Certificate(att, f"no equilibrium on the circle; it rotates with period {T:.4g} and mean transverse "
                                f"exponent {lam:.3g}; u = (1-|R2|) exp(-Psi(phi)) has du/dt <= {0.5 * lam_g:.3g} u on "
                                f"1 - |R2| <= {s_c:.3g} ({N_TUBE_PHI} x 12 samples) and the state has u = "
                                f"{max(u, 0.0):.3g} <= {u_c:.3g}" + (" (|R2| = 1 to rounding)" if u <= 0 else ""), t[-1])

    # ------------------------------------------------------------ a time change of a linear flow (V = I)
    def _linear(self, t, R, Re, s_end, circle):
        """F = (1 − |R|²)(Mx + b): the orbit is the linear flow's, solved exactly; where it reaches the circle (every
        point of which is fixed) or tends to a circle point x*, the run converges there."""
        lin = self.pt.linear_time_change
        if lin is None or not circle.degenerate or s_end <= 0:
            return None
        from scipy.linalg import expm

        M, b = lin
        G = np.zeros((3, 3))
        G[:2, :2], G[:2, 2] = M, b
        norm = max(np.linalg.norm(M, 2), 1e-300)
        step = expm(G * (0.05 / norm))
        y = np.array([Re.real, Re.imag, 1.0])
        prev = y
        limit = None
        for _ in range(20000):
            prev, y = y, step @ y
            r = np.hypot(y[0], y[1])
            if r >= 1:  # the linear orbit reaches the circle between prev and y: bisect on the step fraction
                lo, hi = 0.0, 1.0
                for _ in range(60):
                    mid = 0.5 * (lo + hi)
                    z = expm(G * (mid * 0.05 / norm)) @ prev
                    lo, hi = (mid, hi) if np.hypot(z[0], z[1]) < 1 else (lo, mid)
                z = expm(G * (hi * 0.05 / norm)) @ prev
                limit = complex(z[0], z[1]) / np.hypot(z[0], z[1])
                how = "reaches the circle"
                break
            if np.hypot(*(y[:2] - prev[:2])) <= 1e-15 * norm:
                if r >= 1 - 1e-9:
                    limit = complex(y[0], y[1]) / r
                    how = "tends to the circle point"
                break
        if limit is None:
            return None
        nu = float(self.pt.circle_rates(np.angle(limit))[2])
        att = Attractor("circle_of_equilibria", "cluster_converge", limit, nu, rate=0.0)
        return Certificate(att, f"F = (1 - |R2|^2)(M x + b) (checked at 32 points), so the orbit is that of the linear "
                                f"flow x' = Mx + b, solved by its matrix exponential: it {how} at phi = "
                                f"{np.angle(limit):.6g}, and every circle point is fixed", t[-1])

    # ------------------------------------------------------------ Poincaré–Bendixson with Dulac
    def _global(self, t, R, Re, s_end, circle):
        """Dulac excludes interior cycles and polycycles; if every interior equilibrium is a source (and the list is
        complete), the ω-limit set of any other state lies on the circle: the rotation when g has no root."""
        if self.pt.dulac.status != "no_interior_cycle" or circle.rotation is None or circle.rotation[1] >= 0:
            return None
        eqs, complete = self.pt.interior_equilibria
        if not complete or any(e[1].real.min() <= 0 for e in eqs):
            return None
        if any(abs(Re - e[0]) <= 1e-8 for e in eqs):
            return None
        T, lam, sense = circle.rotation
        att = _rotation_attractor(T, lam, sense)
        src = ", ".join(f"{e[0]:.3g}" for e in eqs)
        return Certificate(att, f"Dulac's B = (1-|R2|^2)^-3 makes div(BF) one-signed (no interior cycle or polycycle); "
                                f"the interior equilibria ({src}) are all sources (grid Newton; their index sum equals "
                                f"the winding of F on |R2| = 0.999), so by Poincare-Bendixson every other orbit tends to "
                                f"the circle, which has no equilibrium and rotates (period {T:.4g}, transverse exponent "
                                f"{lam:.3g})", t[-1])

    # ------------------------------------------------------------ closed orbits
    def _winding(self, R, centre):
        ang = np.unwrap(np.angle(R - centre))
        return float(ang[-1] - ang[0])

    def _enclosed(self, R):
        """An interior equilibrium the window winds around at least once (Newton from the window's mean), or None."""
        if R.size < 16:
            return None
        eq = self.pt.equilibrium(complex(R.mean()))
        if eq is None or abs(eq[0]) >= 1 - 1e-9:
            return None
        if abs(self._winding(R, eq[0])) < TWO_PI:
            return None
        return eq

    def _centre(self, t, R, Re, s_end, circle):
        if self.pt.hamiltonian is None:
            return None
        eq = self._enclosed(R)
        if eq is None or np.abs(R).max() >= 1 - 1e-6:
            return None
        H = self.pt.conserved(R)
        drift = float(np.ptp(H) / max(np.abs(H).max(), 1e-300))
        if not np.all(np.isfinite(H)) or drift > 1e-6:
            return None
        turns = abs(self._winding(R, eq[0])) / TWO_PI
        period = _turn_period(t, R, eq[0])
        x_end = np.array([Re.real, Re.imag])
        nvec = self._f2(x_end) / np.linalg.norm(self._f2(x_end))
        n_steps = int(min(4000, max(400, 40 * period * self.pt.scale)))
        with np.errstate(all="ignore"):
            sh, T = self._to_section(x_end, x_end, nvec, period, n_steps)
        if np.all(np.isfinite(sh["x"])) and np.linalg.norm(sh["x"] - x_end) <= 1e-6 and abs(T - period) <= 0.1 * period:
            period = float(T)  # the return time of the closed orbit through the state
        att = Attractor("centre", "oscillate", eq[0], 0.0, 1.0, period, eigenvalues=tuple(complex(v) for v in eq[1]))
        k = self.pt.hamiltonian[0]
        why = "div(BF) = 0 with B = (1-|R2|^2)^-3" if k == 2 else "a time change of a linear centre"
        return Certificate(att, f"the flow conserves H = (quadratic in Re R2, Im R2)/(1-|R2|^2)^{k} ({why}; checked at "
                                f"64 points); H drifts by "
                                f"{drift:.1e} over the window, which winds {turns:.2f} times around the equilibrium "
                                f"R2 = {eq[0]:.4g}: a closed orbit", t[-1])

    def _cycle(self, t, R, Re, s_end, circle):
        """Shooting from the state (a Newton that does not converge, or runs off, gives no certificate)."""
        with np.errstate(all="ignore"):
            try:
                return self._cycle_check(t, R, Re, s_end, circle)
            except (np.linalg.LinAlgError, FloatingPointError, ZeroDivisionError):
                return None

    def _cycle_check(self, t, R, Re, s_end, circle):
        if self.pt.dulac.status in ("no_interior_cycle", "hamiltonian"):
            return None
        eq = self._enclosed(R)
        if eq is None:
            return None
        from ..continuation.shooting import periodic_orbit

        fam = self.pt.family
        p = np.zeros(2)
        T_guess = _turn_period(t, R, eq[0])
        if not np.isfinite(T_guess) or T_guess <= 0:
            return None
        x_end = np.array([Re.real, Re.imag])
        n_steps = int(min(4000, max(400, 40 * T_guess * self.pt.scale)))
        orb = periodic_orbit(fam, p, x_end, T_guess, n_steps=n_steps)
        if not orb["converged"] or not np.all(np.isfinite(orb["x0"])) or not np.isfinite(orb["multiplier"]) or orb["multiplier"] >= 1 or orb["r_max"] >= 1:
            return None
        x0, T = orb["x0"], orb["T"]
        F0 = self.pt.field(complex(x0[0], x0[1]))
        nvec = np.array([F0.real, F0.imag]) / abs(F0)
        e = np.array([-nvec[1], nvec[0]])

        def ret(xi):
            """(P(ξ), P'(ξ)) of the return map on the section x0 + ξe."""
            sh, _ = self._to_section(x0 + xi * e, x0, nvec, T, n_steps)
            fe = self._f2(sh["x"])
            proj = np.eye(2) - np.outer(fe, nvec) / float(nvec @ fe)
            return float(e @ (sh["x"] - x0)), float(e @ proj @ sh["Phi"] @ e)

        # the state's crossing of the section: shoot from the state over the time to the next crossing
        d = x_end - x0
        if np.hypot(*d) > 0.5:
            return None
        tc = (-(nvec @ d) / (nvec @ self._f2(x0))) % T
        xi0 = float(e @ (self._to_section(x_end, x0, nvec, tc, n_steps)[0]["x"] - x0))
        if xi0 == 0:
            xi0 = 1e-15
        samples = [ret(xi) for xi in xi0 * np.array([0.2, 0.4, 0.6, 0.8, 1.0])]
        slopes = np.array([sl for _, sl in samples])
        P_end = samples[-1][0]
        if not (np.all(slopes > 0) and np.all(slopes < 1) and np.sign(P_end) == np.sign(xi0) and abs(P_end) < abs(xi0)):
            return None
        mult = orb["multiplier"]
        att = Attractor("cycle", "oscillate", complex(float("nan"), float("nan")), float(np.log(mult) / T), float(mult), float(T))
        return Certificate(att, f"interior periodic orbit by Newton on the return map (period {T:.4g}, multiplier "
                                f"{mult:.4g}); the state crosses its section at xi = {xi0:.3g}, where P'(xi) lies in "
                                f"[{slopes.min():.3g}, {slopes.max():.3g}] on [0, xi] (5 points) and |P(xi)| < |xi|",
                           t[-1])

    def _f2(self, x):
        F = self.pt.field(complex(x[0], x[1]))
        return np.array([F.real, F.imag])

    def _to_section(self, y, x0, nvec, t_guess, n_steps):
        """(shot, time) from y to the line through x0 normal to ``nvec``, by Newton on the time from ``t_guess``."""
        from ..continuation.shooting import shoot

        fam, p, tc = self.pt.family, np.zeros(2), float(t_guess)
        for _ in range(30):
            sh = shoot(fam, y, max(tc, 1e-12), p, n_steps)
            dT = -float(nvec @ (sh["x"] - x0)) / float(nvec @ self._f2(sh["x"]))
            tc += dT
            if abs(dT) <= 1e-13 * max(abs(tc), 1.0):
                break
        return shoot(fam, y, max(tc, 1e-12), p, n_steps), tc

    # ------------------------------------------------------------ why not
    def _nearest(self, t, R, Re, s_end, circle) -> str:
        """The nearest candidate and the state's rate towards it, e.g. 'approaching the circle at -0.02 per unit time,
        1 - |R2| = 0.31 at t = 800'."""
        unit = "per unit time"
        n = R.size
        parts = []
        if n >= 2 and t[-1] > t[0]:
            s = np.clip(1 - np.abs(R), 1e-300, None)
            rate_s = float((np.log(s[-1]) - np.log(s[0])) / (t[-1] - t[0]))
            parts.append(f"1 - |R2| = {s_end:.3g} at t = {t[-1]:.4g}, changing at {rate_s:.2g} {unit} (log)")
        eq = self._equilibrium_at(Re)
        if eq is not None:
            top = eq[1].real.max()
            kind = ("sink" if top < -1e-9 * self.pt.scale else
                    "non-hyperbolic equilibrium" if top <= 1e-9 * self.pt.scale else "equilibrium (not a sink)")
            parts.append(f"nearest equilibrium: {kind} at R2 = {eq[0]:.4g}, eigenvalues {_fmt_eig(eq[1])}, "
                         f"distance {abs(Re - eq[0]):.2g}")
        if circle.rotation is not None:
            parts.append(f"circle rotates, period {circle.rotation[0]:.4g}, transverse exponent {circle.rotation[1]:.3g}")
        elif circle.degenerate:
            parts.append("every circle point is fixed")
        else:
            parts.append(f"{len(circle.roots)} circle equilibria")
            for phi, dg, nu in circle.roots:
                if abs(dg) <= 1e-6 * self.pt.scale:  # a double root is located to ~sqrt(eps) only
                    parts.append(f"degenerate: a circle fold at phi = {phi:.6g} (g = g' = 0, nu = {nu:.2g}; normal form "
                                 f"a saddle-node on the invariant circle, attracting from one side only), which no "
                                 f"check here certifies")
        parts.append(f"Dulac: {self.pt.dulac.status.replace('_', ' ')}")
        return "no attractor certified: " + "; ".join(parts)


def _rotation_attractor(T, lam, sense) -> Attractor:
    return Attractor("rotation", "cluster_rotate", exponent=float(lam), multiplier=float(np.exp(lam * T)),
                     period=float(T), rate=float(sense * TWO_PI / T))


def _turn_period(t, R, centre) -> float:
    """Mean time per turn of R about ``centre`` between the window's crossings of the ray through its last state."""
    ang = np.unwrap(np.angle(R - centre))
    sense = np.sign(ang[-1] - ang[0])
    k = np.arange(1, int(abs(ang[-1] - ang[0]) // TWO_PI) + 1)
    if k.size == 0:
        return float("nan")
    levels = ang[-1] - sense * TWO_PI * k
    order = np.argsort(sense * ang)
    times = np.interp(sense * levels, (sense * ang)[order], t[order])
    return float((t[-1] - times[-1]) / k[-1])


def _wrap(x):
    return (x + np.pi) % TWO_PI - np.pi


def _fmt_eig(lam) -> str:
    lam = np.asarray(lam, dtype=complex)
    return ", ".join(f"{v.real:.3g}" if abs(v.imag) < 1e-12 else f"{v.real:.3g}{v.imag:+.3g}i" for v in lam)


def certified_result(cert: Certificate | None, reason: str, t, R, method: str = "oa") -> RegimeResult:
    """The :class:`~lsadyn.regimes.classify.RegimeResult` of one checked window (``t`` (m,), ``R`` (m,)).

    Certified: the label is the attractor's, and so are the limit values (|R₂*| of an equilibrium, 1 on the circle;
    the rotation rate 2π·sense/T; the orbit's period); an oscillation reports the window's mean |R₂| and, in
    ``details['amplitude']``, its peak-to-trough. ``details``: ``certified``, ``attractor``
    (:meth:`Attractor.as_dict`), ``checked``, ``t_certified``. Not certified: ``undetermined`` with ``reason``."""
    t = np.asarray(t, dtype=float)
    R = np.asarray(R, dtype=complex)
    mod = np.abs(R)
    if cert is None:
        return RegimeResult("undetermined", float(mod[-1]), float("nan"), float("nan"), method,
                            {"certified": False, "reason": reason})
    att = cert.attractor
    details = {"certified": True, "attractor": att.as_dict(), "checked": cert.checked, "t_certified": float(cert.t)}
    if att.kind == "sink":
        return RegimeResult(att.regime, float(abs(att.R2)), 0.0, float("nan"), method, details)
    if att.kind in ("circle_node", "circle_of_equilibria"):
        return RegimeResult(att.regime, 1.0, 0.0, float("nan"), method, details)
    if att.kind == "rotation":
        return RegimeResult(att.regime, 1.0, float(att.rate), float(att.period), method, details)
    phi = np.unwrap(np.angle(R))
    rate = float((phi[-1] - phi[0]) / (t[-1] - t[0])) if t[-1] > t[0] else 0.0
    details["amplitude"] = float(np.ptp(mod))
    return RegimeResult(att.regime, float(mod.mean()), rate, float(att.period), method, details)
