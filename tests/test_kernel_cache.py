"""The shared numba cache of lsadyn._kernel_cache: a second copy of the package loads the kernels another copy
compiled, an edited kernel (or an edited callee in another file) recompiles instead of loading stale machine
code, and processes compiling at once leave a cache that loads correct code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "src" / "lsadyn"

# A kernel that calls a compiled callee defined in another module of the package (as solvers/phase_points calls
# _dop853_stages): numba's own stamp covers only the caller's file.
CALLEE = '''from numba import njit

from . import _kernel_cache  # noqa: F401


@njit(cache=True)
def probe_callee(x):
    return x + {value}
'''
CALLER = '''from numba import njit

from . import _kernel_cache  # noqa: F401
from ._probe_callee import probe_callee


@njit(cache=True)
def probe(x):
    return 2.0 * probe_callee(x)
'''
RUN = '''import json
from lsadyn import _probe
from lsadyn._kernel_cache import KernelCacheLocator
value = _probe.probe(1.0)
stats = _probe.probe.stats
print(json.dumps({"value": value, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "path": stats.cache_path,
                  "locator": type(_probe.probe._cache._impl.locator) is KernelCacheLocator}))
'''


def make_copy(root: Path, callee_value: float = 1.0) -> Path:
    """A copy of the lsadyn package under ``root``/src with the probe kernels added."""
    dest = root / "src" / "lsadyn"
    shutil.copytree(LIB, dest, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "_probe_callee.py").write_text(CALLEE.format(value=callee_value))
    (dest / "_probe.py").write_text(CALLER)
    return root


def start(copy: Path, cache: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(copy / "src"), NUMBA_CACHE_DIR=str(cache))
    return subprocess.Popen([sys.executable, "-c", RUN], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc: subprocess.Popen) -> dict:
    import json

    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def run(copy: Path, cache: Path) -> dict:
    return finish(start(copy, cache))


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "numba_cache"


def test_second_copy_loads_what_the_first_compiled(tmp_path, cache):
    first = run(make_copy(tmp_path / "a"), cache)
    assert first["locator"] and first["value"] == 4.0
    assert first["misses"] == 1 and first["hits"] == 0  # compiled
    second = run(make_copy(tmp_path / "b"), cache)  # another checkout path, same sources
    assert second["value"] == 4.0
    assert second["hits"] == 1 and second["misses"] == 0  # loaded, not compiled
    assert second["path"] == first["path"]
    assert "/a/" not in first["path"] and str(tmp_path / "a") not in first["path"]  # not keyed on the checkout


def test_edited_callee_recompiles_instead_of_loading_stale_code(tmp_path, cache):
    a = make_copy(tmp_path / "a")
    assert run(a, cache)["value"] == 4.0
    (a / "src/lsadyn/_probe_callee.py").write_text(CALLEE.format(value=5.0))  # the caller's file is unchanged
    edited = run(a, cache)
    assert edited["value"] == 12.0  # 2 * (1 + 5), not the cached 2 * (1 + 1)
    assert edited["misses"] == 1 and edited["hits"] == 0


@pytest.mark.slow
def test_processes_compiling_at_once_leave_a_correct_cache(tmp_path, cache):
    # two copies with one set of sources, one with another, all compiling into one empty cache at once
    copies = [make_copy(tmp_path / f"c{i}", callee_value=v) for i, v in enumerate((1.0, 3.0, 1.0))]
    results = [finish(p) for p in [start(c, cache) for c in copies]]
    assert [r["value"] for r in results] == [4.0, 8.0, 4.0]
    again = [run(c, cache) for c in copies[:2]]
    assert [r["value"] for r in again] == [4.0, 8.0]
    assert all(r["hits"] == 1 and r["misses"] == 0 for r in again)


def test_pipeline_kernels_use_the_shared_locator():
    from lsadyn import _kernel_cache, distances
    from lsadyn.fields import kernels as sphere_kernels
    from lsadyn.solvers import phase_points
    from lsadyn.solvers._dop853_stages import _stage_pass

    kernels = [phase_points.advance_phase_points, phase_points.advance_small, _stage_pass, distances._cycle_max]
    kernels += [k for k in vars(sphere_kernels).values() if hasattr(k, "_cache")]
    for kernel in kernels:
        assert isinstance(kernel._cache._impl.locator, _kernel_cache.KernelCacheLocator), kernel
    names = {str(p.relative_to(_kernel_cache.PACKAGE)) for p in _kernel_cache.kernel_sources()}
    assert {"solvers/phase_points.py", "solvers/_dop853_stages.py", "distances.py", "fields/kernels.py"} <= names


PARTS = '''import json, sys
from numba.core.registry import CPUDispatcher
from lsadyn.solvers import _dop853_stages, phase_points
phase_points.warm_up(tuple(sys.argv[1].split(",")))
kernels = {name: k for mod in (phase_points, _dop853_stages) for name, k in vars(mod).items()
           if isinstance(k, CPUDispatcher)}
print(json.dumps({name: [sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()), len(k.signatures)]
                  for name, k in kernels.items()}))
'''


@pytest.mark.slow
def test_warm_up_parts_compile_what_the_driver_links(tmp_path):
    """The rules compile_kernel_part / compile_kernels compile lsadyn.solvers.phase_points.warm_up's parts in separate
    processes, then the driver: the parts must compile the driver's callees with the argument types the driver
    passes, so that the driver loads each of them from the cache (one signature, no second compile)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(LIB.parent))

    def run(parts):
        r = subprocess.run([sys.executable, "-c", PARTS, parts], env=env, capture_output=True, text=True,
                           timeout=600, check=True)
        return json.loads(r.stdout)

    run("stages")
    run("dense,small")
    driver = run("driver")
    for name in ("_stages_1_to_10", "_initial_step", "_stage_11_new_state_and_error", "_dense_means"):
        hits, misses, signatures = driver[name]
        assert (hits, misses, signatures) == (1, 0, 1), (name, driver[name])
    assert driver["advance_phase_points"][1] == 1  # the driver itself compiled here
    assert run("driver,small,stages,dense")["advance_phase_points"][:2] == [1, 0]  # and now loads


