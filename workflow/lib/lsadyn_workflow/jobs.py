"""Per-job settings of the pipeline's scripts: one BLAS/OpenMP thread per job unless the rule declares more.

Snakemake exports ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` (…) = the rule's
``threads`` to every job it starts, so ``snakemake --cores N`` runs N single-threaded jobs side by side
instead of N jobs that each spin a BLAS pool over every core. :func:`limit_threads` makes a script hold
to its rule's ``threads`` even where that environment is not passed on (a script run by hand, an
executor that drops it) and returns the pool size actually in force, which the scripts log.
"""

from __future__ import annotations

# the process's pools, found once (each search: ~5 ms per call in a job)
from lsadyn.solvers.integrate import thread_pools


def limit_threads(threads) -> int:
    """Limit every BLAS and OpenMP thread pool of this process to ``threads`` (≥ 1, the job's
    ``snakemake.threads``) and return the largest pool size in force afterwards."""
    try:
        threads = int(threads)
    except (TypeError, ValueError):
        raise ValueError(f"threads: expected a positive integer, got {threads!r}") from None
    if threads < 1:
        raise ValueError(f"threads: expected a positive integer, got {threads}")
    thread_pools().limit(limits=threads)  # stays in force for the rest of the process
    return blas_threads()


def blas_threads() -> int:
    """Largest thread count among this process's BLAS/OpenMP pools (1 if there is none)."""
    return max((int(p["num_threads"]) for p in thread_pools().info()), default=1)
