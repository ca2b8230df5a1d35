"""Deprecated alias of :mod:`lsadyn.distances` (the module moved there); removed in the next release.

``lsadyn.bl`` is the same module object as :mod:`lsadyn.distances` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from . import distances

sys.modules[__name__] = distances
