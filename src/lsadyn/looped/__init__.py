"""Looped transformers: one attention layer applied L times, the discrete map whose continuous limit is the paper's
token flow (:mod:`lsadyn.looped.forward`)."""

from .forward import attention_update, looped_forward

__all__ = ["attention_update", "looped_forward"]
