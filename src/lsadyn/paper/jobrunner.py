"""A pre-forked job runner for local builds: each workflow job runs in a process forked from one that has
already imported the heavy libraries.

Every job of a build is a ``script:`` (workflow/scripts, workflow/notebooks) that Snakemake runs as a new
``python`` process; before doing its work, each one spends 1–2.4 s of CPU importing numpy, scipy, numba,
matplotlib, pandas and lsadyn (about half of a quick build's CPU). For a local build the Snakefile calls
:func:`prestart` while Snakemake parses it (and :func:`start` at ``onstart:``, which keeps or stops what
:func:`prestart` started), which starts one server process (the *zygote*) that imports those modules
once, then listens on a Unix socket in a private (0700) temporary directory. While it runs, :data:`JOB_SITE` is first
on the jobs' PYTHONPATH: its ``sitecustomize.py`` hands a job off while the job's Python starts
(:func:`hand_off_at_startup`), before Snakemake's script preamble imports snakemake. Otherwise each job script
begins with ``import lsadyn.paper.handoff`` (before its heavy imports), which calls :func:`hand_off`:

* in a job process (the *client*) of a build whose server is ready, it sends the job to the server: the path
  of the running script (Snakemake's temporary copy, preamble included), the working directory, the
  environment, ``sys.argv`` and the process's stdin/stdout/stderr (passed as file descriptors). The server
  forks a child that takes them over (``dup2`` onto 0/1/2, ``chdir``, the environment) and runs the script
  with :mod:`runpy` as ``__main__``; the client waits and exits with the child's exit status (or dies by the
  same signal). Inside the child :func:`hand_off` returns and the script goes on as it would in its own
  process;
* anywhere else — no server (cluster jobs: :func:`start` is only called for local, non-dry-run builds; a
  build with fewer than :data:`MIN_SCRIPT_JOBS` script jobs to run; a script run by hand),
  ``LSADYN_JOB_RUNNER=0``, not Linux, or any failure to reach the server — it returns at once and the
  script runs in its own process, as without the runner. A job that starts while the server is still importing
  connects and waits for it (the server listens from its start), rather than importing for itself on a core
  the server's imports need.

Lifetimes and signals (Snakemake only knows the client):

* SIGTERM/SIGINT to a client is forwarded to its child (whose :func:`lsadyn.paper.io.setup_log` handlers
  stop it cleanly: exit code 143, no output written); the client then exits with the child's code;
* if a client dies (even by SIGKILL) the server sees its connection close and stops the child (SIGTERM, then
  SIGKILL after :data:`KILL_AFTER` seconds);
* the server runs in its own session (a terminal's Ctrl-C reaches the clients, which forward it once), stops
  when the Snakemake process dies (``PR_SET_PDEATHSIG`` and a check of its parent pid) and at ``onsuccess:`` /
  ``onerror:`` (:func:`stop`, also registered with :mod:`atexit`); its children die with it.

Fork safety: the server is started with one BLAS/OpenMP/numba thread and never starts a thread; before each
fork it checks that it has exactly one thread (otherwise it answers "no" and the client runs the job itself).
The server never seeds, never opens a results file and draws nothing but one off-screen line of text (to
fill matplotlib's font and mathtext caches): a child starts from the state a fresh process has after the same
imports (numpy's global random state is reseeded in the child as a fresh import
would seed it).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys

#: Environment variable holding the server's socket path (set by :func:`start` for the build's jobs).
SOCKET_ENV = "LSADYN_JOB_RUNNER_SOCKET"
#: ``LSADYN_JOB_RUNNER=0`` switches the runner off (every job runs in its own process).
SWITCH_ENV = "LSADYN_JOB_RUNNER"
#: ``LSADYN_JOB_RUNNER_MIN_JOBS=N``: start the server only for a build with at least N script jobs to run.
MIN_JOBS_ENV = "LSADYN_JOB_RUNNER_MIN_JOBS"
#: A build with fewer script jobs to run starts no server (its jobs run in their own processes). The server needs
#: ~3 s of CPU to import and load kernels before it forks the first job: measured at
#: ``--cores 2``, rerunning N figure jobs of a built quick config (runner on vs off, interleaved, 2-6 runs each), the
#: server cost 1 job +3 core-s, 2 jobs +3.5 core-s and +2 s wall, 3-4 jobs about the same wall and +1 core-s, while
#: it saved 5 jobs ~4.5 s wall and ~3 core-s, 6 jobs ~6 s wall and ~3 core-s (measured while jobs that started before
#: the server was ready still imported for themselves). Since jobs wait for the server's imports instead, measured
#: again the same way (3 runs each, alternating): 1 job +2.3-3.1 s wall and +2.6 core-s with the server; 5 jobs
#: 8.3-9.5 s vs 8.9-9.6 s wall and 11.2-12.6 vs 13.6-15.1 core-s (a small gain).
MIN_SCRIPT_JOBS = 5
#: Put first on the jobs' PYTHONPATH while a server runs: its sitecustomize.py hands a job off while Python starts
#: (:func:`hand_off_at_startup`), before Snakemake's script preamble imports snakemake.
JOB_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_jobsite")
#: Seconds between SIGTERM and SIGKILL for a child whose client died.
KILL_AFTER = 10.0
#: Modules every server imports besides what the workflow's scripts import at top level: the libraries, what
#: a figure's PDF and a movie's GIF load when saved, and lsadyn.compiled2d (which lsadyn.api imports inside
#: functions) so that its cached kernels are loaded once here rather than in each of the ~12 jobs that call them.
PRELOAD = ("numpy", "scipy.integrate", "scipy.optimize", "scipy.stats", "numba", "pandas", "matplotlib",
           "matplotlib.pyplot", "matplotlib.backends.backend_pdf", "fontTools.subset", "PIL.GifImagePlugin",
           "threadpoolctl", "snakemake.script", "snakemake.logging", "lsadyn.compiled2d")
#: Modules never imported by the server (importing them hands a job off).
_NEVER = ("lsadyn.paper.handoff",)
#: Thread-pool sizes the server starts with (it must never start a thread: it forks).
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
               "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS")

_STATE: dict = {"in_child": False, "server": None, "dir": None, "prestarted": False, "tried": False}


def _enabled() -> bool:
    return sys.platform.startswith("linux") and os.environ.get(SWITCH_ENV, "1") != "0"


# ------------------------------------------------------------------------------------------------ client


def _send(sock: socket.socket, obj, fds=()) -> None:
    data = json.dumps(obj).encode()
    msg = struct.pack("!I", len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [msg], list(fds))
        msg = msg[sent:]
    if msg:
        sock.sendall(msg)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def hand_off() -> None:
    """Run the calling job script in a child of the build's job-runner server, if there is one, and exit with
    its status; otherwise (or inside that child) return at once. See the module docstring."""
    if _STATE["in_child"] or _STATE["tried"] or not _enabled():
        return
    path = os.environ.get(SOCKET_ENV)
    main = sys.modules.get("__main__")
    script = getattr(main, "__real_file__", None) or getattr(main, "__file__", None)
    if not path or not script or getattr(main, "snakemake", None) is None:
        return  # not a Snakemake job of a build with a runner
    _hand_off_script(path, os.path.abspath(script))


def is_snakemake_script(path: str) -> bool:
    """Is ``path`` Snakemake's temporary copy of a ``script:`` (``.snakemake/scripts/tmp*.py``, preamble included),
    i.e. what the Python process of a local job runs?"""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    name = os.path.basename(path)
    return (name.startswith("tmp") and name.endswith(".py") and os.path.basename(folder) == "scripts"
            and os.path.basename(os.path.dirname(folder)) == ".snakemake")


def hand_off_at_startup() -> None:
    """Called while Python starts (``_jobsite/sitecustomize.py``, first on the jobs' PYTHONPATH while the server
    runs): if this process runs a Snakemake job script (:func:`is_snakemake_script` of ``sys.argv[0]``) of a build
    with a server, hand the job off now, before the script's preamble imports snakemake, and exit as the job
    ends; otherwise return at once (the script's own ``import lsadyn.paper.handoff`` does not try again)."""
    if _STATE["in_child"] or _STATE["tried"] or not _enabled():
        return
    path = os.environ.get(SOCKET_ENV)
    argv = getattr(sys, "argv", None) or []
    if not path or not argv or not is_snakemake_script(argv[0]):
        return
    _hand_off_script(path, os.path.abspath(argv[0]))


def _hand_off_script(path: str, script: str) -> None:
    """Send the job running ``script`` to the server listening on ``path``; wait for its child and exit with its
    status, or return (once per process) if the server is not there or declines."""
    _STATE["tried"] = True
    fds = [fd for fd in (0, 1, 2) if _fd_open(fd)]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        _send(sock, {"script": script, "cwd": os.getcwd(), "env": dict(os.environ), "argv": sys.argv,
                     "python": _python_identity(),
                     "fds": fds}, fds)
        reply = _read_line(sock)
    except (OSError, EOFError, ValueError):
        sock.close()
        return  # server not (yet, or no longer) there: run here
    if not reply.startswith("pid "):
        sock.close()
        return  # the server declined (e.g. it could not fork safely): run here
    _wait_for_child(sock, int(reply.split()[1]))


def _python_identity() -> list:
    """What must match between a job and the server for the job to run in the server's child: the interpreter
    and where it finds modules (a rule run in a conda environment or container has another one)."""
    return [sys.executable, sys.prefix, sys.version, os.environ.get("PYTHONPATH", ""),
            os.environ.get("PYTHONHOME", "")]


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def _read_line(sock: socket.socket) -> str:
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf.decode().strip()


def _wait_for_child(sock: socket.socket, child: int) -> None:
    """Client side after the fork: forward SIGTERM/SIGINT to the child, exit with its status."""
    got: list[int] = []

    def forward(signum, frame):
        got.append(signum)
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    try:
        status = _read_line(sock)
    except (OSError, EOFError):
        status = ""
    kind, _, value = status.partition(" ")
    if kind == "exit":
        os._exit(int(value))
    if kind == "signal":
        sig = int(value)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    # the server went away before the child ended (the build is being stopped)
    if got:
        os._exit(128 + got[0])
    sys.stderr.write("lsadyn: error: the job runner stopped before the job finished; rerun the build "
                     f"(or set {SWITCH_ENV}=0)\n")
    sys.stderr.flush()
    os._exit(1)


# ------------------------------------------------------------------------------------------------ Snakefile


def script_jobs(workflow) -> int:
    """The number of jobs with a ``script:`` that this build will run (Snakemake's DAG, as at ``onstart:``)."""
    return sum(1 for job in workflow.dag.needrun_jobs() if getattr(job, "is_script", False))


def _min_jobs(min_jobs: int | None) -> int:
    if min_jobs is not None:
        return min_jobs
    value = os.environ.get(MIN_JOBS_ENV, "")
    try:
        return int(value) if value.strip() else MIN_SCRIPT_JOBS
    except ValueError:
        sys.stderr.write(f"lsadyn: note: {MIN_JOBS_ENV}={value!r} is not a whole number; using {MIN_SCRIPT_JOBS}\n")
        return MIN_SCRIPT_JOBS


#: Snakemake command-line options with which it runs no job: :func:`prestart` then starts nothing (best effort: a
#: server started needlessly is stopped at exit, having cost only its imports on an idle core).
_NO_JOB_OPTIONS = frozenset({
    "--dry-run", "--dryrun", "--lint", "--dag", "--rulegraph", "--filegraph", "--d3dag", "--summary",
    "--detailed-summary", "--list-rules", "--list", "--list-target-rules", "--lt", "--list-changes", "--lc",
    "--list-input-changes", "--li", "--list-params-changes", "--lp", "--list-code-changes", "--lu",
    "--list-untracked", "--report", "--report-stylesheet", "--unlock", "--cleanup-metadata", "--cm",
    "--cleanup-shadow", "--touch", "--archive", "--containerize", "--export-cwl", "--print-compilation",
    "--delete-all-output", "--delete-temp-output", "--generate-unit-tests", "--version", "--help",
    "--conda-create-envs-only", "--conda-cleanup-envs", "--list-conda-envs", "--deploy-sources", "--edit-notebook",
    "--draft-notebook", "--cleanup-containers"})
#: Short options with which Snakemake runs no job (dry run, list, summaries, touch, help), alone or combined (-np).
_NO_JOB_SHORT = frozenset("nlSDth")


def _runs_no_jobs(argv) -> bool:
    """Does this Snakemake command line run no job (:data:`_NO_JOB_OPTIONS`, :data:`_NO_JOB_SHORT`)?"""
    for arg in argv:
        if arg.startswith("--"):
            if arg.split("=", 1)[0] in _NO_JOB_OPTIONS:
                return True
        elif arg.startswith("-") and arg[1:].isalpha() and _NO_JOB_SHORT.intersection(arg[1:]):
            return True
    return False


def _local_build(workflow) -> bool:
    """A local build (not cluster jobs, not a job Snakemake runs remotely, not a dry run) with the runner on."""
    if not _enabled() or not getattr(workflow, "local_exec", False) or getattr(workflow, "remote_exec", False):
        return False
    return not (getattr(workflow, "dryrun", False) or getattr(getattr(workflow, "output_settings", None), "dryrun",
                                                                      False))


def prestart(workflow, *, argv=None, scripts=(), preload=PRELOAD) -> str | None:
    """Start the server while Snakemake parses the Snakefile (called from its top, before the config checks), so
    that its imports (~2.5 s of CPU) run beside the parse and the DAG instead of delaying the first jobs, which
    would wait for them; :func:`start` at ``onstart:`` keeps it, or stops it for a build with too few script jobs.
    Nothing for a dry run, cluster execution, with the runner switched off, or a command line that runs no job
    (:func:`_runs_no_jobs` of ``argv``, default Snakemake's command line). ``scripts``, ``preload``: as for
    :func:`start`. Returns the socket path, or None."""
    argv = sys.argv[1:] if argv is None else argv
    if _STATE["server"] is not None or not _local_build(workflow) or _runs_no_jobs(argv):
        return None
    path = _spawn(scripts or _workflow_scripts(workflow), preload)
    _STATE["prestarted"] = True
    return path


def _workflow_scripts(workflow) -> list:
    from pathlib import Path

    base = Path(workflow.basedir)
    return sorted([*base.glob("workflow/scripts/*.py"), *base.glob("workflow/notebooks/*.py")])


def start(workflow=None, *, scripts=(), preload=PRELOAD, min_jobs: int | None = None) -> str | None:
    """Start the job-runner server for this (local) build and export its socket path to the jobs; returns the
    path, or None when the runner does not apply (cluster execution, dry run, switched off, not Linux) or does not
    pay: a build with fewer than ``min_jobs`` script jobs to run (default :data:`MIN_SCRIPT_JOBS`, or
    ``$LSADYN_JOB_RUNNER_MIN_JOBS``; rebuilding a figure or two after an edit), whose jobs would wait for the
    server's imports (~3 s of CPU) to save little. A server that :func:`prestart` started is kept (or, for such a
    small build, stopped).
    Called from the Snakefile's ``onstart:``; the server imports ``preload`` and the modules that ``scripts``
    (default: every workflow/scripts/*.py and workflow/notebooks/*.py under the workflow's directory) import."""
    if _STATE.get("prestarted") and _STATE["server"] is not None:
        if workflow is not None and script_jobs(workflow) < _min_jobs(min_jobs):
            stop()
            return None
        return os.environ.get(SOCKET_ENV)
    if not _enabled() or _STATE["server"] is not None:
        return None
    if workflow is not None:
        if not _local_build(workflow):
            return None
        if script_jobs(workflow) < _min_jobs(min_jobs):
            return None
        if not scripts:
            scripts = _workflow_scripts(workflow)
    return _spawn(scripts, preload)


def _spawn(scripts, preload) -> str:
    """Start the server process (it imports ``preload`` and what ``scripts`` import) and export its socket path."""
    import atexit
    import subprocess
    import tempfile

    tmpdir = tempfile.mkdtemp(prefix="lsadyn-jobs-")  # 0700: only this user can reach the socket
    path = os.path.join(tmpdir, "socket")
    # the jobs' startup hand-off (before the server starts: it compares its PYTHONPATH with the jobs')
    _STATE["pythonpath"] = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([JOB_SITE, *filter(None, [_STATE["pythonpath"]])])
    env = {**os.environ, **{k: "1" for k in _ONE_THREAD}}
    env.pop(SOCKET_ENV, None)
    proc = subprocess.Popen([sys.executable, "-m", "lsadyn.paper.jobrunner", path, str(os.getpid()),
                             "--preload", ",".join(preload), *map(str, scripts)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True)
    _STATE.update(server=proc, dir=tmpdir)
    os.environ[SOCKET_ENV] = path
    atexit.register(stop)
    return path


def stop(workflow=None) -> None:
    """Stop the server (its running children with it) and remove its socket directory. Called from the
    Snakefile's ``onsuccess:``/``onerror:``; safe to call twice."""
    import shutil

    proc, tmpdir = _STATE["server"], _STATE["dir"]
    _STATE.update(server=None, dir=None, prestarted=False)
    os.environ.pop(SOCKET_ENV, None)
    if "pythonpath" in _STATE:  # as before the server started
        old = _STATE.pop("pythonpath")
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 (subprocess.TimeoutExpired: the server hangs)
            proc.kill()
            proc.wait()
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ server


def _die_with(parent: int) -> None:
    """SIGTERM to this process when its parent dies (Linux ``PR_SET_PDEATHSIG``), or now if it is gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def _preload(scripts, preload=PRELOAD) -> None:
    """Import ``preload`` and every module the workflow's ``scripts`` import at top level (not the hand-off
    itself); a module that fails to import is left to the job, which then reports the error. Then load the
    compiled lsadyn kernels that numba's cache holds (:func:`_load_cached_kernels`)."""
    import importlib

    from .._source_imports import top_level_imports

    names = list(preload)
    for script in scripts:
        try:
            names += top_level_imports(script)
        except (OSError, SyntaxError):
            continue
    for name in dict.fromkeys(names):
        if name in _NEVER or name.startswith("__"):
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S110 (the job itself will report it)
            pass
    _STATE["kernel_stamp"] = _kernel_cache_stamp()
    _load_cached_kernels()
    _warm_matplotlib()


def _warm_matplotlib() -> None:
    """Lay out one line of text with mathtext on an off-screen Agg canvas (no pyplot figure): builds the
    mathtext parser and opens the DejaVu fonts once, for every figure and movie job (~0.1 s each otherwise).
    Only matplotlib's caches change (parser, fonts, text metrics); no figure, rcParam or file."""
    if "matplotlib.backends.backend_agg" not in sys.modules:
        return
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(1, 1), dpi=72)
        FigureCanvasAgg(fig)
        fig.text(0.1, 0.5, r"$|R_2(t)|\ \theta_k\ 10^{-2}\ \pi$ t", fontsize=7)
        fig.text(0.1, 0.1, "(a)", fontsize=8, fontweight="bold")
        fig.canvas.draw()
    except Exception:  # noqa: BLE001, S110 (a cache left cold only costs the jobs time)
        pass