def test_warm_up_names_an_unknown_part():
    from lsadyn.solvers import phase_points

    with pytest.raises(ValueError, match=r"unknown part\(s\) \['stage'\]"):
        phase_points.warm_up(("stage",))


SPHERE = '''import json
import numpy as np
from lsadyn.fields import kernels as sphere_kernels
from lsadyn.fields.attention import attention, lsa_field, usa_field
from lsadyn.sampling import uniform_sphere
from lsadyn.solvers.integrate import integrate_sphere
sphere_kernels.warm_up()
kernels = {n: k for n, k in vars(sphere_kernels).items()
           if hasattr(k, "_cache") and k.targetoptions.get("inline", "never") != "always"}  # inlined: no version
after_warm_up = {n: len(k.signatures) for n, k in kernels.items()}
p = attention(np.eye(3), np.eye(3) + 0.1, 1.0)
X0 = uniform_sphere(16, 3, seed=1)
for field in (lsa_field, usa_field):
    integrate_sphere(field, X0, np.linspace(0.0, 1.0, 3), p, method="rk4", dt=0.1)
    integrate_sphere(field, X0, np.linspace(0.0, 1.0, 3), p)
print(json.dumps([after_warm_up, {n: len(k.signatures) for n, k in kernels.items()}]))
'''


@pytest.mark.slow
def test_sphere_warm_up_compiles_what_the_integrators_call(tmp_path):
    """Rule compile_sphere_kernels compiles lsadyn.fields.kernels's kernels once (kernels.warm_up) before the
    d > 2 jobs: the integrators (LSA and USA fields, RK4 and DOP853 on the sphere) then call exactly those
    versions, and compile none of their own."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(LIB.parent))
    r = subprocess.run([sys.executable, "-c", SPHERE], env=env, capture_output=True, text=True, timeout=600,
                       check=True)
    after_warm_up, after_runs = json.loads(r.stdout)
    assert after_warm_up == after_runs and set(after_warm_up.values()) == {1}, (after_warm_up, after_runs)


def test_kernel_folders_unused_for_a_month_are_removed(tmp_path, monkeypatch):
    """Every edit of a kernel source starts a new cache folder (a few MB): the first kernel lookup of a process
    stamps its own folder as used and removes the sibling lsadyn-* folders no process has used for UNUSED_DAYS."""
    import time

    from lsadyn import _kernel_cache as kc

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kc.numba.config, "CACHE_DIR", str(tmp_path))
    kc.prune_unused.cache_clear()
    now = time.time()
    day = 86400
    old, recent, unstamped, other = (tmp_path / f"lsadyn-{k}" for k in ("0ld", "recent", "unstamped", "x"))
    for folder, age in ((old, 40), (recent, 5)):
        (folder / "lsadyn").mkdir(parents=True)
        (folder / kc._USED).touch()
        os.utime(folder / kc._USED, (now - age * day,) * 2)
    unstamped.mkdir()
    os.utime(unstamped, (now - 31 * day,) * 2)
    (tmp_path / "not-lsadyn").mkdir()
    os.utime(tmp_path / "not-lsadyn", (now - 400 * day,) * 2)
    try:
        removed = kc.prune_unused(now)
    finally:
        kc.prune_unused.cache_clear()
    assert sorted(removed) == sorted([old, unstamped])
    assert recent.is_dir() and (tmp_path / "not-lsadyn").is_dir() and not other.exists()
    assert abs((kc.cache_dir() / kc._USED).stat().st_mtime - now) < 1
