"""Deprecated alias of :mod:`lsadyn.regimes.decision` (the module moved there); removed in the next release.

``lsadyn.decide`` is the same module object as :mod:`lsadyn.regimes.decision` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .regimes import decision

sys.modules[__name__] = decision
