"""Summary of the off-manifold stage from its runs' rows: the amplitude of |R₂|'s oscillation per unit distance
from the OA manifold (amplitude ∝ D, independent of n). numpy only.
"""

from __future__ import annotations

import numpy as np


def amplitude_per_distance(rows) -> tuple[float, float]:
    """Least-squares slope through the origin of amplitude against distance, and the largest relative
    deviation of a run from that line (how well 'amplitude ∝ distance, independent of n' holds)."""
    rows = list(rows)
    d = np.array([r["oa_distance"] for r in rows], float)
    a = np.array([r["amplitude"] for r in rows], float)
    k = float(np.dot(d, a) / np.dot(d, d))
    return k, float(np.max(np.abs(a - k * d) / (k * d)))

