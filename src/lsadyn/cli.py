"""Command line: ``lsadyn regime --A '[[1,0],[0,1]]' --V '[[1,0],[0,1]]' [--method oa|ws|particles] [--json]``.

Matrices are JSON or ``@file`` (``.npy``, or ``.txt`` / ``.csv`` text, any d). Before integrating the
run's memory and time are estimated (:mod:`lsadyn.budget`): too big a run is refused, a long one
announced, and a progress bar is shown on a terminal.

Exit codes: 0 done; 2 bad input, refused run or out of memory (one line on stderr naming the
argument, never a traceback); 130 interrupted (Ctrl-C / SIGINT or SIGTERM, one line); 141 (128 + SIGPIPE)
when the reader of stdout went away (``lsadyn regime ... | head -1``), silently, as Unix tools do.
``lsadyn --version`` prints the version; ``python -m lsadyn`` is the same command.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import re
import signal
import sys
import warnings

METHODS = {
    "oa": "Ott-Antonsen ODE for R2 (d = 2, LSA; exact on the OA manifold; fast)",
    "ws": "Watanabe-Strogatz reduction of --n tokens (d = 2, LSA; exact for any n)",
    "particles": "direct simulation of --n tokens on the sphere (any d; --model lsa/usa/sa)",
}
MODELS = {
    "lsa": "linear self-attention, h(y) = y",
    "usa": "unnormalised softmax attention, h(y) = exp(y)",
    "sa": "softmax attention (normalised)",
}
#: Options that only apply to some methods: passing them with another method is an error.
APPLIES_TO = {"model": ("particles",), "n": ("ws", "particles"), "seed": ("ws", "particles"),
              "tokens": ("particles",)}
DEFAULTS = {"beta": "1", "method": "oa", "model": "lsa", "n": "500", "seed": "0", "horizon": "400"}


def _labels():
    from .regimes.classify import LABELS

    return LABELS


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage too)
        sys.stderr.write(f"lsadyn: error: {message}\n")
        raise SystemExit(2)


def _check_rows(value, name):
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        raise ValueError(f"{name}: expected a list of rows such as '[[1,0],[0,1]]'")
    for row in value:
        for x in row:
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ValueError(f"{name}: entry {x!r} is not a number")
    if len({len(row) for row in value}) > 1:
        raise ValueError(f"{name}: rows have different lengths")
    return value


def _load_file(path: str, name: str):
    """Array from ``.npy`` (no pickles) or a whitespace/comma separated text file (``.txt``/``.csv``)."""
    import numpy as np

    try:
        if path.endswith(".npy"):
            return np.load(path, allow_pickle=False)
        with open(path) as fh:
            text = fh.read()
        if not text.strip():
            raise ValueError("file is empty")
        sep = "," if path.endswith(".csv") or ("," in text) else None
        rows = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        data = [[float(x) for x in (ln.split(sep) if sep else ln.split())] for ln in rows]
        if len({len(r) for r in data}) > 1:
            raise ValueError("rows have different lengths")
        arr = np.array(data, dtype=float)
        return arr[:, 0] if arr.ndim == 2 and arr.shape[1] == 1 else arr
    except FileNotFoundError:
        raise ValueError(f"{name}: file not found: {path}") from None
    except IsADirectoryError:
        raise ValueError(f"{name}: is a directory: {path}") from None
    except (ValueError, OSError, EOFError) as err:
        raise ValueError(f"{name}: cannot read {path} ({_first_sentence(err)}; expected a numeric .npy, .npz, "
                         ".csv or whitespace-separated text file)") from None


def _first_sentence(err: BaseException, limit: int = 160) -> str:
    """The first sentence of an exception's message, on one line, never cut inside a word."""
    text = " ".join(str(err).split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".")
    if len(first) > limit:
        first = first[:limit].rsplit(" ", 1)[0] + " …"
    return first or type(err).__name__


def _matrix(text: str, name: str):
    if text.startswith("@"):
        return _load_file(text[1:], name)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise ValueError(f"{name}: not a JSON matrix such as '[[1,0],[0,1]]' (or @file.npy/.txt/.csv): "
                         f"{text[:60]!r}") from None
    return _check_rows(value, name)


