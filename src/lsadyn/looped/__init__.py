"""Looped transformers: one attention layer applied L times, the discrete map whose continuous limit is the paper's
token flow (:mod:`lsadyn.looped.forward`), the certified regime of its iterates (:mod:`lsadyn.looped.regime`), found
on the layer's own map (:mod:`lsadyn.looped.certify`: the one-token map of a cluster's centre and its spread map), the
tasks trained looped layers learn (:mod:`lsadyn.looped.tasks`, numpy only) and their training in JAX
(:mod:`lsadyn.looped.train`, extra ``looped``).

The names are imported on first use, so that ``lsadyn.looped.tasks`` can be read (as the workflow does when it is
parsed) without loading the fields' compiled kernels."""

from .._lazy import lazy_exports

_WHERE = {"attention_update": "forward", "looped_forward": "forward", "looped_regime": "regime",
          "observe_iterates": "regime", "iterate_rate": "regime", "cluster_map_rate": "regime",
          "MapCertifier": "certify", "one_token_map": "certify", "spread_map": "certify"}
__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
