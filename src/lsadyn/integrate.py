"""Deprecated alias: the module moved to :mod:`lsadyn.solvers.integrate`, its initial conditions to
:mod:`lsadyn.sampling`; removed in the next release."""

from .sampling import angles_from_tokens, tokens_from_angles, uniform_angles, uniform_sphere  # noqa: F401
from .solvers.integrate import (  # noqa: F401
    SINGLE_THREAD_MAX_N,
    SPHERE_METHODS,
    Trajectory,
    _check_times,
    _normalise,
    blas_threads_for as _blas_threads_for,
    integrate_flat,
    integrate_observed,
    integrate_sphere,
    one_blas_thread,
    thread_pools,
)
