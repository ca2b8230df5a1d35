"""Deprecated alias of :mod:`lsadyn.observers` (the module moved there); removed in the next release.

``lsadyn.metrics`` is the same module object as :mod:`lsadyn.observers` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from . import observers

sys.modules[__name__] = observers
