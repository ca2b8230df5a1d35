"""Run ``python -m MODULE ARGS`` as a process forked from a prepared Python process (a fork server).

Most of the suite's CPU time went to starting processes: every ``snakemake`` command (dry runs, lint, config
errors, single jobs) imports Snakemake and its plugins (~1.1 s of CPU of a ~3 s dry run), every ``python -m
lsadyn.cli`` imports numpy and lsadyn. A fork server is a Python process, started once per test process and
environment, that has imported those modules; each command is a child forked from it: its own process (own pid,
working directory, environment, stdin/stdout/stderr, exit code, killed on timeout) that runs the module as
``__main__`` exactly as ``python -m`` does, with the imports already done. Commands that need something only a
fresh interpreter gives (signals sent to a process group, resource limits, another Python path) keep using
``subprocess``.

The server gets the caller's environment at start, so a command's environment is the one its imports saw (up
to PYTEST_CURRENT_TEST, which pytest changes for every test); a command with another environment gets another
server. If a server cannot start or dies, the command runs as an
ordinary subprocess (same result, slower).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

#: imported by every server: Snakemake's command line (and its plugins), what it imports to run a workflow (listed
#: from the modules a dry run of the Snakefile imported after these: ~0.3 s per command), what the Snakefile imports,
#: the CLI
PRELOAD = ["snakemake.cli", "snakemake.utils", "snakemake.api", "snakemake.workflow", "snakemake.dag",
           "snakemake.profiles", "snakemake.report.html_reporter", "snakemake.storage", "smart_open", "reretry",
           "graphlib", "tabulate", "lsadyn_workflow.config", "lsadyn.paper.findings", "lsadyn.paper.interrupts",
           "lsadyn.paper.jobrunner", "lsadyn.paper.persistence", "lsadyn.cli", "lsadyn.api"]

SERVER = r"""
import json, os, runpy, signal, sys
for name in sys.argv[1].split(","):
    try:
        __import__(name)
    except ImportError:
        pass
try:  # Snakemake's plugin registries (singletons): each command would find and import the installed plugins again
    from snakemake.cli import get_argument_parser
    get_argument_parser()
except Exception:  # noqa: BLE001 (another Snakemake: the commands do it themselves)
    pass
import gc
gc.freeze()  # objects of the preloaded modules: never scanned by the children's collector (no copy-on-write of them)
requests, replies = os.fdopen(os.dup(0), "r"), os.fdopen(os.dup(1), "w")
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 0)
os.dup2(null, 1)
for line in requests:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:  # the command: runs the module like `python -m`, then exits like any interpreter
        requests.close()
        replies.close()
        if req.get("new_session"):  # as subprocess.Popen(start_new_session=True): its own process group
            os.setsid()
        if req.get("keyboard_interrupt"):  # as a Python started with SIGINT's default action
            signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            if fd == 2 and path == req["stdout"]:  # stderr=STDOUT
                os.dup2(1, 2)
                continue
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(f, fd)
            os.close(f)
        name = req["module"]
        if hasattr(sys.modules.get(name), "__path__"):  # a package: `python -m` runs its __main__
            name += ".__main__"
        if name in sys.modules:  # imported by the server: run it afresh as __main__, as `python -m` would
            del sys.modules[name]
            parent, _, leaf = name.rpartition(".")
            if hasattr(sys.modules.get(parent), leaf):
                delattr(sys.modules[parent], leaf)
        sys.argv = [req["module"], *req["args"]]
        sys.path[0] = os.getcwd()
        runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
        sys.exit(0)
    replies.write(json.dumps({"pid": pid}) + "\n")
    replies.flush()
    _, status, usage = os.wait4(pid, 0)
    replies.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status),
                              "cpu": usage.ru_utime + usage.ru_stime}) + "\n")
    replies.flush()
