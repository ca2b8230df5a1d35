"""Deprecated alias: the module was split into :mod:`lsadyn.solvers.dop853` (DOP853 on the sphere) and
:mod:`lsadyn.solvers.rk4` (fixed-step RK4); removed in the next release."""

from .solvers.dop853 import _dense_eval, _dense_weights, dop853_sphere, initial_step  # noqa: F401
from .solvers.rk4 import rk4_increment, rk4_sphere  # noqa: F401
