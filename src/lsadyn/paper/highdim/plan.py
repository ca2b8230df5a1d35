r"""Plan of the high-dimensional stage: a scenario's (A, V) in d dimensions (:func:`embed_scenario`:
:math:`A = \mathrm{diag}(A_2, a_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_A`, the same for V), how long a run lasts and
how many output times it records. Pure functions of the config (numpy only), free of the integrators: the Snakefile's
rules read them through :mod:`lsadyn.paper.persistence.plan` while Snakemake parses the workflow, and the
persistence, robustness and movie runs embed their scenarios with :func:`embed_scenario`."""

from __future__ import annotations

import numpy as np


def run_horizon(scenario: dict, model: str) -> float:
    """Integration time (units of τ) of one model's run of a config ``highdim.scenarios`` entry: its
    ``settle_horizon[model]`` where given (runs whose r(t) needs longer than ``horizon`` to settle; ``horizon``
    stays the base horizon other studies read, e.g. :mod:`lsadyn.paper.persistence.plan`), else ``horizon`` (also when
    ``settle_horizon`` is null: how an override config such as quick.yaml drops the paper's)."""
    return float((scenario.get("settle_horizon") or {}).get(model, scenario["horizon"]))


def samples_for(horizon: float, base_horizon: float, n_samples: int) -> int:
    """Output times of a run of ``horizon`` at the spacing of ``n_samples`` times over ``base_horizon``
    (a longer run keeps the time resolution its classifier reads: the oscillation period stays resolved)."""
    if not horizon > 0 or not base_horizon > 0:
        raise ValueError(f"horizon: must be > 0, got {horizon!r} (base {base_horizon!r})")
    return round((int(n_samples) - 1) * float(horizon) / float(base_horizon)) + 1


def embed_scenario(A2, V2, d: int, rest_A: float, rest_V: float, noise: float = 0.0, seed: int = 0):
    """(A, V) of shape (d, d) from 2×2 blocks, complement scalings and seeded noise (see the module doc and
    :mod:`lsadyn.paper.highdim.runs`)."""
    rng = np.random.default_rng(seed)
    A = np.eye(d) * rest_A
    V = np.eye(d) * rest_V
    A[:2, :2] = np.asarray(A2, dtype=float)
    V[:2, :2] = np.asarray(V2, dtype=float)
    if noise:
        A = A + noise / np.sqrt(d) * rng.standard_normal((d, d))
        V = V + noise / np.sqrt(d) * rng.standard_normal((d, d))
    return A, V


def near_plane(X, offplane: float):
    """Tokens ``X`` (n, d) moved towards the plane of the first two coordinates: the complement coordinates scaled by
    ``offplane`` (> 0), each row renormalised. From uniform tokens the plane angles stay uniform (the projection of
    a uniform point of :math:`S^{d-1}` onto a plane has a uniform angle) and the mean squared complement part is
    about ``offplane``² (d − 2) / 2 (small ``offplane``): a near-plane start for the transverse stability of the
    plane (:mod:`lsadyn.paper.highdim.transverse`)."""
    if not offplane > 0:
        raise ValueError(f"offplane: must be > 0, got {offplane!r}")
    X = np.array(X, dtype=float)
    X[:, 2:] *= offplane
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def start_tokens(X, scenario: dict):
    """The start of a run of config ``highdim.scenarios`` entry ``scenario`` from uniform tokens ``X``: ``X`` itself,
    or :func:`near_plane` when the scenario sets ``offplane`` (null or absent: uniform)."""
    off = scenario.get("offplane")
    return X if off is None or X.shape[1] <= 2 else near_plane(X, off)


def offplane_mass(X) -> float:
    """Mean squared complement part (1/n) Σ_k |x_k,⊥|² of tokens ``X`` (n, d), x_⊥ the coordinates beyond the
    first two: 0 in the plane, (d − 2)/d for uniform tokens."""
    X = np.asarray(X, dtype=float)
    return float(np.mean(np.sum(X[:, 2:] ** 2, axis=1))) if X.shape[1] > 2 else 0.0

