"""Deprecated alias of :mod:`lsadyn.fields.attention` (the module moved there); removed in the next release.

``lsadyn.dynamics`` is the same module object as :mod:`lsadyn.fields.attention` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .fields import attention

sys.modules[__name__] = attention
