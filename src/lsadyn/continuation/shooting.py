r"""Interior periodic orbits of the OA flow (limit cycles with :math:`|R_2|` < 1) by shooting, their Floquet
multipliers, and their continuation in one and two parameters.

**Flow map and monodromy.** For x = (Re R₂, Im R₂) and the field F(x; p) of :mod:`lsadyn.continuation.oa` (Jacobian J), one *shot*
integrates, over the rescaled time s ∈ [0, 1] (t = sT), the 9 components

.. math::
    x' = T F(x),\quad \Phi' = T J(x)\,\Phi,\quad \ell' = T\,\mathrm{tr}J(x),\quad m' = x,

from x(0) = x₀, Φ(0) = I, ℓ(0) = m(0) = 0: x(1) = φ_T(x₀), the monodromy Φ (2×2, the variational equations),
ℓ = ∫₀ᵀ tr J dt and the time average m of x (the orbit's centre). The integrator is the DOP853 tableau of
:mod:`lsadyn.solvers.dop853_method` with ``n_steps`` fixed steps in s (8th order; fixed steps make the map
smooth in (x₀, T, p), which Newton needs), compiled by numba (one kernel, :func:`_shoot_kernel`).

**Floquet multipliers.** A periodic orbit of a planar flow has multipliers 1 (along the flow) and
:math:`\mu = \det\Phi = e^{\ell}` (Liouville); μ < 1: the cycle attracts. Both eigenvalues of Φ are returned; the
tests check that one is 1 and the other e^ℓ.

**Periodic orbit, phase condition.** A Poincaré section through a reference point x_r with direction e (unit):
x₀ = x_r + ξ e. With unknowns (ξ, T) and the parameter p_free,

.. math:: G(\xi, T, p) = \varphi_T(x_r + \xi e;\, p) - (x_r + \xi e) = 0\qquad (2 \text{ equations}),

solved for (ξ, τ = ln T, p) (the period enters through its logarithm, so that a step of the continuation is a
relative change of T: the period grows without bound towards a homoclinic loop), with the analytic Jacobian
:math:`[\,(\Phi - I)e,\ T F(\varphi_T)\,]` in (ξ, τ) and central differences in p. A branch u = (ξ, τ, p_free) is continued by :func:`.arclength.continue_curve` in chunks of ``chunk`` steps; after
each chunk the section is re-centred (x_r = the orbit's centre m, e = (x₀ − m)/|x₀ − m|), so it stays
transversal while the cycle grows and its equilibrium moves.

**Start at a Hopf point** (x_H, p_H) with J's eigenvalues ±iω: x_r = x_H, e = the real part of J's eigenvector
(normalised); Newton on G with ξ = ε held fixed (unknowns T, p_free) from T = 2π/ω, p_free = p_H. As ε → 0 the
solution tends to (2π/ω, p_H) (tested), and the branch is continued from there towards larger amplitude.

**Cycle folds** (saddle-node of cycles): on a branch the parameter turns (the tangent's p component changes sign)
and μ passes through 1. In the plane the defining system on (ξ, T, p₁, p₂) is G = 0, ℓ = 0 (3 equations), located
by Newton with one parameter held and continued in both by pseudo-arclength (with the same re-centring). It can
end on the Hopf curve (a Bautin point: the amplitude → 0), on the box, or where the period diverges.

Shapes: x (2,), p (2,), Φ (2, 2); a branch frame has one row per point with columns re, im (x₀), p1, p2, period,
multiplier, amplitude (max over the orbit of |x − m|), r_max (max |R₂| on the orbit), stability.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)
from ..solvers.dop853_method import N_STAGES
from ..solvers.dop853_method import A as _A
from ..solvers.dop853_method import B as _B
from .arclength import continue_curve, newton, sign_changes
from .oa import _coeffs, field_and_jacobian

TWO_PI = 2 * np.pi
N_STEPS = 400  # fixed DOP853 steps per shot (T/N_STEPS ≤ 0.12 up to T = 45; the tests bound the error)
_NY = 9


def kappa(family, p) -> np.ndarray:
    """The field's coefficients as one float array (t₀, t₁, t₂, Re c₀, Im c₀, Re c₁, Im c₁, Re c₂, Im c₂, β)."""
    tr, c, beta = _coeffs(family, p)
    return np.array([tr[0], tr[1], tr[2], c[0].real, c[0].imag, c[1].real, c[1].imag, c[2].real, c[2].imag, beta])


