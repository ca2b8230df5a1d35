r"""Plan of the off-manifold stage: the starts whose doubled phases ξ = 2θ follow a fixed density
:math:`\propto 1 + \varepsilon\cos 2\xi` off the OA manifold (distance from it D = ε/4 for every n). numpy only.
"""

from __future__ import annotations

import numpy as np


def density_angles(eps: float, n: int, phase: float = 0.0) -> np.ndarray:
    r"""n angles θ whose doubled phases ξ = 2θ are the stratified quantiles (k + ½)/n of the density
    :math:`(1 + \varepsilon\cos 2\xi)/(2\pi)` (|ε| ≤ 1), rotated by ``phase`` (in ξ)."""
    if not 0 <= eps <= 1:
        raise ValueError(f"eps: density amplitude must be in [0, 1], got {eps}")
    grid = np.linspace(0, 2 * np.pi, 200001)
    cdf = (grid + eps / 2 * np.sin(2 * grid)) / (2 * np.pi)
    xi = np.interp((np.arange(n) + 0.5) / n, cdf, grid) + phase
    return xi / 2

