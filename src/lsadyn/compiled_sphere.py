"""Deprecated alias of :mod:`lsadyn.fields.kernels` (the module moved there); removed in the next release.

``lsadyn.compiled_sphere`` is the same module object as :mod:`lsadyn.fields.kernels` (this file replaces its own
entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the one module.
"""

import sys

from .fields import kernels

sys.modules[__name__] = kernels
