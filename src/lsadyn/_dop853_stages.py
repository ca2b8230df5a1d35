"""Deprecated alias of :mod:`lsadyn.solvers._dop853_stages` (the module moved there); removed in the next release.

``lsadyn._dop853_stages`` is the same module object as :mod:`lsadyn.solvers._dop853_stages` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .solvers import _dop853_stages

sys.modules[__name__] = _dop853_stages
