r"""Plan of the persistence stage: persistence of the d = 2 behaviours (issue 12: claim C7 measured, C9 random
weights, C10 β for softmax).

Three studies, one table (``results/tables/persistence.csv``, column ``study``):

* ``dimension`` — every embedded d = 2 scenario (config ``highdim.scenarios`` with a d = 2 prediction, plus
  the saddle-node pair of :func:`saddle_node_pair`) × model (LSA, USA) × d × seed: the regime the decision
  procedure reached, the cluster shape, r over the classified window, the rotation rate against the derived
  prediction (:func:`plane_rotation_rate`) and the oscillation period.
* ``random`` — A, V with i.i.d. N(0, 1/d) entries, LSA and USA, over d and seeds: the distribution of
  regimes (a run still undecided after its budget is ``undetermined``, counted, never guessed).
* ``beta`` — the rotation and oscillation scenarios at one (high) d over β, LSA and USA.

Every run is one member of a batch of token systems of the same size integrated together
(:func:`lsadyn.batch.regime_batch`: vectorised RK4, the shared decision procedure); a pipeline job
runs one chunk of the run plan (:func:`run_plan`, :func:`chunk_of`) with
:func:`lsadyn.paper.persistence.runs.run_chunk`. This module plans and predicts (no integration; numpy
and pandas only, read while Snakemake parses the workflow); :mod:`lsadyn.paper.persistence.summary` summarises.
Time units: LSA
τ = 1/(β‖A‖‖V‖), USA τ = 1/(‖V‖ e^{β‖A‖}) (:func:`lsadyn.batch.run_time_scale`).

**Derived rotation rate** (tested against simulation in tests/test_persistence.py). Let A = I and the
plane block V₂ with skew part w = (V₂₂₁ − V₂₁₂)/2 and q = ½√((V₂₂₁ + V₂₁₂)² + (V₂₁₁ − V₂₂₂)²). Tokens
clustered on the axis ±u, u = (cos φ, sin φ, 0, …), with a fraction p at +u:

* LSA: every token moves with :math:`\dot\varphi = \beta\langle Ju, V_2u\rangle = \beta(w - q\sin(2\varphi - \varphi_0))`
  whatever p (the antipodal tokens contribute β⟨u, −u⟩V(−u) = βVu), so arg R₂ = 2φ follows the Adler
  equation with mean rate :math:`2\beta\sqrt{w^2 - q^2}` (|w| > q; fixed points otherwise). For V₂ = I + μJ
  (w = μ, q = 0) that is 2βμ; on the saddle-node family w = μ, q = s: 2β√(μ² − s²), threshold μ_c = s.
* USA: the cluster at +u moves with speed factor :math:`c_+ = p e^\beta - (1-p) e^{-\beta}`, the one at −u with
  :math:`c_- = (1-p)e^\beta - p e^{-\beta}`: a pair rotates rigidly only if p = ½ (rate 2 sinh β √(w² − q²)),
  otherwise its two clusters drift apart; one cluster (p = 1) rotates at :math:`2e^\beta\sqrt{w^2 - q^2}` —
  the same threshold μ_c = s, time faster by e^β/β than LSA.

**β for LSA** only rescales time (the LSA field is linear in β): the trajectory at β is the one at β = 1
read at βt, so the regime is the same and rates scale as β (tested; the ``beta`` study shows rate/β).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..chunks import chunk_entry
from ..highdim.plan import samples_for

STUDIES = ("dimension", "random", "beta")
#: Labels of the cluster shape column (lsadyn.observers.CLUSTER_SHAPES).
SHAPES = ("single", "antipodal_pair", "none")
#: Seed offsets (added to the config's base seed) per study.
SEED_OFFSET = {"dimension": 1200, "random": 1300, "beta": 1400}
#: Scenarios beyond the paper's claim 7 (their C7 rows are informational).
BEYOND_PAPER = ("saddle_converge", "saddle_rotate", "limit_cycle", "limit_cycle_plane")
#: Scenarios (config ``highdim.scenarios`` keys) of the attracting limit cycle of the OA flow (issue 28 part 4): an
#: oscillation that is structurally stable, unlike the case-4 centre of scenario ``oscillation``; from uniform
#: starts and from near-plane starts (``offplane``).
LIMIT_CYCLE = ("limit_cycle", "limit_cycle_plane")
PLAN_COLUMNS = ["study", "scenario", "expect", "model", "d", "seed", "beta", "horizon", "n_tokens", "n_samples"]
RESULT_COLUMNS = ["regime", "r_final", "r_min", "r_max", "r_mean", "rate", "period", "cluster_shape",
                  "mean_token_norm", "majority", "tau", "budget_factor", "rate_theory", "rate_rel_err",
                  "r_change_last_quarter", "contraction_exponent", "contraction_exponent_theory", "certified", "checked"]


def saddle_node_pair(a: float, s: float, delta: float, rest_A: float, rest_V: float, horizon: float) -> dict:
    """The two saddle-node scenarios of the bifurcation family A = I, V = [[a + s, −μ], [μ, a − s]]
    (threshold μ_c = s): ``saddle_converge`` at μ = s(1 − δ) (clusters converge) and ``saddle_rotate`` at
    μ = s(1 + δ) (clusters rotate), in the format of config ``highdim.scenarios``."""
    if not 0 < delta < 1:
        raise ValueError(f"persistence.saddle_node.delta: must lie in (0, 1), got {delta!r}")
    out = {}
    for name, mu, expect in (("saddle_converge", s * (1 - delta), "cluster_converge"),
                             ("saddle_rotate", s * (1 + delta), "cluster_rotate")):
        out[name] = {"A": [[1.0, 0.0], [0.0, 1.0]], "V": [[a + s, -mu], [mu, a - s]], "rest_A": rest_A,
                     "rest_V": rest_V, "noise": 0.0, "horizon": horizon, "expect": expect}
    return out


def scenario_set(highdim_scenarios: dict, bifurcation: dict, saddle: dict) -> dict:
    """Embedded d = 2 scenarios with a d = 2 prediction: config ``highdim.scenarios`` (those with a
    non-empty ``expect``, same A₂/V₂/rest values) plus :func:`saddle_node_pair` from config
    ``bifurcation`` (a, s) and ``persistence.saddle_node`` (delta, rest_A, rest_V, horizon)."""
    out = {k: dict(v) for k, v in highdim_scenarios.items() if v.get("expect")}
    out.update(saddle_node_pair(bifurcation["a"], bifurcation["s"], saddle["delta"], saddle["rest_A"],
                                saddle["rest_V"], saddle["horizon"]))
    return out


def plane_rotation_rate(A2, V2, beta: float, model: str, shape: str = "single", majority: float = 1.0) -> float:
    """Derived mean rate of arg R₂ (twice the rotation rate of the cluster axis) of a clustered state in the
    plane, for A = I (module doc): LSA 2β√(w² − q²) (any split), USA 2e^β√(w² − q²) for one cluster and
    2 sinh β √(w² − q²) for a balanced pair (``majority`` = ½); 0 when |w| ≤ q (the clusters stop); NaN
    where nothing is derived (A₂ ≠ I, an unbalanced USA pair, no clusters)."""
    A2, V2 = np.asarray(A2, float), np.asarray(V2, float)
    if not np.array_equal(A2, np.eye(2)) or shape not in ("single", "antipodal_pair"):
        return float("nan")
    w = (V2[1, 0] - V2[0, 1]) / 2
    q = 0.5 * np.hypot(V2[1, 0] + V2[0, 1], V2[0, 0] - V2[1, 1])
    core = 2 * np.sqrt(max(w * w - q * q, 0.0))
    if model == "lsa":
        return float(beta * core)
    if model == "usa":
        if shape == "single":
            return float(np.exp(beta) * core)
        return float(np.sinh(beta) * core) if abs(majority - 0.5) < 1e-12 else float("nan")
    raise ValueError(f"model: expected lsa or usa, got {model!r}")


def settle_horizons(dim: dict, scenarios: dict) -> dict:
    """{(scenario, d): horizon} from config ``persistence.dimension.settle_horizon`` (a list of {scenario, d,
    horizon}): dimension runs whose r(t) needs longer than the scenario's horizon to settle (``undetermined`` at
    the scenario's horizon and budget) integrate for this horizon instead. Each entry is checked: a scenario of
    ``dimension.scenarios`` and a horizon above the scenario's (a shorter one would shorten the run)."""
    out = {}
    for e in _checked_settle_entries(dim, scenarios, "persistence.dimension"):
        for d in e["d"]:
            out[(e["scenario"], int(d))] = float(e["horizon"])
    return out


