"""The looped stage's jobs (:mod:`lsadyn.paper.looped`): one per (task, model), holding its seeds. Imported when the
Snakefile is parsed, so numpy only."""

from __future__ import annotations

from ...looped.tasks import Task


def tasks(cfg: dict) -> dict[str, Task]:
    """{name: :class:`~lsadyn.looped.tasks.Task`} of config ``looped.tasks`` ({name: {n_tokens, d, sigma?}})."""
    return {name: Task(name, int(t["n_tokens"]), int(t["d"]), float(t.get("sigma", 1.0)))
            for name, t in cfg["tasks"].items()}


def jobs(cfg: dict) -> list[str]:
    """The jobs' names, ``{task}-{model}`` for every task and model of config ``looped``."""
    tasks(cfg)  # a bad task is named while the workflow is parsed
    return [f"{task}-{model}" for task in cfg["tasks"] for model in cfg["models"]]


def seeds(cfg: dict, base_seed: int) -> list[int]:
    """The training seeds: ``base_seed + k`` for k < ``looped.seeds``."""
    return [int(base_seed) + k for k in range(int(cfg["seeds"]))]
