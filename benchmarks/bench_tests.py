"""Time the README's test commands: ``python3 -m pytest -m "not slow"`` (fast tests) and ``python3 -m pytest``
(the full suite), each in a fresh clone of the checkout's HEAD (as a user runs them: a git work tree, no results or
caches; uncommitted changes are not measured, and a warning says so), one after the other.

Issue #11's targets on 2 cores: fast tests ≤ 45 s, full suite ≤ 4 min. Records wall and CPU seconds (the
pytest process and all its children), the pytest summary line, the exit code and the load average before each
run in benchmarks/test_timing.json; ``python benchmarks/speed_table.py --write`` puts them in the Speed table of
docs/performance.md. The numba kernels are taken from the machine's cache (warm after any build or test run on the
machine), as in a user's second run. Run it alone (``flock /tmp/lsadyn-heavy.lock``): machines are shared.

Usage: ``python benchmarks/bench_tests.py [--fast-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("test_timing.json")
COMMANDS = {  # name -> (label, pytest arguments, target in seconds)
    "fast": ('`python3 -m pytest -m "not slow"` (fast tests)', ["-m", "not slow"], 45.0),
    "full": ("`python3 -m pytest` (full suite)", [], 240.0),
}


def time_pytest(args: list[str]) -> dict:
    """Run pytest with ``args`` in a fresh clone of HEAD; wall and CPU seconds, summary line, exit code."""
    if subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                      capture_output=True, text=True, check=True).stdout.strip():
        print("  warning: the checkout has uncommitted changes; the clone measures HEAD without them", flush=True)
    with tempfile.TemporaryDirectory(prefix="lsadyn-bench-tests-") as tmp:
        copy = Path(tmp) / "lsadyn"
        # a clone, not a copy of the files: tests that read the git tree (test_release) then run as in a user's clone
        subprocess.run(["git", "clone", "-q", str(ROOT), str(copy)], check=True)
        env = {**os.environ, "PYTHONPATH": str(copy / "src"), "MPLBACKEND": "Agg"}
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=copy, env=env,
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    summary = lines[-1].strip("= ") if lines else ""
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-2000:])
    return {"seconds": round(wall, 2),
            "cpu_seconds": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
            "summary": summary, "exit_code": proc.returncode, "load_average_1min": round(load, 2),
            "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast-only", action="store_true", help="time the fast tests only (keep the full-suite record)")
    args = ap.parse_args(argv)
    try:
        record = json.loads(OUT.read_text())
    except FileNotFoundError:
        record = {}
    except json.JSONDecodeError as e:
        sys.exit(f"{OUT.relative_to(ROOT)}: not valid JSON ({e.msg}, line {e.lineno}); delete it to start a new record")
    runs = record.get("runs", {})
    for name, (label, pytest_args, target) in COMMANDS.items():
        if args.fast_only and name != "fast":
            continue
        print(f"timing {label} ...", flush=True)
        rec = time_pytest(pytest_args)
        rec.update(label=label, target_seconds=target)
        runs[name] = rec
        print(f"  {rec['seconds']:.1f} s wall, {rec['cpu_seconds']:.0f} core-s, exit {rec['exit_code']}: {rec['summary']}")
    record = {"machine": platform.platform(), "cpus": os.cpu_count(), "runs": runs}
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    tmp.replace(OUT)
    print("\n| command | wall | CPU | target | met |\n|---|---|---|---|---|")
    for rec in runs.values():
        met = rec["exit_code"] == 0 and rec["seconds"] <= rec["target_seconds"]
        print(f"| {rec['label']} | {rec['seconds']:.1f} s | {rec['cpu_seconds']:.0f} core-s "
              f"| ≤ {rec['target_seconds']:.0f} s | {'yes' if met else 'no'} |")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0 if all(r["exit_code"] == 0 for r in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
