"""Deprecated alias of :mod:`lsadyn.reductions.watanabe_strogatz` (the module moved there); removed in the next release.

``lsadyn.watanabe_strogatz`` is the same module object as :mod:`lsadyn.reductions.watanabe_strogatz` (this file
replaces its own entry in ``sys.modules``), so every name, private ones included, and every monkeypatch reach the
one module.
"""

import sys

from .reductions import watanabe_strogatz

sys.modules[__name__] = watanabe_strogatz
