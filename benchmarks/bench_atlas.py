"""Wall time of the d = 2 OA atlas (issue 29 target: 10^5 samples in <= 60 s on 2 cores), where its time goes, and
how its protocol's labels compare with the default one of :func:`lsadyn.predict_regime_batch`.

* ``atlas``: ``--samples`` Gaussian weight pairs with the settings of config ``atlas.d2``
  (:func:`lsadyn.paper.atlas.runs.run_d2`, the stage's own call), split into two equal jobs run by two processes
  (the pipeline's two jobs on two cores); wall time from the start of the pool to the last row.
* ``profile``: cProfile of ``--profile-samples`` samples in one process: seconds in the compiled integrator
  (``advance_small``), the classifier (``classify_r2_trajectory``), the vote over starts (``_vote``) and the time
  scale τ (``time_scale``, one 2-norm SVD pair per sample), the rest of the decision procedure.
* ``agreement``: the same ``--profile-samples`` samples by the default protocol (8 starts, 400 τ, 8000 samples):
  fraction of equal labels, seconds per sample of each protocol.

Writes benchmarks/atlas.json and benchmarks/atlas.csv (one row per measurement). Run under the shared heavy lock:
``python benchmarks/bench_atlas.py [--samples 100000] [--profile-samples 2000]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn.api import predict_regime_batch
from lsadyn.ensembles import weight_pairs
from lsadyn.paper.atlas.runs import run_d2

TARGET_S = 60.0
SEED = (12345, 0, 2)


def _job(cfg, n, a, b):
    job = {"part": "d2", "beta": float(cfg["beta"]),
           **{k: cfg["d2"][k] for k in ("n_starts", "horizon", "n_times", "budget_factor")},
           "slices": [{"ensemble": "gaussian", "seed": list(SEED), "n_total": n, "start": a, "stop": b}]}
    return job


def _run(job):
    run_d2({**job, "slices": [{**job["slices"][0], "stop": job["slices"][0]["start"] + 2}]})  # load the kernels
    t0 = time.perf_counter()
    df = run_d2(job)
    return df, time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--profile-samples", type=int, default=2000)
    args = ap.parse_args(argv)
    cfg = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())["atlas"]
    n = args.samples
    jobs = [_job(cfg, n, 0, n // 2), _job(cfg, n, n // 2, n)]
    with get_context("spawn").Pool(2) as pool:
        pool.map(_run, [_job(cfg, 4, 0, 2)] * 2)  # start and warm both workers
        t0 = time.perf_counter()
        parts = pool.map(_run, jobs)
        wall = time.perf_counter() - t0
    df = pd.concat([p[0] for p in parts])
    core = sum(p[1] for p in parts)
    counts = df.regime.value_counts().to_dict()
    print(f"atlas: {n} samples in {wall:.1f} s wall on 2 processes ({core / n * 1e3:.3f} core-ms per sample)")

    m = args.profile_samples
    prof = cProfile.Profile()
    prof.enable()
    _run(_job(cfg, m, 0, m))
    prof.disable()
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())
    names = {"advance_small": "integrator", "classify_r2_trajectory": "classifier", "_vote": "vote",
             "time_scale": "time_scale"}
    spent = {label: sum(v[3] for (f, _, fn), v in st.stats.items() if fn == name) for name, label in names.items()}
    spent["other"] = total - sum(spent.values())
    print("profile:", {k: f"{v:.2f} s" for k, v in spent.items()})

    A, V = weight_pairs("gaussian", 2, m, SEED)
    t0 = time.perf_counter()
    ref = predict_regime_batch(A, V, float(cfg["beta"]))
    t_ref = time.perf_counter() - t0
    fast, t_fast = _run(_job(cfg, m, 0, m))
    agree = float(np.mean(np.array([r.regime for r in ref]) == fast.regime.to_numpy()))
    print(f"agreement with the default protocol: {agree:.4f}; {t_ref / m * 1e3:.2f} vs {t_fast / m * 1e3:.2f} ms")

    out = {"config": "workflow/config/config.yaml (atlas.d2 settings)", "settings": cfg["d2"],
           "target_seconds": TARGET_S, "python": platform.python_version(), "machine": platform.machine(),
           "machine_note": "measured on the shared 2-core dev machine under the heavy lock",
           "atlas": {"samples": n, "processes": 2, "wall_s": round(wall, 2), "core_s": round(core, 2),
                     "core_ms_per_sample": round(core / n * 1e3, 4), "within_target": bool(wall <= TARGET_S),
                     "regime_counts": {k: int(v) for k, v in counts.items()}},
           "profile": {"samples": m, "seconds": {k: round(v, 3) for k, v in spent.items()},
                       "total_s": round(total, 3)},
           "agreement": {"samples": m, "default_protocol": "8 starts, horizon 400, 8000 samples",
                         "equal_labels": round(agree, 5), "default_ms_per_sample": round(t_ref / m * 1e3, 3),
                         "atlas_ms_per_sample": round(t_fast / m * 1e3, 3)}}
    (ROOT / "benchmarks/atlas.json").write_text(json.dumps(out, indent=1) + "\n")
    rows = [("atlas_wall_s", n, wall), ("atlas_core_ms_per_sample", n, core / n * 1e3),
            *((f"profile_{k}_s", m, v) for k, v in spent.items()),
            ("agreement_equal_labels", m, agree), ("default_ms_per_sample", m, t_ref / m * 1e3),
            ("atlas_ms_per_sample", m, t_fast / m * 1e3)]
    pd.DataFrame(rows, columns=["measurement", "samples", "value"]).to_csv(ROOT / "benchmarks/atlas.csv", index=False,
                                                                          float_format="%.4g")
    print("wrote benchmarks/atlas.json, benchmarks/atlas.csv")


if __name__ == "__main__":
    main()
