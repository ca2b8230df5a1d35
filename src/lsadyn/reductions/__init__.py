r"""Exact reductions of the d = 2 LSA token system (docs/theory.md §2), in doubled phases :math:`z_k = e^{2i\theta_k}`:

.. math:: \dot z_k = i\omega z_k + \tfrac12 (H - \bar H z_k^2),\qquad
          \omega = \beta\,\mathrm{tr}B(R_2),\ H = i\beta\,\overline{c(R_2)},\ R_2 = \tfrac1n\sum_k z_k .

* :mod:`lsadyn.reductions.kuramoto`: the affine coefficients of ω and H in R₂
  (:class:`~lsadyn.reductions.kuramoto.KuramotoCoefficients`, shape (...,) per point), the Kuramoto form of the
  angle field θ (n,) -> (n,), the phase-point field z (n,) and the Ott–Antonsen ODE for R₂ (one complex number per
  point).
* :mod:`lsadyn.reductions.watanabe_strogatz`: the Watanabe–Strogatz variables (α, η) (3 reals per point) and the
  exact R₂ from the n constants of motion w_k.

The package imports nothing itself: import the module you need.
"""
