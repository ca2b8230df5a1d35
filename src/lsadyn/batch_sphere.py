"""Deprecated alias: the module moved to :mod:`lsadyn.batch`, its run to :class:`lsadyn.runs.BatchTokenRun`, its
observer to :func:`lsadyn.observers.batch_axis_observer` and its RK4 step to
:func:`lsadyn.solvers.rk4.rk4_stack_step` (``rk4_step`` here); removed in the next release."""

from .batch import (  # noqa: F401
    BATCH_MODELS,
    BatchField,
    BatchResult,
    _RightProduct,
    batch_structure,
    regime_batch,
    run_time_scale,
    usa_time_scale,
)
from .observers import batch_axis_observer  # noqa: F401
from .runs import BatchTokenRun  # noqa: F401
from .solvers.rk4 import rk4_stack_step as rk4_step  # noqa: F401
