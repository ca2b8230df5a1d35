"""Wall time of the d = 2 OA atlas (issue 29 target: 10^5 Gaussian samples in <= 60 s on 2 cores), its floor, and the
same run on an older library for the ratio.

* ``atlas``: ``--samples`` Gaussian weight pairs d = 2 (i.i.d. N(0, 1/2) entries; the sweep's seed of config
  ``atlas``, :func:`lsadyn.paper.atlas.plan.d2_jobs`) labelled by OA from near-uniform starts with the settings of
  ``workflow/config/config.yaml`` ``atlas.d2`` (n_starts, horizon, n_times, budget_factor), by
  :func:`lsadyn.paper.atlas.runs.run_d2` (the stage's own call): the plan's two jobs (``chunks: 2``, the two halves)
  in two worker processes at once, as the pipeline's two ``atlas_part`` jobs run on ``--cores 2``; each process
  limits its BLAS/OpenMP pools to one thread. Both workers first load the compiled kernels (a 2-sample job each);
  the wall time runs from handing them the halves to the last row. Each worker records its CPU seconds and, by
  wrapping :meth:`lsadyn.runs.SmallRunCompiled.advance` (the compiled DOP853 of
  :func:`lsadyn.solvers.phase_points.advance_small` and its Python call), the seconds, steps and field evaluations
  of the OA integration, and the points whose integration failed (labelled ``undetermined``, column ``failed``).
* ``floor``: the integration alone, the larger of the two workers' integrator seconds: the wall time if classifying
  the windows, voting and writing rows were free.
* ``baseline`` (``--baseline-src DIR``): the same run with the library in ``DIR`` (e.g. the per-point-Python
  time scale and vote of e4624c1: ``git archive e4624c1 src | tar -x -C /tmp/base``, then ``--baseline-src
  /tmp/base/src``); its rows must equal the atlas's, bit for bit (checked, recorded).
* ``agreement`` (``--agreement-samples``, 0 skips it): that many of the samples by the default protocol of
  :func:`lsadyn.predict_regime_batch` (8 starts, 400 τ, 8000 samples): fraction of equal labels, core-ms per sample
  of each protocol (one process; the comparison behind ``atlas.d2.n_starts: 1`` in the config).

Writes benchmarks/atlas.json and benchmarks/atlas.md (the table of that record, rendered from the JSON, never typed;
``--table`` renders it again without measuring); docs/performance.md's Speed table reads the JSON
(``benchmarks/speed_table.py``). Run under the shared heavy lock:
``python benchmarks/bench_atlas.py [--samples 100000] [--baseline-src DIR] [--agreement-samples 1000] [--table]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("atlas.json")
TABLE = Path(__file__).with_name("atlas.md")
TARGET_S = 60.0
_STATS = {}  # per worker: the integrator's seconds, steps, evaluations


def _init(src: str) -> None:
    """Worker start: import lsadyn from ``src``, one BLAS/OpenMP thread, time the OA integrator."""
    sys.path.insert(0, src)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    from lsadyn import runs

    real = runs.SmallRunCompiled.advance

    def timed(self, idx, times):
        steps, evals = int(self.nsteps.sum()), int(self.nfev.sum())
        t0 = time.perf_counter()
        try:
            return real(self, idx, times)
        finally:
            _STATS["integrator_s"] += time.perf_counter() - t0
            _STATS["steps"] += int(self.nsteps.sum()) - steps
            _STATS["evaluations"] += int(self.nfev.sum()) - evals

    runs.SmallRunCompiled.advance = timed


def _run(job: dict) -> dict:
    """One job of the d = 2 part in this worker: its rows, wall and CPU seconds, integrator statistics."""
    import lsadyn
    from lsadyn.paper.atlas.runs import run_d2

    _STATS.update(integrator_s=0.0, steps=0, evaluations=0)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = run_d2(job)
    return {"rows": rows, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "pid": os.getpid(),
            "lsadyn": str(Path(lsadyn.__file__).parents[1]), **_STATS}


def _jobs(n: int) -> list[dict]:
    """The plan's two d = 2 jobs of an n-sample Gaussian atlas with the paper config's settings."""
    sys.path.insert(0, str(ROOT / "src"))
    from lsadyn.paper.atlas.plan import d2_jobs

    cfg = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())
    atlas = {**cfg["atlas"], "d2": {**cfg["atlas"]["d2"], "ensembles": ["gaussian"], "n_samples": n, "chunks": 2}}
    return d2_jobs(atlas, int(cfg["seed"]))


def timed_atlas(jobs: list[dict], src: Path) -> tuple[dict, pd.DataFrame]:
    """Both jobs at once in two warmed-up workers importing lsadyn from ``src``: the record and the rows."""
    warm = [{**j, "slices": [{**s, "stop": s["start"] + 2} for s in j["slices"]]} for j in jobs]
    with get_context("spawn").Pool(2, initializer=_init, initargs=(str(src),)) as pool:
        for _ in range(5):  # until both workers have loaded the kernels (a worker may take both small jobs)
            if len({r["pid"] for r in pool.map(_run, warm, chunksize=1)}) == 2:
                break
        t0 = time.perf_counter()
        parts = pool.map(_run, jobs, chunksize=1)
        wall = time.perf_counter() - t0
    if len({p["pid"] for p in parts}) != 2:
        raise SystemExit("bench_atlas: one worker ran both halves; the wall time is not that of 2 cores, rerun")
    rows = pd.concat([p["rows"] for p in parts], ignore_index=True)
    n = len(rows)
    rec = {"samples": n, "processes": 2, "lsadyn": parts[0]["lsadyn"], "wall_s": round(wall, 2),
           "worker_wall_s": [round(p["wall_s"], 2) for p in parts],
           "cpu_s": round(sum(p["cpu_s"] for p in parts), 2),
           "cpu_ms_per_sample": round(sum(p["cpu_s"] for p in parts) / n * 1e3, 4),
           "integrator_s": [round(p["integrator_s"], 2) for p in parts],
           "floor_wall_s": round(max(p["integrator_s"] for p in parts), 2),
           "steps": sum(p["steps"] for p in parts), "evaluations": sum(p["evaluations"] for p in parts),
           "failed": int(rows["failed"].sum()),
           "regime_counts": {k: int(v) for k, v in rows["regime"].value_counts().sort_index().items()},
           "within_target": bool(wall <= TARGET_S)}
    return rec, rows


def agreement(jobs: list[dict], m: int) -> dict:
    """The first ``m`` samples by the default protocol and by the atlas's (one process, kernels loaded)."""
    from lsadyn.api import predict_regime_batch
    from lsadyn.ensembles import weight_pairs
    from lsadyn.paper.atlas.runs import run_d2

    sl = jobs[0]["slices"][0]
    job = {**jobs[0], "slices": [{**sl, "start": 0, "stop": m}]}
    A, V = weight_pairs(sl["ensemble"], 2, int(sl["n_total"]), tuple(sl["seed"]))
    run_d2({**job, "slices": [{**sl, "start": 0, "stop": 2}]})
    c0 = time.process_time()
    ref = predict_regime_batch(A[:m], V[:m], float(job["beta"]))
    c1 = time.process_time()
    fast = run_d2(job)
    c2 = time.process_time()
    return {"samples": m, "default_protocol": "8 starts, horizon 400, 8000 samples",
            "equal_labels": round(float(np.mean(np.array([r.regime for r in ref]) == fast["regime"].to_numpy())), 5),
            "default_cpu_ms_per_sample": round((c1 - c0) / m * 1e3, 3),
            "atlas_cpu_ms_per_sample": round((c2 - c1) / m * 1e3, 3)}