def beta_settle_horizons(bs: dict, scenarios: dict) -> dict:
    """{scenario: horizon} from config ``persistence.beta_sweep.settle_horizon`` (a list of {scenario, horizon}):
    the β sweep's runs of the scenario (at every β and model) integrate for this horizon instead of the scenario's;
    checked as :func:`settle_horizons` does."""
    return {e["scenario"]: float(e["horizon"]) for e in _checked_settle_entries(bs, scenarios,
                                                                                "persistence.beta_sweep")}


def _checked_settle_entries(study: dict, scenarios: dict, where: str):
    """The entries of ``study['settle_horizon']``, each checked: the scenario is one of the study's, the horizon above the
    scenario's; else a ValueError naming the config key."""
    for i, e in enumerate(study.get("settle_horizon") or []):
        key = f"{where}.settle_horizon.{i}"  # as the schema's messages write a list position
        if e.get("scenario") not in study["scenarios"]:
            raise ValueError(f"config key {key}.scenario: {e.get('scenario')!r} is not one of "
                             f"{where}.scenarios {list(study['scenarios'])}")
        base = float(scenarios[e["scenario"]]["horizon"])
        if not float(e["horizon"]) > base:
            raise ValueError(f"config key {key}.horizon: must be > the scenario's horizon {base:g} (it lengthens "
                             f"the run), got {e['horizon']!r}")
        yield e


