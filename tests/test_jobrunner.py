"""The pre-forked job runner of local builds (lsadyn.paper.jobrunner): a job handed off to the server runs in a
child forked from it and behaves as in its own process (outputs, stdio, exit codes, one-line errors, signals);
without a server it runs where it is."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from conftest import child_pids, pid_alive

from lsadyn.paper import jobrunner

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
ENV = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "MPLBACKEND": "Agg"}
ENV.pop(jobrunner.SOCKET_ENV, None)
ENV.pop(jobrunner.SWITCH_ENV, None)

# what Snakemake's preamble does first (a `snakemake` object in __main__), then the hand-off, then the job
PREAMBLE = "snakemake = type('Snakemake', (), {'log': [], 'output': []})()\nimport lsadyn.paper.handoff\n"
JOB = PREAMBLE + textwrap.dedent("""
    import json, os, sys
    import numpy as np
    line = sys.stdin.readline()
    print("to stdout", line.strip())
    print("to stderr", file=sys.stderr)
    out = {"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "argv": sys.argv[1:],
           "env": os.environ.get("JOB_VALUE"), "sum": float(np.sum(np.arange(10.0) ** 0.5)),
           "main": __name__, "file": os.path.basename(__file__)}
    with open("out.json", "w") as fh:
        json.dump(out, fh)
