# Helpers shared by the rules: the list of experiments and the lsadyn modules a script imports.
from lsadyn_workflow.inputs import SourceTree

CASES = ["case1", "case2", "case3", "case4", "bifurcation"]
SEED_OFFSET = {"case1": 1, "case2": 2, "case3": 3, "case4": 4, "bifurcation": 5}
HIGHDIM = sorted(config["highdim"]["scenarios"])
STABILITY = sorted(config["stability"]["regimes"])


wildcard_constraints:
    case="|".join(CASES),
    scenario="|".join(HIGHDIM),
    regime="|".join(STABILITY),


# the lsadyn and lsadyn_workflow sources a script imports, transitively, as its inputs (lsadyn_workflow.inputs);
# mock_snakemake runs only when a script runs on its own, never in a job
lib_inputs = SourceTree(
    {"lsadyn": "src/lsadyn", "lsadyn_workflow": "workflow/lib/lsadyn_workflow"},
    standalone_only=(("lsadyn_workflow", "mock"),),
).lib_inputs


# numba's on-disk cache of the compiled kernels: lsadyn._kernel_cache files them by content (numba and Python
# versions, every kernel source), in $NUMBA_CACHE_DIR if set, else ~/.cache/lsadyn/numba, so clones, copies,
# worktrees and the test suite with the same kernels share one compile, and an edited kernel module
# (a callee in another file included) recompiles. Nothing to set here.


def chunk_job(jobs, chunk, setting):
    """Params of one chunk of a chunked stage: its entry of ``jobs`` (the stage's ``chunk_jobs``: the chunk's
    runs and what they read), so that a config edit reruns exactly the chunks whose runs it changes.
    """
    k = int(chunk)
    if k >= len(jobs):
        raise ValueError(f"chunk {k}: {setting} plans chunks 0..{len(jobs) - 1}")
    return jobs[k]
