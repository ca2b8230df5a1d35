"""Dependencies run one way (issue 27, docs/architecture.md): library <- study <- workflow. Read from the sources'
import statements (:func:`lsadyn._source_imports.imported_modules`, transitively not needed: each file's own).

* no module of ``lsadyn`` (library or study) imports ``lsadyn_workflow``;
* no library module imports the study ``lsadyn.paper``;
* within the study: no stage imports ``claims`` or ``findings``; a stage's ``plan`` imports no ``runs``; ``rows`` and
  ``chunks`` import nothing of the study.
"""

import ast
from pathlib import Path

from lsadyn._source_imports import imported_modules

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src/lsadyn"
LIB = ROOT / "workflow/lib/lsadyn_workflow"
MODULES = sorted(PKG.rglob("*.py"))
STAGES = sorted(p.name for p in (PKG / "paper").iterdir() if (p / "__init__.py").is_file())


def _name(path: Path) -> str:
    """'paper.persistence.plan' for src/lsadyn/paper/persistence/plan.py ('' for the package itself)."""
    parts = path.relative_to(PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    return imported_modules(path, PKG)


def _top_level_imports(path: Path) -> set[str]:
    """Top-level package of every import of the file ``path`` (absolute imports only)."""
    tree = ast.parse(path.read_bytes())
    out = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return out | {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
                  and not n.level}


def test_no_lsadyn_module_imports_workflow_code():
    found = [_name(p) for p in MODULES if "lsadyn_workflow" in _top_level_imports(p)]
    assert MODULES and not found


def test_the_library_never_imports_the_study():
    found = {_name(p): sorted(m for m in _imports(p) if m == "paper" or m.startswith("paper."))
             for p in MODULES if not _name(p).startswith("paper")}
    assert not {k: v for k, v in found.items() if v}


def test_no_stage_imports_the_claims_or_the_findings():
    found = {}
    for stage in STAGES:
        for p in sorted((PKG / "paper" / stage).glob("*.py")):
            bad = {m for m in _imports(p) if m in ("paper.claims", "paper.findings")}
            if bad:
                found[_name(p)] = sorted(bad)
    assert STAGES and not found


def test_a_plan_imports_no_runs_and_rows_and_chunks_sit_below_the_study():
    plans = sorted((PKG / "paper").glob("*/plan.py"))
    assert len(plans) >= 6
    for p in plans:
        assert not {m for m in _imports(p) if m.endswith(".runs")}, _name(p)
    for base in ("rows", "chunks"):
        assert not {m for m in _imports(PKG / "paper" / f"{base}.py") if m.startswith("paper")}


def test_the_reader_sees_a_stage_importing_the_claims(tmp_path):
    pkg = tmp_path / "lsadyn"
    (pkg / "paper" / "stage").mkdir(parents=True)
    for f in ("__init__.py", "paper/__init__.py", "paper/claims.py", "paper/stage/__init__.py"):
        (pkg / f).write_text("")
    (pkg / "paper/stage/summary.py").write_text("from ..claims import x\n")
    assert "paper.claims" in imported_modules(pkg / "paper/stage/summary.py", pkg)