""")


def _server_pid_ready(path, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return
        assert proc.poll() is None, "job-runner server exited"
        time.sleep(0.05)
    raise AssertionError("job-runner server did not get ready")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A job-runner server (preloading numpy only) whose parent is this test process (one for this module's tests:
    each test's job runs in its own directory)."""
    d = tmp_path_factory.mktemp("sock")
    d.chmod(0o700)
    path = str(d / "socket")
    proc = subprocess.Popen([sys.executable, "-m", "lsadyn.paper.jobrunner", path, str(os.getpid()),
                             "--preload", "numpy"], env={**ENV, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
                            start_new_session=True)
    _server_pid_ready(path, proc)
    yield path, proc
    proc.terminate()
    proc.wait(timeout=30)


def _run(script, cwd, env=None, stdin="hello\n", timeout=60, **kw):
    return subprocess.run([sys.executable, str(script), "arg1"], cwd=cwd, input=stdin, capture_output=True, text=True,
                          env={**ENV, **(env or {})}, timeout=timeout, check=False, **kw)


def _job(tmp_path, text=JOB, name="job.py"):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    script = tmp_path / name
    script.write_text(text)
    return script, work


def test_handed_off_job_runs_in_a_forked_child_like_in_its_own_process(tmp_path, server):
    path, proc = server
    script, work = _job(tmp_path)
    r = _run(script, work, {jobrunner.SOCKET_ENV: path, "JOB_VALUE": "42"})
    assert r.returncode == 0, r.stderr
    handed = dict(**__import__("json").loads((work / "out.json").read_text()))
    assert handed["ppid"] == proc.pid  # it really ran in a child of the server
    assert r.stdout == "to stdout hello\n" and r.stderr == "to stderr\n"  # stdio are the client's
    (work / "out.json").unlink()
    r = _run(script, work, {"JOB_VALUE": "42"})  # no server: in its own process
    assert r.returncode == 0, r.stderr
    own = __import__("json").loads((work / "out.json").read_text())
    assert own["ppid"] != proc.pid
    for d in (handed, own):
        d.pop("pid"), d.pop("ppid")
    assert handed == own
    assert handed["env"] == "42" and handed["argv"] == ["arg1"] and handed["main"] == "__main__"
    assert Path(handed["cwd"]) == work and handed["file"] == "job.py"


def test_switched_off_or_unreachable_server_runs_the_job_in_its_own_process(tmp_path, server):
    path, proc = server
    script, work = _job(tmp_path)
    for env in ({jobrunner.SOCKET_ENV: path, jobrunner.SWITCH_ENV: "0"},
                {jobrunner.SOCKET_ENV: str(tmp_path / "nothing-here")}):
        r = _run(script, work, env)
        assert r.returncode == 0, r.stderr
        assert __import__("json").loads((work / "out.json").read_text())["ppid"] != proc.pid


def test_a_job_with_another_python_or_module_path_runs_in_its_own_process(tmp_path, server):
    """A rule run in a conda environment or a container has another interpreter or PYTHONPATH: never handed off."""
    path, proc = server
    script, work = _job(tmp_path)
    env = {jobrunner.SOCKET_ENV: path, "PYTHONPATH": f"{ENV['PYTHONPATH']}{os.pathsep}{tmp_path}"}
    r = _run(script, work, env)
    assert r.returncode == 0, r.stderr
    assert __import__("json").loads((work / "out.json").read_text())["ppid"] != proc.pid
    r = _run(script, work, {jobrunner.SOCKET_ENV: path})  # the same job with the server's module path: handed off
    assert r.returncode == 0, r.stderr
    assert __import__("json").loads((work / "out.json").read_text())["ppid"] == proc.pid


@pytest.mark.parametrize("body, code, err", [
    ("import sys\nsys.exit(3)\n", 3, None),
    ("raise RuntimeError('boom')\n", 1, r"Traceback \(most recent call last\):\n  File \".*job.py\", line \d+"),
    ("from lsadyn_workflow.io import setup_log\nsetup_log('job.log')\nraise ValueError('bad key x')\n", 1,
     r"^lsadyn: error: bad key x\n$"),
    ("import sys\nsys.exit('a message')\n", 1, r"^a message\n$"),
])
def test_exit_codes_and_errors_reach_the_caller_unchanged(tmp_path, server, body, code, err):
    path, _ = server
    script, work = _job(tmp_path, PREAMBLE + body)
    own = _run(script, work)
    handed = _run(script, work, {jobrunner.SOCKET_ENV: path})
    assert own.returncode == handed.returncode == code
    if err:
        assert re.search(err, handed.stderr), handed.stderr
        assert "jobrunner" not in handed.stderr and "runpy" not in handed.stderr  # the job's own traceback only
    assert handed.stderr == own.stderr


def _wait(cond, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


SLOW_JOB = PREAMBLE + textwrap.dedent("""
    import os, time
    import pandas as pd
    from lsadyn_workflow.io import setup_log, write_csv
    log = setup_log("job.log")
    open("child.pid", "w").write(str(os.getpid()))
    time.sleep(60)
    write_csv(pd.DataFrame({"x": [1]}), "out.csv")
""")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 143)])
def test_signal_to_the_client_stops_the_child_cleanly(tmp_path, server, sig, code):
    path, proc = server
    script, work = _job(tmp_path, SLOW_JOB)
    client = subprocess.Popen([sys.executable, str(script)], cwd=work, env={**ENV, jobrunner.SOCKET_ENV: path},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait(lambda: (work / "child.pid").exists() and "started" in (work / "job.log").read_text(), 60)
    child = int((work / "child.pid").read_text())
    assert child in child_pids(proc.pid)
    t0 = time.monotonic()
    client.send_signal(sig)
    _, err = client.communicate(timeout=30)
    assert time.monotonic() - t0 < 10
    assert client.returncode == code, err
    assert not pid_alive(child)
    assert not (work / "out.csv").exists() and not list(work.glob(".out*"))
    assert f"job interrupted ({sig.name})" in (work / "job.log").read_text()


def test_killed_client_stops_its_child(tmp_path, server):
    path, proc = server
    script, work = _job(tmp_path, SLOW_JOB)
    client = subprocess.Popen([sys.executable, str(script)], cwd=work, env={**ENV, jobrunner.SOCKET_ENV: path})
    assert _wait(lambda: (work / "child.pid").exists() and "started" in (work / "job.log").read_text(), 60)
    child = int((work / "child.pid").read_text())
    client.kill()
    client.wait()
    assert _wait(lambda: not pid_alive(child)), "the child outlived its client"
    assert not (work / "out.csv").exists()
    assert proc.poll() is None  # the server goes on serving


STARTER = textwrap.dedent("""
    import sys, time
    from lsadyn.paper import jobrunner
    path = jobrunner.start(scripts=[], preload=("numpy",))
    print(path, jobrunner._STATE["server"].pid, flush=True)
    if sys.argv[1] == "stop":
        while not __import__("os").path.exists(path):
            time.sleep(0.05)
        jobrunner.stop()
        print("stopped", flush=True)
    time.sleep(120)
""")


def test_server_dies_with_its_parent_and_stop_removes_the_socket(tmp_path):
    starter = tmp_path / "starter.py"
    starter.write_text(STARTER)
    p = subprocess.Popen([sys.executable, str(starter), "kill"], env=ENV, stdout=subprocess.PIPE, text=True)
    path, pid = p.stdout.readline().split()
    pid = int(pid)
    assert _wait(lambda: os.path.exists(path), 60)
    assert Path(path).parent.stat().st_mode & 0o777 == 0o700
    p.kill()
    p.wait()
    assert _wait(lambda: not pid_alive(pid)), "the server outlived the process that started it"
    assert not os.path.exists(path)

    p = subprocess.Popen([sys.executable, str(starter), "stop"], env=ENV, stdout=subprocess.PIPE, text=True)
    path, pid = p.stdout.readline().split()
    assert p.stdout.readline().strip() == "stopped"
    assert not pid_alive(int(pid)) and not os.path.exists(Path(path).parent)
    p.kill()
    p.wait()


class _Job:
    def __init__(self, script):
        self.is_script = script  # as snakemake.jobs.Job.is_script: the rule has a `script:`


class _DAG:
    def __init__(self, scripts, others):
        self.jobs = [_Job(True)] * scripts + [_Job(False)] * others

    def needrun_jobs(self):
        return iter(self.jobs)


class _Workflow:
    def __init__(self, local=True, dry=False, remote=False, scripts=50, others=1):
        self.local_exec, self.dryrun, self.remote_exec, self.basedir = local, dry, remote, str(ROOT)
        self.dag = _DAG(scripts, others)


@pytest.mark.parametrize("wf", [_Workflow(local=False), _Workflow(dry=True), _Workflow(remote=True)])
def test_no_server_for_cluster_remote_or_dry_runs(wf):
    assert jobrunner.start(wf) is None
    assert jobrunner._STATE["server"] is None and jobrunner.SOCKET_ENV not in os.environ


def test_switch_off_starts_no_server(monkeypatch):
    monkeypatch.setenv(jobrunner.SWITCH_ENV, "0")
    assert jobrunner.start(_Workflow()) is None
    assert jobrunner._STATE["server"] is None


def test_a_build_with_few_script_jobs_starts_no_server_and_a_larger_one_does(tmp_path, monkeypatch):
    """Rebuilding a figure or two: the server's imports would cost more than they save (jobrunner.MIN_SCRIPT_JOBS,
    measured); jobs without a `script:` (shell, run, the `all` rule) do not count; the threshold can be set."""
    monkeypatch.delenv(jobrunner.MIN_JOBS_ENV, raising=False)
    few = jobrunner.MIN_SCRIPT_JOBS - 1
    small = {"scripts": [tmp_path / "none.py"], "preload": ()}  # a server that imports nothing (starts at once)
    assert jobrunner.script_jobs(_Workflow(scripts=few, others=10)) == few
    assert jobrunner.start(_Workflow(scripts=few, others=10), **small) is None
    assert jobrunner._STATE["server"] is None and jobrunner.SOCKET_ENV not in os.environ
    assert jobrunner.start(_Workflow(scripts=1, others=0), **small, min_jobs=2) is None
    monkeypatch.setenv(jobrunner.MIN_JOBS_ENV, "100")
    assert jobrunner.start(_Workflow(scripts=few + 1), **small) is None
    for env, workflow, kw in ((None, _Workflow(scripts=few + 1), {}), ("1", _Workflow(scripts=1, others=0), {}),
                              ("100", _Workflow(scripts=1, others=0), {"min_jobs": 1})):
        if env is None:
            monkeypatch.delenv(jobrunner.MIN_JOBS_ENV)
        else:
            monkeypatch.setenv(jobrunner.MIN_JOBS_ENV, env)
        path = jobrunner.start(workflow, **small, **kw)
        try:
            assert path and os.environ[jobrunner.SOCKET_ENV] == path
            proc = jobrunner._STATE["server"]
            assert proc is not None and proc.poll() is None
        finally:
            jobrunner.stop()
        assert proc.poll() is not None and jobrunner.SOCKET_ENV not in os.environ


@pytest.mark.parametrize("argv,runs_jobs", [
    (["--cores", "2", "--configfile", "workflow/config/quick.yaml"], True), (["-c2", "-p"], True),
    (["-j", "4", "--forceall"], True), (["-n"], False), (["-np", "--cores", "2"], False), (["--dry-run"], False),
    (["--lint"], False), (["--dag"], False), (["--list-rules"], False), (["-S"], False), (["--report=r.html"], False),
    (["--unlock"], False), (["--touch"], False), (["--cores", "1", "--summary"], False)])
def test_prestart_only_for_a_command_line_that_runs_jobs(tmp_path, argv, runs_jobs):
    small = {"scripts": [tmp_path / "none.py"], "preload": ()}
    assert jobrunner._runs_no_jobs(argv) is not runs_jobs
    path = jobrunner.prestart(_Workflow(), argv=argv, **small)
    try:
        assert bool(path) is runs_jobs and (jobrunner._STATE["server"] is not None) is runs_jobs
    finally:
        jobrunner.stop()


@pytest.mark.parametrize("wf", [_Workflow(local=False), _Workflow(dry=True), _Workflow(remote=True)])
def test_no_prestart_for_cluster_remote_or_dry_runs(wf, tmp_path, monkeypatch):
    assert jobrunner.prestart(wf, argv=["--cores", "2"], scripts=[tmp_path / "none.py"], preload=()) is None
    monkeypatch.setenv(jobrunner.SWITCH_ENV, "0")
    assert jobrunner.prestart(_Workflow(), argv=["--cores", "2"], scripts=[tmp_path / "none.py"], preload=()) is None
    assert jobrunner._STATE["server"] is None and jobrunner.SOCKET_ENV not in os.environ


def test_a_prestarted_server_is_kept_for_a_build_and_stopped_for_a_small_one(tmp_path, monkeypatch):
    """The Snakefile starts the server while Snakemake parses it (jobrunner.prestart); at onstart, start() keeps it
    for a build with enough script jobs and stops it otherwise (jobrunner.MIN_SCRIPT_JOBS)."""
    monkeypatch.delenv(jobrunner.MIN_JOBS_ENV, raising=False)
    small = {"scripts": [tmp_path / "none.py"], "preload": ()}
    try:
        path = jobrunner.prestart(_Workflow(), argv=["--cores", "2"], **small)
        proc = jobrunner._STATE["server"]
        assert path and jobrunner.start(_Workflow(scripts=jobrunner.MIN_SCRIPT_JOBS)) == path
        assert jobrunner._STATE["server"] is proc and proc.poll() is None and os.environ[jobrunner.SOCKET_ENV] == path
        jobrunner.stop()
        assert jobrunner.prestart(_Workflow(), argv=["--cores", "2"], **small)
        proc = jobrunner._STATE["server"]
        assert jobrunner.start(_Workflow(scripts=jobrunner.MIN_SCRIPT_JOBS - 1, others=10)) is None
        assert proc.wait(timeout=20) is not None
        assert jobrunner._STATE["server"] is None and jobrunner.SOCKET_ENV not in os.environ
    finally:
        jobrunner.stop()


def test_every_script_and_notebook_hands_off_before_its_other_imports():
    files = sorted([*ROOT.glob("workflow/scripts/*.py"), *ROOT.glob("workflow/notebooks/*.py")])
    assert len(files) > 20
    for f in files:
        imports = [ln for ln in f.read_text().splitlines() if re.match(r"(import|from) ", ln)]
        assert imports and imports[0].startswith("import lsadyn.paper.handoff"), f
    text = (ROOT / "Snakefile").read_text()
    assert "jobrunner.start(workflow)" in re.search(r"onstart:\n((?:    .*\n)+)", text).group(1)
    assert "jobrunner.stop()" in re.search(r"onsuccess:\n((?:    .*\n)+)", text).group(1)
    assert "jobrunner.stop()" in re.search(r"onerror:\n((?:    .*\n)+)", text).group(1)


TINY = textwrap.dedent("""
    from lsadyn.paper import jobrunner

    onstart:
        jobrunner.start(workflow, scripts=["job.py"], preload=("numpy", "pandas", "snakemake.script"))

    onsuccess:
        jobrunner.stop()

    onerror:
        jobrunner.stop()

    rule all:
        input:
            expand("out/{i}.txt", i=range(6)),

    rule one:
        output:
            "out/{i}.txt",
        log:
            "logs/{i}.log",
        script:
            "job.py"
""")
TINY_JOB = textwrap.dedent("""
    import lsadyn.paper.handoff
    import os, time
    from lsadyn.paper import jobrunner
    from lsadyn_workflow.io import setup_log
    log = setup_log(snakemake.log[0])
    time.sleep(0.5 + (2.0 if snakemake.wildcards.i == "0" else 0))
    if snakemake.wildcards.i == os.environ.get("FAIL"):
        raise ValueError("job " + snakemake.wildcards.i + " fails")
    with open(snakemake.output[0], "w") as fh:  # handed off? did the build start a server?
        fh.write(f"{jobrunner._STATE['in_child']} {jobrunner.SOCKET_ENV in os.environ}\\n")
    if jobrunner.SOCKET_ENV in os.environ:  # where the server's socket is
        with open(snakemake.output[0] + ".socket", "w") as fh:
            fh.write(os.environ[jobrunner.SOCKET_ENV])
""")


@pytest.mark.slow
def test_a_local_snakemake_build_hands_its_jobs_off_and_reports_their_errors(tmp_path):
    (tmp_path / "Snakefile").write_text(TINY)
    (tmp_path / "job.py").write_text(TINY_JOB)
    # a TMPDIR of this build's own (short: the socket's path must fit AF_UNIX's ~108 bytes): the server's socket
    # directory is made there, and no other test's build (xdist runs them side by side) can put one there
    tmp = Path(tempfile.mkdtemp(prefix="lsadyn-t-"))
    env = {**ENV, "TMPDIR": str(tmp)}
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    handed = [(tmp_path / "out" / f"{i}.txt").read_text().split() for i in range(6)]
    assert ["True", "True"] in handed, handed  # job 0 takes long enough for the server to get ready for later jobs
    assert all(server == "True" for _, server in handed), handed
    sockets = {Path(f.read_text()) for f in (tmp_path / "out").glob("*.socket")}
    assert len(sockets) == 1 and next(iter(sockets)).parent.parent == tmp, sockets  # in this build's TMPDIR
    assert not list(tmp.glob("lsadyn-jobs-*"))  # the socket's directory is removed at the end
    for f in (tmp_path / "out").glob("*.socket"):
        f.unlink()
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp_path / "out" / "1.txt").unlink()  # a one-job rebuild starts no server (jobrunner.MIN_SCRIPT_JOBS)
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path, env=ENV,
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "1.txt").read_text().split() == ["False", "False"]
    for f in (tmp_path / "out").glob("*.txt"):
        f.unlink()
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path,
                       env={**ENV, "FAIL": "5"}, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 1
    assert "lsadyn: error: job 5 fails" in r.stdout + r.stderr
    assert not (tmp_path / "out" / "5.txt").exists()


