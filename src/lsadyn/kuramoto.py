"""Deprecated alias of :mod:`lsadyn.reductions.kuramoto` (the module moved there); removed in the next release.

``lsadyn.kuramoto`` is the same module object as :mod:`lsadyn.reductions.kuramoto` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .reductions import kuramoto

sys.modules[__name__] = kuramoto
