r"""Plan of the structural-stability stage (claim C6): initial token distributions near the uniform one but *off* the OA
manifold (not wrapped Cauchy in ξ = 2θ), one family at a time. numpy only.

Every family leaves the OA manifold at first order in its strength: the OA family has moments
:math:`Z_k = Z_1^k` of ξ, and each family below makes :math:`Z_2 - Z_1^2` (or a higher
:math:`Z_k - Z_1^k`) of the order of the strength. (Odd θ-harmonics would not: they leave every
moment of ξ = 2θ unchanged.)

* ``harmonics``: density ∝ 1 + s Σ_{k=1..3} cos(2kθ + φ_k)/k (harmonics of ξ: Z_k = s e^{-iφ_k}/(2k)),
  stratified quantiles;
* ``von_mises``: mixture (1 − s)·uniform + s·von Mises(θ₀, κ = 4), stratified quantiles;
* ``clumps``: n tokens in m equal clumps on a rotated regular m-gon (m = strength), tiny jitter;
* ``random``: n i.i.d. uniform tokens (n = strength): ε ~ n^(−1/2).
"""

from __future__ import annotations

import numpy as np

FAMILIES = ("harmonics", "von_mises", "clumps", "random")


def _inverse_cdf(density, n, offset=0.5):
    grid = np.linspace(0, 2 * np.pi, 20001)
    pdf = np.clip(density(grid), 0, None)
    cdf = np.concatenate([[0], np.cumsum((pdf[1:] + pdf[:-1]) / 2 * np.diff(grid))])
    cdf /= cdf[-1]
    return np.interp((np.arange(n) + offset) / n, cdf, grid)


def perturbed_angles(family: str, strength: float, n: int, seed: int) -> np.ndarray:
    """n initial angles of one perturbation family at one strength (see module doc)."""
    rng = np.random.default_rng(seed)
    if family == "harmonics":
        phases = rng.uniform(0, 2 * np.pi, 3)
        dens = lambda t: 1 + strength * sum(np.cos(2 * k * t + phases[k - 1]) / k for k in (1, 2, 3))  # noqa: E731
        return _inverse_cdf(dens, n, offset=rng.uniform())
    if family == "von_mises":
        mu = rng.uniform(0, 2 * np.pi)
        vm = lambda t: np.exp(4 * np.cos(t - mu)) / (2 * np.pi * np.i0(4))  # noqa: E731
        return _inverse_cdf(lambda t: (1 - strength) / (2 * np.pi) + strength * vm(t), n, offset=rng.uniform())
    if family == "clumps":
        m = int(strength)
        base = rng.uniform(0, 2 * np.pi) + 2 * np.pi * np.arange(m) / m
        return base[np.arange(n) % m] + 1e-6 * rng.standard_normal(n)  # clump sizes differ by at most 1
    if family == "random":
        return rng.uniform(0, 2 * np.pi, int(strength))
    raise ValueError(f"family: unknown family {family!r}; choose one of {FAMILIES}")

