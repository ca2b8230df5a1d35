r"""Integrators of ``dy/dt = f(t, y, args)``: the Runge–Kutta methods, and the entry points that choose them.

* :mod:`lsadyn.solvers.integrate`: the entry points. :func:`~lsadyn.solvers.integrate.integrate_sphere` (tokens
  X (n, d) on :math:`S^{d-1}`; ``method`` in :data:`~lsadyn.solvers.integrate.SPHERE_METHODS`),
  :func:`~lsadyn.solvers.integrate.integrate_observed` (a flat y (N,) with a scipy solver, only observations stored),
  :func:`~lsadyn.solvers.integrate.integrate_flat` (a small flat ODE through ``solve_ivp``); a
  :class:`~lsadyn.solvers.integrate.Trajectory` t (m,), y (m, ...) comes back.
* :mod:`lsadyn.solvers.dop853_method`: Dormand–Prince 8(5,3) itself, written once: tableau, error norm, step-size
  controller (initial step, accept/reject factors) and dense output, as numba functions that the compiled loops call
  compiled and the numpy loop calls as Python (``.py_func``).
* :mod:`lsadyn.solvers.dop853`: the numpy DOP853 loop for a state (n, d), rows renormalised onto the sphere.
* :mod:`lsadyn.solvers.rk4`: classical fixed-step RK4, :math:`y_{+} = y + \tfrac h6(k_1 + 2k_2 + 2k_3 + k_4)`, for
  one system (n, d) and for stacks (B, n, d).
* :mod:`lsadyn.solvers.phase_points`: compiled (numba) DOP853 for the d = 2 phase points z (P, n), one step size per
  parameter point, and for the small OA (2 reals) and WS (3 reals) systems (the loops; the method is
  :mod:`~lsadyn.solvers.dop853_method`'s); its fused stage passes are the generated
  :mod:`lsadyn.solvers._dop853_stages` (``tools/generate_dop853_stages.py``).

The package imports nothing itself: import the module you need.
"""
