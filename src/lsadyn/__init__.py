"""lsadyn: dynamics of deep linear transformers — tokens on the sphere, exact d = 2 reductions.

The top-level names are loaded lazily (PEP 562), so ``from lsadyn.paper.cases2d.plan import ...`` imports only
what that module needs (the pipeline tracks those imports as job inputs).
See each module's docstring for the equation it implements.
"""

from ._lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "api": ["integrate_oa", "oa_start_points", "particles_regime_batch", "predict_regime", "predict_regime_batch",
            "simulate_regime", "ws_regime", "ws_regime_batch"],
    "fields.attention": ["Attention", "attention", "lsa_field", "sa_field", "usa_field"],
    "solvers.integrate": ["integrate_flat", "integrate_observed", "integrate_sphere"],
    "sampling": ["angles_from_tokens", "initial_tokens", "tokens_from_angles", "uniform_angles", "uniform_sphere"],
    "reductions.kuramoto": ["angle_field", "case4_hamiltonian", "kuramoto_coefficients", "oa_field"],
    "observers": ["cluster_shape", "oa_manifold_distance", "order_parameter_r", "order_parameter_r2"],
    "regimes.classify": ["LABELS", "RegimeResult", "RegimeTolerances", "classify_r2_trajectory"],
    "reductions.watanabe_strogatz": ["ws_field", "ws_from_angles", "ws_order_parameter", "ws_to_angles"],
    "distances": ["bl_distance", "bl_distance_to_uniform"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
