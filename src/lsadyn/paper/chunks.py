"""A chunked stage's runs as pipeline jobs: what one chunk (job) of the persistence or robustness stage reads.

Pure (pandas only), so the Snakefile's rules call it while Snakemake parses the workflow.
"""

from __future__ import annotations


def chunk_entry(part, scenarios: dict, keys: tuple, settings: dict) -> dict:
    """One chunk's entry of a stage's ``chunk_jobs``: ``runs`` (its rows ``part`` of the plan, a DataFrame with
    a ``scenario`` column), ``scenarios`` (the ``keys`` of each scenario of ``scenarios`` its runs name, in their
    order; names not in ``scenarios`` embed none) and ``settings``."""
    names = [s for s in dict.fromkeys(part.scenario) if s in scenarios]
    return {"runs": part, "scenarios": {s: {k: scenarios[s][k] for k in keys if k in scenarios[s]} for s in names},
            **settings}