STARTUP_JOB = textwrap.dedent("""
    import os
    from lsadyn.paper import jobrunner
    with open(snakemake.output[0], "w") as fh:  # no `import lsadyn.paper.handoff`: only the startup hand-off
        fh.write(f"{jobrunner._STATE['in_child']}\\n")
""")


def test_a_job_script_is_handed_off_while_python_starts(tmp_path):
    """With jobrunner.JOB_SITE first on PYTHONPATH (as the server sets it for a build's jobs), a process running
    Snakemake's temporary copy of a script (.snakemake/scripts/tmp*.py) is handed off by sitecustomize.py before
    any of the script runs: a script without the hand-off import runs in the server's child."""
    env = {**ENV, "PYTHONPATH": os.pathsep.join([jobrunner.JOB_SITE, str(SRC)]), "OPENBLAS_NUM_THREADS": "1"}
    sock = tmp_path / "sock"
    sock.mkdir(mode=0o700)
    path = str(sock / "socket")
    proc = subprocess.Popen([sys.executable, "-m", "lsadyn.paper.jobrunner", path, str(os.getpid()), "--preload", ""],
                            env=env, start_new_session=True)
    try:
        _server_pid_ready(path, proc)
        scripts = tmp_path / ".snakemake" / "scripts"
        scripts.mkdir(parents=True)
        for name in ("tmpab12.job.py", "other.py"):  # Snakemake's name for a script copy, and any other script
            (scripts / name).write_text("import os, sys\nfrom lsadyn.paper import jobrunner\n"
                                        "print(jobrunner._STATE['in_child'], os.getppid() == int(sys.argv[1]))\n")
        runs = [subprocess.run([sys.executable, str(scripts / name), str(proc.pid)], cwd=tmp_path,
                               env={**env, jobrunner.SOCKET_ENV: path}, capture_output=True, text=True, timeout=60,
                               check=True).stdout.split() for name in ("tmpab12.job.py", "other.py")]
        assert runs == [["True", "True"], ["False", "False"]]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_jobs_are_handed_off_while_python_starts_before_the_snakemake_preamble(tmp_path):
    """The server puts jobrunner.JOB_SITE first on the jobs' PYTHONPATH: its sitecustomize.py hands a job script
    off before Snakemake's preamble (import snakemake, unpickle the job) runs in the client. A script without
    `import lsadyn.paper.handoff` still runs in the server's child; after the build PYTHONPATH is as before."""
    (tmp_path / "Snakefile").write_text(TINY)
    (tmp_path / "job.py").write_text(STARTUP_JOB)
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path, env=ENV,
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    assert [(tmp_path / "out" / f"{i}.txt").read_text().split() for i in range(6)] == [["True"]] * 6
    assert "RuntimeWarning" not in r.stderr


