"""The source files a job script depends on, as its Snakemake ``input:`` (``lib_inputs``).

A script (or notebook) imports modules of ``lsadyn`` (src/lsadyn: library and study) and of ``lsadyn_workflow``
(workflow/lib/lsadyn_workflow: loaders, config checks, job setup); listing every such module it reaches,
transitively, makes editing one rerun exactly the jobs whose scripts use it. Imports are read from the syntax
trees (:func:`lsadyn._source_imports.imported_modules`, the reading the kernel cache also uses): nothing is
imported, so this runs cheaply while the Snakefile is parsed.

Modules a script imports only to run on its own (``mock_snakemake``, imported under
``if "snakemake" not in globals():``) never run in a job, so they are not its inputs: ``standalone_only`` names
them, and neither they nor what only they import are listed (editing ``mock.py`` reruns nothing).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lsadyn._source_imports import imported_modules, module_file


class SourceTree:
    """The packages whose modules count as inputs, by name -> directory (relative to the checkout, as Snakemake
    wants inputs), e.g. ``{"lsadyn": "src/lsadyn", "lsadyn_workflow": "workflow/lib/lsadyn_workflow"}``."""

    def __init__(self, roots: dict[str, str | Path], standalone_only: tuple[tuple[str, str], ...] = ()):
        self.roots = {name: Path(root) for name, root in roots.items()}
        self.standalone_only = set(standalone_only)
        # lib_inputs is called once per script, so the same modules again and again: parse each once per run
        self._file = cache(lambda pkg, name: module_file(self.roots[pkg], name))
        self._imports = cache(self._read)

    def _read(self, path: str) -> set[tuple[str, str]]:
        return {(pkg, m) for pkg, root in self.roots.items() for m in imported_modules(Path(path), root, pkg)}

    def lib_inputs(self, script) -> list[str]:
        """Source files of every module of the packages that ``script`` imports, transitively, with each
        package's ``__init__.py`` (sorted paths)."""
        todo = list(self._imports(str(script)))
        seen = set()
        while todo:
            pkg, m = todo.pop()
            if (pkg, m) not in seen and (pkg, m) not in self.standalone_only:
                seen.add((pkg, m))
                todo.extend(self._imports(str(self._file(pkg, m))))
                parts = m.split(".")
                todo.extend((pkg, ".".join(parts[:i])) for i in range(1, len(parts)))
        used = {pkg for pkg, _ in seen} | {"lsadyn"}
        files = {str(self._file(pkg, m)) for pkg, m in seen} | {str(self.roots[p] / "__init__.py") for p in used}
        return sorted(files)
