"""Command line: ``lsadyn regime --A '[[1,0],[0,1]]' --V '[[1,0],[0,1]]' [--method oa|ws|particles] [--json]``.

Bad input exits with code 2 and one line on stderr naming the argument (never a traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage too)
        sys.stderr.write(f"lsadyn: error: {message}\n")
        raise SystemExit(2)


def _matrix(text: str, name: str):
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise ValueError(f"{name}: not a JSON matrix such as '[[1,0],[0,1]]': {text!r}") from None
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        raise ValueError(f"{name}: expected a list of rows such as '[[1,0],[0,1]]'")
    for row in value:
        for x in row:
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ValueError(f"{name}: entry {x!r} is not a number")
    if len({len(row) for row in value}) > 1:
        raise ValueError(f"{name}: rows have different lengths")
    return value


def _parser():
    p = _Parser(prog="lsadyn", description="Dynamics of deep linear transformers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("regime", help="long-time regime of (A, V, beta)")
    r.add_argument("--A", required=True, help="key-query matrix as JSON, e.g. '[[1,0],[0,1]]'")
    r.add_argument("--V", required=True, help="value matrix as JSON")
    r.add_argument("--beta", default="1", help="inverse temperature > 0 (default 1)")
    r.add_argument("--method", choices=["oa", "ws", "particles"], default="oa")
    r.add_argument("--model", choices=["lsa", "usa", "sa"], default="lsa", help="particles only")
    r.add_argument("--n", default="500", help="tokens for ws/particles (>= 2)")
    r.add_argument("--seed", default="0", help="seed of the initial tokens")
    r.add_argument("--horizon", default="400", help="integration time in units of 1/(beta |A| |V|)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _run_regime(args):
    from .api import predict_regime, simulate_regime, ws_regime
    from .validation import as_int_at_least, as_positive_float

    A = _matrix(args.A, "--A")
    V = _matrix(args.V, "--V")
    beta = as_positive_float(args.beta, "--beta")
    n = as_int_at_least(args.n, "--n", 2)
    seed = as_int_at_least(args.seed, "--seed", 0)
    horizon = as_positive_float(args.horizon, "--horizon")
    try:
        if args.method == "oa":
            res = predict_regime(A, V, beta, horizon=horizon)
        elif args.method == "ws":
            res = ws_regime(A, V, beta, n=n, seed=seed, horizon=horizon)
        else:
            res = simulate_regime(A, V, beta, n=n, seed=seed, model=args.model, horizon=horizon)
    except ValueError as e:  # messages name the library argument: map A/V to the CLI flags
        msg = str(e)
        for key in ("A", "V", "beta", "n", "d"):
            if msg.startswith(f"{key}:"):
                msg = f"--{key}{msg[len(key):]}"
        raise ValueError(msg) from None
    out = {
        "regime": res.regime,
        "abs_R2": res.abs_R2,
        "arg_R2_rate": res.arg_R2_rate,
        "period": res.period,
        "method": args.method,
    }
    if args.json:
        print(json.dumps({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}))
    else:
        print(
            f"regime: {res.regime}\n|R2|: {res.abs_R2:.6g}\narg R2 rate: {res.arg_R2_rate:.6g}\n"
            f"period: {res.period:.6g}\nmethod: {args.method}"
        )
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run_regime(args)
    except (ValueError, OverflowError) as e:
        sys.stderr.write(f"lsadyn: error: {e}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
