"""Wall time of certified calls (issue 42 targets: every certified d = 2 OA call <= 0.5 s; d = 100, n = 200 calls
<= 10 s).

* ``oa``: :func:`lsadyn.predict_regime` (certified, defaults) on the issue's five examples and on ``--random``
  Gaussian draws A, V ~ N(0, 1/2) (seeded): per call the wall time, the label, certified or not.
* ``d100``: :func:`lsadyn.simulate_regime` at d = 100, n = 200 (seed 0, defaults) for LSA and USA: rotating
  clusters (A = I, V = diag([[1, -1], [1, 1]], -0.5 I)) and the case-4 centre embedded (V = diag([[0.5, 1],
  [-1, -0.5]], -2 I)); ``--skip-centre`` leaves the centre out (USA: minutes, see the JSON's note).

Writes benchmarks/certify_timing.json and prints a table. Run it alone (machines are shared).
Usage: ``python benchmarks/bench_certify.py [--random N] [--skip-centre]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn import predict_regime, simulate_regime  # noqa: E402
from lsadyn.paper.highdim.plan import embed_scenario  # noqa: E402

OUT = Path(__file__).with_name("certify_timing.json")
OA_TARGET_S, D100_TARGET_S = 0.5, 10.0

#: the issue's examples (A, V)
EXAMPLES = {
    "dulac1": (np.eye(2), [[0.5, 1], [-1, -0.48]]),
    "dulac2": (np.eye(2), [[0.2, 1], [-1, -0.16]]),
    "trV_1e-3": (np.eye(2), [[0.5, 1], [-1, -0.499]]),
    "ghost": (np.eye(2), [[1.5, -0.50005], [0.50005, 0.5]]),
    "node": ([[0.793, 0.0311], [2.6783, 0.1261]], [[0.0231, -0.1373], [0.4473, 0.4957]]),
}


def _oa_call(A, V):
    t0 = time.perf_counter()
    res = predict_regime(np.asarray(A, float), np.asarray(V, float))
    return time.perf_counter() - t0, res


def bench_oa(n_random: int) -> dict:
    _oa_call(np.eye(2), np.eye(2))  # compile / warm the kernels once
    rows = {}
    for name, (A, V) in EXAMPLES.items():
        s, res = _oa_call(A, V)
        rows[name] = {"seconds": round(s, 4), "regime": res.regime, "certified": bool(res.details.get("certified"))}
    rng = np.random.default_rng(2026)
    times, labels, certified = [], [], 0
    for _ in range(n_random):
        A, V = rng.standard_normal((2, 2, 2)) / np.sqrt(2)
        s, res = _oa_call(A, V)
        times.append(s)
        labels.append(res.regime)
        certified += bool(res.details.get("certified"))
    out = {"examples": rows}
    if n_random:
        t = np.array(times)
        out["random"] = {"n": n_random, "median_s": round(float(np.median(t)), 4), "max_s": round(float(t.max()), 4),
                         "n_over_target": int((t > OA_TARGET_S).sum()), "n_certified": certified,
                         "labels": {k: labels.count(k) for k in sorted(set(labels))}}
    return out


def bench_d100(skip_centre: bool) -> dict:
    cases = {"rotation": ([[1, -1], [1, 1]], -0.5), "centre": ([[0.5, 1], [-1, -0.5]], -2.0)}
    out = {}
    for name, (V2, rest) in cases.items():
        for model in ("lsa", "usa"):
            if skip_centre and name == "centre" and model == "usa":
                continue
            A, V = embed_scenario(np.eye(2), np.array(V2, float), 100, 1.0, rest)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = simulate_regime(A, V, 1.0, n=200, model=model, seed=0)
            s = time.perf_counter() - t0
            det = res.details
            out[f"{name}-{model}"] = {"seconds": round(s, 2), "regime": res.regime, "t_decide": det.get("t_decide"),
                                      "budget_factor": det.get("budget_factor"),
                                      "why": (det.get("checked") or det.get("reason", ""))[:300],
                                      "within_target": bool(s <= D100_TARGET_S)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=40, help="random OA weights to time (default 40)")
    ap.add_argument("--skip-centre", action="store_true", help="leave out the USA case-4 centre at d = 100")
    args = ap.parse_args(argv)
    rec = {"python": platform.python_version(), "machine": platform.machine(),
           "machine_note": "the shared 2-core dev machine", "oa_target_s": OA_TARGET_S,
           "d100_target_s": D100_TARGET_S, "oa": bench_oa(args.random), "d100": bench_d100(args.skip_centre)}
    old = json.loads(OUT.read_text()) if OUT.is_file() else {}
    if args.skip_centre and "centre-usa" in old.get("d100", {}):
        rec["d100"]["centre-usa"] = old["d100"]["centre-usa"]  # keep the last measurement of the long call
    OUT.write_text(json.dumps(rec, indent=1) + "\n")
    print(f"{'call':28s} {'seconds':>8s}  regime")
    for name, r in rec["oa"]["examples"].items():
        print(f"oa {name:25s} {r['seconds']:8.3f}  {r['regime']}{'' if r['certified'] else ' (not certified)'}")
    if "random" in rec["oa"]:
        r = rec["oa"]["random"]
        print(f"oa random x{r['n']:<22d} {r['median_s']:8.3f}  median; max {r['max_s']:.3f} s, {r['n_over_target']} over "
              f"{OA_TARGET_S} s, {r['n_certified']} certified, {r['labels']}")
    for name, r in rec["d100"].items():
        print(f"d100 {name:23s} {r['seconds']:8.2f}  {r['regime']} at t = {r['t_decide']:.4g}: {r['why'][:120]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
