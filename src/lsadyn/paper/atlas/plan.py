r"""Plan of the atlas stage (pure: numpy only, read while Snakemake parses the workflow): which random weights are run,
how the work is split into jobs, and the Wilson interval every fraction of the stage carries.

Config ``atlas`` (documented in workflow/schemas/config.schema.yaml), three parts, each split into ``chunks`` jobs:

* ``d2``: d = 2 LSA by the OA ODE (:func:`lsadyn.predict_regime_batch`) from ``n_starts`` near-uniform starts, at
  every ensemble of ``ensembles``, ``n_samples`` weight pairs each. A job takes a contiguous slice of every
  ensemble's samples; the samples are one draw of the whole set (:func:`lsadyn.ensembles.weight_pairs`, seed
  ``(seed + SEED_OFFSET['d2'], ensemble index, 2)``), so the chunking never changes a sample.
* ``tokens``: d ∈ ``d`` × ``models`` (LSA, USA) × ``ensembles``, ``n_samples`` token runs each
  (:func:`lsadyn.batch.regime_batch`), n = ``n_tokens`` uniform tokens; a group (ensemble, model, d) is one batch.
* ``phase``: for each (ensemble, model ∈ {USA, SA}, d), ``n_runs`` weight pairs × every β of ``beta`` integrated to
  ``t_max`` and observed at ``n_times`` layer times (:func:`lsadyn.phase_diagram.clustering_over_time`); a run is
  *clustered at t* when its order parameter r(t) ≥ ``r_threshold`` (every token on one axis up to that: one
  cluster or an antipodal pair).

Groups are dealt to the jobs of a part by estimated cost, largest first, each to the least loaded job
(:func:`deal`). A job's entry (:func:`chunk_jobs`) holds plain values only (its params: a config edit reruns the
jobs whose runs it changes).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from ...ensembles import ENSEMBLES

PARTS = ("d2", "tokens", "phase")
#: Seed offsets (added to the config's base seed) per part.
SEED_OFFSET = {"d2": 2900, "tokens": 3000, "phase": 3100}
TOKEN_MODELS = ("lsa", "usa")
PHASE_MODELS = ("usa", "sa")
#: two-sided 95 % normal quantile of the Wilson interval
Z95 = 1.959963984540054


def wilson_interval(count, n, z: float = Z95):
    r"""Wilson score interval of a binomial proportion: count k of n, :math:`\hat p = k/n`,
    :math:`(\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}) / (1 + z^2/n)`; arrays broadcast; (NaN, NaN)
    where n = 0."""
    k = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = np.where(k == 0, 0.0, np.clip(mid - half, 0.0, 1.0))  # exact ends (no rounding residue) at k = 0, k = n
    hi = np.where(k == n, 1.0, np.clip(mid + half, 0.0, 1.0))
    nan = n == 0
    return np.where(nan, np.nan, lo)[()], np.where(nan, np.nan, hi)[()]


def samples_for_half_width(half_width: float, z: float = Z95) -> int:
    """Samples that make the 95 % interval of any proportion at most ± ``half_width`` (worst case p = ½,
    normal approximation, z²/(4 h²) rounded up)."""
    return int(np.ceil(z * z / (4 * float(half_width) ** 2)))


def _check_ensembles(names, key):
    for e in names:
        if e not in ENSEMBLES:
            raise ValueError(f"atlas.{key}.ensembles: unknown ensemble {e!r}; choose from {', '.join(ENSEMBLES)}")
    return list(names)


def ensemble_seed(seed: int, part: str, ensemble: str, d: int) -> tuple:
    """The seed of every weight draw of one part, ensemble and d: ``(seed + SEED_OFFSET[part], ensemble index, d)``."""
    return (int(seed) + SEED_OFFSET[part], ENSEMBLES.index(ensemble), int(d))


def deal(costs, n_chunks: int) -> list[list[int]]:
    """Indices of ``costs`` dealt to ``n_chunks`` jobs: largest first, each to the least loaded (ties: lowest
    job); each job's indices in ascending order; empty jobs dropped."""
    n_chunks = int(n_chunks)
    if n_chunks < 1:
        raise ValueError(f"chunks: must be >= 1, got {n_chunks}")
    load = [0.0] * n_chunks
    out = [[] for _ in range(n_chunks)]
    for i in sorted(range(len(costs)), key=lambda i: (-float(costs[i]), i)):
        j = int(np.argmin(load))
        out[j].append(i)
        load[j] += float(costs[i])
    return [sorted(c) for c in out if c]


