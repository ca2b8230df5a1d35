"""Looped transformers: one attention layer applied L times, the discrete map whose continuous limit is the paper's
token flow (:mod:`lsadyn.looped.forward`), the certified regime of its iterates (:mod:`lsadyn.looped.regime`), the
tasks trained looped layers learn (:mod:`lsadyn.looped.tasks`, numpy only) and their training in JAX
(:mod:`lsadyn.looped.train`, extra ``looped``).

The names are imported on first use, so that ``lsadyn.looped.tasks`` can be read (as the workflow does when it is
parsed) without loading the fields' compiled kernels."""

from importlib import import_module

_WHERE = {"attention_update": "forward", "looped_forward": "forward", "looped_regime": "regime",
          "observe_iterates": "regime", "iterate_rate": "regime", "cluster_map_rate": "regime"}
__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'lsadyn.looped' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