def table(rec: dict) -> str:
    """The markdown table of an atlas.json record."""
    lines = ["# d = 2 OA atlas: wall time of 10⁵ Gaussian samples on 2 cores", "",
             (f"Generated by `benchmarks/bench_atlas.py` from `benchmarks/atlas.json` ({rec['config']}: "
              f"{', '.join(f'{k} {v}' for k, v in rec['settings'].items())}; {rec['machine_note']}; measured "
              f"{rec['measured_at']}; target ≤ {rec['target_seconds']:g} s). Two worker processes run the plan's two "
              "jobs (the halves) at once, as the pipeline's two `atlas_part` jobs on `--cores 2`; the floor is the "
              "compiled OA integration alone (the slower worker's seconds in it)."), "",
             ("| library | samples | wall s | workers' wall s | CPU s | CPU ms per sample | floor: integration s "
              "(per worker) | wall / floor | DOP853 steps | field evaluations | failed points | within target |"),
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rec["runs"].items():
        lines.append(
            f"| {name} (`{r['lsadyn']}`) | {r['samples']:,} | {r['wall_s']:.1f} | "
            f"{' / '.join(f'{w:.1f}' for w in r['worker_wall_s'])} | {r['cpu_s']:.1f} | {r['cpu_ms_per_sample']:.3f} | "
            f"{' / '.join(f'{w:.1f}' for w in r['integrator_s'])} | {r['wall_s'] / r['floor_wall_s']:.2f}× | "
            f"{r['steps']:,} | {r['evaluations']:,} | {r['failed']} | {'yes' if r['within_target'] else '**no**'} |")
    cur = rec["runs"]["current"]
    lines += ["", "Regimes of the current run: " + ", ".join(f"{k} {v:,}" for k, v in cur["regime_counts"].items())
              + "."]
    if "baseline" in rec["runs"]:
        lines.append(f"Current over baseline wall time: {cur['wall_s'] / rec['runs']['baseline']['wall_s']:.2f}×; "
                     f"their rows equal bit for bit: {'yes' if rec['rows_equal_baseline'] else '**no**'}.")
    if rec.get("agreement"):
        a = rec["agreement"]
        lines.append(f"Agreement with the default protocol ({a['default_protocol']}) on the first {a['samples']:,} "
                     f"samples: {100 * a['equal_labels']:.1f} % equal labels, {a['default_cpu_ms_per_sample']:.2f} "
                     f"against {a['atlas_cpu_ms_per_sample']:.2f} CPU ms per sample.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--baseline-src", type=Path, default=None, help="a src/ folder holding another lsadyn")
    ap.add_argument("--agreement-samples", type=int, default=1000)
    ap.add_argument("--table", action="store_true", help="only render benchmarks/atlas.md from the record")
    args = ap.parse_args(argv)
    if args.table:
        TABLE.write_text(table(json.loads(OUT.read_text())))
        return
    if args.samples < 4:
        ap.error(f"--samples: need at least 4 (two halves of >= 2), got {args.samples}")
    if not 0 <= args.agreement_samples <= args.samples // 2:
        ap.error(f"--agreement-samples: expected 0 .. {args.samples // 2} (the first half's samples), "
                 f"got {args.agreement_samples}")
    if args.baseline_src is not None and not (args.baseline_src / "lsadyn/__init__.py").is_file():
        ap.error(f"--baseline-src: {args.baseline_src} holds no lsadyn/__init__.py")
    jobs = _jobs(args.samples)
    runs, rows = {}, {}
    runs["current"], rows["current"] = timed_atlas(jobs, ROOT / "src")
    print(f"current: {args.samples} samples in {runs['current']['wall_s']:.1f} s wall on 2 processes, floor "
          f"{runs['current']['floor_wall_s']:.1f} s")
    if args.baseline_src is not None:
        runs["baseline"], rows["baseline"] = timed_atlas(jobs, args.baseline_src.resolve())
        print(f"baseline: {runs['baseline']['wall_s']:.1f} s wall")
    cfg = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())["atlas"]
    out = {"config": "workflow/config/config.yaml atlas.d2 settings",
           "settings": {k: cfg["d2"][k] for k in ("n_starts", "horizon", "n_times", "budget_factor")},
           "target_seconds": TARGET_S, "python": platform.python_version(), "machine": platform.machine(),
           "machine_note": "measured on the shared 2-core dev machine under the heavy lock",
           "measured_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
           "load_average_1min_after": round(os.getloadavg()[0], 2), "runs": runs}
    if "baseline" in rows:
        try:
            pd.testing.assert_frame_equal(rows["current"], rows["baseline"], check_exact=True)
            out["rows_equal_baseline"] = True
        except AssertionError:
            out["rows_equal_baseline"] = False
    if args.agreement_samples:
        sys.path.insert(0, str(ROOT / "src"))
        out["agreement"] = agreement(jobs, args.agreement_samples)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    TABLE.write_text(table(out))
    print(table(out))
    print("wrote benchmarks/atlas.json, benchmarks/atlas.md")


if __name__ == "__main__":
    main()
