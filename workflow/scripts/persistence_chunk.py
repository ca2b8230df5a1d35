"""Glue: integrate and decide one chunk of the persistence run plan."""

import lsadyn.paper.handoff  # noqa: F401 (local builds: the job goes on in a pre-started process)

# isort: split
from lsadyn.paper.io import setup_log, write_csv
from lsadyn.paper.jobs import limit_threads
from lsadyn.paper.persistence import chunk_of
from lsadyn.paper.persistence_run import run_chunk

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
limit_threads(sm.threads)
cfg = sm.params.persistence
runs = chunk_of(cfg, sm.params.scenarios, sm.params.seed, int(sm.wildcards.chunk))
log.info("chunk %s: %d runs (%s)", sm.wildcards.chunk, len(runs),
         ", ".join(f"{s} {m} d={d}" for (s, m, d), _ in runs.groupby(["study", "model", "d"], sort=False)))
table = run_chunk(runs, sm.params.scenarios, n_samples=cfg["n_samples"], dt=cfg["dt"], budget=cfg["budget_factor"],
                  progress=lambda done, total: log.info("progress: %d of %d runs", done, total))
write_csv(table, sm.output[0])