@njit(cache=True, error_model="numpy")
def _rhs(k, y, T, out):
    a, b = y[0], y[1]
    R = complex(a, b)
    beta = k[9]
    c0, c1, c2 = complex(k[3], k[4]), complex(k[5], k[6]), complex(k[7], k[8])
    tt = k[0] + k[1] * a + k[2] * b
    C = c0 + c1 * a + c2 * b
    ib = 1j * beta
    F = ib * tt * R + 0.5 * ib * (C.conjugate() + C * R * R)
    Fa = ib * (k[1] * R + tt) + 0.5 * ib * (c1.conjugate() + c1 * R * R + 2 * C * R)
    Fb = ib * (k[2] * R + 1j * tt) + 0.5 * ib * (c2.conjugate() + c2 * R * R + 2j * C * R)
    j11, j12, j21, j22 = Fa.real, Fb.real, Fa.imag, Fb.imag
    out[0] = T * F.real
    out[1] = T * F.imag
    out[2] = T * (j11 * y[2] + j12 * y[4])
    out[3] = T * (j11 * y[3] + j12 * y[5])
    out[4] = T * (j21 * y[2] + j22 * y[4])
    out[5] = T * (j21 * y[3] + j22 * y[5])
    out[6] = T * (j11 + j22)
    out[7] = a
    out[8] = b


@njit(cache=True, error_model="numpy")
def _shoot_kernel(k, x0, T, n_steps, Atab, Btab, samples):
    """Fixed-step DOP853 of the 9-component system over s ∈ [0, 1]; returns (y(1), r_max) and writes x at the
    n_steps + 1 step ends into ``samples`` when it has that many rows."""
    y = np.zeros(_NY)
    y[0], y[1], y[2], y[5] = x0[0], x0[1], 1.0, 1.0
    K = np.zeros((N_STAGES, _NY))
    tmp = np.zeros(_NY)
    h = 1.0 / n_steps
    keep = samples.shape[0] == n_steps + 1
    r_max = np.hypot(y[0], y[1])
    if keep:
        samples[0, 0], samples[0, 1] = y[0], y[1]
    for step in range(n_steps):
        for s in range(N_STAGES):
            for i in range(_NY):
                acc = y[i]
                for j in range(s):
                    acc += h * Atab[s, j] * K[j, i]
                tmp[i] = acc
            _rhs(k, tmp, T, K[s])
        for i in range(_NY):
            acc = 0.0
            for s in range(N_STAGES):
                acc += Btab[s] * K[s, i]
            y[i] += h * acc
        r = np.hypot(y[0], y[1])
        r_max = max(r_max, r)
        if keep:
            samples[step + 1, 0], samples[step + 1, 1] = y[0], y[1]
        if not np.isfinite(r):
            break
    return y, r_max


_EMPTY = np.zeros((0, 2))


def shoot(family, x0, T, p, n_steps=N_STEPS, samples=False):
    """One shot from x0 over time T at p: dict with x (x(T), (2,)), Phi (2, 2), log_mult (ℓ = ∫ tr J dt),
    centre (time average of x), r_max (max |R₂| at the step ends) and, if ``samples``, orbit (n_steps + 1, 2)."""
    buf = np.empty((n_steps + 1, 2)) if samples else _EMPTY
    y, r_max = _shoot_kernel(kappa(family, p), np.asarray(x0, dtype=float), float(T), int(n_steps), _A, _B, buf)
    out = {"x": y[:2].copy(), "Phi": y[2:6].reshape(2, 2).copy(), "log_mult": float(y[6]), "centre": y[7:9].copy(),
           "r_max": float(r_max)}
    if samples:
        out["orbit"] = buf
    return out


def floquet_multipliers(Phi) -> np.ndarray:
    """Both eigenvalues of the monodromy matrix, sorted by distance from 1 (the trivial multiplier first)."""
    ev = np.linalg.eigvals(np.asarray(Phi, dtype=float))
    return ev[np.argsort(np.abs(ev - 1))]


def cycle_stability(log_mult, tol=1e-9) -> str:
    """'stable' (μ < 1), 'unstable' (μ > 1) or 'neutral' (|ln μ| ≤ tol: a centre's orbit, or a cycle fold)."""
    return "neutral" if abs(log_mult) <= tol else ("stable" if log_mult < 0 else "unstable")


