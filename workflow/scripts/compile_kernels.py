"""Glue: compile the d = 2 numba kernels once (into the shared, content-keyed cache of lsadyn._kernel_cache)
before the jobs that use them run in parallel; the output says whether they were compiled in this build or
loaded from the machine's cache (benchmarks/bench_pipeline.py reports it)."""

import lsadyn.paper.handoff  # noqa: F401 (local builds: the job goes on in a pre-started process)

# isort: split
import time

from numba.core.registry import CPUDispatcher

from lsadyn import compiled2d
from lsadyn._kernel_cache import cache_dir
from lsadyn.paper.io import setup_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
t0 = time.perf_counter()
compiled2d.warm_up()
seconds = time.perf_counter() - t0
kernels = [k for k in vars(compiled2d).values() if isinstance(k, CPUDispatcher)]
hits = sum(sum(k.stats.cache_hits.values()) for k in kernels)
misses = sum(sum(k.stats.cache_misses.values()) for k in kernels)
how = "compiled" if misses else "loaded from the cache"
log.info("d = 2 kernels %s in %.1f s (%d cache hits, %d compiled; cache: %s)", how, seconds, hits, misses,
         cache_dir())
with open(sm.output[0], "w") as fh:
    fh.write(f"{how} in {seconds:.1f} s ({hits} cache hits, {misses} compiled)\ncache: {cache_dir()}\n")