def _kernel_cache_stamp():
    """What changes when a kernel is added to lsadyn's numba cache (lsadyn._kernel_cache): the modification
    times of its folders (numba renames every cache file into place). None without that module."""
    mod = sys.modules.get("lsadyn._kernel_cache")
    if mod is None:
        return None
    try:
        top = mod.cache_dir()
        return tuple(sorted((e.path, e.stat().st_mtime_ns) for e in os.scandir(top) if e.is_dir()))
    except OSError:
        return ()


def _reload_kernels_if_cached_since() -> int:
    """Before a fork: load the kernels cached since the last load (on a machine's first build the server starts
    before the ``compile_kernels`` job has filled the cache, and kernels that jobs compile land there too), so
    that later jobs inherit them instead of each loading them again (~0.5 s per job). One ``scandir`` when
    nothing changed."""
    stamp = _kernel_cache_stamp()
    if stamp == _STATE.get("kernel_stamp"):
        return 0
    _STATE["kernel_stamp"] = stamp
    return _load_cached_kernels()


def _load_cached_kernels() -> int:
    """Load, for every numba kernel of the imported lsadyn modules, each compiled version that numba's on-disk
    cache holds for this machine and source (what a job's first call would load: ~0.5 s per job that uses
    them); never compile (a kernel missing from the cache, or whose data file is not written yet, is left to
    the jobs and the ``compile_kernels`` rule). Loading machine code starts no thread. Best effort: returns the
    number of versions loaded."""
    import importlib

    if "numba" not in sys.modules:
        return 0
    try:  # (not an import statement: lsadyn._kernel_cache keys the kernels on the modules that import numba)
        Dispatcher = importlib.import_module("numba.core.dispatcher").Dispatcher
    except (ImportError, AttributeError):
        return 0
    loaded = 0
    for name, mod in list(sys.modules.items()):
        if not (name == "lsadyn" or name.startswith("lsadyn.")) or mod is None:
            continue
        for obj in list(vars(mod).values()):
            if not isinstance(obj, Dispatcher) or getattr(obj, "_cache", None) is None:
                continue
            try:
                cache = obj._cache
                codegen = obj.targetctx.codegen()
                index = cache._cache_file._load_index()
                for key, data_name in index.items():
                    sig = key[0]
                    if sig in obj.overloads:
                        continue
                    # a cache hit whose data file is in place (numba writes the index first): compile() only loads it
                    data = os.path.join(cache._cache_file._cache_path, data_name)
                    if cache._index_key(sig, codegen) == key and os.path.exists(data):
                        obj.compile(sig)
                        loaded += 1
            except Exception:  # noqa: BLE001, S112 (another numba version: the jobs load their kernels themselves)
                continue
    return loaded


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def serve(path: str, parent: int, scripts=(), preload=PRELOAD) -> None:
    """The server's main loop: preload, listen on ``path``, fork a child per job until SIGTERM, the parent's
    death, or the removal of the socket's directory."""
    import gc
    import select
    import time

    _die_with(parent)
    _STATE["identity"] = _python_identity()  # before any job's environment is seen
    stopping = []
    # while it imports, the server has no child: SIGTERM (stop(), the parent's death) ends it at once, socket removed
    # (a build whose jobs all ended before the server was ready waited up to ~3 s in stop() for its imports)
    signal.signal(signal.SIGTERM, lambda s, f: _quit_while_importing(path, s))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the clients' to forward
    # listen before importing: a job that starts meanwhile connects and waits (its connection queued, no CPU used)
    # instead of importing for itself on a core the server's imports need; if the server dies while importing,
    # the job's connection is reset and it runs in its own process
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)
    _preload(scripts, preload)
    signal.signal(signal.SIGTERM, lambda s, f: stopping.append(s))
    gc.collect()
    gc.freeze()  # the preloaded objects are never scanned by the children's collector (fewer copied pages)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda s, f: None)
    jobs: dict[int, dict] = {}  # child pid -> {"conn": socket or None, "kill_at": float or None}
    by_conn: dict[int, int] = {}  # conn fd -> child pid
    try:
        while not stopping and os.getppid() == parent and os.path.exists(path):
            conns = [j["conn"] for j in jobs.values() if j["conn"] is not None]
            try:
                ready, _, _ = select.select([listener, wake_r, *conns], [], [], 1.0)
            except InterruptedError:
                ready = []
            if wake_r in ready:
                os.read(wake_r, 4096)
            _reap(jobs, by_conn)
            for sock in ready:
                if sock is listener:
                    _accept(listener, jobs, by_conn, [listener, wake_r, wake_w])
                elif isinstance(sock, socket.socket):
                    pid = by_conn.get(sock.fileno())
                    if pid is not None:
                        _client_event(sock, jobs[pid])
            now = time.monotonic()
            for pid, job in jobs.items():
                if job["kill_at"] is not None and now >= job["kill_at"]:
                    _kill(pid, signal.SIGKILL)
                    job["kill_at"] = None
    finally:
        for pid in jobs:
            _kill(pid, signal.SIGTERM)
        _remove_socket(path)