def periodic_orbit(family, p, x_guess, T_guess, n_steps=N_STEPS, tol=1e-12, max_iter=30):
    """The periodic orbit through the section normal to F(x_guess) at x_guess (phase condition
    (x₀ − x_g)·F(x_g) = 0), by Newton on (x₀, T) with the monodromy matrix. Returns a dict (x0, T, multiplier,
    multipliers, log_mult, centre, r_max, converged)."""
    xg = np.asarray(x_guess, dtype=float)
    n = field_and_jacobian(family, xg, p)[0]
    n = n / np.linalg.norm(n)

    def H(u):
        return np.append(shoot(family, u[:2], u[2], p, n_steps)["x"] - u[:2], np.dot(u[:2] - xg, n))

    def jac(u):
        s = shoot(family, u[:2], u[2], p, n_steps)
        Fend = field_and_jacobian(family, s["x"], p)[0]
        return np.vstack([np.column_stack([s["Phi"] - np.eye(2), Fend]), np.append(n, 0.0)])

    u, ok = newton(H, np.array([xg[0], xg[1], T_guess]), jac=jac, tol=tol, max_iter=max_iter)
    s = shoot(family, u[:2], u[2], p, n_steps)
    return {"x0": u[:2], "T": float(u[2]), "log_mult": s["log_mult"], "multiplier": float(np.exp(s["log_mult"])),
            "multipliers": floquet_multipliers(s["Phi"]), "centre": s["centre"], "r_max": s["r_max"],
            "converged": bool(ok and u[2] > 0)}


# ---------------------------------------------------------------- section systems
class Section:
    """A Poincaré section x₀ = x_r + ξ e (e unit) and the parameters held fixed (all of p but the free ones)."""

    def __init__(self, x_ref, e, p, free):
        self.x_ref = np.asarray(x_ref, dtype=float)
        self.e = np.asarray(e, dtype=float) / np.linalg.norm(e)
        self.p = np.asarray(p, dtype=float)
        self.free = tuple(free)

    def point(self, xi):
        return self.x_ref + xi * self.e

    def params(self, values):
        q = self.p.copy()
        for j, v in zip(self.free, values):
            q[j] = v
        return q

    @classmethod
    def recentred(cls, family, sec, u, n_steps):
        """A new section through the orbit of u = (ξ, ln T, free params...) centred on its time average; returns
        (section, ξ)."""
        x0, q = sec.point(u[0]), sec.params(u[2:])
        m = shoot(family, x0, np.exp(u[1]), q, n_steps)["centre"]
        d = x0 - m
        return cls(m, d, q, sec.free), float(np.linalg.norm(d))


def _cycle_system(family, sec, n_steps, with_fold=False):
    """H(u) for u = (ξ, τ = ln T, p_free...): G (2,) and, with ``with_fold``, ℓ appended; its Jacobian (analytic in
    ξ and τ for G, central differences otherwise)."""

    def H(u):
        s = shoot(family, sec.point(u[0]), np.exp(u[1]), sec.params(u[2:]), n_steps)
        r = s["x"] - sec.point(u[0])
        return np.append(r, s["log_mult"]) if with_fold else r

    def jac(u):
        q = sec.params(u[2:])
        T = np.exp(u[1])
        s = shoot(family, sec.point(u[0]), T, q, n_steps)
        Fend = field_and_jacobian(family, s["x"], q)[0]
        cols = [(s["Phi"] - np.eye(2)) @ sec.e, T * Fend]
        if with_fold:
            h = 1e-6 * max(1.0, abs(u[0]))
            lp = shoot(family, sec.point(u[0] + h), T, q, n_steps)["log_mult"]
            lm = shoot(family, sec.point(u[0] - h), T, q, n_steps)["log_mult"]
            hT = 1e-6
            tp = shoot(family, sec.point(u[0]), T * np.exp(hT), q, n_steps)["log_mult"]
            tm = shoot(family, sec.point(u[0]), T * np.exp(-hT), q, n_steps)["log_mult"]
            cols = [np.append(cols[0], (lp - lm) / (2 * h)), np.append(cols[1], (tp - tm) / (2 * hT))]
        for j in range(2, u.size):
            h = 1e-6 * max(1.0, abs(u[j]))
            up, um = u.copy(), u.copy()
            up[j] += h
            um[j] -= h
            cols.append((np.asarray(H(up)) - np.asarray(H(um))) / (2 * h))
        return np.column_stack(cols)

    return H, jac