"""


class _Server:
    def __init__(self, env: dict):
        self.buf = b""
        self.pending: Started | None = None  # a started command not waited for yet
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (the server's stderr, for as long as it runs)
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, ",".join(PRELOAD)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=tempfile.gettempdir())

    def _reply(self, timeout: float | None) -> dict | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise BrokenPipeError("fork server exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, module: str, args: list[str], cwd: str, timeout: float | None) -> subprocess.CompletedProcess:
        self.settle()
        cmd = [sys.executable, "-m", module, *args]
        with tempfile.TemporaryDirectory() as tmp:
            out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            req = {"module": module, "args": args, "cwd": os.path.abspath(cwd), "env": self.env, "stdout": out,
                   "stderr": err}
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            pid = self._reply(60)["pid"]
            done = self._reply(timeout)
            if done is None:
                os.kill(pid, signal.SIGKILL)
                self._reply(60)
                raise subprocess.TimeoutExpired(cmd, timeout)
            global cpu_seconds
            cpu_seconds += done["cpu"]
            with open(out) as fo, open(err) as fe:
                return subprocess.CompletedProcess(cmd, done["returncode"], fo.read(), fe.read())

    def start(self, module: str, args: list[str], cwd: str, new_session: bool, keyboard_interrupt: bool,
              merge_stderr: bool) -> Started:
        self.settle()
        tmp = tempfile.mkdtemp(prefix="forkserver-")
        out = os.path.join(tmp, "output")
        err = out if merge_stderr else os.path.join(tmp, "errors")
        req = {"module": module, "args": args, "cwd": os.path.abspath(cwd), "env": self.env, "stdout": out,
               "stderr": err, "new_session": new_session, "keyboard_interrupt": keyboard_interrupt}
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        self.pending = Started(self, self._reply(60)["pid"], out, err, [sys.executable, "-m", module, *args])
        return self.pending

    def settle(self):
        """A command started with :func:`start` that nobody waited for (its test failed first): stop it, so that
        the server is free and its replies stay in order."""
        started = self.pending
        if started is not None and started.returncode is None:
            started.kill()
            started.wait(60)

    def close(self):
        self.settle()
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Started:
    """A command started by :func:`start` (``subprocess.Popen(..., stdout=PIPE, stderr=STDOUT, text=True)`` for a
    test that signals it while it runs): ``pid``, ``send_signal``, ``kill``, ``wait``, ``returncode``; its
    output (stdout, and stderr unless it was started with ``merge_stderr=False``: then ``errors()``) is read with
    ``output()`` at any time, in full once it has ended."""

    def __init__(self, server: _Server, pid: int, out: str, err: str, cmd: list):
        self.server, self.pid, self.out, self.err, self.args, self.returncode = server, pid, out, err, cmd, None

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            done = self.server._reply(timeout)
            if done is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
            global cpu_seconds
            cpu_seconds += done["cpu"]
            self.returncode = done["returncode"]
            self.server.pending = None
        return self.returncode

    def poll(self) -> int | None:
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def output(self, path: str | None = None) -> str:
        try:
            with open(path or self.out, errors="replace") as fh:
                return fh.read()
        except FileNotFoundError:
            return ""

    def errors(self) -> str:
        return self.output(self.err)


_servers: dict[tuple, _Server] = {}
#: CPU time of the commands run so far in this process (servers' children: not in this process's RUSAGE_CHILDREN)
cpu_seconds = 0.0


def _server(env: dict | None, extra_env: dict | None) -> tuple[tuple, _Server, dict]:
    env = dict(os.environ if env is None else env)
    # pytest sets PYTEST_CURRENT_TEST to each test's id: no import depends on it, the command still gets it
    key = tuple(sorted((k, v) for k, v in env.items() if k != "PYTEST_CURRENT_TEST"))
    server = _servers.get(key)
    if server is None or server.proc.poll() is not None:
        server = _servers[key] = _Server(env)
    # the command's own environment (the imports saw one that differs at most in the test id and ``extra_env``)
    server.env = {**env, **(extra_env or {})}
    return key, server, server.env


def start(module: str, *args, cwd=".", env: dict | None = None, extra_env: dict | None = None,
          new_session: bool = False, keyboard_interrupt: bool = False, merge_stderr: bool = True) -> Started:
    """``subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env={**env, **extra_env},
    stdout=PIPE, stderr=STDOUT (or PIPE: ``merge_stderr=False``), text=True, start_new_session=new_session)``,
    forked from a prepared server; wait for it (``.wait()``) before the next command of this process.
    ``extra_env``: variables no import reads (the command gets them; the server is the one of ``env``).
    ``keyboard_interrupt``: SIGINT raises KeyboardInterrupt in the command, as in a Python started with SIGINT's
    default action (xdist workers, and so the servers they start, ignore SIGINT)."""
    key, server, _ = _server(env, extra_env)
    try:
        return server.start(module, [str(a) for a in args], str(cwd), new_session, keyboard_interrupt, merge_stderr)
    except (BrokenPipeError, OSError, TypeError, ValueError):  # the server failed: an ordinary process
        server.close()
        del _servers[key]
        raise


def run(module: str, *args, cwd=".", env: dict | None = None, timeout: float | None = None,
        extra_env: dict | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env={**env, **extra_env},
    capture_output=True, text=True, timeout=timeout)``, forked from a prepared server (see the module docstring
    and :func:`start` for ``extra_env``)."""
    args = [str(a) for a in args]
    key, server, env = _server(env, extra_env)
    try:
        return server.run(module, args, str(cwd), timeout)
    except (BrokenPipeError, OSError, TypeError, ValueError):  # the server failed: an ordinary process
        server.close()
        del _servers[key]
        return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout, check=False)


@atexit.register
def _close_all():
    for server in _servers.values():
        server.close()
