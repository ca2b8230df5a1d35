r"""Regimes: the classifier of an R₂(t) trajectory and the decision procedure that drives runs until it decides.

* :mod:`lsadyn.regimes.classify`: :func:`~lsadyn.regimes.classify.classify_r2_trajectory` reads the last ``window``
  fraction of R₂ (m,) complex at times t (m,) and returns a
  :class:`~lsadyn.regimes.classify.RegimeResult` (label in :data:`~lsadyn.regimes.classify.LABELS`, |R₂|, the
  rotation rate d arg R₂/dt, the period).
* :mod:`lsadyn.regimes.decision`: :func:`~lsadyn.regimes.decision.decide` integrates a
  :class:`lsadyn.runs.Run`, classifies, and continues undecided points from where they stopped with horizons
  1, 2, 4, … × the base horizon, up to the budget.

The classifier's names are re-exported here, as the module ``lsadyn.regimes`` held them before it became this
package (that use is deprecated and removed in the next release: import :mod:`lsadyn.regimes.classify`).
"""

from .classify import LABELS, RegimeResult, RegimeTolerances, algebraic_cluster_fit, classify_r2_trajectory

__all__ = ["LABELS", "RegimeResult", "RegimeTolerances", "algebraic_cluster_fit", "classify_r2_trajectory"]
