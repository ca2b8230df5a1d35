"""Wall time of a decided run that stops when decided (issue 28 target: <= 10 s).

The call of the issue: :func:`lsadyn.simulate_regime` for USA at d = 100, n = 200 tokens (seed 0, default
horizon 400 τ, n_samples 4000, budget 16), A = I and V rotating in the first plane with a contracting rest:
V = diag([[1, -1], [1, 1]], -0.5 I_98) (rotating clusters). Before the early checkpoints of
:mod:`lsadyn.regimes.decision` the first check was at the full horizon (the issue measured 29-49 s; decided at
t ≈ 179 τ). ``--baseline`` also times the same call with the first check at the full horizon (``early=()``,
:func:`lsadyn.regimes.decision.decide`'s argument, bound here through :mod:`lsadyn.api`'s import of it), once.

Writes benchmarks/decision_timing.json and prints the table. Run under the shared heavy lock.
Usage: ``python benchmarks/bench_decision.py [--repeats N] [--baseline]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn import (
    api,
    simulate_regime,
)

OUT = Path(__file__).with_name("decision_timing.json")
TARGET_S = 10.0
D, N = 100, 200


def weights(d: int = D):
    """A = I; V = diag(V₂, −0.5 I) with V₂ = [[1, −1], [1, 1]] (rotation in the first plane, contracting rest)."""
    V = np.diag(np.r_[0.0, 0.0, -0.5 * np.ones(d - 2)])
    V[:2, :2] = [[1.0, -1.0], [1.0, 1.0]]
    return np.eye(d), V


def timed(model: str):
    A, V = weights()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the LongRunWarning estimate of the full budget
        res = simulate_regime(A, V, n=N, d=D, model=model, seed=0)
    sec = time.perf_counter() - t0
    return sec, {"regime": res.regime, "abs_R2": res.abs_R2, "arg_R2_rate": res.arg_R2_rate,
                 "t_decide": res.details["t_decide"], "budget_factor": res.details["budget_factor"],
                 "n_steps": res.details.get("n_steps")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", action="store_true")
    args = ap.parse_args(argv)
    out = {"call": f"simulate_regime(A=I, V=diag([[1,-1],[1,1]], -0.5 I), n={N}, d={D}, seed=0), defaults",
           "target_seconds": TARGET_S, "python": platform.python_version(), "machine": platform.machine(),
           "machine_note": "measured on the shared 2-core dev machine under the heavy lock", "runs": {}}
    for model in ("usa", "lsa"):
        secs, info = [], None
        for _ in range(args.repeats):
            s, info = timed(model)
            secs.append(s)
        out["runs"][model] = {"best_s": round(min(secs), 3), "median_s": round(float(np.median(secs)), 3), **info,
                              "within_target": min(secs) <= TARGET_S}
    if args.baseline:
        decide = api.decide
        api.decide = functools.partial(decide, early=())
        try:
            s, info = timed("usa")
        finally:
            api.decide = decide
        out["runs"]["usa_first_check_at_horizon"] = {"best_s": round(s, 3), "median_s": round(s, 3), **info}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print("| run | regime | t_decide | budget_factor | best s | median s |\n|---|---|---|---|---|---|")
    for k, r in out["runs"].items():
        print(f"| {k} | {r['regime']} | {r['t_decide']:.1f} | {r['budget_factor']:g} | {r['best_s']} | {r['median_s']} |")


if __name__ == "__main__":
    main()
