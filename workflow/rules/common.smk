# Helpers shared by the rules: the list of experiments and the lsadyn modules a script imports.
from functools import cache
from pathlib import Path

from lsadyn._source_imports import imported_modules, module_file

CASES = ["case1", "case2", "case3", "case4", "bifurcation"]
SEED_OFFSET = {"case1": 1, "case2": 2, "case3": 3, "case4": 4, "bifurcation": 5}
HIGHDIM = sorted(config["highdim"]["scenarios"])
STABILITY = sorted(config["stability"]["regimes"])
LIB = Path("src/lsadyn")


wildcard_constraints:
    case="|".join(CASES),
    scenario="|".join(HIGHDIM),
    regime="|".join(STABILITY),


# lib_inputs is called once per script, so the same modules again and again; parse each once per run
@cache
def _module_file(name):
    return module_file(LIB, name)


@cache
def _imported_modules(path):
    return imported_modules(Path(path), LIB)


def lib_inputs(script):
    """Source files of every lsadyn module `script` imports, transitively (as job inputs,
    so that editing a module reruns exactly the jobs whose scripts use it)."""
    todo = list(_imported_modules(script))
    seen = set()
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(_imported_modules(_module_file(m)))
            parts = m.split(".")
            todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
    files = {str(_module_file(m)) for m in seen} | {str(LIB / "__init__.py")}
    return sorted(files)


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
