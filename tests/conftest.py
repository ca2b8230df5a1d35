import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

# PATH as pytest found it: tests that talk to a real SLURM cluster (marker `slurm`) run with it.
REAL_PATH = os.environ.get("PATH", "")


def _slurmctld_running() -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "slurmctld":
                    return True
            except OSError:
                continue
    return False


def _stub_unreachable_scontrol():
    """Importing Snakemake loads the installed SLURM executor plugin, which runs `scontrol show
    config` at import time. With slurm-wlm installed but no controller running, scontrol retries
    for ~9 s before failing, so every `snakemake` subprocess of the suite (dry runs, lint, the
    fault tests' tiny workflows) would wait 9 s for a cluster it does not use. In that case put a
    stub `scontrol` that fails at once first on PATH (the plugin treats both failures the same: no
    MinJobAge). Tests marked `slurm` get the real PATH back (see `_real_path_for_slurm`); with a
    controller running (CI starts one before pytest) nothing is stubbed."""
    if os.environ.get("LSADYN_TESTS_SCONTROL_STUB") or not shutil.which("scontrol") or _slurmctld_running():
        return
    stub_dir = Path(tempfile.mkdtemp(prefix="lsadyn-tests-scontrol-"))
    stub = stub_dir / "scontrol"
    stub.write_text("#!/bin/sh\necho 'scontrol: no SLURM controller running (stub from tests/conftest.py)' >&2\n"
                    "exit 1\n")
    stub.chmod(0o755)
    os.environ["LSADYN_TESTS_SCONTROL_STUB"] = str(stub_dir)  # xdist workers inherit it: one stub
    os.environ["PATH"] = f"{stub_dir}{os.pathsep}{REAL_PATH}"


ROOT = Path(__file__).resolve().parents[1]


# numba's cache: lsadyn's kernels are filed by content (lsadyn._kernel_cache) in the machine's cache
# (~/.cache/lsadyn/numba, or $NUMBA_CACHE_DIR), so the test process, the xdist workers, CLI commands and the jobs of
# every test build load what any of them, or an earlier build of the same sources, compiled.


def _this_checkout_first():
    """Every process of the session (xdist workers, commands, jobs of test builds) imports lsadyn and lsadyn_workflow
    from this checkout's src and workflow/lib (the editable install may point at another checkout) and draws with
    Agg."""
    first = [str(ROOT / "src"), str(ROOT / "workflow/lib")]  # lsadyn and lsadyn_workflow
    path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in first]
    os.environ["PYTHONPATH"] = os.pathsep.join([*first, *path])
    os.environ["MPLBACKEND"] = "Agg"
    if sys.path[: len(first)] != first:
        sys.path[:0] = first


def pytest_configure(config):
    _this_checkout_first()
    _stub_unreachable_scontrol()


def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):  # the controller (or a plain run) cleans up
        return
    if os.environ.get("LSADYN_TESTS_SCONTROL_STUB"):
        shutil.rmtree(os.environ["LSADYN_TESTS_SCONTROL_STUB"], ignore_errors=True)


# Builds that need the shared quick build only at their end (they compare with it): under xdist they run on the
# worker that is not building it, at the start (the SLURM test mostly waits for the executor's status checks while
# the shared build uses both cores).
BESIDE_THE_BUILD = ("test_slurm_build", "test_killed_run")
# The longest tests that do not need the build (measured: 4-15 s each, most of it Snakemake or CLI processes), run
# first among the fast tests so that the two workers finish together instead of one running a long test at the end.
LONG_FAST = ("test_sigterm_drains", "test_truncated_intermediate", "test_a_local_snakemake_build",
             "test_sweep_config_plans", "test_dry_run_plans_every_result", "test_snakemake_config_errors",
             "test_edited_callee_recompiles", "test_second_copy_loads", "test_sigint_to_the_group",
             "test_sigkill_of_snakemake", "test_cli_long_run", "test_library_example_runs",
             "test_small_build_gives_rows", "test_lint_and_format", "test_readme_sweep_size")
# Tests that need the shared build, longest first.
AFTER_THE_BUILD = ("test_report_renders", "test_failing_job")
def _rank(name, names):
    return next((k for k, prefix in enumerate(names) if name.startswith(prefix)), len(names))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks it adds
def pytest_collection_modifyitems(config, items):
    """Order (stable otherwise): the test that starts the shared quick build (conftest.built); the builds that need
    it only at their end (BESIDE_THE_BUILD, one xdist group: `--dist loadgroup` hands out groups of several tests
    before single tests, so they go to the other worker at once); the fast tests, the longest (LONG_FAST) first;
    then the tests that need the build or are slow (AFTER_THE_BUILD first). Under xdist one worker builds while the
    other runs the SLURM and killed-run builds and then the fast tests; the tests that wait for the build come
    when it is (nearly) done, instead of blocking the second worker at the start."""
    first = next((i for i in items if "built" in getattr(i, "fixturenames", ())), None)

    def key(item):
        if item is first:
            return (0, 0)
        if item.name.startswith(BESIDE_THE_BUILD):
            return (1, _rank(item.name, BESIDE_THE_BUILD))
        if item.get_closest_marker("slow") or "built" in getattr(item, "fixturenames", ()):
            return (4, _rank(item.name, AFTER_THE_BUILD))
        if item.name.startswith(LONG_FAST):
            return (2, _rank(item.name, LONG_FAST))
        return (3, 0)

    for item in items:
        if item.name.startswith(BESIDE_THE_BUILD):
            item.add_marker(pytest.mark.xdist_group("beside_the_build"))
    items.sort(key=key)