# ---------------------------------------------------------------- from a Hopf point
def hopf_start(family, u_hopf, free, eps=1e-2, n_steps=N_STEPS):
    """A small cycle near the Hopf point u_hopf = (x_H, p₁, p₂) with p[free] free: (section, u = (ξ = ε, ln T, p_free),
    ok). The section passes through x_H along the real part of J's eigenvector of iω."""
    x_h, p_h = np.asarray(u_hopf[:2], float), np.asarray(u_hopf[2:], float)
    Jh = field_and_jacobian(family, x_h, p_h)[1]
    ev, vec = np.linalg.eig(Jh)
    k = int(np.argmax(ev.imag))
    omega = float(ev[k].imag)
    if omega <= 0:
        return None, None, False
    sec = Section(x_h, vec[:, k].real, p_h, (free,))
    H, jac = _cycle_system(family, sec, n_steps)
    u, ok = newton(H, np.array([eps, np.log(TWO_PI / omega), p_h[free]]), jac=jac, fix=0, tol=1e-12, max_iter=30)
    return sec, u, bool(ok)


def hopf_frequency(family, u_hopf) -> float:
    """ω = √det J at a Hopf point (J's eigenvalues ±iω)."""
    J = field_and_jacobian(family, np.asarray(u_hopf[:2], float), np.asarray(u_hopf[2:], float))[1]
    return float(np.sqrt(max(np.linalg.det(J), 0.0)))


# ---------------------------------------------------------------- continuation with re-centred sections
def _chunked(family, sec, u, direction, n_steps, *, with_fold, inside, ds_max, max_steps, chunk):
    """Continue from u in chunks of ``chunk`` steps, re-centring the section between chunks. Returns the points as
    (x₀ (2,), T, full p (2,)) rows, the tangents' parameter components, and the stop reason."""
    rows, tang, stop, done = [], [], "max_steps", 0
    d = np.asarray(direction, dtype=float)
    first = True
    while done < max_steps:
        H, jac = _cycle_system(family, sec, n_steps, with_fold)
        c = continue_curve(H, u, d, jac=jac, ds=0.2 * ds_max if first else ds_max / 2, ds_max=ds_max,
                           max_steps=min(chunk, max_steps - done), inside=lambda v, s=sec: inside(s, v), tol=1e-10)
        start = 0 if first else 1
        for v, t in zip(c.u[start:], c.tangent[start:]):
            rows.append(np.concatenate([sec.point(v[0]), [np.exp(v[1])], sec.params(v[2:])]))
            tang.append(t[2:] if len(t) > 2 else t[2:3])
        done += len(c.u) - 1
        first = False
        if c.stop != "max_steps" or len(c.u) < 2:
            stop = c.stop
            if c.stop == "left_domain":
                rows.pop()
                tang.pop()
            break
        v, t = c.u[-1], c.tangent[-1]
        old_e = sec.e
        sec, xi = Section.recentred(family, sec, v, n_steps)
        u = np.concatenate([[xi], v[1:]])
        d = np.concatenate([[t[0] * float(np.dot(old_e, sec.e))], t[1:]])
    return np.array(rows).reshape(-1, 5), np.array(tang), stop


def _orbit_info(family, row, n_steps):
    x0, T, q = row[:2], row[2], row[3:5]
    s = shoot(family, x0, T, q, n_steps, samples=True)
    amp = float(np.max(np.linalg.norm(s["orbit"] - s["centre"], axis=1)))
    return s["log_mult"], amp, s["r_max"]


def cycle_branch(family, u_hopf, free, p_range, *, ds_max=0.05, max_steps=400, chunk=8, T_max=45.0,
                 amp_min=2e-3, r_max=0.999, eps=1e-2, n_steps=N_STEPS):
    """The branch of cycles born at the Hopf point u_hopf, continued in p[free] over ``p_range`` away from the
    equilibrium. Returns (frame: re, im, p1, p2, period, multiplier, log_mult, amplitude, r_max, stability;
    list of located cycle folds {kind, u = (x₀, T, p₁, p₂)}; stop reason). The branch stops where the amplitude
    falls below ``amp_min`` (the cycle dies at another Hopf point), the orbit reaches :math:`|R_2|` ≥ ``r_max``,
    T exceeds ``T_max`` (a homoclinic loop), or the parameter leaves ``p_range``."""
    sec, u, ok = hopf_start(family, u_hopf, free, eps, n_steps)
    cols = ["re", "im", "p1", "p2", "period", "multiplier", "log_mult", "amplitude", "r_max", "stability"]
    if not ok:
        return pd.DataFrame(columns=cols), [], "no_start"
    lo, hi = p_range

    def inside(s, v):
        if not (lo <= v[2] <= hi and v[1] <= np.log(T_max) and v[0] > 0.25 * eps):
            return False
        sh = shoot(family, s.point(v[0]), np.exp(v[1]), s.params(v[2:]), n_steps)
        return sh["r_max"] < r_max

    pts, tang, stop = _chunked(family, sec, u, [1.0, 0.0, 0.0], n_steps, with_fold=False, inside=inside,
                               ds_max=ds_max, max_steps=max_steps, chunk=chunk)
    info = [_orbit_info(family, r, n_steps) for r in pts]
    keep = [k for k, (_, amp, _) in enumerate(info) if amp >= amp_min or k < 2]
    if len(keep) < len(info):
        stop = "amplitude"
        pts, tang, info = pts[keep], tang[keep], [info[k] for k in keep]
    lm = np.array([i[0] for i in info])
    df = pd.DataFrame({"re": pts[:, 0], "im": pts[:, 1], "p1": pts[:, 3], "p2": pts[:, 4], "period": pts[:, 2],
                       "multiplier": np.exp(lm), "log_mult": lm, "amplitude": [i[1] for i in info],
                       "r_max": [i[2] for i in info], "stability": [cycle_stability(v) for v in lm]})
    folds = []
    pf = tang[:, 0] if len(tang) else np.array([])
    for k in sign_changes(pf):
        u_f, ok = locate_cycle_fold(family, pts[k], pts[k + 1], free, n_steps)
        if ok:
            folds.append({"kind": "cycle_fold", "u": u_f, "free": free})
    return df, folds, stop


