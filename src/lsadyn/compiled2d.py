"""Deprecated alias of :mod:`lsadyn.solvers.phase_points` (the module moved there); removed in the next release.

``lsadyn.compiled2d`` is the same module object as :mod:`lsadyn.solvers.phase_points` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .solvers import phase_points

sys.modules[__name__] = phase_points
