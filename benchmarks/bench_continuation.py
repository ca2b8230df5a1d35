"""Wall time of continuing one two-parameter plane of the OA flow (issue 29 target: <= 10 s per plane).

Each plane of the paper config's ``continuation.planes`` is continued ``--repeats`` times with
:func:`lsadyn.paper.continuation.runs.run_plane` (the stage's own call); the best and median wall times, the
rows, branches and curves (with the interior limit-cycle branches, cycle-fold curves and the seconds the last
repeat spent on them) are written to benchmarks/continuation.json. Run under the shared heavy lock.
Usage: ``python benchmarks/bench_continuation.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn.paper.continuation.plan import planes
from lsadyn.paper.continuation.runs import run_plane

OUT = Path(__file__).with_name("continuation.json")
TARGET_S = 10.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    cfg = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())
    settings = {k: v for k, v in cfg["continuation"].items() if k != "planes"}
    out = {"config": "workflow/config/config.yaml", "settings": settings, "target_seconds": TARGET_S,
           "python": platform.python_version(), "machine": platform.machine(),
           "machine_note": "measured on the shared 2-core dev machine under the heavy lock", "planes": {}}
    for pl in planes(cfg):
        times, df, info = [], None, None
        for _ in range(max(1, args.repeats)):
            t0 = time.perf_counter()
            df, info = run_plane(pl, cfg["beta"], cfg["bifurcation"]["a"], settings)
            times.append(time.perf_counter() - t0)
        out["planes"][pl["name"]] = {
            "family": pl["family"], "best_s": round(min(times), 3), "median_s": round(float(np.median(times)), 3),
            "rows": len(df), "branches": int(info["n_branches"]), "curves": int(info["n_curves"]),
            "rows_by_kind": {k: int(v) for k, v in df.groupby(["kind", "location"]).size().items().__iter__()
                             for k, v in [("/".join(k), v)]},
            "cycle_branches": int(info["n_cycle_branches"]), "cycle_fold_curves": int(info["n_cycle_folds"]),
            "cycle_seconds_last": round(float(info["cycle_seconds"]), 3),
            "within_target": bool(min(times) <= TARGET_S)}
        print(f"{pl['name']:12s} best {min(times):6.2f} s  median {np.median(times):6.2f} s  rows {len(df):5d}  "
              f"curves {info['n_curves']}  cycle branches {info['n_cycle_branches']} "
              f"({info['cycle_seconds']:.2f} s)")
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
