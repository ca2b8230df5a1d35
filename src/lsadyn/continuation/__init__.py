r"""Numerical continuation of the Ott–Antonsen flow of d = 2 linear attention (docs/theory.md §2).

The OA ODE :math:`\dot R_2 = i\beta\,\mathrm{tr}B\,R_2 + \frac{i\beta}2(\bar c + cR_2^2)` is a 2-D polynomial
flow in x = (Re R₂, Im R₂) whose coefficients depend on (A, V, β). A *family* maps two parameters
p = (p₁, p₂) to (A, V, β); this package follows its equilibria and their bifurcations in p:

* :mod:`.oa` — the field F(x; p), its analytic Jacobian J, and the flow on the invariant circle :math:`|R_2|` = 1
  (angle φ, rate g(φ), tangential and normal eigenvalues g', ν);
* :mod:`.arclength` — pseudo-arclength continuation of H(u) = 0, H: ℝⁿ⁺¹ → ℝⁿ, with a Newton corrector on the
  bordered system (the tangent's parameter component changes sign at folds);
* :mod:`.branches` — interior and circle equilibrium branches in one parameter, detection and location of
  folds (det J = 0), Hopf points (tr J = 0, det J > 0), circle folds (g = g' = 0) and circle transcritical
  points (g = ν = 0: an interior branch meets the circle), and their continuation in two parameters;
* :mod:`.cycles` — the rotating clusters: the circle as a periodic orbit (period, normal Floquet exponent);
* :mod:`.shooting` — interior limit cycles (:math:`|R_2|` < 1) by shooting with the monodromy matrix, their Floquet
  multipliers, branches of them born at Hopf points (pseudo-arclength on a re-centred Poincaré section), cycle folds
  (multiplier 1) located and continued in two parameters;
* :mod:`.plane` — one call for a whole parameter rectangle.
"""

from .arclength import Curve, continue_curve, fd_jacobian, newton
from .branches import (
    bifurcation_curve,
    boundary_branch,
    boundary_equilibria,
    circle_degenerate,
    equilibrium_branch,
    interior_equilibria,
    locate,
)
from .cycles import circle_cycle
from .oa import circle_rate, field, field_and_jacobian
from .plane import continue_plane

__all__ = ["Curve", "bifurcation_curve", "boundary_branch", "boundary_equilibria", "circle_cycle", "circle_degenerate",
           "circle_rate", "continue_curve", "continue_plane", "cycle_branch", "cycle_fold_curve", "equilibrium_branch",
           "fd_jacobian", "field", "field_and_jacobian", "floquet_multipliers", "hopf_start", "interior_equilibria",
           "locate", "newton", "periodic_orbit", "shoot"]

#: names of :mod:`.shooting` (numba-compiled), imported on first use so that ``import lsadyn.continuation`` loads
#: neither numba nor scipy (the stages' summaries and the figures import this package)
_SHOOTING = ("cycle_branch", "cycle_fold_curve", "floquet_multipliers", "hopf_start", "periodic_orbit", "shoot")


def __getattr__(name):
    if name in _SHOOTING:
        from . import shooting

        return getattr(shooting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
