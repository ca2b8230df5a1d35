"""Wall time of the pipeline on this machine: DAG construction, the quick build and (with
``--paper``) the paper build, each in a fresh temporary copy that imports its own src/ (so compiled
kernels are compiled inside the build, into the copy's own results/numba_cache, as on a fresh machine), with
the CPU time of each build (user + system of all its processes, in core-seconds: less sensitive than the
wall time to other work on a shared machine). Prints a table and writes benchmarks/pipeline_timing.json (without
``--paper`` the last paper-build record is kept). Targets: quick build ≤ 40 s, paper build ≤ 4 min on
2 cores. Run it alone (``flock /tmp/lsadyn-heavy.lock``): machines are shared.
Usage: ``python benchmarks/bench_pipeline.py [--paper] [--cores 2]``; then
``python benchmarks/speed_table.py --write`` regenerates the README's Speed section.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
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


def copy_env(repo: Path) -> dict:
    """The environment of a build in ``repo``: its own src/ first on PYTHONPATH (not an installed or
    editable lsadyn elsewhere), and a numba cache of its own (results/numba_cache, empty), so the build
    compiles its kernels as on a fresh machine."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(repo / "results" / "numba_cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def timed(cmd, cwd, cpu=None):
    """Wall time of ``cmd`` in ``cwd``; with a dict ``cpu``, also stores its CPU time under ``cpu["seconds"]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=copy_env(Path(cwd)))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    if cpu is not None:
        cpu["seconds"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall


def job_seconds(repo: Path) -> dict:
    out = {}
    for tsv in sorted((repo / "benchmarks/pipeline").glob("*.tsv")):
        with open(tsv) as fh:
            out[tsv.stem] = float(next(csv.DictReader(fh, delimiter="\t"))["s"])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--paper", action="store_true", help="also time the paper-fidelity build (minutes)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="copy the paper build's results/ and paper_figures/ here")
    args = ap.parse_args(argv)
    smk = [sys.executable, "-m", "snakemake"]
    result = {"machine": platform.platform(), "cpus": os.cpu_count(), "cores": args.cores}
    with tempfile.TemporaryDirectory() as tmp:
        quick = fresh_copy(Path(tmp) / "quick")
        result["dag_seconds"] = min(timed(smk + ["-n"], quick) for _ in range(3))
        cpu = {}
        result["quick_build_seconds"] = timed(smk + ["--cores", str(args.cores), "--configfile",
                                                     "workflow/config/quick.yaml"], quick, cpu)
        result["quick_build_cpu_seconds"] = cpu["seconds"]
        result["quick_job_seconds"] = job_seconds(quick)
        result["quick_measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        if args.paper:
            paper = fresh_copy(Path(tmp) / "paper")
            cpu = {}
            result["paper_build_seconds"] = timed(smk + ["--cores", str(args.cores)], paper, cpu)
            result["paper_build_cpu_seconds"] = cpu["seconds"]
            result["paper_job_seconds"] = job_seconds(paper)
            result["paper_measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            if args.keep:
                for sub in ("results", "paper_figures"):
                    shutil.copytree(paper / sub, args.keep / sub, dirs_exist_ok=True)
    print(f"{'measurement':<34}{'seconds':>10}")
    for key in ("dag_seconds", "quick_build_seconds", "quick_build_cpu_seconds", "paper_build_seconds",
                "paper_build_cpu_seconds"):
        if key in result:
            print(f"{key:<34}{result[key]:>10.1f}")
    for key in ("quick_job_seconds", "paper_job_seconds"):
        for job, s in result.get(key, {}).items():
            print(f"  {key.split('_')[0]}: {job:<26}{s:>10.1f}")
    targets = {"dag_under_5s": result["dag_seconds"] < 5, "quick_under_40s": result["quick_build_seconds"] <= 40}
    if "paper_build_seconds" in result:
        targets["paper_under_240s"] = result["paper_build_seconds"] <= 240
        targets["each_highdim_run_under_120s"] = all(
            s < 120 for j, s in result["paper_job_seconds"].items() if j.startswith("highdim"))
    elif OUT.exists():  # keep the last paper-build measurement (and say when it was taken)
        old = json.loads(OUT.read_text())
        for key in ("paper_build_seconds", "paper_build_cpu_seconds", "paper_job_seconds", "paper_measured_at"):
            if key in old:
                result[key] = old[key]
        if "paper_build_seconds" in old:
            targets["paper_under_240s"] = old["paper_build_seconds"] <= 240
    result["targets"] = targets
    print("targets:", ", ".join(f"{k}: {'met' if v else 'NOT MET'}" for k, v in targets.items()))
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
