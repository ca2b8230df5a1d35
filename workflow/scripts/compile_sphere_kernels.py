"""Glue: compile the numba kernels of lsadyn.compiled_sphere (the d > 2 integrators' projection, normalisation and
exponential; into the shared, content-keyed cache of lsadyn._kernel_cache) once, before the jobs that use them run in
parallel (each would otherwise compile them)."""

import time

from lsadyn_workflow.io import atomic_path, setup_log

from lsadyn import compiled_sphere

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("compile_sphere_kernels")
sm = snakemake
log = setup_log(sm.log[0])
t0 = time.perf_counter()
compiled_sphere.warm_up()
seconds = time.perf_counter() - t0
kernels = [k for k in vars(compiled_sphere).values() if hasattr(k, "stats") and hasattr(k, "_cache")]
misses = sum(sum(k.stats.cache_misses.values()) for k in kernels)
how = "compiled" if misses else "loaded from the cache"
log.info("sphere kernels %s in %.1f s", how, seconds)
with atomic_path(sm.output[0]) as tmp, open(tmp, "w") as fh:
    fh.write(f"{how} in {seconds:.1f} s\n")