def _remove_socket(path: str) -> None:
    """Remove the socket, then its directory (if empty: nobody called :func:`stop`)."""
    for remove, target in ((os.unlink, path + ".new"), (os.unlink, path), (os.rmdir, os.path.dirname(path))):
        try:
            remove(target)
        except OSError:
            pass


def _quit_while_importing(path: str, signum: int) -> None:
    """SIGTERM while the server imports (no child yet): remove the socket and exit at once."""
    _remove_socket(path)
    os._exit(128 + signum)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _client_event(conn: socket.socket, job: dict) -> None:
    """The client's connection is readable: it closed (the client died) — stop the child."""
    import time

    try:
        data = conn.recv(64)
    except OSError:
        data = b""
    if data:
        return  # clients send nothing after the request; ignore
    job["conn"] = None
    conn.close()
    _kill(job["pid"], signal.SIGTERM)
    job["kill_at"] = time.monotonic() + KILL_AFTER


def _reap(jobs: dict, by_conn: dict) -> None:
    while jobs:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        job = jobs.pop(pid, None)
        if job is None:
            continue
        conn = job["conn"]
        if conn is not None:
            by_conn.pop(conn.fileno(), None)
            if os.WIFSIGNALED(status):
                reply = f"signal {os.WTERMSIG(status)}\n"
            else:
                reply = f"exit {os.waitstatus_to_exitcode(status)}\n"
            try:
                conn.sendall(reply.encode())
            except OSError:
                pass
            conn.close()