def locate_cycle_fold(family, row_a, row_b, free, n_steps=N_STEPS):
    """Newton on (G, ℓ) = 0 with the parameter not ``free`` held, from the midpoint of two branch points (rows
    x₀, T, p₁, p₂) that bracket the fold. Returns (u = (x₀ (2), T, p₁, p₂), ok)."""
    mid = 0.5 * (np.asarray(row_a) + np.asarray(row_b))
    q = mid[3:5]
    m = shoot(family, mid[:2], mid[2], q, n_steps)["centre"]
    sec = Section(m, mid[:2] - m, q, (0, 1))
    H, jac = _cycle_system(family, sec, n_steps, with_fold=True)
    fixed = 2 + (1 - free)
    u, ok = newton(H, np.array([np.linalg.norm(mid[:2] - m), np.log(mid[2]), q[0], q[1]]), jac=jac, fix=fixed,
                   tol=1e-11, max_iter=30)
    return np.concatenate([sec.point(u[0]), [np.exp(u[1])], u[2:]]), bool(ok)


def cycle_fold_curve(family, u_fold, box, *, ds_max=0.05, max_steps=400, chunk=8, T_max=45.0, amp_min=2e-3,
                     r_max=0.999, n_steps=N_STEPS):
    """Continue a located cycle fold u_fold = (x₀, T, p₁, p₂) in both parameters inside ``box`` (both
    directions). Returns (frame: re, im, p1, p2, period, multiplier, log_mult (≈ 0), amplitude, r_max; stop reasons)."""
    u_fold = np.asarray(u_fold, dtype=float)
    x0, T, q = u_fold[:2], u_fold[2], u_fold[3:5]
    m = shoot(family, x0, T, q, n_steps)["centre"]
    sec = Section(m, x0 - m, q, (0, 1))
    u = np.array([np.linalg.norm(x0 - m), np.log(T), q[0], q[1]])
    jac = _cycle_system(family, sec, n_steps, with_fold=True)[1]
    t0 = np.linalg.svd(jac(u))[2][-1]

    def inside(s, v):
        if not (box[0][0] <= v[2] <= box[0][1] and box[1][0] <= v[3] <= box[1][1] and v[1] <= np.log(T_max)):
            return False
        sh = shoot(family, s.point(v[0]), np.exp(v[1]), s.params(v[2:]), n_steps, samples=True)
        return sh["r_max"] < r_max and np.max(np.linalg.norm(sh["orbit"] - sh["centre"], axis=1)) >= amp_min

    halves, stops = [], []
    for sgn in (1.0, -1.0):
        pts, _, stop = _chunked(family, sec, u, sgn * t0, n_steps, with_fold=True, inside=inside, ds_max=ds_max,
                                max_steps=max_steps, chunk=chunk)
        halves.append(pts)
        stops.append(stop)
    pts = np.concatenate([halves[1][::-1], halves[0][1:]]) if len(halves[0]) else halves[1][::-1]
    info = [_orbit_info(family, r, n_steps) for r in pts]
    lm = np.array([i[0] for i in info])
    df = pd.DataFrame({"re": pts[:, 0], "im": pts[:, 1], "p1": pts[:, 3], "p2": pts[:, 4], "period": pts[:, 2],
                       "multiplier": np.exp(lm), "log_mult": lm, "amplitude": [i[1] for i in info],
                       "r_max": [i[2] for i in info]})
    return df, tuple(stops)
