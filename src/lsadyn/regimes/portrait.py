r"""The phase portrait of the d = 2 OA flow at one (A, V, β): what its attractors can be.

The OA flow :math:`\dot R = F(R)`, :math:`F(R) = i\beta T(R) R + \frac{i\beta}2(\overline{C(R)} + C(R) R^2)` with
:math:`T = t_0 + t_1 a + t_2 b`, :math:`C = c_0 + c_1 a + c_2 b` (R = a + ib; the coefficients of
:func:`lsadyn.continuation.oa.coefficients`) is a cubic polynomial field on the closed unit disc, whose boundary
circle is invariant. By Poincaré–Bendixson the ω-limit set of a state is an equilibrium, a periodic orbit, or a
cycle of equilibria joined by orbits. :class:`OAPortrait` holds what decides between them:

* the field, its Jacobian (2, 2) and its polar form (ṡ, φ̇) with s = 1 − |R|, vectorised over R;
* equilibria by Newton from any state (:meth:`OAPortrait.equilibrium`), with their eigenvalues;
* the flow on the circle, :math:`\dot\varphi = g(\varphi)`, its roots with tangential slope g′ and transverse
  exponent ν (:attr:`OAPortrait.circle`), or the rotation's period T and mean transverse exponent λ⊥;
* the Dulac test (:attr:`OAPortrait.dulac`): with :math:`B = (1-|R|^2)^{-3}`,

  .. math:: \operatorname{div}(B F) = -\beta B\,\big[\operatorname{Im}(R\,w) - m\,(1 + |R|^2)\big],\qquad
            w = \overline{(t_1 + i t_2)} - c_0,\quad m = \operatorname{Im}\tfrac{c_1 + i c_2}2,

  one-signed on the open disc when m ≠ 0 and |w| ≤ 2|m| (then no interior periodic orbit exists), identically zero
  when w = m = 0 (then B is an invariant density: the flow is Hamiltonian, with a conserved quantity
  :attr:`OAPortrait.hamiltonian`). For A = aI, w = 0 and m = (a/2) tr V.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..continuation.cycles import circle_cycle
from ..continuation.oa import _field_jac_complex, circle_rate, coefficients

TWO_PI = 2 * np.pi
_P0 = np.zeros(2)


@dataclass(frozen=True)
class Attractor:
    """A checked attractor of the OA flow.

    ``kind``: ``"sink"`` (hyperbolic equilibrium, inside the disc or on the circle), ``"circle_node"`` (a
    non-hyperbolic equilibrium on the circle, reached algebraically), ``"circle_of_equilibria"`` (every circle point
    fixed; the run converges to one of them), ``"rotation"`` (the circle as an attracting periodic orbit),
    ``"cycle"`` (an interior attracting limit cycle), ``"centre"`` (a closed orbit of a Hamiltonian flow, neutral).
    ``regime``: the label it implies. ``R2``: the equilibrium (NaN for orbits). ``exponent``: the leading exponent
    per unit time (max Re λ of a sink; λ⊥ of the rotation; ln(multiplier)/T of a cycle; 0 when neutral).
    ``multiplier``: the Floquet multiplier of an orbit (NaN for equilibria). ``period``: of the orbit (of R₂).
    ``eigenvalues``: of an equilibrium's Jacobian.
    """

    kind: str
    regime: str
    R2: complex = complex(float("nan"), float("nan"))
    exponent: float = float("nan")
    multiplier: float = float("nan")
    period: float = float("nan")
    eigenvalues: tuple = ()
    #: rate of arg R₂ along the attractor (rotation: ±2π/T; equilibria: 0; NaN where not constant)
    rate: float = float("nan")
    #: a token cluster's differential exponent (:mod:`lsadyn.regimes.tokens`; NaN for the OA flow's attractors)
    differential: float = float("nan")

    def as_dict(self) -> dict:
        return {"kind": self.kind, "regime": self.regime, "R2_re": float(np.real(self.R2)),
                "R2_im": float(np.imag(self.R2)), "exponent": float(self.exponent), "multiplier": float(self.multiplier),
                "period": float(self.period), "rate": float(self.rate),
                "differential": float(self.differential)}


@dataclass(frozen=True)
class CircleFlow:
    """The flow on |R₂| = 1: ``degenerate`` (g ≡ 0), ``roots`` (φ, g′, ν) rows (k, 3), ``rotation`` (T, λ⊥, sense)
    or None (when g has roots or vanishes)."""

    degenerate: bool
    roots: np.ndarray
    rotation: tuple | None


@dataclass(frozen=True)
class DulacTest:
    """``w`` (complex), ``m`` (real) of the module's formula and the verdict ``status``: ``"no_interior_cycle"``,
    ``"hamiltonian"`` or ``"unknown"``."""

    w: complex
    m: float
    status: str


@dataclass
class OAPortrait:
    """The OA flow at one (A, V, β), in physical time (see the module docstring)."""

    A: np.ndarray
    V: np.ndarray
    beta: float
    _equilibria: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.A = np.asarray(self.A, dtype=float)
        self.V = np.asarray(self.V, dtype=float)
        self.beta = float(self.beta)
        self.tr, self.c, _ = coefficients(self.A, self.V, self.beta)
        s = self.beta * np.linalg.norm(self.A, 2) * np.linalg.norm(self.V, 2)
        #: rate scale β‖A‖₂‖V‖₂ (1/τ), the unit of every tolerance on rates
        self.scale = float(s) if s > 0 else 1.0
        A, V, beta = self.A, self.V, self.beta
        #: the point as a family of :mod:`lsadyn.continuation` with no parameter (p is ignored)
        self.family = lambda p: (A, V, beta)

    # ------------------------------------------------------------ the field
    def field(self, R) -> np.ndarray:
        """F(R), complex, the shape of ``R``."""
        return _field_jac_complex(self.tr, self.c, self.beta, np.asarray(R, dtype=complex))[0]

    def jacobian(self, R) -> np.ndarray:
        """Real Jacobian ∂(Re F, Im F)/∂(a, b) at one R, shape (2, 2)."""
        _, Fa, Fb = _field_jac_complex(self.tr, self.c, self.beta, complex(R))
        return np.array([[Fa.real, Fb.real], [Fa.imag, Fb.imag]])

    def polar(self, R):
        """(ṡ, φ̇) at R (arrays of its shape), s = 1 − |R|, φ = arg R."""
        R = np.asarray(R, dtype=complex)
        F = self.field(R)
        r = np.abs(R)
        q = np.conj(R) * F
        return -q.real / r, q.imag / (r * r)

    # ------------------------------------------------------------ equilibria
    def equilibrium(self, R0, tol: float = 1e-13, max_iter: int = 40):
        """Newton from R0 → (R*, eigenvalues (2,) complex) of an equilibrium in the closed disc, or None."""
        x = np.array([np.real(R0), np.imag(R0)], dtype=float)
        for _ in range(max_iter):
            R = complex(x[0], x[1])
            F = self.field(R)
            J = self.jacobian(R)
            try:
                dx = np.linalg.solve(J, [-F.real, -F.imag])
            except np.linalg.LinAlgError:
                return None
            x = x + dx
            if not np.all(np.isfinite(x)) or np.hypot(*x) > 1.5:
                return None
            if np.hypot(*dx) <= tol * max(1.0, np.hypot(*x)):
                break
        else:
            return None
        R = complex(x[0], x[1])
        if abs(R) > 1 + 1e-9 or abs(self.field(R)) > 1e-10 * self.scale:
            return None
        if abs(abs(R) - 1) <= 1e-9:
            R = R / abs(R)
        key = (round(R.real, 9), round(R.imag, 9))
        if key not in self._equilibria:
            self._equilibria[key] = (R, np.linalg.eigvals(self.jacobian(R)))
        return self._equilibria[key]

    @cached_property
    def interior_equilibria(self):
        """Every interior equilibrium found by Newton from a 12 × 12 grid of the disc: (list of (R*, eigenvalues),
        complete), ``complete`` True when the sum of their indices (sign of det J) equals the winding number of F
        along |R| = 0.999 (the Poincaré–Hopf count of the equilibria inside)."""
        found = {}
        for a in np.linspace(-0.95, 0.95, 12):
            for b in np.linspace(-0.95, 0.95, 12):
                if a * a + b * b < 0.97:
                    eq = self.equilibrium(complex(a, b))
                    if eq is not None and abs(eq[0]) < 1 - 1e-9:
                        found[(round(eq[0].real, 8), round(eq[0].imag, 8))] = eq
        eqs = list(found.values())
        index = sum(int(np.sign(np.prod(e[1]).real)) for e in eqs)
        ring = 0.999 * np.exp(1j * np.linspace(0, TWO_PI, 4097))
        F = self.field(ring)
        complete = bool(np.abs(F).min() > 0) and index == round(float(np.diff(np.unwrap(np.angle(F))).sum() / TWO_PI))
        return eqs, complete

    @cached_property
    def linear_time_change(self):
        """(M (2, 2), b (2,)) when F = (1 − |R|²)(M x + b), x = (Re R, Im R): a time change of a linear flow (V = I), checked at 32 points to 1e-10 of max |F/(1 − |R|²)|; None otherwise."""
        rng = np.random.default_rng(1)
        R = np.sqrt(rng.uniform(0, 0.8, 32)) * np.exp(1j * rng.uniform(0, TWO_PI, 32))
        L = self.field(R) / (1 - np.abs(R) ** 2)
        X = np.column_stack([R.real, R.imag, np.ones(R.size)])
        coef, *_ = np.linalg.lstsq(X, np.column_stack([L.real, L.imag]), rcond=None)
        resid = np.abs(X @ coef - np.column_stack([L.real, L.imag])).max()
        if resid > 1e-10 * max(np.abs(L).max(), 1e-300):
            return None
        return coef[:2].T.copy(), coef[2].copy()

    # ------------------------------------------------------------ the circle
    def circle_rates(self, phi):
        """(g, g′, ν) on the circle at angles ``phi``: rate, its slope, transverse exponent ∂ṙ/∂r
        (:func:`lsadyn.continuation.oa.circle_rate`)."""
        return circle_rate(self.family, phi, _P0)

    @cached_property
    def circle(self) -> CircleFlow:
        phis = np.linspace(0, TWO_PI, 1440, endpoint=False)
        g = self.circle_rates(phis)[0]
        if np.abs(g).max() <= 1e-12 * self.scale:
            return CircleFlow(True, np.zeros((0, 3)), None)
        roots = []
        for k in np.nonzero(np.sign(g) * np.sign(np.roll(g, -1)) <= 0)[0]:
            roots.append(self._circle_root(phis[k], phis[k] + TWO_PI / phis.size))
        # touching roots (a circle fold to rounding): local minima of |g| at rounding level
        a = np.abs(g)
        for k in np.nonzero((a <= np.roll(a, 1)) & (a <= np.roll(a, -1)) & (a <= 1e-6 * a.max()))[0]:
            from scipy.optimize import minimize_scalar

            h = TWO_PI / phis.size
            res = minimize_scalar(lambda f: abs(self.circle_rates(f)[0]), bounds=(phis[k] - h, phis[k] + h),
                                  method="bounded", options={"xatol": 1e-13})
            if res.fun <= 1e-10 * a.max():
                roots.append(float(res.x))
        uniq = []
        for phi in sorted(r % TWO_PI for r in roots):
            if not any(abs((phi - u + np.pi) % TWO_PI - np.pi) < 1e-8 for u in uniq):
                uniq.append(phi)
        rows = np.array([[phi, *[float(v) for v in self.circle_rates(phi)[1:]]] for phi in uniq]).reshape(-1, 3)
        rotation = None
        if not uniq:
            rotation = circle_cycle(self.family, _P0)
        return CircleFlow(False, rows, rotation)

    def _circle_root(self, lo, hi):
        """A root of g bracketed in [lo, hi] (Brent)."""
        from scipy.optimize import brentq

        glo, ghi = self.circle_rates(lo)[0], self.circle_rates(hi)[0]
        if glo == 0:
            return float(lo)
        if ghi == 0 or np.sign(glo) == np.sign(ghi):
            return float(hi)
        return float(brentq(lambda f: float(self.circle_rates(f)[0]), lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps))

    # ------------------------------------------------------------ Dulac and Hamiltonian structure
    @cached_property
    def dulac(self) -> DulacTest:
        t1, t2 = self.tr[1], self.tr[2]
        c0, c1, c2 = self.c
        w = complex(t1, -t2) - c0
        m = float(((c1 + 1j * c2) / 2).imag)
        tol = 1e-12 * self.scale / self.beta
        if abs(w) <= tol and abs(m) <= tol:
            status = "hamiltonian"
        elif abs(m) > tol and abs(w) <= 2 * abs(m) * (1 + 1e-12):
            status = "no_interior_cycle"
        else:
            status = "unknown"
        return DulacTest(w, m, status)

    def dulac_divergence(self, R) -> np.ndarray:
        """div(B F) / B at R (B = (1 − |R|²)⁻³), from the closed form of the module docstring."""
        R = np.asarray(R, dtype=complex)
        d = self.dulac
        return -self.beta * ((R * d.w).imag - d.m * (1 + np.abs(R) ** 2))

    @cached_property
    def hamiltonian(self):
        """A conserved quantity 𝓗 = (q₀ + q₁a + q₂b + q₃a² + q₄ab + q₅b²)/(1 − |R|²)^k, as (k, q (6,)): for a
        Hamiltonian flow (``dulac.status == "hamiltonian"``, k = 2; case 4) or a time change of a linear centre (k = 0;
        V = I, tr A = 0). Found as the null vector of F·∇𝓗 = 0 sampled at 64 points of the disc and checked there
        (smallest singular value ≤ 1e-9 of the largest); None when neither exists."""
        rng = np.random.default_rng(0)
        r = np.sqrt(rng.uniform(0, 0.8, 64))
        R = r * np.exp(1j * rng.uniform(0, TWO_PI, 64))
        F = self.field(R)
        for k in (2, 0):
            cols = []
            for j in range(6):
                e = np.zeros(6)
                e[j] = 1.0
                ga, gb = _grad_H(e, R, k)
                cols.append(F.real * ga + F.imag * gb)
            first = 1 if k == 0 else 0  # for k = 0 the constant q₀ is trivially conserved: leave it out
            M = np.column_stack(cols[first:])
            _, sv, vt = np.linalg.svd(M)
            if sv[-1] <= 1e-9 * sv[0]:
                q = np.concatenate([np.zeros(first), vt[-1]])
                return k, q / np.abs(q).max()
        return None

    def conserved(self, R) -> np.ndarray:
        """𝓗(R) of :attr:`hamiltonian` (NaN array when the flow has none)."""
        R = np.asarray(R, dtype=complex)
        if self.hamiltonian is None:
            return np.full(R.shape, np.nan)
        k, q = self.hamiltonian
        return _H(q, R, k)


def _H(q, R, k):
    a, b = R.real, R.imag
    num = q[0] + q[1] * a + q[2] * b + q[3] * a * a + q[4] * a * b + q[5] * b * b
    return num / (1 - (a * a + b * b)) ** k


def _grad_H(q, R, k):
    """∇𝓗 of 𝓗 = N/D^k, D = 1 − |R|²: ∇N/D^k + 2k N (a, b)/D^(k+1)."""
    a, b = R.real, R.imag
    num = q[0] + q[1] * a + q[2] * b + q[3] * a * a + q[4] * a * b + q[5] * b * b
    den = 1 - (a * a + b * b)
    na = q[1] + 2 * q[3] * a + q[4] * b
    nb = q[2] + q[4] * a + 2 * q[5] * b
    return na / den**k + 2 * k * a * num / den ** (k + 1), nb / den**k + 2 * k * b * num / den ** (k + 1)
