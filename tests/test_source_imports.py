"""lsadyn._source_imports: the import statements of a file, found by walking statements only (the workflow's
lib_inputs and the kernel cache's key read them)."""

from __future__ import annotations

import ast
from pathlib import Path

from lsadyn._source_imports import _import_statements, imported_modules

ROOT = Path(__file__).resolve().parents[1]

NESTED = '''
import lsadyn.a
try:
    from lsadyn import b
except ImportError:
    from . import c
else:
    import lsadyn.d
finally:
    from lsadyn.e import f
def g():
    with open("x") as fh:
        if fh:
            from lsadyn.h import i
        elif 1:
            pass
        else:
            import lsadyn.j
    while False:
        import lsadyn.k
    else:
        import lsadyn.l
class M:
    for _ in ():
        import lsadyn.n
    else:
        from lsadyn import o
match 1:
    case 1:
        import lsadyn.p
async def q():
    async with x:
        import lsadyn.r
    async for _ in y:
        import lsadyn.s
x = lambda: __import__("lsadyn.t")  # an expression, not an import statement (ast.walk does not count it either)
'''


def _walked(tree):
    return sorted(ast.dump(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))


def test_import_statements_are_every_import_node_at_any_depth():
    tree = ast.parse(NESTED)
    found = sorted(ast.dump(n) for n in _import_statements(tree.body))
    assert found == _walked(tree) and len(found) == 14


def test_import_statements_match_ast_walk_on_the_sources_it_reads():
    """Every file lib_inputs and the kernel cache read: the package and the workflow's scripts."""
    files = [f for d in ("src", "workflow") for f in (ROOT / d).rglob("*.py")]
    assert len(files) > 50
    for f in files:
        tree = ast.parse(f.read_bytes())
        assert sorted(ast.dump(n) for n in _import_statements(tree.body)) == _walked(tree), f


def test_imported_modules_resolves_absolute_and_relative_imports(tmp_path):
    root = tmp_path / "lsadyn"
    (root / "paper").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "b.py", "paper/__init__.py", "paper/c.py"):
        (root / name).write_text("")
    src = root / "paper" / "user.py"
    src.write_text("import lsadyn.a\ndef f():\n    from lsadyn import b, missing\n    from . import c\n"
                   "    from .. import a\nimport numpy\n")
    assert imported_modules(src, root) == {"a", "b", "paper", "paper.c"}  # lsadyn.paper: imported with paper.c


def test_imported_modules_resolves_lazily_exported_names(tmp_path):
    """A name a package exports lazily (lsadyn._lazy.lazy_exports: ``_WHERE`` name -> module, or the top level's
    ``_EXPORTS`` module -> names) counts as an import of the module that defines it, so editing that module reruns
    the jobs that use the name (the looped stage imported ``from ...looped import looped_regime`` and did not rerun
    when lsadyn/looped/certify.py changed)."""
    root = tmp_path / "lsadyn"
    files = {"__init__.py": '_EXPORTS = {"api": ["run"], "fields.attention": ["Attention"]}\n'
                            "_WHERE = {n: m for m, ns in _EXPORTS.items() for n in ns}\n",
             "looped/__init__.py": '_WHERE = {"looped_regime": "regime"}\n',
             "api.py": "", "fields/__init__.py": "", "fields/attention.py": "", "looped/regime.py": "",
             "user/__init__.py": "",
             "user/job.py": "from lsadyn import run, Attention, nothing\nfrom ..looped import looped_regime\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert imported_modules(root / "user/job.py", root) == {"api", "fields.attention", "looped", "looped.regime"}


def test_the_looped_stage_depends_on_its_certifier():
    from lsadyn_workflow.inputs import SourceTree

    tree = SourceTree({"lsadyn": ROOT / "src/lsadyn", "lsadyn_workflow": ROOT / "workflow/lib/lsadyn_workflow"})
    files = {Path(f).relative_to(ROOT).as_posix() for f in tree.lib_inputs(ROOT / "workflow/scripts/looped_compare.py")}
    assert {"src/lsadyn/looped/regime.py", "src/lsadyn/looped/certify.py", "src/lsadyn/looped/forward.py"} <= files


def test_lib_inputs_follows_both_packages(tmp_path):
    """A script's inputs: the lsadyn and lsadyn_workflow modules it reaches, through either package, with each
    package's __init__; a module of lsadyn_workflow that it does not import is not among them."""
    from lsadyn_workflow.inputs import SourceTree

    files = {"src/lsadyn/__init__.py": "", "src/lsadyn/a.py": "from . import b\n", "src/lsadyn/b.py": "",
             "src/lsadyn/unused.py": "",
             "lib/lsadyn_workflow/__init__.py": "", "lib/lsadyn_workflow/io.py": "from lsadyn import a\n",
             "lib/lsadyn_workflow/other.py": "", "job.py": "from lsadyn_workflow.io import x\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    tree = SourceTree({"lsadyn": tmp_path / "src/lsadyn", "lsadyn_workflow": tmp_path / "lib/lsadyn_workflow"})
    got = [str(Path(p).relative_to(tmp_path)) for p in tree.lib_inputs(tmp_path / "job.py")]
    assert got == ["lib/lsadyn_workflow/__init__.py", "lib/lsadyn_workflow/io.py", "src/lsadyn/__init__.py",
                   "src/lsadyn/a.py", "src/lsadyn/b.py"]


def test_lib_inputs_leaves_out_standalone_only_modules(tmp_path):
    """A module imported only to run a script on its own (mock_snakemake) is not a job's input, nor what only it
    imports; what the job itself imports still is."""
    from lsadyn_workflow.inputs import SourceTree

    files = {"src/lsadyn/__init__.py": "", "src/lsadyn/a.py": "",
             "lib/lsadyn_workflow/__init__.py": "", "lib/lsadyn_workflow/mock.py": "from . import only_mock\n",
             "lib/lsadyn_workflow/only_mock.py": "",
             "job.py": ('from lsadyn import a\nif "snakemake" not in globals():\n'
                        '    from lsadyn_workflow.mock import mock_snakemake\n')}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    roots = {"lsadyn": tmp_path / "src/lsadyn", "lsadyn_workflow": tmp_path / "lib/lsadyn_workflow"}
    rel = lambda paths: [str(Path(p).relative_to(tmp_path)) for p in paths]
    assert "lib/lsadyn_workflow/mock.py" in rel(SourceTree(roots).lib_inputs(tmp_path / "job.py"))
    got = rel(SourceTree(roots, standalone_only=(("lsadyn_workflow", "mock"),)).lib_inputs(tmp_path / "job.py"))
    assert got == ["src/lsadyn/__init__.py", "src/lsadyn/a.py"]