def run_plan(cfg: dict, scenarios: dict, seed: int) -> pd.DataFrame:
    """Every run of the three studies as rows (:data:`PLAN_COLUMNS`; ``expect``: the scenario's d = 2 regime,
    empty for random weights; ``horizon``: the scenario's, or its :func:`settle_horizons` entry at that d (β sweep:
    :func:`beta_settle_horizons`);
    ``n_samples``: output times over ``horizon``, at the spacing of config ``n_samples`` over the base horizon),
    in a fixed order, with ``run_id`` and ``batch`` (runs of one batch share model, d, β, horizon and n and
    are integrated together). ``cfg``: config ``persistence``; ``scenarios``: :func:`scenario_set`;
    ``seed``: the base seed (study offsets :data:`SEED_OFFSET`)."""
    rows = []
    n = int(cfg["n_tokens"])
    ns = int(cfg["n_samples"])
    dim = cfg["dimension"]
    for name in dim["scenarios"]:
        if name not in scenarios:
            raise ValueError(f"persistence.dimension.scenarios: unknown scenario {name!r}; choose from "
                             f"{sorted(scenarios)}")
    settle = settle_horizons(dim, scenarios)
    for model in cfg["models"]:
        for d in dim["d"]:
            for name in dim["scenarios"]:
                base = float(scenarios[name]["horizon"])
                horizon = settle.get((name, int(d)), base)
                for k in range(int(dim["seeds"])):
                    rows.append(("dimension", name, scenarios[name]["expect"], model, int(d),
                                 seed + SEED_OFFSET["dimension"] + k, float(cfg["beta"]), horizon, n,
                                 samples_for(horizon, base, ns)))
    rw = cfg["random_weights"]
    for model in cfg["models"]:
        for d in rw["d"]:
            for k in range(int(rw["seeds"])):
                rows.append(("random", "random_weights", "", model, int(d), seed + SEED_OFFSET["random"] + k,
                             float(cfg["beta"]), float(rw["horizon"]), n, ns))
    bs = cfg["beta_sweep"]
    for name in bs["scenarios"]:
        if name not in scenarios:
            raise ValueError(f"persistence.beta_sweep.scenarios: unknown scenario {name!r}")
    bsettle = beta_settle_horizons(bs, scenarios)
    for model in bs["models"]:
        for b in bs["beta"]:
            for name in bs["scenarios"]:
                base = float(scenarios[name]["horizon"])
                horizon = bsettle.get(name, base)
                for k in range(int(bs["seeds"])):
                    rows.append(("beta", name, scenarios[name]["expect"], model, int(bs["d"]),
                                 seed + SEED_OFFSET["beta"] + k, float(b), horizon, n,
                                 samples_for(horizon, base, ns)))
    plan = pd.DataFrame(rows, columns=PLAN_COLUMNS)
    plan.insert(0, "run_id", np.arange(len(plan)))
    key = plan[["study", "model", "d", "beta", "horizon"]].astype(str).agg("|".join, axis=1)
    plan["batch"] = pd.factorize(key)[0]
    return plan


