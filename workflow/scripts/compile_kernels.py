"""Glue: compile the d = 2 numba kernels once (into NUMBA_CACHE_DIR, set by workflow/rules/common.smk)
before the jobs that use them run in parallel."""

import os
import time

from lsadyn.compiled2d import warm_up
from lsadyn.paper.io import setup_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
t0 = time.perf_counter()
warm_up()
log.info("d = 2 kernels ready in %.1f s (cache: %s)", time.perf_counter() - t0,
         os.environ.get("NUMBA_CACHE_DIR", "numba default"))
with open(sm.output[0], "w") as fh:
    fh.write(f"compiled in {time.perf_counter() - t0:.1f} s\n")