@pytest.fixture(autouse=True)
def _real_path_for_slurm(request, monkeypatch):
    if request.node.get_closest_marker("slurm"):
        stub_dir = os.environ.get("LSADYN_TESTS_SCONTROL_STUB")
        if stub_dir:
            path = [p for p in os.environ["PATH"].split(os.pathsep) if p != stub_dir]
            monkeypatch.setenv("PATH", os.pathsep.join(path))


# ------------------------------------------------------------------ pipeline builds

QUICK = "workflow/config/quick.yaml"
SKIP = {"results", "paper_figures", "logs", ".snakemake", ".git", ".venv", ".hypothesis", ".pytest_cache"}


def copy_repo(dest: Path) -> Path:
    """Copy the working tree (not its generated outputs) to ``dest``."""
    def ignore(folder, names):
        rel = Path(folder).relative_to(ROOT)
        return [n for n in names if (rel == Path(".") and n in SKIP) or n == "__pycache__" or n.endswith(".egg-info")
                or (rel == Path("benchmarks") and n == "pipeline")]

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def child_pids(pid: int) -> list[int]:
    """Child processes of ``pid`` (from /proc: no procps needed)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry.name))
    return kids


def pid_alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie (the state after the command name, which may hold spaces)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def checkout_env(cwd, env=None) -> dict:
    """``env`` (default: this process's) for a command in ``cwd``: when ``cwd`` is a checkout (a copy of the repository),
    its own src and workflow/lib first on PYTHONPATH, as the Snakefile requires (it stops when lsadyn or
    lsadyn_workflow comes from another copy)."""
    env = dict(os.environ if env is None else env)
    src, lib = Path(cwd) / "src", Path(cwd) / "workflow/lib"
    if (src / "lsadyn").is_dir():
        mine = {str(ROOT / "src"), str(ROOT / "workflow/lib")}
        path = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p not in mine]
        env["PYTHONPATH"] = os.pathsep.join([str(src), str(lib), *path])
    return env


def smk(cwd, *args, check=True, timeout=1200, env=None):
    """``python -m snakemake ARGS`` in ``cwd`` (with its own src first: :func:`checkout_env`); with ``check``, a
    failure fails the test with Snakemake's output."""
    cmd = [sys.executable, "-m", "snakemake", *map(str, args)]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
                       env=checkout_env(cwd, env))
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


@contextlib.contextmanager
def _exclusive(path: Path):
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The quick config built once per test session, in a copy of the repo: ``<folder>/repo``, with
    Snakemake's output in ``<folder>/build_output.txt``. Every test that needs built results uses this
    one build (the SLURM and interrupted-build tests compare their tables with it). Under xdist the
    first worker to ask builds it under a file lock in the session's shared temporary folder; the
    other waits and reuses it. Nothing edits it and only one test runs Snakemake in it (its dry run):
    tests that edit files or run Snakemake take a private copy (``built_copy``), so they can run on any worker."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this session
    folder = base / "quick_build"
    with _exclusive(base / "quick_build.lock"):
        done, failed = folder / "build_output.txt", folder / "build_failed.txt"
        if failed.exists():
            raise AssertionError(failed.read_text())
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            repo = copy_repo(folder / "repo")
            r = smk(repo, "--cores", "2", "--configfile", QUICK, check=False)
            if r.returncode != 0:
                failed.write_text(f"the quick build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
                raise AssertionError(failed.read_text())
            done.write_text(r.stdout + r.stderr)
    return folder / "repo"


@pytest.fixture
def built_copy(built, tmp_path):
    """A private copy of the shared quick build (outputs, Snakemake's records and every modification time kept:
    Snakemake plans in it as in the build), for a test that edits files or runs Snakemake in it (~0.1 s)."""
    logs = built / ".snakemake/log"  # where a dry run in the shared build may be writing meanwhile
    return Path(shutil.copytree(built, tmp_path / "built", symlinks=True,
                                ignore=lambda folder, names: names if Path(folder) == logs else []))


# ------------------------------------------------------------------ in-process CLI


@pytest.fixture
def lsadyn_cli(capsys):
    """Run ``lsadyn.cli.main(args)`` in this process and return a CompletedProcess (returncode,
    stdout, stderr) as ``python -m lsadyn.cli ARGS`` would (its ``__main__`` only does ``raise
    SystemExit(main())``; tests that need a real process, for signals, memory limits or runaway runs,
    still start one). Saves a Python start and the library imports per call. An exception the CLI
    fails to turn into its one-line error propagates and fails the test."""
    import signal
    import subprocess

    from lsadyn import cli

    def run(*args):
        args = [str(a) for a in args]
        handler = signal.getsignal(signal.SIGTERM)
        capsys.readouterr()
        try:
            code = cli.main(args)
        except SystemExit as e:  # argparse: errors and --help
            code = e.code
        finally:
            signal.signal(signal.SIGTERM, handler)  # main() installs its own
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["lsadyn", *args], code, out, err)

    return run


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_pair(rng, d, scale=1.0):
    """Random (A, V) with i.i.d. N(0, scale²) entries."""
    return scale * rng.standard_normal((d, d)), scale * rng.standard_normal((d, d))