def test_is_snakemake_script():
    assert jobrunner.is_snakemake_script("/w/.snakemake/scripts/tmpab12_x.fig_case1.py")
    assert jobrunner.is_snakemake_script(".snakemake/scripts/tmpq.compile_kernels.py")
    for path in ("/w/workflow/scripts/tmp.py", "/w/.snakemake/scripts/fig.py", "/w/.snakemake/tmp.py",
                 "/w/.snakemake/scripts/tmpx.R", "-m", "-c", ""):
        assert not jobrunner.is_snakemake_script(path), path


def test_job_site_imports_the_sitecustomize_it_shadows(tmp_path):
    """Any process with jobrunner.JOB_SITE on its path that is not a job (here: no server, not a job script) goes
    on as without it: another sitecustomize later on the path is imported once; with none, nothing fails."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import sys\nsys.stderr.write('other sitecustomize\\n')\nMARK = 1\n")
    code = "import sitecustomize, sys; print(getattr(sitecustomize, 'MARK', None))"
    env = {**ENV, "PYTHONPATH": os.pathsep.join([jobrunner.JOB_SITE, str(other), str(SRC)]),
           jobrunner.SOCKET_ENV: str(tmp_path / "no-socket")}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert r.stdout.split() == ["1"] and r.stderr.count("other sitecustomize") == 1
    env["PYTHONPATH"] = os.pathsep.join([jobrunner.JOB_SITE, str(SRC)])
    r = subprocess.run([sys.executable, "-c", "import sys; print(sys.modules['sitecustomize'].__file__)"], env=env,
                       capture_output=True, text=True, timeout=60, check=True)
    assert r.stdout.strip().startswith(jobrunner.JOB_SITE) and not r.stderr


INTERRUPTIBLE = textwrap.dedent("""
    from lsadyn.paper import jobrunner
    from lsadyn.paper.interrupts import finish, install

    onstart:
        install(workflow)
        jobrunner.start(workflow, scripts=["job.py"], preload=("numpy", "pandas", "snakemake.script"))

    onsuccess:
        jobrunner.stop()

    onerror:
        finish(log)
        jobrunner.stop()

    rule all:
        input:
            expand("out/{i}.txt", i=range(8)),

    rule one:
        output:
            "out/{i}.txt",
        log:
            "logs/{i}.log",
        script:
            "job.py"
