r"""Stability numbers: Floquet and Lyapunov exponents, basin fractions (issue 29, part 2).

* :mod:`.oa` — the attractors of the d = 2 OA flow :math:`\dot R_2 = F(R_2)` (x = (Re R₂, Im R₂), Jacobian J (2, 2))
  at one (A, V, β) with their leading exponents: max Re eig J at an interior equilibrium, max(g′, ν) at an
  equilibrium on the circle |R₂| = 1, the normal Floquet exponent λ⊥ of rotating clusters, which
  :func:`.oa.circle_floquet` measures from the monodromy matrix Φ(T) (2, 2) of :math:`\dot\Phi = J\Phi` over one
  turn (closed form: :func:`lsadyn.continuation.circle_cycle`);
* :mod:`.tangent` — Jacobian-vector products Df(X)[W] of the LSA and USA token fields, X (n, d), W (m, n, d),
  analytic and vectorised, with a plain loop reference and a finite difference;
* :mod:`.lyapunov` — the m largest Lyapunov exponents (m,) of a token run by Benettin's method (RK4 on (X, W), QR
  re-orthonormalisation), tokens placed on the OA manifold at d = 2, and the token spectrum (n,) the OA flow
  predicts there;
* :mod:`.cluster` — the differential exponent of a single cluster (how fast its spread contracts): the largest
  Lyapunov exponent of the d-dimensional linearisation δ̇ = D(x) δ along the cluster's orbit x(t) (d,), closed form
  −h(β⟨x, Ax⟩)⟨x, Vx⟩ at rest, and its measurement from a run's r(t), half the slope of log(1 − r);
* :mod:`.basins` — basin fractions of the OA attractors over N random R₂(0) in the unit disc, Wilson 95 % intervals.

Interior limit cycles of the OA flow (their multipliers need shooting) are not handled here.
"""

from .basins import basin_fractions, disc_starts, wilson_interval
from .cluster import cluster_state_exponent, contraction_exponent, differential_exponent
from .lyapunov import lyapunov_spectrum, oa_manifold_tokens, oa_token_spectrum
from .oa import Attractor, attractors, circle_floquet, constant_family, leading_exponent
from .tangent import field_and_jvp, jvp_fd, jvp_reference

__all__ = ["Attractor", "attractors", "basin_fractions", "circle_floquet", "cluster_state_exponent", "constant_family",
           "contraction_exponent", "differential_exponent", "disc_starts", "field_and_jvp", "jvp_fd", "jvp_reference",
           "leading_exponent", "lyapunov_spectrum", "oa_manifold_tokens", "oa_token_spectrum", "wilson_interval"]
