# Helpers shared by the rules: the list of experiments and the lsadyn modules a script imports.
import ast
from pathlib import Path

CASES = ["case1", "case2", "case3", "case4", "bifurcation"]
SEED_OFFSET = {"case1": 1, "case2": 2, "case3": 3, "case4": 4, "bifurcation": 5}
FIGURES = [
    "fig_case1",
    "fig_case2",
    "fig_case3",
    "fig_case4",
    "fig_bifurcation",
    "fig_stability",
    "fig_highdim",
]
HIGHDIM = sorted(config["highdim"]["scenarios"])
STABILITY = sorted(config["stability"]["regimes"])
LIB = Path("src/lsadyn")


wildcard_constraints:
    case="|".join(CASES),
    scenario="|".join(HIGHDIM),
    regime="|".join(STABILITY),


def _imported_modules(path):
    """lsadyn modules imported by a file: `from lsadyn.x import`, `import lsadyn.x`, `from .x import`."""
    tree = ast.parse(Path(path).read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level and str(path).startswith(str(LIB)):
                found.add(mod.split(".")[0])
            elif mod.startswith("lsadyn."):
                found.add(mod.split(".")[1])
            elif mod == "lsadyn":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(
                a.name.split(".")[1] for a in node.names if a.name.startswith("lsadyn.")
            )
    return {m for m in found if (LIB / f"{m}.py").exists()}


def lib_inputs(script):
    """Source files of every lsadyn module `script` imports, transitively (as job inputs,
    so that editing a module reruns exactly the jobs whose scripts use it)."""
    todo, seen = list(_imported_modules(script)), set()
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(_imported_modules(LIB / f"{m}.py"))
    return sorted(str(LIB / f"{m}.py") for m in seen) + [str(LIB / "__init__.py")]
