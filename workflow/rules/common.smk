# Helpers shared by the rules: the list of experiments and the lsadyn modules a script imports.
import ast
from functools import cache
from pathlib import Path

CASES = ["case1", "case2", "case3", "case4", "bifurcation"]
SEED_OFFSET = {"case1": 1, "case2": 2, "case3": 3, "case4": 4, "bifurcation": 5}
HIGHDIM = sorted(config["highdim"]["scenarios"])
STABILITY = sorted(config["stability"]["regimes"])
LIB = Path("src/lsadyn")


wildcard_constraints:
    case="|".join(CASES),
    scenario="|".join(HIGHDIM),
    regime="|".join(STABILITY),


def _module_file(name):
    """Source file of the lsadyn module `name` (dotted, below lsadyn), or None."""
    base = LIB.joinpath(*name.split(".")) if name else LIB
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imported_modules(path):
    """lsadyn modules (dotted names below lsadyn) that a file imports: `from lsadyn.x import`,
    `import lsadyn.x`, `from lsadyn import x`, and relative imports inside src/lsadyn.
    """
    path = Path(path)
    tree = ast.parse(path.read_text())
    if path.is_relative_to(LIB):
        package = list(path.relative_to(LIB).parent.parts)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level and path.is_relative_to(LIB):
                parent = package[: len(package) - (node.level - 1)]
                base = ".".join(parent + ([mod] if mod else []))
            elif mod == "lsadyn" or mod.startswith("lsadyn."):
                base = mod[len("lsadyn.") :] if mod != "lsadyn" else ""
            else:
                continue
            if base:
                found.add(base)
            found.update(f"{base}.{a.name}".lstrip(".") for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(
                a.name[len("lsadyn.") :]
                for a in node.names
                if a.name.startswith("lsadyn.")
            )
    return {m for m in found if _module_file(m) is not None}


# lib_inputs is called once per script, so the same modules again and again; parse each once per run
_module_file, _imported_modules = cache(_module_file), cache(_imported_modules)


def lib_inputs(script):
    """Source files of every lsadyn module `script` imports, transitively (as job inputs,
    so that editing a module reruns exactly the jobs whose scripts use it)."""
    todo, seen = list(_imported_modules(script)), set()
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
