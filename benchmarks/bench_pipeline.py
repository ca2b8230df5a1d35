"""Wall time of the pipeline on this machine: DAG construction, the quick build and the paper build, each
in a fresh temporary copy that imports its own src/, with the CPU time of each build (user + system of all its
processes, in core-seconds: less sensitive than the wall time to other work on a shared machine).

Every build is timed twice, in two fresh copies sharing one numba cache that starts empty (lsadyn._kernel_cache
files the compiled kernels by their sources' contents, not by the checkout's path):

- ``first``: the first build on a machine, whose ``compile_kernels`` job compiles the numba kernels;
- ``cached``: a build in another fresh copy with the kernels already compiled on this machine (by an earlier
  build, another clone or the tests: what a user waits for after changing a parameter in a new copy).

Each record says what its ``compile_kernels`` job did (results/sim/kernels_compiled.txt: "compiled ..." or
"loaded from the cache ..."), and the benchmark fails if a first build loaded or a cached build compiled.
Prints a table and writes benchmarks/pipeline_timing.json. Targets: quick build ≤ 45 s, paper build ≤ 4 min on
2 cores. Run it alone (``flock /tmp/lsadyn-heavy.lock``): machines are shared.

Usage: ``python benchmarks/bench_pipeline.py`` (all four builds, 20–30 min on 2 cores) or ``--quick-only`` (the
two quick builds; the last paper-build records are kept); then ``python benchmarks/speed_table.py --write`` regenerates the Speed table of
docs/performance.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("pipeline_timing.json")
SKIP = {"results", "paper_figures", "logs", ".snakemake", ".git", ".venv", ".hypothesis", ".pytest_cache"}


def fresh_copy(dest: Path) -> Path:
    def ignore(folder, names):
        top = Path(folder) == ROOT
        return [n for n in names if (top and n in SKIP) or n == "__pycache__" or n.endswith(".egg-info")
                or (Path(folder).name == "benchmarks" and n == "pipeline")]

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


BUILDS = {  # name: (config files, label, extra environment)
    "quick_first": (["workflow/config/quick.yaml"], "quick build, first on the machine (compiles the kernels)", {}),
    "quick_cached": (["workflow/config/quick.yaml"], "quick build, kernels already compiled on the machine", {}),
    "paper_first": ([], "paper build, first on the machine (compiles the kernels)", {}),
    "paper_cached": ([], "paper build, kernels already compiled on the machine", {}),
}


def copy_env(repo: Path, numba_cache: Path) -> dict:
    """The environment of a build in ``repo``: its own src/ and workflow/lib/ on PYTHONPATH, in place of any
    other checkout's (not an installed or editable lsadyn elsewhere: the Snakefile stops if it would import one),
    and the numba cache ``numba_cache`` (not the user's)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache))
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), str(repo / "workflow/lib")])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def timed(cmd, cwd, numba_cache, cpu=None, env=None):
    """Wall time of ``cmd`` in ``cwd``; with a dict ``cpu``, also stores its CPU time under ``cpu["seconds"]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       env={**copy_env(Path(cwd), numba_cache), **(env or {})}, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    if cpu is not None:
        cpu["seconds"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall


def job_seconds(repo: Path) -> dict:
    """Each benchmarked job's wall seconds from its rule's ``benchmark:`` file."""
    out = {}
    for tsv in sorted((repo / "benchmarks/pipeline").glob("*.tsv")):
        with open(tsv) as fh:
            out[tsv.stem] = float(next(csv.DictReader(fh, delimiter="\t"))["s"])
    return out


CPU_LINE = re.compile(r"finished in [0-9.]+ s, ([0-9.]+) core-s of CPU")
IMPORT_LINE = re.compile(r"started \(pid \d+\) after ([0-9.]+) core-s of CPU")


def job_cpu_seconds(jobs: dict, repo: Path) -> tuple[dict, dict]:
    """Each job of ``jobs`` (:func:`snakemake_jobs`) with a log: its core-seconds of CPU, its whole process with its
    imports and children (user + system), from the last line of its log (lsadyn_workflow.io writes ``finished in …
    s, … core-s of CPU …``), and the part of them before its work, the interpreter and its script's imports, from
    the first line (``started (pid …) after … core-s of CPU …``; the script opens its log after its imports; jobs
    whose log lacks it, an older checkout's, are left out of this second dict). Each log is read once.

    Not the ``cpu_time`` column of its ``benchmark:`` file: Snakemake samples that at intervals (30 s after the
    first few seconds), so a long job's column stops at the last sample (about 15 core-s for a 40 s job here)."""
    cpu, imports = {}, {}
    for j in jobs.values():
        if "log" not in j:
            continue
        name, log = j["name"], repo / j["log"]
        text = log.read_text() if log.is_file() else ""
        found = CPU_LINE.findall(text)
        if not found:
            raise SystemExit(f"{j['log']}: no 'finished in … core-s of CPU' line (the job of {name} did not log it)")
        cpu[name] = float(found[-1])
        before = IMPORT_LINE.findall(text)
        if before:
            imports[name] = float(before[0])
    return cpu, imports


def snakemake_jobs(repo: Path) -> tuple[dict, dict]:
    """The last build's jobs from Snakemake's log (``.snakemake/log/``, the newest): ({jobid: {name (benchmark file
    stem or rule name), input, output, log}}, {output file: jobid})."""
    log = max((repo / ".snakemake/log").glob("*.snakemake.log"), key=lambda f: f.stat().st_mtime)
    jobs, producer, cur = {}, {}, None
    for line in log.read_text().splitlines():
        text = line.strip()
        if line.startswith(("rule ", "localrule ")) and text.endswith(":"):
            rule = text.split()[1].rstrip(":")
            cur = {"name": rule, "rule": rule, "input": [], "output": []}
        elif cur is not None and text.startswith(("input:", "output:")):
            key, _, files = text.partition(":")
            cur[key] = [f.strip() for f in files.split(",")]
        elif cur is not None and text.startswith("jobid:"):
            cur["id"] = int(text.split(":")[1])
            jobs[cur["id"]] = cur
            producer.update({f: cur["id"] for f in cur["output"]})
        elif cur is not None and text.startswith("benchmark:"):
            cur["name"] = Path(text.split(":", 1)[1].strip()).stem
        elif cur is not None and text.startswith("log:"):
            cur["log"] = text.split(":", 1)[1].strip()
    return jobs, producer


def job_graph(jobs: dict, producer: dict) -> dict:
    """{jobid: (benchmark file stem or rule name, jobids of the jobs whose outputs it reads)} of the jobs of
    :func:`snakemake_jobs`."""
    return {i: (j["name"], sorted({producer[f] for f in j["input"] if f in producer})) for i, j in jobs.items()}


def floor(jobs: dict, producer: dict, cpu: dict, cores: int, imports: dict | None = None) -> dict:
    """What no schedule of this build's jobs on ``cores`` cores beats, from each job's CPU seconds ``cpu`` (from its
    log): their sum over ``cores`` and the longest chain of jobs that wait for one another. Snakemake's own process
    (DAG, scheduling, output checks) comes on top: the build's CPU seconds minus the jobs'.

    With each job's CPU before its work, ``imports`` (the second dict of :func:`job_cpu_seconds`), also the jobs'
    CPU split into imports and work; and (:func:`regrouped_bound`) what no regrouping of the same work into fewer
    jobs beats.
    """
    graph = job_graph(jobs, producer)
    memo = {}

    def chain(i):  # (CPU seconds, job names) of the costliest chain ending in job i
        if i not in memo:
            name, deps = graph[i]
            best = max((chain(d) for d in deps), default=(0.0, []))
            memo[i] = (best[0] + cpu.get(name, 0.0), best[1] + [name])
        return memo[i]

    longest = max((chain(i) for i in graph), default=(0.0, []))
    total = sum(cpu.values())
    out = {"jobs": len(graph), "job_cpu_seconds": total, "cpu_from": "job logs",
           "longest_chain_cpu_seconds": longest[0], "longest_chain": [n for n in longest[1] if n in cpu],
           "floor_seconds": max(total / cores, longest[0])}
    if imports and set(imports) >= set(cpu):
        out.update({"import_cpu_seconds": sum(imports[n] for n in cpu),
                    "work_cpu_seconds": sum(max(0.0, cpu[n] - imports[n]) for n in cpu)})
    out.update(regrouped_bound(cpu, {j["name"]: j["rule"] for j in jobs.values()}, cores))
    return out


def regrouped_bound(cpu: dict, rule_of: dict, cores: int) -> dict:
    """A lower bound on any build of the same work with the jobs of each rule merged into one (the fewest jobs these
    rules allow; each figure is a rule of its own, so that editing one reruns only it), from each job's CPU ``cpu``
    and its rule ``rule_of``: a merged job pays its process's fixed cost once, and that cost is at most the whole
    CPU of the rule's cheapest job, so a rule of k jobs costs at least their sum minus k − 1 times the cheapest;
    summed over the rules and divided by ``cores``, with Snakemake's own process not counted."""
    by_rule: dict = {}
    for name, c in cpu.items():
        by_rule.setdefault(rule_of[name], []).append(c)
    cost = sum(sum(v) - (len(v) - 1) * min(v) for v in by_rule.values())
    return {"rules": len(by_rule), "one_job_per_rule_cpu_seconds": cost, "one_job_per_rule_floor_seconds": cost / cores}


def build(name: str, repo: Path, numba_cache: Path, cores: int) -> dict:
    """One timed build in the fresh copy ``repo``; checks that the kernels were compiled (``*_first``) or loaded
    from ``numba_cache`` (``*_cached``) as its name says."""
    configfiles, label, env = BUILDS[name]
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(cores)]
    cmd += ["--configfile", *configfiles] if configfiles else []
    cpu = {}
    print(f"{label} ...", flush=True)
    wall = timed(cmd, repo, numba_cache, cpu, env)
    kernels = (repo / "results/sim/kernels_compiled.txt").read_text().splitlines()[0]
    expected = "compiled" if name.endswith("_first") else "loaded from the cache"
    if not kernels.startswith(expected):
        raise SystemExit(f"{name}: expected the kernels {expected}, the build says: {kernels}")
    jobs, producer = snakemake_jobs(repo)
    job_cpu, job_imports = job_cpu_seconds(jobs, repo)
    return {"label": label, "seconds": wall, "cpu_seconds": cpu["seconds"], "kernels": kernels,
            "job_seconds": job_seconds(repo), "job_cpu_seconds": job_cpu, "job_import_cpu_seconds": job_imports,
            "job_rules": {j["name"]: j["rule"] for j in jobs.values() if j["name"] in job_cpu},
            "floor": floor(jobs, producer, job_cpu, cores, job_imports),
            "load_average_1min": os.getloadavg()[0], "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def slurm_probe_seconds() -> float | None:
    """Wall time of ``scontrol show config``, which snakemake-executor-plugin-slurm runs (timeout 10 s) each time
    snakemake starts, before the first job, on a machine with SLURM's client installed; None without scontrol.
    With no reachable controller (e.g. a slurm.conf left by tests/slurm/start_cluster.sh, the cluster stopped)
    it waits ~9-10 s: that wait is in every build and dry run timed here, and is not the pipeline's doing."""
    exe = shutil.which("scontrol")
    if exe is None:
        return None
    t0 = time.perf_counter()
    try:
        subprocess.run([exe, "show", "config"], capture_output=True, timeout=10, check=False)
    except subprocess.TimeoutExpired:
        pass
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick-only", action="store_true",
                    help="time only the quick builds (keep the last paper-build records)")
    ap.add_argument("--paper", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old commands
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--only", nargs="+", choices=list(BUILDS), help="time only these builds (keep the others' records)")
    ap.add_argument("--keep", type=Path, help="copy each first build's results/ and paper_figures/ (and its "
                    "benchmarks/pipeline/ and log) to KEEP/<build>/")
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON record to write (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    result = {"machine": platform.platform(), "cpus": os.cpu_count(), "cores": args.cores, "builds": {},
              "slurm_probe_seconds": slurm_probe_seconds()}
    names = [n for n in BUILDS if not (args.quick_only and n.startswith("paper")) and (not args.only or n in args.only)]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        caches = {"quick": tmp / "numba_quick", "paper": tmp / "numba_paper"}  # each starts empty
        if not args.only:
            dag = fresh_copy(tmp / "dag")
            result["dag_seconds"] = min(timed([sys.executable, "-m", "snakemake", "-n"], dag, tmp / "numba_dag")
                                        for _ in range(3))
            sweep_cmd = [sys.executable, "-m", "snakemake", "-n", "--configfile", "workflow/config/sweep.yaml"]
            result["sweep_dag_seconds"] = min(timed(sweep_cmd, dag, tmp / "numba_dag") for _ in range(3))
            shutil.rmtree(dag)
        for name in names:
            repo = fresh_copy(tmp / name)
            result["builds"][name] = build(name, repo, caches[name.split("_")[0]], args.cores)
            if args.keep and name.endswith("_first"):
                for sub in ("results", "paper_figures", "benchmarks/pipeline", ".snakemake/log"):
                    shutil.copytree(repo / sub, args.keep / name / sub, dirs_exist_ok=True)
            shutil.rmtree(repo)
    if (args.quick_only or args.only) and args.out.exists():  # keep the other builds' records (each says when)
        old = json.loads(args.out.read_text()).get("builds", {})
        result["builds"] = {k: result["builds"].get(k, old.get(k)) for k in BUILDS
                            if k in result["builds"] or k in old}
        if args.only:  # the DAG timings are not repeated
            result.update({k: v for k, v in json.loads(args.out.read_text()).items()
                           if k in ("dag_seconds", "sweep_dag_seconds")})
    targets = {"dag_under_5s": result["dag_seconds"] < 5, "sweep_dag_under_5s": result["sweep_dag_seconds"] < 5}
    for name, rec in result["builds"].items():
        limit = 45 if name.startswith("quick") else 240
        targets[f"{name}_under_{limit}s"] = rec["seconds"] <= limit
        if name.startswith("paper"):
            targets[f"{name}_each_highdim_run_under_120s"] = all(
                s < 120 for j, s in rec["job_seconds"].items() if j.startswith("highdim"))
    result["targets"] = targets
    print(f"{'measurement':<62}{'wall s':>8}{'CPU s':>8}")
    print(f"{'building the DAG (snakemake -n)':<62}{result['dag_seconds']:>8.1f}")
    print(f"{'building the full sweep DAG (-n --configfile sweep.yaml)':<62}{result['sweep_dag_seconds']:>8.1f}")
    if result["slurm_probe_seconds"] is not None:
        print(f"{'scontrol show config (in every snakemake start)':<62}{result['slurm_probe_seconds']:>8.1f}")
    for name, rec in result["builds"].items():
        print(f"{rec['label']:<62}{rec['seconds']:>8.1f}{rec['cpu_seconds']:>8.1f}   kernels {rec['kernels']}")
        if "floor" in rec:
            fl = rec["floor"]
            print(f"  {fl['jobs']} jobs, {fl['job_cpu_seconds']:.0f} core-s in them (snakemake's own process "
                  f"{rec['cpu_seconds'] - fl['job_cpu_seconds']:.0f} core-s); longest chain "
                  f"{fl['longest_chain_cpu_seconds']:.0f} s ({' -> '.join(fl['longest_chain'])}); floor on "
                  f"{args.cores} cores {fl['floor_seconds']:.0f} s")
            if "work_cpu_seconds" in fl:
                print(f"  imports {fl['import_cpu_seconds']:.0f} core-s, work {fl['work_cpu_seconds']:.0f} core-s")
            if "one_job_per_rule_floor_seconds" in fl:
                print(f"  with one job per rule ({fl['rules']} rules) no build beats "
                      f"{fl['one_job_per_rule_floor_seconds']:.0f} s on {args.cores} cores")
    for name, rec in result["builds"].items():
        for job, s in rec["job_seconds"].items():
            print(f"  {name}: {job:<30}{s:>8.1f}")
    print("targets:", ", ".join(f"{k}: {'met' if v else 'NOT MET'}" for k, v in targets.items()))
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
