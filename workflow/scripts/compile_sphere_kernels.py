"""Glue: compile the numba kernels of lsadyn.fields.kernels (the d > 2 integrators' projection, normalisation and
exponential; into the shared, content-keyed cache of lsadyn._kernel_cache) once, before the jobs that use them run in
parallel (each would otherwise compile them)."""

import time

from lsadyn_workflow.io import atomic_path, setup_log

from lsadyn.fields import kernels as sphere_kernels

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("compile_sphere_kernels")
sm = snakemake
log = setup_log(sm.log[0])
t0 = time.perf_counter()
sphere_kernels.warm_up()
seconds = time.perf_counter() - t0
kernels = [k for k in vars(sphere_kernels).values() if hasattr(k, "stats") and hasattr(k, "_cache")]
misses = sum(sum(k.stats.cache_misses.values()) for k in kernels)
how = "compiled" if misses else "loaded from the cache"
log.info("sphere kernels %s in %.1f s", how, seconds)
with atomic_path(sm.output[0]) as tmp, open(tmp, "w") as fh:
    fh.write(f"{how} in {seconds:.1f} s\n")
