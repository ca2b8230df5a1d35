"""Glue: compile the d = 2 numba kernels (into the shared, content-keyed cache of lsadyn._kernel_cache) before the
jobs that use them run in parallel. Rule ``compile_kernel_part`` compiles independent parts of
:func:`lsadyn.solvers.phase_points.warm_up` (``params.parts``; such jobs run in parallel); rule ``compile_kernels`` then
compiles the driver, which links the parts' cached code, and writes the summary: whether the kernels were compiled
in this build or loaded from the machine's cache, and how long each job took (benchmarks/bench_pipeline.py
reports it)."""

import json
import time

from lsadyn_workflow.io import atomic_path, load_json_record, setup_log
from numba.core.registry import CPUDispatcher

from lsadyn._kernel_cache import cache_dir
from lsadyn.solvers import _dop853_stages, phase_points

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("compile_kernels")
sm = snakemake
log = setup_log(sm.log[0])
parts = list(sm.params.parts)
part = "+".join(parts)
kernels = [k for mod in (phase_points, _dop853_stages) for k in vars(mod).values() if isinstance(k, CPUDispatcher)]
kernels = list({id(k): k for k in kernels}.values())
before = {id(k): (sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())) for k in kernels}
t0 = time.perf_counter()
phase_points.warm_up(parts)
seconds = time.perf_counter() - t0
# counted over warm_up only
hits = sum(sum(k.stats.cache_hits.values()) - before[id(k)][0] for k in kernels)
misses = sum(sum(k.stats.cache_misses.values()) - before[id(k)][1] for k in kernels)
record = {"part": part, "seconds": round(seconds, 2), "cache_hits": hits, "compiled": misses}
log.info("d = 2 kernels, part %s: %s in %.1f s (%d cache hits, %d compiled; cache: %s)", part,
         "compiled" if misses else "loaded from the cache", seconds, hits, misses, cache_dir())
if parts != ["driver"]:
    with atomic_path(sm.output[0]) as tmp, open(tmp, "w") as fh:
        json.dump(record, fh)
        fh.write("\n")
else:
    records = [load_json_record(p, ("part", "seconds", "cache_hits", "compiled")) for p in sm.input.parts]
    records.append(record)
    total = sum(r["seconds"] for r in records)
    hits = sum(r["cache_hits"] for r in records)
    misses = sum(r["compiled"] for r in records)
    how = "compiled" if misses else "loaded from the cache"
    parts = ", ".join(f"{r['part']} {r['seconds']:.1f} s" for r in records)
    with atomic_path(sm.output[0]) as tmp, open(tmp, "w") as fh:
        fh.write(f"{how} in {total:.1f} s of jobs ({hits} cache hits, {misses} compiled; {parts})\n"
                 f"cache: {cache_dir()}\n")