def chunk_ids(plan: pd.DataFrame, chunk_size: int) -> np.ndarray:
    """Chunk (pipeline job) of every run: batches in plan order, split into pieces of at most
    ``chunk_size`` runs, consecutive pieces packed into one chunk while it holds at most ``chunk_size`` runs."""
    chunk_size = int(chunk_size)
    if chunk_size < 1:
        raise ValueError(f"persistence.chunk_size: must be >= 1, got {chunk_size}")
    out = np.empty(len(plan), dtype=int)
    chunk, filled = 0, 0
    for _, idx in plan.groupby("batch", sort=False).indices.items():
        for lo in range(0, len(idx), chunk_size):
            piece = idx[lo:lo + chunk_size]
            if filled and filled + len(piece) > chunk_size:
                chunk, filled = chunk + 1, 0
            out[piece] = chunk
            filled += len(piece)
    return out


def n_chunks(cfg: dict, scenarios: dict, seed: int) -> int:
    """Number of pipeline jobs (chunks) of the plan of this config."""
    plan = run_plan(cfg, scenarios, seed)
    return int(chunk_ids(plan, cfg["chunk_size"]).max()) + 1 if len(plan) else 0


#: The keys of a scenario that a run reads (:func:`lsadyn.paper.persistence.runs.run_matrices`, the rotation rate's
#: theory); its horizon and expectation reach the runs through the plan's columns.
RUN_SCENARIO_KEYS = ("A", "V", "rest_A", "rest_V", "noise", "offplane")


def chunk_jobs(cfg: dict, scenarios: dict, seed: int) -> list:
    """What each chunk (pipeline job) of the plan reads, one dict per chunk
    (:func:`lsadyn.paper.chunks.chunk_entry`): ``runs`` (its rows of :func:`run_plan`, a DataFrame, which the
    workflow's ``chunk_params`` turns into plain values), ``scenarios`` (:data:`RUN_SCENARIO_KEYS` of the scenarios
    its runs embed) and the settings ``n_samples``, ``dt``, ``budget_factor``. Rule persistence_chunk passes a chunk
    its entry as params, so a config edit reruns exactly the chunks whose runs it changes (a β
    sweep horizon: the β chunks; a scenario's V: the chunks that embed it)."""
    plan = run_plan(cfg, scenarios, seed)
    if not len(plan):
        return []
    ids = chunk_ids(plan, cfg["chunk_size"])
    settings = {"n_samples": int(cfg["n_samples"]), "dt": float(cfg["dt"]),
                "budget_factor": float(cfg["budget_factor"])}
    # the random study's runs name no scenario of ``scenarios``: they embed none
    return [chunk_entry(plan[ids == c], scenarios, RUN_SCENARIO_KEYS, settings) for c in range(int(ids.max()) + 1)]


def chunk_of(cfg: dict, scenarios: dict, seed: int, chunk: int) -> pd.DataFrame:
    """The runs of one chunk (rows of :func:`run_plan`)."""
    plan = run_plan(cfg, scenarios, seed)
    ids = chunk_ids(plan, cfg["chunk_size"])
    if not 0 <= chunk <= ids.max():
        raise ValueError(f"chunk: {chunk} outside 0..{ids.max()}")
    return plan[ids == chunk].reset_index(drop=True)

