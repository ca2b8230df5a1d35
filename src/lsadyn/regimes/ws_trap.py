r"""d = 2 LSA tokens off the OA manifold: a neutral oscillation certified by the WS constants of motion.

In d = 2 every LSA token moves in the same Riccati field (:mod:`lsadyn.reductions.kuramoto`), in doubled-phase
points z_k = e^{2iθ_k}:

.. math:: \dot z = G(z; R_2) = i\omega(R_2)\, z + \tfrac12\big(H(R_2) - \overline{H(R_2)}\, z^2\big),
          \qquad R_2 = \tfrac1n\textstyle\sum_k z_k,

with ω, H affine in R₂; the OA field is F(R) = G(R; R). The flow moves the population by Möbius maps of the disc
(Watanabe–Strogatz), so two things are known for all time (derived in docs/certification.md, "The WS trap"):

* the population's conformal barycentre α (:func:`lsadyn.observers.conformal_barycentre`) is carried by the same
  map, α̇ = G(α; R₂), and the moduli |W_k| (k ≥ 2) of the moments of w = M_α(z) = (z − α)/(1 − ᾱz) are constants of
  motion (W₁ = 0 by the barycentre's definition);
* R₂ = α + (1 − |α|²) Σ_{k≥1} (−ᾱ)^k W_{k+1}, so |R₂ − α| ≤ ε(|α|) = (1 − |α|²) Σ_{k≥1} |α|^k |W_{k+1}|.

So α obeys the OA flow up to a perturbation G(α; R₂) − F(α) = L_α (R₂ − α), real-linear in R₂ − α (L_α (2, 2) from
the affine coefficients), of size at most ‖L_α‖ ε(|α|). When the OA flow has a hyperbolic interior sink R* with
Lyapunov function V(x) = (x − x*)ᵀP(x − x*), the sublevel set {V ≤ ℓ} traps α for ever as soon as, on its boundary,

.. math:: 2\,e^\top P\,F(\alpha) + 2\,\varepsilon(|\alpha|)\,\lVert L_\alpha^\top P e\rVert < 0,\qquad e = \alpha - x^*

(the worst perturbation; checked on :data:`N_SHELL` points of the shell). Then R₂ stays in {V ≤ ℓ} ⊕ ε: inside the
disc, away from the circle (no clustering), and the tokens never stop (G(·; R) ≢ 0 there: ω and H do not vanish
together). With the constants not those of the OA manifold (D > 0) the population keeps turning about R*: the label
is ``oscillate``, kind ``ws_neutral``, with the trap's level and the constants' drift over the run as what was
checked. A case-4 centre (OA eigenvalues ±iΩ) has no such trap: it stays unlabelled, with that reason.
"""

from __future__ import annotations

import numpy as np

from ..observers import conformal_barycentre
from ..reductions.kuramoto import kuramoto_coefficients
from .certify import Certificate, sink_region
from .portrait import TWO_PI, Attractor, OAPortrait

#: points per Lyapunov shell
N_SHELL = 720
#: harmonics of the moduli |W_k| kept (the tail beyond is bounded by (1 + |α|)|α|^K)
K_MAX = 400
#: drift of the constants |W_k| over a run, relative to the largest, above which the integration has broken them
#: (the DOP853 runs at rtol 1e-8 drift by ~5e-5 of it over 4000 τ)
CONSTANT_RTOL = 1e-3
#: shells tried, as factors of the state's own level
SHELL_FACTORS = np.geomspace(1.0, 1e4, 49)


def ws_constants(z, k_max: int = K_MAX):
    """(α, |W_k| for k = 2 … K) of doubled-phase points z (n,) on the circle; K = min(k_max, n). Raises
    ``ValueError`` (from the barycentre) when half the mass or more sits at one point."""
    z = np.asarray(z, dtype=complex)
    alpha = conformal_barycentre(z)
    w = (z - alpha) / (1 - np.conj(alpha) * z)
    K = int(min(k_max, z.size))
    out = np.empty(max(K - 1, 0))
    p = w.copy()
    for k in range(2, K + 1):
        p *= w
        out[k - 2] = abs(p.mean())
    return complex(alpha), out


def mean_field_bound(alpha_abs, moduli) -> np.ndarray:
    """ε(|α|) = (1 − |α|²) Σ_{k≥1} |α|^k |W_{k+1}| plus the tail beyond the kept harmonics; ``alpha_abs`` any shape,
    ``moduli`` (K − 1,) = |W_2| … |W_K|."""
    a = np.asarray(alpha_abs, dtype=float)[..., None]
    k = np.arange(1, moduli.size + 1)
    head = (1 - a[..., 0] ** 2) * np.sum(a ** k * moduli, axis=-1)
    return head + (1 + a[..., 0]) * a[..., 0] ** (moduli.size + 1)


