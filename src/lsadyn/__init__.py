"""lsadyn: dynamics of deep linear transformers — tokens on the sphere, exact d = 2 reductions.

See ``SCIENCE.md`` of the project for the equations; each module's docstring gives the one it implements.
"""

from .api import (
    integrate_oa,
    oa_start_points,
    particles_regime_batch,
    predict_regime,
    predict_regime_batch,
    simulate_regime,
    ws_regime,
    ws_regime_batch,
)
from .dynamics import Attention, attention, lsa_field, sa_field, usa_field
from .integrate import integrate_flat, integrate_sphere, tokens_from_angles, uniform_angles, uniform_sphere
from .kuramoto import angle_field, case4_hamiltonian, kuramoto_coefficients, oa_field
from .metrics import order_parameter_r, order_parameter_r2
from .regimes import LABELS, RegimeResult, RegimeTolerances, classify_r2_trajectory
from .watanabe_strogatz import ws_field, ws_from_angles, ws_order_parameter, ws_to_angles

__version__ = "0.1.0"

__all__ = [
    "Attention", "attention", "lsa_field", "usa_field", "sa_field",
    "integrate_sphere", "integrate_flat", "uniform_sphere", "uniform_angles", "tokens_from_angles",
    "angle_field", "kuramoto_coefficients", "oa_field", "case4_hamiltonian",
    "ws_field", "ws_from_angles", "ws_order_parameter", "ws_to_angles",
    "order_parameter_r", "order_parameter_r2",
    "LABELS", "RegimeResult", "RegimeTolerances", "classify_r2_trajectory",
    "predict_regime", "simulate_regime", "ws_regime", "predict_regime_batch", "particles_regime_batch",
    "ws_regime_batch", "integrate_oa", "oa_start_points",
]
