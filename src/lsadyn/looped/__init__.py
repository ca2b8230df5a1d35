"""Looped transformers: one attention layer applied L times, the discrete map whose continuous limit is the paper's
token flow (:mod:`lsadyn.looped.forward`), and the certified regime of its iterates (:mod:`lsadyn.looped.regime`)."""

from .forward import attention_update, looped_forward
from .regime import looped_regime, observe_iterates

__all__ = ["attention_update", "looped_forward", "looped_regime", "observe_iterates"]