""")
INTERRUPTIBLE_JOB = textwrap.dedent("""
    import lsadyn.paper.handoff
    import os, time
    from lsadyn.paper import jobrunner
    from lsadyn_workflow.io import setup_log
    log = setup_log(snakemake.log[0])
    if jobrunner._STATE["in_child"]:  # handed off: wait for the interrupt
        with open(f"handed_{snakemake.wildcards.i}", "w") as fh:
            fh.write(f"{os.getpid()} {os.getppid()}")
        time.sleep(60)
    else:
        time.sleep(1.0)
    with open(snakemake.output[0], "w") as fh:
        fh.write("done\\n")
""")


@pytest.mark.slow
def test_ctrl_c_stops_handed_off_jobs_and_the_server_exit_130(tmp_path):
    (tmp_path / "Snakefile").write_text(INTERRUPTIBLE)
    (tmp_path / "job.py").write_text(INTERRUPTIBLE_JOB)
    p = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tmp_path, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert _wait(lambda: len(list(tmp_path.glob("handed_*"))) == 2, 120), "no job was handed off"
        pids = [tuple(map(int, f.read_text().split())) for f in tmp_path.glob("handed_*")]
        assert _wait(lambda: sum("started" in f.read_text() for f in (tmp_path / "logs").glob("*.log")) >= 2)
        os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C on a terminal does (the server is in its own session)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    for child, server in pids:
        assert not pid_alive(child) and not pid_alive(server)
        i = next(f.name.split("_")[1] for f in tmp_path.glob("handed_*") if f.read_text().startswith(f"{child} "))
        assert not (tmp_path / "out" / f"{i}.txt").exists()
        assert "job interrupted (SIGINT)" in (tmp_path / "logs" / f"{i}.log").read_text()


def test_a_job_started_while_the_server_imports_waits_for_it(tmp_path):
    """The server listens before it imports: a job that starts meanwhile waits and is handed off (instead of
    importing for itself); if the server is stopped while importing, the waiting job runs in its own process and
    the socket is removed."""
    marker = tmp_path / "imported"
    (tmp_path / "slow_import.py").write_text(f"import time\ntime.sleep(1.0)\nopen({str(marker)!r}, 'w').close()\n")
    env = {**ENV, "PYTHONPATH": f"{ENV['PYTHONPATH']}{os.pathsep}{tmp_path}"}
    script, work = _job(tmp_path)
    for stop_it in (False, True):
        d = tmp_path / f"sock{int(stop_it)}"
        d.mkdir(mode=0o700)
        path = str(d / "socket")
        proc = subprocess.Popen([sys.executable, "-m", "lsadyn.paper.jobrunner", path, str(os.getpid()),
                                 "--preload", "numpy,slow_import"], env={**env, "OPENBLAS_NUM_THREADS": "1"},
                                start_new_session=True)
        try:
            marker.unlink(missing_ok=True)
            _server_pid_ready(path, proc)
            assert not marker.exists()  # the socket is there before the imports end ...
            client = subprocess.Popen([sys.executable, str(script), "arg1"], cwd=work, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env={**env, jobrunner.SOCKET_ENV: path})
            if stop_it:
                time.sleep(0.3)
                proc.terminate()
                assert proc.wait(timeout=5) != 0
                assert not os.path.exists(path)
            _, err = client.communicate("hello\n", timeout=60)
            assert client.returncode == 0, err
            ppid = __import__("json").loads((work / "out.json").read_text())["ppid"]
            assert (ppid != proc.pid) if stop_it else (ppid == proc.pid)  # ... and the job waited for them
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_kernels_cached_after_the_server_started_are_loaded_once_for_later_jobs(tmp_path):
    """On a machine's first build the server imports lsadyn before the compile_kernels job fills numba's cache: the
    kernels cached since are loaded by the server before its next fork, so later jobs inherit them compiled
    (instead of each loading them from disk)."""
    env = {**ENV, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "OPENBLAS_NUM_THREADS": "1"}
    job = PREAMBLE + textwrap.dedent("""
        from lsadyn import compiled_sphere
        with open("out.txt", "a") as fh:
            fh.write(f"{len(compiled_sphere.norm_drift.signatures)}\\n")
    """)
    script, work = _job(tmp_path, job)
    d = tmp_path / "sock"
    d.mkdir(mode=0o700)
    path = str(d / "socket")
    proc = subprocess.Popen([sys.executable, "-m", "lsadyn.paper.jobrunner", path, str(os.getpid()),
                             "--preload", "numpy,lsadyn.compiled_sphere"], env=env, start_new_session=True)
    try:
        _server_pid_ready(path, proc)
        handed = {**env, jobrunner.SOCKET_ENV: path}
        assert _run(script, work, handed).returncode == 0  # before: nothing cached, nothing loaded
        compile_it = "import numpy as np; from lsadyn import compiled_sphere as c; c.norm_drift(np.ones((2, 3)))"
        subprocess.run([sys.executable, "-c", compile_it], env=env, check=True, timeout=120)  # another job compiles
        assert _run(script, work, handed).returncode == 0
        assert (work / "out.txt").read_text().split() == ["0", "1"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
