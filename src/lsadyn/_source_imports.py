"""Which lsadyn modules a Python source file imports, read from its syntax tree (nothing is imported).

One reading of import statements for the places that need it: the workflow's ``lib_inputs``
(:mod:`lsadyn_workflow.inputs`: the lsadyn and lsadyn_workflow sources a job script depends on, as job inputs)
and :mod:`lsadyn._kernel_cache` (the sources that key the compiled-kernel cache). Both pass the package root they
mean (the workflow its checkout's ``src/lsadyn``, the cache the imported package), so this module stays free
of anything heavier than :mod:`ast`.
"""

from __future__ import annotations

import ast
from pathlib import Path


def module_file(root: Path, name: str) -> Path | None:
    """Source file of the lsadyn module ``name`` (dotted, below lsadyn; '' is the package) under the package
    directory ``root``, or None."""
    base = root.joinpath(*name.split(".")) if name else root
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


#: Fields of a statement that hold statements (bodies of def/class/if/for/while/with/try, its handlers' and a match's
#: cases' bodies); an import is a statement, so these reach every import without visiting any expression.
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _import_statements(body: list):
    """Every ``import``/``from … import`` statement in the statements ``body``, at any depth (also inside functions,
    classes and blocks): the same nodes as :func:`ast.walk` finds, several times faster (the workflow's
    ``lib_inputs`` reads ~70 files while Snakemake parses the Snakefile)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in _STATEMENT_LISTS:
            stack.extend(getattr(node, field, None) or ())


def lazy_exports(init: Path) -> dict[str, str]:
    """name -> submodule (dotted, relative to the package) of the names a package's ``__init__.py`` exports
    lazily (:func:`lsadyn._lazy.lazy_exports`), read from its literal ``_WHERE`` (name -> module) or ``_EXPORTS``
    (module -> [names]) assignment; {} when it has neither."""
    out: dict[str, str] = {}
    for node in ast.parse(Path(init).read_bytes()).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:  # not a literal (e.g. _WHERE built from _EXPORTS)
            continue
        if node.targets[0].id == "_WHERE":
            out.update(value)
        elif node.targets[0].id == "_EXPORTS":
            out.update({n: module for module, names in value.items() for n in names})
    return out


def imported_modules(path: Path, root: Path, name: str = "lsadyn") -> set[str]:
    """Modules of the package ``name`` (dotted names below it) that the file ``path`` imports and that exist
    under its directory ``root``: ``from lsadyn.x import y``, ``import lsadyn.x``, ``from lsadyn import x``, and
    relative imports when ``path`` lies inside ``root``. ``from . import x`` adds ``x`` but not the package
    itself. A name a package exports lazily (:func:`lazy_exports`, e.g. ``from lsadyn import simulate_regime``)
    adds the module that defines it. ``name`` gives another top-level package read the same way (the workflow's
    ``lsadyn_workflow``)."""
    path = Path(path)
    inside = path.is_relative_to(root)
    package = list(path.relative_to(root).parent.parts) if inside else []
    found = set()
    for node in _import_statements(ast.parse(path.read_bytes()).body):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level and inside:
                base = ".".join(package[: len(package) - (node.level - 1)] + ([mod] if mod else []))
            elif mod == name or mod.startswith(name + "."):
                base = mod[len(name) + 1:] if mod != name else ""
            else:
                continue
            if base:
                found.add(base)
            found.update(f"{base}.{a.name}".lstrip(".") for a in node.names)
            init = module_file(root, base)
            if init is not None and init.name == "__init__.py":
                lazy = lazy_exports(init)
                found.update(f"{base}.{lazy[a.name]}".lstrip(".") for a in node.names if a.name in lazy)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(name) + 1:] for a in node.names if a.name.startswith(name + "."))
    return {m for m in found if module_file(root, m) is not None}
