"""Glue: compile the d_BL numba kernels of lsadyn.distances (into the shared, content-keyed cache of
lsadyn._kernel_cache) once, before the stability jobs that use them run in parallel (each would otherwise compile
them)."""

import time

from lsadyn_workflow.io import atomic_path, setup_log

from lsadyn import distances

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("compile_bl_kernels")
sm = snakemake
log = setup_log(sm.log[0])
t0 = time.perf_counter()
distances.warm_up()
seconds = time.perf_counter() - t0
misses = sum(sum(k.stats.cache_misses.values()) for k in (distances._cycle_max, distances._chain_value))
how = "compiled" if misses else "loaded from the cache"
log.info("d_BL kernels %s in %.1f s", how, seconds)
with atomic_path(sm.output[0]) as tmp, open(tmp, "w") as fh:
    fh.write(f"{how} in {seconds:.1f} s\n")