def _accept(listener: socket.socket, jobs: dict, by_conn: dict, server_fds: list) -> None:
    conn, _ = listener.accept()
    conn.settimeout(10)
    fds: list[int] = []
    try:
        head, fds, _, _ = socket.recv_fds(conn, 4, 3)
        if len(head) < 4:
            head += _recv_exact(conn, 4 - len(head))
        (n,) = struct.unpack("!I", head)
        req = json.loads(_recv_exact(conn, n))
        if len(fds) != len(req["fds"]):
            raise ValueError("file descriptors missing")
    except (OSError, EOFError, ValueError, KeyError):
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    same_python = req.get("python") == _STATE.get("identity")
    if same_python:
        _reload_kernels_if_cached_since()  # before the thread check below: whatever it does, no fork with threads
    if not same_python or _threads() != 1:
        # another interpreter or module path (conda/container rule): the job runs where it is; and never fork
        # a process with threads
        conn.sendall(b"no\n")
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:
        try:
            code = _child(req, fds, [*server_fds, conn, *(j["conn"] for j in jobs.values() if j["conn"])])
        except BaseException:  # noqa: BLE001 (never return into the server's loop)
            code = 70
        os._exit(code)
    for fd in fds:
        os.close(fd)
    conn.settimeout(None)
    try:
        conn.sendall(f"pid {pid}\n".encode())
    except OSError:
        _kill(pid, signal.SIGTERM)
    jobs[pid] = {"pid": pid, "conn": conn, "kill_at": None}
    by_conn[conn.fileno()] = pid


