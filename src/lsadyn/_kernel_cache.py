"""One on-disk cache of lsadyn's compiled (numba) kernels per machine, shared by every checkout, copy, clone,
worktree and test run whose kernel sources are the same.

numba's own locators file a cached function under a folder named after the absolute directory of its source
file, so every copy of the repository compiled the kernels again (~30 s of CPU). :class:`KernelCacheLocator`
(registered first in numba's list of locators by importing this module, which every kernel module does before
its first ``@njit(cache=True)``) files lsadyn's kernels by content instead:

- folder ``<base>/lsadyn-<key>/<package>`` (``lsadyn``, ``lsadyn.fields``, ``lsadyn.solvers``), with
  ``<base>`` = ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/lsadyn/numba`` (``~/.cache/lsadyn/numba``),
  and ``<key>`` = SHA-256 of the numba and Python versions and of the contents of every kernel source: each
  lsadyn module that imports numba, and the lsadyn modules those import (transitively);
- source stamp (what numba compares before loading) = the same key.

So an edit to any kernel module (a callee in another file included: numba itself checks only a function's own
file) gives a new folder and a recompile, never stale machine code (folders no process has used for
:data:`UNUSED_DAYS` days, e.g. those of older kernel sources, are removed when a process first uses its own:
:func:`prune_unused`); an identical copy anywhere on the machine
loads the compiled kernels. Processes with different kernel sources never share a folder; numba writes every
cache file through a temporary name and an atomic rename, so processes with the same sources can compile and
load at once (a lost race costs a recompile, not wrong code). Functions outside lsadyn keep numba's locators.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import cache
from pathlib import Path

import numba
from numba.core import caching

from ._source_imports import imported_modules, module_file

PACKAGE = Path(__file__).resolve().parent  # .../lsadyn
_IMPORTS_NUMBA = re.compile(rb"^\s*(?:import numba|from numba[\s.])", re.MULTILINE)


@cache
def kernel_sources() -> tuple[Path, ...]:
    """Every lsadyn module that imports numba, and the lsadyn modules those import (transitively), sorted."""
    todo = [p for p in sorted(PACKAGE.rglob("*.py")) if _IMPORTS_NUMBA.search(p.read_bytes())]
    seen: set[Path] = set()
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend({module_file(PACKAGE, m) for m in imported_modules(p, PACKAGE)} - seen)
    return tuple(sorted(seen))


@cache
def kernel_key() -> str:
    """SHA-256 (hex) of the numba and Python versions and of every kernel source's path and contents."""
    h = hashlib.sha256(f"numba {numba.__version__} python {sys.version}\0".encode())
    for p in kernel_sources():
        h.update(str(p.relative_to(PACKAGE)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def cache_base() -> Path:
    """``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/lsadyn/numba`` (``~/.cache/lsadyn/numba``)."""
    if numba.config.CACHE_DIR:
        return Path(numba.config.CACHE_DIR)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "lsadyn", "numba")


def cache_dir() -> Path:
    """Folder of this process's compiled lsadyn kernels (``<base>/lsadyn-<key[:16]>``)."""
    return cache_base() / f"lsadyn-{kernel_key()[:16]}"


#: A kernel folder that no process has used for this many days is removed (:func:`prune_unused`): each holds a few
#: MB, and every edit of a kernel source (or a new numba or Python) starts another.
UNUSED_DAYS = 30
_USED = ".last_used"  # a kernel folder's stamp: its modification time is the last use


@cache
def prune_unused(now: float | None = None) -> list:
    """Mark this process's kernel folder as used now, and remove the ``lsadyn-*`` folders beside it whose last use
    is more than :data:`UNUSED_DAYS` days old (a folder without a stamp counts from its own modification time).
    Once per process, when the first kernel looks up its cache. A process still using a removed folder only
    recompiles: numba treats a missing cache as a miss and a failed save as a warning. Returns the folders
    removed."""
    import shutil
    import time

    now = time.time() if now is None else now
    mine = cache_dir()
    removed = []
    try:
        mine.mkdir(parents=True, exist_ok=True)
        stamp = mine / _USED
        stamp.touch()
        os.utime(stamp, (now, now))
        for other in mine.parent.glob("lsadyn-*"):
            if other == mine or not other.is_dir():
                continue
            used = other / _USED
            last = (used if used.exists() else other).stat().st_mtime
            if now - last > UNUSED_DAYS * 86400:
                shutil.rmtree(other, ignore_errors=True)
                removed.append(other)
    except OSError:
        pass  # a read-only or vanished cache folder: nothing to prune
    return removed


class KernelCacheLocator(caching._CacheLocator):
    """numba cache locator for functions defined in lsadyn's own source files (see the module docstring)."""

    def __init__(self, py_func, py_file):
        self._lineno = py_func.__code__.co_firstlineno
        # one folder per package, directly in the key's folder ("lsadyn", "lsadyn.solvers", ...): a kernel added to the
        # cache changes the modification time of a folder there (what the job runner's server watches)
        sub = ".".join(Path(py_file).resolve().parent.relative_to(PACKAGE.parent).parts)
        self._cache_path = str(cache_dir() / sub)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return kernel_key()

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(PACKAGE) and Path(py_file).is_file()
        except (OSError, ValueError):
            inside = False
        if not inside:
            return None  # not an lsadyn source file: numba's own locators decide
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:
            return None  # cannot write there: numba's own locators decide
        prune_unused()
        return self


def register() -> None:
    """Put :class:`KernelCacheLocator` first in numba's list of locators (once per process)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    if KernelCacheLocator not in impl._locator_classes:
        impl._locator_classes = [KernelCacheLocator, *impl._locator_classes]


register()
