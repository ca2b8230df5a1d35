"""How long a study's run lasts and how many output times it records: pure functions of the config, free of the
integrators (the Snakefile's rules read them through :mod:`lsadyn.paper.persistence` while Snakemake parses the
workflow; :mod:`lsadyn.paper.highdim` imports scipy and numba)."""

from __future__ import annotations


def run_horizon(scenario: dict, model: str) -> float:
    """Integration time (units of τ) of one model's run of a config ``highdim.scenarios`` entry: its
    ``settle_horizon[model]`` where given (runs whose r(t) needs longer than ``horizon`` to settle; ``horizon``
    stays the base horizon other studies read, e.g. :mod:`lsadyn.paper.persistence`), else ``horizon`` (also when
    ``settle_horizon`` is null: how an override config such as quick.yaml drops the paper's)."""
    return float((scenario.get("settle_horizon") or {}).get(model, scenario["horizon"]))


def samples_for(horizon: float, base_horizon: float, n_samples: int) -> int:
    """Output times of a run of ``horizon`` at the spacing of ``n_samples`` times over ``base_horizon``
    (a longer run keeps the time resolution its classifier reads: the oscillation period stays resolved)."""
    if not horizon > 0 or not base_horizon > 0:
        raise ValueError(f"horizon: must be > 0, got {horizon!r} (base {base_horizon!r})")
    return round((int(n_samples) - 1) * float(horizon) / float(base_horizon)) + 1
