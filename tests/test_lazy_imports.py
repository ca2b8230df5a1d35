"""A figure job pays only its own imports: the figure notebooks' imports load neither numba nor scipy (the
simulation libraries), so a figure rebuilt after an edit starts in about a second. Likewise every stage's plan
(imported by the rules while Snakemake parses the workflow) and summary (read by table, claims and figure jobs)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "workflow/notebooks").glob("*.py"))
STUDY = ROOT / "src/lsadyn/paper"
#: every stage's plan and summary module, as dotted names (lsadyn.paper.<stage>.plan, ...)
LIGHT_MODULES = sorted(f"lsadyn.paper.{p.parent.name}.{p.stem}" for kind in ("plan", "summary")
                       for p in STUDY.glob(f"*/{kind}.py"))

CHECK = """
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
exec(compile(ast.Module([n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], []), "x", "exec"))
print(" ".join(sorted(m for m in ("numba", "scipy") if m in sys.modules)))
"""


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_figure_notebook_imports_neither_numba_nor_scipy(notebook):
    r = subprocess.run([sys.executable, "-c", CHECK, str(notebook)], capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [], f"{notebook.name} imports {r.stdout.strip()}"


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text("def f():\n    import scipy.stats\n")
    r = subprocess.run([sys.executable, "-c", CHECK, str(nb)], capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.stdout.split() == ["scipy"]


IMPORT = """
import importlib, sys
importlib.import_module(sys.argv[1])
print(" ".join(sorted(m for m in ("numba", "scipy") if m in sys.modules)))
"""


def test_every_stage_has_a_plan():
    stages = {p.name for p in STUDY.iterdir() if (p / "__init__.py").is_file()} - {"movies"}
    assert stages and {m.split(".")[2] for m in LIGHT_MODULES if m.endswith(".plan")} == stages


@pytest.mark.parametrize("module", LIGHT_MODULES)
def test_stage_plan_and_summary_import_neither_numba_nor_scipy(module):
    r = subprocess.run([sys.executable, "-c", IMPORT, module], capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [], f"{module} imports {r.stdout.strip()}"