class WSTrap:
    """The check of the module for one d = 2 LSA system (A, V, β) (physical time)."""

    def __init__(self, A, V, beta):
        self.pt = OAPortrait(A, V, beta)
        k = kuramoto_coefficients(A, V, beta)
        self.tr, self.c, self.beta = np.asarray(k.tr, dtype=float), np.asarray(k.c, dtype=complex), float(beta)
        self.reference = None  # the constants at the first check
        self.last = None

    def _perturbation_matrix(self, alpha):
        """L_α (m, 2, 2): ∂(Re, Im) G(α; R)/∂(Re R, Im R) at points α (m,) complex."""
        cols = []
        for j in (1, 2):  # d/da, d/db of ω and H
            dw = self.beta * self.tr[j]
            dH = 1j * self.beta * np.conj(self.c[j])
            dG = 1j * dw * alpha + 0.5 * (dH - np.conj(dH) * alpha * alpha)
            cols.append(np.stack([dG.real, dG.imag], axis=-1))
        return np.stack(cols, axis=-1)

    def _shell_holds(self, reg, level, moduli):
        """Whether the worst-case dV/dt < 0 on every sampled point of the shell V = level inside the disc."""
        p, Q = np.linalg.eigh(reg.P)
        th = np.linspace(0, TWO_PI, N_SHELL, endpoint=False)
        E = (Q @ np.diag(p ** -0.5) @ Q.T) @ np.vstack([np.cos(th), np.sin(th)]) * np.sqrt(level)  # (2, m)
        alpha = reg.R2 + E[0] + 1j * E[1]
        if np.max(np.abs(alpha)) >= 1:
            return False, float(np.max(np.abs(alpha)))
        F = self.pt.field(alpha)
        PE = reg.P @ E
        drift = 2 * (PE[0] * F.real + PE[1] * F.imag)
        L = self._perturbation_matrix(alpha)
        LtPe = np.einsum("mji,jm->mi", L, PE)
        worst = drift + 2 * mean_field_bound(np.abs(alpha), moduli) * np.linalg.norm(LtPe, axis=1)
        return bool(np.all(worst < 0)), float(np.max(np.abs(alpha)))

    def check(self, t_now: float, z) -> tuple[Certificate | None, str]:
        """(certificate, '') or (None, why) for the population z (n,) (doubled-phase points) at time ``t_now``."""
        try:
            alpha, moduli = ws_constants(z)
        except ValueError:
            return None, ""
        if self.reference is None:
            self.reference = moduli
        ref = self.reference
        drift = float(np.max(np.abs(moduli - ref))) if moduli.size == ref.size else float("inf")
        scale = float(np.max(ref)) if ref.size else 0.0
        if not drift <= CONSTANT_RTOL * max(scale, 1e-3):
            return None, f"the WS constants |W_k| drifted by {drift:.2g} over the run (the integration broke them)"
        D = float(np.sqrt(np.sum(moduli ** 2 / np.arange(2, moduli.size + 2) ** 2)))
        eq = self.pt.equilibrium(alpha)
        if eq is None:
            return None, ""
        R_star, eig = eq
        if abs(R_star) >= 1 - 1e-9:
            return None, ""
        if np.max(np.abs(eig.real)) <= 1e-9 * self.pt.scale:
            return None, (f"the OA equilibrium R* = {R_star:.3g} near the barycentre is a centre (eigenvalues "
                          f"{eig[0]:.3g}, {eig[1]:.3g}): neutral closed orbits, and off the OA manifold (D = {D:.2g}) "
                          f"no trapping region is checked")
        reg = sink_region(self.pt, R_star, eig)
        if reg is None:
            return None, ""
        v0 = reg.value(alpha)
        for f in SHELL_FACTORS:
            level = max(v0, 1e-30) * f
            ok, reach = self._shell_holds(reg, level, moduli)
            if ok:
                break
            if reach >= 1:
                return None, (f"the barycentre alpha = {alpha:.3g} circles the OA sink R* = {R_star:.3g}, but no Lyapunov "
                              f"shell around it outlasts the off-manifold perturbation (D = {D:.2g}) inside the disc")
        else:
            return None, ""
        eps = float(mean_field_bound(reach, moduli))
        gap = 1 - (reach + eps)
        if not gap > 0:
            return None, f"the trap around R* = {R_star:.3g} reaches the circle once the mean field's offset {eps:.2g} is added"
        # the tokens stop only where ω and H vanish together: H(R) = 0 is one point of the plane (affine in R)
        Mh = np.array([[self.c[1].real, self.c[2].real], [self.c[1].imag, self.c[2].imag]])
        try:
            ab = np.linalg.solve(Mh, [-self.c[0].real, -self.c[0].imag])
            R0 = complex(ab[0], ab[1])
            still = abs(self.tr[0] + self.tr[1] * ab[0] + self.tr[2] * ab[1]) <= 1e-12 * max(1.0, np.abs(self.tr).max())
            stops = still and reg.value(R0) <= level * (1 + 1e-9) + 1e-12
        except np.linalg.LinAlgError:
            stops = True
        if stops:
            return None, ""
        if not D > 1e-12:
            return None, ""
        #: what the last certificate rests on: the trap's level, 1 − |R₂| below which R₂ never goes, the offset bound
        self.last = {"R_star": complex(R_star), "level": float(level), "gap": float(gap), "eps": eps, "D": D,
                     "drift": drift}
        att = Attractor("ws_neutral", "oscillate", R_star, 0.0, eigenvalues=tuple(complex(v) for v in eig))
        return Certificate(att, (f"WS: the barycentre is trapped about the OA sink R* = {R_star:.4g} (eigenvalues "
                                 f"{eig[0]:.3g}, {eig[1]:.3g}): the Lyapunov shell V = {level:.3g} outlasts the "
                                 f"mean-field offset |R2 - alpha| <= eps(|alpha|) of the conserved constants (D = {D:.3g}, "
                                 f"drift {drift:.1g}; {N_SHELL} points); R2 stays within 1 - |R2| >= {gap:.3g} and the "
                                 f"tokens never stop: a neutral oscillation"), float(t_now)), ""