# ------------------------------------------------------------------------------------------------ child


def _child(req: dict, fds: list[int], close: list) -> int:
    """In the forked child: become the job (fds, cwd, environment, argv), run its script as ``__main__``,
    end like an interpreter would (exit status, uncaught exception, atexit)."""
    import io
    import runpy

    _STATE["in_child"] = True
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for obj in close:
        try:
            obj.close() if hasattr(obj, "close") else os.close(obj)
        except OSError:
            pass
    null = None
    for target in (0, 1, 2):
        if target in req["fds"]:
            fd = fds[req["fds"].index(target)]
        else:
            null = null if null is not None else os.open(os.devnull, os.O_RDWR)
            fd = null
        os.dup2(fd, target)
    for fd in {*fds, *([null] if null is not None else [])} - {0, 1, 2}:
        os.close(fd)
    _die_with(os.getppid())  # the server's children die with it
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    sys.argv[:] = req["argv"]
    sys.path.insert(0, os.path.dirname(req["script"]))  # as `python <script>` has it
    # Python's own stdio: stdout line-buffered on a terminal, block-buffered otherwise; stderr line-buffered
    enc = {"encoding": sys.stdout.encoding, "errors": sys.stdout.errors}
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), **enc)
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   line_buffering=os.isatty(1), **enc)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding=enc["encoding"], errors="backslashreplace",
                                                   line_buffering=True)
    np = sys.modules.get("numpy.random")
    if np is not None:
        np.seed()  # a fresh process seeds the global RandomState from the OS; forked children must not share it
    code = 0
    try:
        runpy.run_path(req["script"], run_name="__main__")
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 (as the interpreter does: excepthook, then exit 1)
        kind, err, tb = sys.exc_info()
        while tb is not None and tb.tb_frame.f_code.co_filename != req["script"]:
            tb = tb.tb_next  # the job's own frames only (not runpy's nor this module's)
        err.__traceback__ = tb
        sys.excepthook(kind, err, tb)
        code = 1
        if isinstance(err, KeyboardInterrupt):
            code = -signal.SIGINT
    return _finish(code)


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):  # as the interpreter does for sys.exit("message")
        sys.stderr.write(f"{code}\n")
    return 1


def _finish(code: int) -> int:
    """Interpreter shutdown in the child: join non-daemon threads, run atexit callbacks, flush stdio."""
    import atexit
    import threading

    with contextlib.suppress(Exception):  # join the non-daemon threads, as at interpreter exit
        threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if code < 0:  # KeyboardInterrupt: die by SIGINT, as Python does
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    if sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]  # `python -m` put the working directory first; a job's first entry is its script's folder
    # the module itself, not this __main__ copy: hand_off() reads its state
    from lsadyn.paper import jobrunner  # noqa: PLW0406

    args = sys.argv[3:]
    preload = PRELOAD
    if args[:1] == ["--preload"]:
        preload, args = tuple(m for m in args[1].split(",") if m), args[2:]
    jobrunner.serve(sys.argv[1], int(sys.argv[2]), args, preload)
