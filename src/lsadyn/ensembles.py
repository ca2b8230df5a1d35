r"""Random weight ensembles: stacks of d × d matrices (A or V), shape (N, d, d), drawn from a numpy Generator.

* ``gaussian``: i.i.d. entries :math:`N(0, 1/d)` (the persistence stage's random weights; spectral radius → 1);
* ``goe``: the Gaussian orthogonal ensemble :math:`H = (G + G^\top)/\sqrt{2d}`, G i.i.d. N(0, 1): symmetric,
  off-diagonal variance 1/d, diagonal variance 2/d (semicircle on [−2, 2] as d → ∞);
* ``wigner``: a symmetric Wigner matrix with every entry of the upper triangle, the diagonal included, i.i.d.
  N(0, 1/d) (the diagonal has half the GOE variance; same semicircle limit).

A and V of one sample are independent draws of the same ensemble (:func:`weight_pairs`). numpy only.
"""

from __future__ import annotations

import numpy as np

ENSEMBLES = ("gaussian", "goe", "wigner")


def random_matrices(ensemble: str, d: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` matrices of ``ensemble`` (see the module table), shape (size, d, d)."""
    d, size = int(d), int(size)
    if d < 1 or size < 0:
        raise ValueError(f"random_matrices: need d >= 1 and size >= 0, got d={d}, size={size}")
    G = rng.standard_normal((size, d, d))
    if ensemble == "gaussian":
        return G / np.sqrt(d)
    if ensemble == "goe":
        return (G + np.swapaxes(G, 1, 2)) / np.sqrt(2 * d)
    if ensemble == "wigner":
        up = np.triu(G)
        return (up + np.swapaxes(np.triu(G, 1), 1, 2)) / np.sqrt(d)
    raise ValueError(f"ensemble: unknown ensemble {ensemble!r}; choose one of {', '.join(ENSEMBLES)}")


def weight_pairs(ensemble: str, d: int, size: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """(A, V), each (size, d, d), independent draws of ``ensemble`` from ``numpy.random.default_rng(seed)`` (A first,
    then V: the first k samples of a larger draw are not those of a draw of size k; callers draw the whole set)."""
    rng = np.random.default_rng(seed)
    A = random_matrices(ensemble, d, size, rng)
    V = random_matrices(ensemble, d, size, rng)
    return A, V