def d2_jobs(cfg: dict, seed: int) -> list[dict]:
    """The d = 2 OA jobs: ``{"part": "d2", "slices": [{ensemble, seed, n_total, start, stop}], settings}``."""
    c = cfg["d2"]
    ens = _check_ensembles(c["ensembles"], "d2")
    n, k = int(c["n_samples"]), int(c["chunks"])
    if n < 1 or k < 1:
        raise ValueError("atlas.d2: n_samples and chunks must be >= 1")
    edges = np.linspace(0, n, min(k, n) + 1).round().astype(int)
    settings = {key: c[key] for key in ("n_starts", "horizon", "n_times", "budget_factor")}
    return [{"part": "d2", "beta": float(cfg["beta"]), **settings,
             "slices": [{"ensemble": e, "seed": list(ensemble_seed(seed, "d2", e, 2)), "n_total": n,
                         "start": int(a), "stop": int(b)} for e in ens]}
            for a, b in pairwise(edges)]


def token_groups(cfg: dict, seed: int) -> list[dict]:
    """The (ensemble, model, d) groups of the token part, each ``n_samples`` runs (seeds of the tokens:
    ``seed + SEED_OFFSET['tokens'] + k``)."""
    c = cfg["tokens"]
    out = []
    for e in _check_ensembles(c["ensembles"], "tokens"):
        for m in c["models"]:
            if m not in TOKEN_MODELS:
                raise ValueError(f"atlas.tokens.models: unknown model {m!r}; choose from {', '.join(TOKEN_MODELS)}")
            for d in c["d"]:
                out.append({"ensemble": e, "model": m, "d": int(d), "seed": list(ensemble_seed(seed, "tokens", e, d)),
                            "token_seed": int(seed) + SEED_OFFSET["tokens"], "n_samples": int(c["n_samples"])})
    return out


def phase_groups(cfg: dict, seed: int) -> list[dict]:
    """The (ensemble, model, d) groups of the phase part, each ``n_runs`` weight pairs × every β."""
    c = cfg["phase"]
    out = []
    for e in _check_ensembles(c["ensembles"], "phase"):
        for m in c["models"]:
            if m not in PHASE_MODELS:
                raise ValueError(f"atlas.phase.models: unknown model {m!r}; choose from {', '.join(PHASE_MODELS)}")
            for d in c["d"]:
                out.append({"ensemble": e, "model": m, "d": int(d), "seed": list(ensemble_seed(seed, "phase", e, d)),
                            "token_seed": int(seed) + SEED_OFFSET["phase"], "n_runs": int(c["n_runs"])})
    return out


def _group_cost(g: dict, n: int, runs: int) -> float:
    d = g["d"]
    return runs * n * d * (d + (n if g["model"] != "lsa" else 0))


def chunk_jobs(cfg: dict, seed: int) -> dict[str, list[dict]]:
    """Every job of the stage, by part: ``{"d2": [...], "tokens": [...], "phase": [...]}`` (plain values)."""
    tok = cfg["tokens"]
    groups = token_groups(cfg, seed)
    costs = [_group_cost(g, int(tok["n_tokens"]), g["n_samples"]) for g in groups]
    tsettings = {key: tok[key] for key in ("n_tokens", "horizon", "n_times", "dt", "budget_factor")}
    tokens = [{"part": "tokens", "beta": float(cfg["beta"]), **tsettings, "groups": [groups[i] for i in idx]}
              for idx in deal(costs, tok["chunks"])]
    ph = cfg["phase"]
    pgroups = phase_groups(cfg, seed)
    betas = beta_grid(ph)
    pcosts = [_group_cost(g, int(ph["n_tokens"]), g["n_runs"] * len(betas)) for g in pgroups]
    psettings = {key: ph[key] for key in ("n_tokens", "t_max", "n_times", "dt", "r_threshold", "pair_eps")}
    phase = [{"part": "phase", "beta": betas, **psettings, "groups": [pgroups[i] for i in idx]}
             for idx in deal(pcosts, ph["chunks"])]
    return {"d2": d2_jobs(cfg, seed), "tokens": tokens, "phase": phase}


def beta_grid(phase: dict) -> list[float]:
    """The β values of config ``atlas.phase.beta`` (a list), checked (> 0, ascending)."""
    b = [float(x) for x in phase["beta"]]
    if not b or min(b) <= 0 or any(y <= x for x, y in pairwise(b)):
        raise ValueError("atlas.phase.beta: expected ascending values > 0")
    return b


def phase_times(phase: dict) -> np.ndarray:
    """The layer times of the phase part: ``n_times`` equally spaced in [0, t_max]."""
    return np.linspace(0.0, float(phase["t_max"]), int(phase["n_times"]))
