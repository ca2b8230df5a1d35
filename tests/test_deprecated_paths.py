"""The library's deprecated module paths (issue 27): each still reaches its new module for one release, and no
module of the project imports one (the aliases are for users' code, not for the project's own jobs).

Read from syntax trees (:mod:`ast`): every ``import``/``from … import`` of a Python file of the checkout, relative
imports resolved against the file's package; the Snakefile and rule files (not Python syntax) by their import lines.
"""

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: deprecated module (below lsadyn) -> the module its names now live in (the first for a split module)
ALIASES = {
    "dynamics": "fields.attention",
    "compiled_sphere": "fields.kernels",
    "kuramoto": "reductions.kuramoto",
    "watanabe_strogatz": "reductions.watanabe_strogatz",
    "compiled2d": "solvers.phase_points",
    "_dop853_stages": "solvers._dop853_stages",
    "metrics": "observers",
    "bl": "distances",
    "decide": "regimes.decision",
    "sphere_integrate": "solvers.dop853",
    "integrate": "solvers.integrate",
    "batch_sphere": "batch",
}
DEPRECATED = {f"lsadyn.{m}" for m in ALIASES}
#: ``lsadyn.regimes`` became a package; its re-export of the classifier's names is deprecated, its submodules are not
REGIMES_SUBMODULES = {"classify", "decision"}
#: the alias modules themselves and this test
EXEMPT = {f"src/lsadyn/{m}.py" for m in ALIASES} | {"tests/test_deprecated_paths.py"}
#: trees that are not the project's sources
SKIP_DIRS = {".git", ".snakemake", "results", "paper_figures", "_build", "_autosummary", "__pycache__", ".venv"}


def _python_files():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if not SKIP_DIRS & set(rel.parts) and rel.as_posix() not in EXEMPT:
            yield rel


def _package(rel: Path) -> list[str] | None:
    """Dotted package of a file under src/ (for relative imports), None elsewhere."""
    return list(rel.parts[1:-1]) if rel.parts[0] == "src" else None


def deprecated_imports(source: str, package: list[str] | None) -> list[str]:
    """Deprecated paths that the Python ``source`` (of a module in ``package``, None if not in a package) imports."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if any(a.name == d or a.name.startswith(d + ".") for d in DEPRECATED)]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                if package is None:
                    continue
                mod = ".".join(package[: len(package) - (node.level - 1)] + ([mod] if mod else []))
            if any(mod == d or mod.startswith(d + ".") for d in DEPRECATED):
                bad.append(mod)
            elif mod == "lsadyn":
                bad += [f"lsadyn.{a.name}" for a in node.names if f"lsadyn.{a.name}" in DEPRECATED]
            elif mod == "lsadyn.regimes":
                bad += [f"lsadyn.regimes.{a.name}" for a in node.names if a.name not in REGIMES_SUBMODULES]
    return bad


def test_the_reader_finds_every_form_of_a_deprecated_import():
    src = ("import lsadyn.metrics\nfrom lsadyn.bl import warm_up\nfrom lsadyn import decide, api\n"
           "from lsadyn.regimes import LABELS\nfrom lsadyn.regimes import classify\nfrom ..integrate import x\n"
           "def f():\n    from .. import kuramoto\n")
    assert sorted(deprecated_imports(src, ["lsadyn", "paper"])) == sorted(
        ["lsadyn.metrics", "lsadyn.bl", "lsadyn.decide", "lsadyn.regimes.LABELS", "lsadyn.integrate",
         "lsadyn.kuramoto"])
    assert deprecated_imports("import lsadyn.batch\nimport lsadyn.blah\n", None) == []
    assert deprecated_imports("from lsadyn.observers import x\nfrom .fields import attention\n", ["lsadyn"]) == []


def test_no_module_of_the_project_imports_a_deprecated_path():
    found = [f"{rel}: {m}" for rel in _python_files()
             for m in deprecated_imports((ROOT / rel).read_text(encoding="utf-8"), _package(rel))]
    assert not found, "deprecated import paths (use the new modules):\n" + "\n".join(found)


def test_no_rule_file_imports_a_deprecated_path():
    line = re.compile(r"^\s*(?:from\s+(\S+)\s+import\s+(.+)|import\s+(\S+))")
    found = []
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow/rules").glob("*.smk"))]:
        for k, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = line.match(text)
            if m:
                found += [f"{path.relative_to(ROOT)}:{k}: {b}" for b in deprecated_imports(text.strip(), None)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("old,new", sorted(ALIASES.items()))
def test_a_deprecated_path_still_reaches_its_new_module(old, new):
    alias = importlib.import_module(f"lsadyn.{old}")
    target = importlib.import_module(f"lsadyn.{new}")
    if alias is not target:  # a split module: it re-exports names defined in the new modules, the same objects
        public = {n: getattr(alias, n) for n in vars(alias) if not n.startswith("_") and callable(getattr(alias, n))}
        homes = {obj.__module__ for obj in public.values()}
        assert target.__name__ in homes and not homes & DEPRECATED, homes
        assert all(getattr(importlib.import_module(obj.__module__), obj.__name__) is obj for obj in public.values())

def test_regimes_still_reexports_the_classifier():
    from lsadyn import regimes
    from lsadyn.regimes import classify

    assert all(getattr(regimes, n) is getattr(classify, n) for n in regimes.__all__)
