"""The known-cases suite as a table: every (A, V, β) of tests/known_cases.csv (closed-form regime,
derivations in tests/known_cases.md) classified by OA, WS and n tokens from i.i.d. angles, with the
physical time each method needed to decide. Prints the table, writes benchmarks/known_cases.csv and a
summary to benchmarks/known_cases.json.

Usage: ``python benchmarks/known_cases.py [--n-tokens 400] [--seed 0] [--cases NAME ...]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from lsadyn_workflow.io import write_csv

from lsadyn.paper.cases2d.known_cases import load_known_cases, run_known_cases, token_verdict

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-tokens", type=int, default=400, help="tokens per WS / token run (default 400)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the i.i.d. angles (default 0)")
    ap.add_argument("--cases", nargs="*", help="only these case names")
    ap.add_argument("--out", default=str(HERE / "known_cases.csv"), help="output CSV")
    args = ap.parse_args(argv)
    df = load_known_cases()
    if args.cases:
        unknown = sorted(set(args.cases) - set(df.case))
        if unknown:
            print(f"--cases: unknown case names {unknown}", file=sys.stderr)
            return 2
        df = df[df.case.isin(args.cases)].reset_index(drop=True)
    start = time.perf_counter()

    def progress(frac):
        print(f"\r  {frac:6.1%} of {len(df)} cases, {time.perf_counter() - start:6.0f} s", end="", file=sys.stderr)

    out = run_known_cases(df, n_tokens=args.n_tokens, seed=args.seed, progress=progress)
    print(file=sys.stderr)
    for m in ("oa", "ws", "tokens"):
        out[f"verdict_{m}"] = [token_verdict(e, t, lab) for e, t, lab in zip(df.expected, df.token_label, out[m])]
    table = out[["case", "expected", "oa", "ws", "tokens", "t_decide_oa", "t_decide_ws", "t_decide_tokens",
                 "verdict_oa", "verdict_ws", "verdict_tokens", "amplitude_tokens", "seconds_oa", "seconds_ws",
                 "seconds_tokens"]]
    write_csv(table, args.out)
    with_cols = ["case", "expected", "oa", "ws", "tokens", "t_decide_oa", "t_decide_ws", "t_decide_tokens"]
    print(table[with_cols].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    summary = {"n_cases": len(df), "n_tokens": args.n_tokens, "seed": args.seed,
               "seconds": round(time.perf_counter() - start, 1)}
    for m in ("oa", "ws", "tokens"):
        counts = table[f"verdict_{m}"].value_counts().to_dict()
        summary[m] = {k: int(v) for k, v in counts.items()}
        print(f"{m:7s} " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    Path(args.out).with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