def _parser():
    labels = ", ".join(_labels())
    from . import __version__

    p = _Parser(prog="lsadyn", description="Dynamics of deep linear transformers.")
    p.add_argument("--version", action="version", version=f"lsadyn {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    epilog = (
        "methods:\n" + "".join(f"  {k:<10} {v}\n" for k, v in METHODS.items())
        + "models (--method particles):\n" + "".join(f"  {k:<10} {v}\n" for k, v in MODELS.items())
        + f"regimes printed: {labels}\n"
        "matrices: JSON ('[[1,0],[0,1]]') or @file: .npy, or .txt/.csv text (rows on lines), any d\n"
        "limits: runs estimated over the memory/time limits are refused (see --max-memory, --max-seconds);\n"
        "exit codes: 0 ok, 2 bad input / refused / out of memory, 130 interrupted"
    )
    r = sub.add_parser("regime", help="long-time regime of (A, V, beta)", epilog=epilog,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--A", default=None, help="key-query matrix A = Q^T K: JSON, e.g. '[[1,0],[0,1]]', or @file")
    r.add_argument("--V", default=None, help="value matrix V: JSON or @file (same size as A)")
    r.add_argument("--weights", default=None, metavar="FILE",
                   help="instead of --A/--V: a trained head from a .npz or .safetensors file (lsadyn.weights: "
                        "A = W_Q^T W_K / sqrt(d_head), V = W_O W_V, beta 1)")
    r.add_argument("--layer", default=None, help="--weights: the layer (default 0)")
    r.add_argument("--head", default=None, help="--weights: the head (default 0)")
    r.add_argument("--key-pattern", default=None, metavar="PATTERN",
                   help="--weights: keys as PATTERN with {layer}, {head}, {name} (default "
                        "'layers.{layer}.attn.{name}', name = q.weight, k.weight, v.weight, o.weight)")
    r.add_argument("--beta", default=None, help=f"inverse temperature > 0 (default {DEFAULTS['beta']})")
    r.add_argument("--method", choices=list(METHODS), default=None, metavar="{" + ",".join(METHODS) + "}",
                   help=f"how the regime is computed (default {DEFAULTS['method']}; with --weights: oa for a d = 2 LSA "
                        "head, else particles; see below)")
    r.add_argument("--model", choices=list(MODELS), default=None, metavar="{" + ",".join(MODELS) + "}",
                   help=f"attention model, --method particles only (default {DEFAULTS['model']}; with --weights: the "
                        "file's metadata model)")
    r.add_argument("--n", default=None, help=f"tokens, --method ws/particles, >= 2 (default {DEFAULTS['n']})")
    r.add_argument("--seed", default=None, help=f"seed of the random initial tokens, >= 0 (default {DEFAULTS['seed']})")
    r.add_argument("--tokens", default=None, metavar="@FILE",
                   help="initial tokens instead of random ones, --method particles: @file (.npy/.txt/.csv) "
                        "holding an n x d array, or n angles when d = 2")
    r.add_argument("--horizon", default=None,
                   help=f"integration time in units of 1/(beta |A|_2 |V|_2), > 0 (default {DEFAULTS['horizon']})")
    r.add_argument("--n-samples", default=None,
                   help="stored samples of the trajectory the regime is read from, >= 64 "
                        "(default 8000 for oa/ws, 4000 for particles)")
    r.add_argument("--max-memory", default=None, metavar="GB",
                   help="refuse runs estimated above this memory (default: half the machine's RAM)")
    r.add_argument("--max-seconds", default=None, metavar="S",
                   help="refuse runs estimated above this time (default 3600; 'inf' disables)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _resolve(args, method_default=DEFAULTS["method"]):
    """Reject options that do not apply to the method; fill in defaults (``method_default`` for ``--method``)."""
    if args.method is None:
        args.method = method_default
    method = args.method
    args.given = {k for k in DEFAULTS if getattr(args, k) is not None}
    for opt, methods in APPLIES_TO.items():
        if getattr(args, opt) is not None and method not in methods:
            raise ValueError(f"--{opt}: applies to --method {'/'.join(methods)} only, not --method {method}")
    for key, value in DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def _period_text(period) -> str:
    return f"{period:.6g}" if math.isfinite(period) else "none (not periodic)"


def _accepts(func, name) -> bool:
    return name in inspect.signature(func).parameters


def _run_regime(args):
    import numpy as np

    from . import budget
    from .api import predict_regime, simulate_regime, softmax_harmonics, ws_regime
    from .validation import _real_array, as_int_at_least, as_positive_float, as_square_matrix

    if args.weights is not None:
        from .weights import DEFAULT_PATTERN, read_head

        if args.A is not None or args.V is not None:
            raise ValueError("--weights: give either --weights or --A and --V, not both")
        hw = read_head(args.weights, layer=as_int_at_least(args.layer or 0, "--layer", 0),
                       head=as_int_at_least(args.head or 0, "--head", 0), pattern=args.key_pattern or DEFAULT_PATTERN)
        A, V = hw.A, hw.V
        # without --method: the OA flow where it applies (d = 2, LSA), else the file's model's tokens
        args = _resolve(args, "oa" if A.shape[0] == 2 and hw.model in (None, "lsa") and args.model in (None, "lsa")
                        else "particles")
        if args.model == DEFAULTS["model"] and "model" not in args.given and hw.model is not None:
            args.model = hw.model
    else:
        args = _resolve(args)
        for opt in ("layer", "head", "key_pattern"):
            if getattr(args, opt) is not None:
                raise ValueError(f"--{opt.replace('_', '-')}: applies to --weights only")
        if args.A is None or args.V is None:
            raise ValueError("--A, --V: both are required (or give --weights FILE)")
        A = as_square_matrix(_matrix(args.A, "--A"), "--A")
    if args.weights is None:
        V = as_square_matrix(_matrix(args.V, "--V"), "--V", d=A.shape[0])
    beta = as_positive_float(args.beta, "--beta")
    n = as_int_at_least(args.n, "--n", 2)
    seed = as_int_at_least(args.seed, "--seed", 0)
    horizon = as_positive_float(args.horizon, "--horizon")
    d = A.shape[0]
    if args.method in ("oa", "ws") and d != 2:
        src = "--weights" if args.weights is not None else "--A"
        raise ValueError(f"{src}: --method {args.method} needs d = 2, got {d}x{d} (use --method particles)")
    extra = {}
    if args.tokens is not None:
        if "n" in args.given:
            raise ValueError("--n: not used with --tokens (n is the number of rows of the tokens file)")
        if not args.tokens.startswith("@"):
            raise ValueError("--tokens: expected @file (.npy, .txt or .csv)")
        X0 = _real_array(_load_file(args.tokens[1:], "--tokens"), "--tokens", "token array")
        if not _accepts(simulate_regime, "X0"):
            raise ValueError("--tokens: this lsadyn's simulate_regime has no X0 argument yet")
        if not np.all(np.isfinite(X0)):
            raise ValueError("--tokens: contains NaN or inf")
        if X0.ndim == 2 and X0.shape[1] != d:
            raise ValueError(f"--tokens: {X0.shape[0]} x {X0.shape[1]} array, expected n x {d} (d of --A)")
        if X0.ndim == 1 and d != 2:
            raise ValueError(f"--tokens: angles need d = 2, --A is {d}x{d}")
        if X0.ndim not in (1, 2) or X0.shape[0] < 2:
            raise ValueError(f"--tokens: expected an n x d array (n >= 2) or n angles, got shape {X0.shape}")
        n = X0.shape[0]
        extra["X0"] = X0
    max_bytes = None if args.max_memory is None else as_positive_float(args.max_memory, "--max-memory") * 1e9
    max_seconds = (None if args.max_seconds is None
                   else math.inf if str(args.max_seconds).strip().lower() == "inf"
                   else as_positive_float(args.max_seconds, "--max-seconds"))
    model = {"oa": "oa", "ws": "ws"}.get(args.method, args.model)
    n_samples = as_int_at_least(args.n_samples if args.n_samples is not None
                                else 4000 if args.method == "particles" else 8000, "--n-samples", 64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", budget.LongRunWarning)
        cost = budget.check_budget(n, d, model, horizon, n_samples, max_bytes=max_bytes, max_seconds=max_seconds,
                                   harmonics=softmax_harmonics(A, beta, model), names={"n": "--n", "horizon": "--horizon", "max_bytes": "--max-memory",
                                          "max_seconds": "--max-seconds"})
    if cost.seconds > budget.WARN_SECONDS:
        sys.stderr.write(f"lsadyn: note: long run, estimated {cost.describe()}\n")
    progress = budget.Progress(desc=f"lsadyn {args.method}", mode="auto")
    if progress.mode == "log" and not sys.stderr.isatty():
        progress = budget.Progress(mode="silent")
    runner = {"oa": predict_regime, "ws": ws_regime, "particles": simulate_regime}[args.method]
    if _accepts(runner, "progress"):
        extra["progress"] = progress
    if _accepts(runner, "max_bytes"):  # the API checks the budget itself: pass the user's limits on
        extra.update(max_bytes=max_bytes, max_seconds=max_seconds)
    try:
        with progress, warnings.catch_warnings():
            warnings.simplefilter("ignore", budget.LongRunWarning)
            if args.method == "oa":
                res = predict_regime(A, V, beta, horizon=horizon, n_samples=n_samples, **extra)
            elif args.method == "ws":
                res = ws_regime(A, V, beta, n=n, seed=seed, horizon=horizon, n_samples=n_samples, **extra)
            else:
                res = simulate_regime(A, V, beta, n=n, seed=seed, model=args.model, horizon=horizon,
                                      n_samples=n_samples, **extra)
    except (ValueError, OverflowError) as e:  # messages name the library argument: map them to the CLI flags
        msg = str(e)
        for key in ("A", "V", "beta", "n", "d", "seed", "horizon", "n_samples", "X0", "max_bytes", "max_seconds"):
            flag = {"X0": "tokens", "max_bytes": "max-memory", "max_seconds": "max-seconds",
                    "n_samples": "n-samples"}.get(key, key)
            if msg.startswith(f"{key}:"):
                msg = f"--{flag}{msg[len(key):]}"
        raise ValueError(msg) from None
    out = {
        "regime": res.regime,
        "abs_R2": res.abs_R2,
        "arg_R2_rate": res.arg_R2_rate,
        "period": res.period,
        "method": args.method,
    }
    if args.method == "particles":
        out["model"] = args.model
    if res.regime == "undetermined" and res.details.get("reason"):
        out["reason"] = res.details["reason"]  # why (e.g. the drift measured when the budget ran out)
    notes = [f"{k} is not finite (undefined for this regime or lost to overflow)"
             for k in ("abs_R2", "arg_R2_rate", "period") if isinstance(out[k], float) and math.isinf(out[k])]
    if args.json:
        print(json.dumps({k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}))
    else:
        # in d > 2 the classified signal is R2 = r e^{2i phi} (lsadyn.api.simulate_regime): say so
        r2 = ("|R2|" if d == 2 else
              f"|R2| (d = {d}: R2 = r e^(2i phi), r = (d lambda_max(M) - 1)/(d - 1), phi the angle swept by "
              "the leading axis of M = mean x x^T)")
        print(
            f"regime: {res.regime}\n{r2}: {res.abs_R2:.6g}\narg R2 rate: {res.arg_R2_rate:.6g}\n"
            f"period: {_period_text(res.period)}\nmethod: {args.method}" + (f" ({args.model})" if "model" in out else "")
            + (f"\nreason: {out['reason']}" if "reason" in out else "")
        )
    sys.stdout.flush()  # a closed pipe shows here, inside main's handler, not at interpreter exit
    for note in notes:
        sys.stderr.write(f"lsadyn: note: {note}\n")
    return 0


def _interrupted(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv=None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away (| head -1): stop quietly with 128 + SIGPIPE, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's last flush of stdout does not fail again
        return 141


def _main(argv) -> int:
    args = _parser().parse_args(argv)
    try:
        signal.signal(signal.SIGTERM, _interrupted)
    except ValueError:  # not the main thread (embedded use)
        pass
    try:
        return _run_regime(args)
    except (ValueError, OverflowError) as e:
        sys.stderr.write(f"lsadyn: error: {' '.join(str(e).split())}\n")
        return 2
    except MemoryError as e:
        sys.stderr.write(f"lsadyn: error: out of memory ({e or 'MemoryError'}); lower --n (or d), or "
                         "--max-memory to refuse such runs earlier\n")
        return 2
    except KeyboardInterrupt as e:
        why = str(e) or "SIGINT"
        sys.stderr.write(("\n" if sys.stderr.isatty() else "") + f"lsadyn: interrupted ({why}); nothing was computed\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
