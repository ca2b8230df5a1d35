"""Results files: written atomically (temp file + rename, so no half-written output is left) with
fixed float formatting (byte-identical tables for identical inputs), and read back through
validating loaders (:func:`load_table`, :func:`load_arrays`) that stop on a missing, truncated,
corrupted or inconsistent intermediate with one line naming the file ("delete it and rerun"),
never a pandas/numpy traceback and never a silently smaller table.

:func:`setup_log` prepares a pipeline job: its log file, one-line error reporting, a clean exit on
SIGTERM/SIGINT, and a death signal so that the job stops when the Snakemake process that started it
dies (no orphaned job processes)."""

from __future__ import annotations

import errno
import json
import logging
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

FLOAT_FORMAT = "%.12g"
#: Columns holding text even when every cell is empty.
TEXT_COLUMNS = ("prediction", "note_", "reason", "kind", "regime", "case")


def _new_file_mode() -> int:
    """The mode a file created by ``open(path, "w")`` gets: 0666 less the process's umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class OutputWriteError(ValueError):
    """An output could not be written (full disk, quota, read-only file system, ...). The message is one
    line naming the file; nothing was left behind (a ``ValueError``, so a job ends with that line)."""


#: errno values of a failed write: turned into one :class:`OutputWriteError` line by :func:`atomic_path`.
WRITE_ERRNOS = {errno.ENOSPC: "no space left on the device: free some and rerun",
                errno.EDQUOT: "disk quota exceeded: free some space and rerun",
                errno.EFBIG: "file too large for the file system",
                errno.EROFS: "read-only file system", errno.EIO: "input/output error",
                errno.EACCES: "permission denied", errno.EPERM: "operation not permitted"}


def _write_failed(path, err: OSError):
    why = WRITE_ERRNOS.get(err.errno, err.strerror or str(err))
    return OutputWriteError(f"{path}: cannot write it ({why}; [Errno {err.errno}]); nothing was written")


@contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it onto ``path`` only on success. A write that fails
    with one of :data:`WRITE_ERRNOS` (a full disk: ``ENOSPC``) becomes one :class:`OutputWriteError` line
    naming ``path``; the temporary file is removed in every case."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
        os.close(fd)
        os.chmod(tmp, _new_file_mode())  # mkstemp makes it 0600; a results file gets the mode open() would give it
        yield tmp
        os.replace(tmp, path)
    except OSError as err:
        if err.errno not in WRITE_ERRNOS:
            raise
        raise _write_failed(path, err) from err
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)


def write_csv(df, path) -> None:
    """DataFrame → CSV atomically, floats as %.12g, no index."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format=FLOAT_FORMAT)


def write_npz(path, **arrays) -> None:
    """Arrays → compressed .npz atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)


class JobInterrupted(KeyboardInterrupt):
    """SIGTERM/SIGINT (or the death of the parent Snakemake process) reached a pipeline job."""


#: Exit code of a job stopped by a signal (128 + SIGTERM).
EXIT_INTERRUPTED = 143


def setup_log(path, *, job: bool = True) -> logging.Logger:
    """Log to ``path`` (a job's log: file) and return the ``lsadyn`` logger.

    With ``job=True`` (pipeline scripts) also:

    * errors that name their cause (:class:`ResultFileError`, ``ValueError``, ``MemoryError``) end
      the job with that one line on stderr (the console) and in the log, exit code 1; any other
      exception keeps its traceback, written to the log as well;
    * SIGTERM/SIGINT end the job with a line in its log ("interrupted"; the console hears it once,
      from Snakemake) and exit code 143, after ``finally`` clauses ran (so no temporary file is
      left; outputs are only ever renamed into place whole);
    * on Linux, ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: if the Snakemake process that started the job
      dies (even by SIGKILL), the job receives SIGTERM and stops instead of living on as an orphan;
    * a first log line "started (pid …) after <c> core-s of CPU for the interpreter and the imports" (the script
      calls this after its imports, so <c> is what the job paid before its work), "still running, <s> s
      elapsed" when nothing was logged for a minute (progress lines of :class:`lsadyn.budget.Progress` carry the
      fraction done), and a last one "finished in <s> s, <c> core-s of CPU since the process started (imports
      included)" (or the error): the job's wall time since its log opened and the CPU of its whole process
      (user + system, with its children), which benchmarks/bench_pipeline.py sums (Snakemake's ``benchmark:``
      CPU column is sampled at intervals and stops short on long jobs)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=str(path), filemode="w", level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", force=True)
    logging.captureWarnings(True)
    log = logging.getLogger("lsadyn")
    if job:
        _install_job_handlers(log)
    return log


_JOB = {"ready": False, "failed": False}


def _snakemake_object():
    """The ``snakemake`` object of the running Snakemake script or notebook, or None."""
    import sys

    main = sys.modules.get("__main__")
    return getattr(main, "snakemake", None) if main is not None else None


def _ensure_job() -> None:
    """Inside a Snakemake job that did not call :func:`setup_log` (figure notebooks), set it up on
    the rule's log file, so that a bad intermediate still ends the job with one line."""
    if _JOB["ready"]:
        return
    sm = _snakemake_object()
    if sm is None:
        return
    logs = list(getattr(sm, "log", []) or [])
    if logs:
        setup_log(logs[0])
    else:
        _install_job_handlers(logging.getLogger("lsadyn"))


def _die_with_parent() -> None:
    """Ask the kernel to send SIGTERM to this process when its parent dies (Linux only)."""
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        parent = os.getppid()
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if parent == 1:  # already orphaned before the call
            os.kill(os.getpid(), signal.SIGTERM)
    except (OSError, AttributeError):  # no libc/prctl: nothing to do
        pass


def _process_cpu_seconds() -> float:
    """This process's CPU since it started, user + system, with its finished children's."""
    cpu = os.times()
    return cpu.user + cpu.system + cpu.children_user + cpu.children_system


def _install_job_handlers(log: logging.Logger) -> None:
    import signal
    import sys
    import time
    import traceback

    if _JOB["ready"]:
        return
    _JOB["ready"] = True
    # the config sets the sizes and the rule its runtime: no estimated-time limit inside a job
    # (the memory limit of lsadyn.budget still applies)
    os.environ.setdefault("LSADYN_MAX_SECONDS", "inf")
    start = time.monotonic()
    # what the job paid before its first line of work: the interpreter and the script's imports
    log.info("started (pid %d) after %.2f core-s of CPU for the interpreter and the imports", os.getpid(),
             _process_cpu_seconds())

    def on_signal(signum, frame):
        for sig in (signal.SIGTERM, signal.SIGINT):  # a second signal must not interrupt the clean-up
            signal.signal(sig, signal.SIG_IGN)
        raise JobInterrupted(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            signal.signal(sig, on_signal)
        except ValueError:  # not the main thread
            pass
    _die_with_parent()

    def excepthook(kind, err, tb):
        _JOB["failed"] = True
        if isinstance(err, KeyboardInterrupt):
            why = str(err) or "SIGINT"
            # the log only: Snakemake itself tells the console once that the build was interrupted
            log.error("job interrupted (%s) after %.1f s; no output written", why, time.monotonic() - start)
            os._exit(EXIT_INTERRUPTED)
        if isinstance(err, (ValueError, MemoryError, OverflowError)):
            msg = str(err) or type(err).__name__
            if isinstance(err, MemoryError):
                msg = f"out of memory ({msg}); lower the sizes in the config or give the job more memory"
            line = f"lsadyn: error: {' '.join(msg.split())}"
            log.error("%s", line)
            log.debug("%s", "".join(traceback.format_exception(kind, err, tb)))
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
            os._exit(1)
        log.error("%s", "".join(traceback.format_exception(kind, err, tb)))
        sys.__excepthook__(kind, err, tb)

    sys.excepthook = excepthook

    import atexit

    def finished():
        if not _JOB["failed"]:
            log.info("finished in %.1f s, %.2f core-s of CPU since the process started (imports included)",
                     time.monotonic() - start, _process_cpu_seconds())

    atexit.register(finished)
    _start_heartbeat(log, start)


#: Seconds between "still running" lines in a job log when nothing else was logged.
HEARTBEAT_SECONDS = 60.0


def _start_heartbeat(log: logging.Logger, start: float):
    """A daemon thread that writes "still running, <s> s elapsed" to the job log when the job has
    logged nothing for :data:`HEARTBEAT_SECONDS` (progress lines of :class:`lsadyn.budget.Progress`
    count as activity), so that a long job's log shows it is alive."""
    import threading
    import time

    last = {"t": time.monotonic()}

    class _Seen(logging.Handler):
        def emit(self, record):
            last["t"] = time.monotonic()

    seen = _Seen()
    logging.getLogger().addHandler(seen)
    stop = threading.Event()

    def beat():
        while not stop.wait(min(5.0, HEARTBEAT_SECONDS)):
            now = time.monotonic()
            if now - last["t"] >= HEARTBEAT_SECONDS:
                log.info("still running, %.0f s elapsed", now - start)
        logging.getLogger().removeHandler(seen)

    threading.Thread(target=beat, name="lsadyn-heartbeat", daemon=True).start()
    return stop  # set() ends the thread


def read_csv(path):
    """CSV → DataFrame; empty cells of text columns read as "" (not NaN), numeric ones as NaN."""
    import pandas as pd

    df = pd.read_csv(path)
    for col in df.columns:
        if df[col].dtype == object or pd.api.types.is_string_dtype(df[col]):
            df[col] = df[col].fillna("")
        elif df[col].isna().all() and col.startswith(TEXT_COLUMNS):
            df[col] = ""
    return df


# ------------------------------------------------------------------------------ validated loaders


class ResultFileError(ValueError):
    """An intermediate results file is missing, truncated, corrupted or inconsistent with the
    parameters that produced it. The message is one line: ``<file>: <problem>; delete it and rerun:
    snakemake --cores all --forcerun <file> ...``: ``--forcerun`` of the file rebuilds it in every state (a plain
    rerun does not rebuild a deleted intermediate whose consumers are up to date)."""


def _fail(path, problem: str):
    raise ResultFileError(f"{path}: {problem}; delete it and rerun: snakemake --cores all --forcerun {path} "
                          "(with the build's --configfile; rebuilds it and what reads it)")


def load_json_record(path, keys) -> dict:
    """A JSON object written by another job, with at least ``keys``; a clear error naming the file otherwise."""
    try:
        with open(path) as fh:
            record = json.load(fh)
    except FileNotFoundError:
        _fail(path, "missing")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        _fail(path, f"not a readable JSON file ({exc})")
    if not isinstance(record, dict):
        _fail(path, "not a JSON object")
    missing = [k for k in keys if k not in record]
    if missing:
        _fail(path, f"missing key(s) {missing}")
    for k in keys:  # json reads NaN/Infinity as floats: a record's numbers must be finite
        v = record[k]
        if isinstance(v, float) and not np.isfinite(v):
            _fail(path, f"key {k} is {v} (must be finite)")
    return record


@dataclass(frozen=True)
class TableSpec:
    """What a CSV intermediate must hold. ``numeric``: numeric columns, ``finite`` among them those
    that may not be NaN/inf; ``finite_unless_undetermined``: pairs ``(label column, columns)`` whose
    values must be finite in every row whose label is not ``undetermined`` (a run the classifier could
    not decide may have no rate; a rotating or converging one always has one); ``text``: text columns;
    ``labels``: columns holding a regime label; ``integer``: integer-valued columns; ``boolean``:
    true/false columns; ``required``: columns that must be there, of any type; ``certified``: pairs ``(label
    column, flag column)``: the flag (true/false) must be true exactly in the rows whose label is not
    ``undetermined`` (no table pairs a label with a run whose attractor was not checked); ``finite_when``: triples
    ``(label column, labels, columns)``: the columns must be finite in every row whose label is one of ``labels`` (an
    oscillating run always has a period); ``key``: the columns that identify a row: no two rows may share them
    (a duplicated row would be counted twice). Columns listed in
    none of ``finite``/``finite_unless_undetermined`` may be NaN (a period of a run that does not
    oscillate, a fit with too few points)."""

    numeric: tuple = ()
    finite: tuple = ()
    text: tuple = ()
    labels: tuple = ()
    integer: tuple = ()
    boolean: tuple = ()
    required: tuple = ()
    finite_unless_undetermined: tuple = ()
    certified: tuple = ()
    finite_when: tuple = ()
    key: tuple = ()

    @property
    def columns(self) -> tuple:
        seen = dict.fromkeys(self.numeric + self.finite + self.text + self.labels + self.integer + self.boolean
                             + self.required + tuple(c for _, cols in self.finite_unless_undetermined for c in cols)
                             + tuple(c for pair in self.certified for c in pair)
                             + tuple(c for _, _, cols in self.finite_when for c in cols) + self.key)
        return tuple(seen)


_MATRIX = ("a11", "a12", "a21", "a22", "v11", "v12", "v21", "v22")
_PARAMS = TableSpec(numeric=(*_MATRIX, "beta", "x", "y"), finite=(*_MATRIX, "beta", "x", "y"),
                    text=("case", "kind"), integer=("point_id",))
_METHODS = ("oa", "ws", "particles")

#: Every CSV intermediate, by kind (extra columns are allowed: producers may add some).
TABLES = {
    "params": replace(_PARAMS, key=("point_id",)),
    "sim": TableSpec(
        numeric=(*_PARAMS.numeric, *(f"{q}_{m}" for m in _METHODS for q in ("abs_R2", "rate", "period"))),
        finite=_PARAMS.finite,
        finite_unless_undetermined=tuple((f"regime_{m}", (f"abs_R2_{m}", f"rate_{m}")) for m in _METHODS),
        certified=tuple((f"regime_{m}", f"certified_{m}") for m in _METHODS),
        text=_PARAMS.text, labels=(*(f"regime_{m}" for m in _METHODS), "regime_oa_token_start"),
        integer=("point_id",), key=("point_id",)),
    "highdim_run": TableSpec(
        numeric=("r_final", "drift_rate", "period", "mean_token_norm", "rtol", "rtol_check", "r_final_check",
                 "r_change_last_quarter", "horizon", "offplane_start", "offplane_final", "transverse_rate",
                 "contraction_exponent", "contraction_exponent_theory"),
        finite=("rtol", "rtol_check", "horizon", "offplane_start"), text=("scenario", "model"), labels=("regime", "regime_check"),
        finite_unless_undetermined=(("regime", ("r_final", "drift_rate", "mean_token_norm", "r_change_last_quarter")),
                                    ("regime_check", ("r_final_check",))),
        certified=(("regime", "certified"), ("regime_check", "certified_check")),
        finite_when=(("regime", ("oscillate",), ("period",)),),
        integer=("d", "n_tokens"), boolean=("check_ok",), key=("scenario", "model", "d", "n_tokens")),
    "stability_run": TableSpec(
        numeric=("strength", "eps", "abs_R2_0", "abs_R2_tokens", "abs_R2_oa", "rate_tokens", "rate_oa"),
        finite=("strength", "eps", "abs_R2_0"), text=("regime", "family", "checked_tokens", "checked_oa"),
        finite_unless_undetermined=(("regime_tokens", ("abs_R2_tokens", "rate_tokens")),
                                    ("regime_oa", ("abs_R2_oa", "rate_oa"))),
        certified=(("regime_tokens", "certified_tokens"), ("regime_oa", "certified_oa")),
        labels=("regime_tokens", "regime_oa"), integer=("seed", "n"), boolean=("hypothesis",),
        key=("regime", "family", "strength", "seed")),
    "robustness_run": TableSpec(
        numeric=("delta", "rel_change_A", "rel_change_V", "abs_R2", "rate", "period", "tau", "min_rate"),
        finite=("delta", "rel_change_V", "tau", "min_rate"), text=("scenario", "model", "kind", "checked"),
        labels=("regime",), certified=(("regime", "certified"),),
        finite_unless_undetermined=(("regime", ("abs_R2", "rate")),),
        integer=("run", "d", "n_tokens", "perturb_seed", "bits"), key=("run",)),
    "persistence_run": TableSpec(
        numeric=("r_final", "r_min", "r_max", "r_mean", "rate", "period", "mean_token_norm", "majority", "tau",
                 "rate_theory", "rate_rel_err", "beta", "horizon", "r_change_last_quarter", "contraction_exponent",
                 "contraction_exponent_theory"),
        finite=("beta", "horizon", "tau", "r_change_last_quarter"),
        text=("study", "scenario", "model", "cluster_shape", "checked"),
        finite_unless_undetermined=(("regime", ("r_final", "r_min", "r_max", "r_mean", "rate", "mean_token_norm",
                                                "majority")),),
        labels=("regime",), certified=(("regime", "certified"),), integer=("run_id", "d", "seed", "n_tokens"),
        finite_when=(("regime", ("oscillate",), ("period",)),), key=("run_id",)),
    "bifurcation_fit": TableSpec(  # lsadyn.paper.cases2d.summary.bifurcation_summary
        numeric=("mu_c_theory", "mu_converge_max", "mu_rotate_min", "fit_exponent", "fit_prefactor", "theory_exponent",
                 "theory_prefactor", "exact_law_fit_exponent", "exact_law_fit_prefactor", "fit_dmu_min", "fit_dmu_max",
                 "period_max_rel_err"),
        finite=("mu_c_theory", "theory_exponent", "theory_prefactor"),  # the fits are NaN with < 2 points
        boolean=("threshold_in_bracket",), integer=("n_fit", "n_rotating")),
    "continuation": TableSpec(  # lsadyn.paper.continuation.runs
        numeric=("x", "y", "re_R2", "im_R2", "period", "multiplier"), finite=("x", "y"),
        text=("plane", "branch", "kind", "location", "x_name", "y_name", "stability")),
    "usa_oscillation_run": TableSpec(  # lsadyn.paper.usa_oscillation.runs (exit_time, growth_measured may be NaN)
        numeric=("beta", "exit_time", "t_max", "t_end", "final_abs_Z1", "initial_abs_Z1", "r2_min", "r2_max",
                 "growth_measured", "seconds"),
        finite=("beta", "t_max", "t_end", "final_abs_Z1", "initial_abs_Z1", "r2_min", "r2_max"),
        required=("start",), integer=("run_id", "n"), key=("run_id",)),
    "usa_oscillation_series": TableSpec(numeric=("t", "abs_Z1", "abs_R2"), finite=("t", "abs_Z1", "abs_R2"),
                                        integer=("run_id",), key=("run_id", "t")),
    "usa_oscillation_growth": TableSpec(numeric=("beta", "growth_rate", "t_max"), finite=("beta", "growth_rate"),
                                        integer=("n_tokens",), boolean=("neutral",), key=("beta", "n_tokens")),
    "exponents": TableSpec(  # lsadyn.paper.exponents.runs
        numeric=("lyap_1", "lyap_2", "lyap_last", "oa_exponent", "oa_lyap_1", "oa_lyap_2", "oa_lyap_last"),
        finite=("lyap_1", "lyap_last"), text=("scenario", "model", "start", "oa_regime"),
        integer=("run", "d", "n_tokens", "n_vectors", "seed"), key=("run",)),
    "floquet": TableSpec(
        numeric=("x", "y", "period", "period_numeric", "exponent", "exponent_numeric", "trivial_multiplier_error"),
        finite=("period", "period_numeric", "exponent", "exponent_numeric"), text=("family",),
        key=("family", "x", "y")),
    "basins": TableSpec(
        numeric=("exponent", "re_R2", "im_R2", "fraction", "ci_low", "ci_high"),
        finite=("fraction", "ci_low", "ci_high"), text=("point", "regime"),
        integer=("attractor", "count", "n_samples"), key=("point", "attractor")),
    "regimes": TableSpec(  # results/tables/regimes.csv: the sims with the OA attractors' leading exponents
        numeric=("exponent_oa",), labels=("regime_oa",), key=("case", "point_id")),
    "claims": TableSpec(required=("statement", "pass")),
    "any": TableSpec(),
}

# the atlas stage (lsadyn.paper.atlas): its jobs' rows and its tables
TABLES.update({
    "atlas_d2": TableSpec(numeric=("trA", "detA", "discA", "trV", "detV", "discV", "abs_R2", "budget_factor"),
                          finite=("trA", "detA", "discA", "trV", "detV", "discV"), text=("ensemble",),
                          labels=("regime",), certified=(("regime", "certified"),), integer=("sample",),
                          key=("ensemble", "sample")),
    "atlas_tokens": TableSpec(numeric=("beta", "budget_factor"), finite=("beta",),
                              text=("ensemble", "model", "cluster_shape"), labels=("regime",),
                              certified=(("regime", "certified"),),
                              integer=("d", "n_tokens", "sample"), boolean=("settled",),
                              key=("ensemble", "model", "d", "n_tokens", "beta", "sample")),
    "atlas_phase": TableSpec(numeric=("beta", "t", "r", "pairs"), finite=("beta", "t", "r", "pairs"),
                             text=("ensemble", "model"), integer=("d", "n_tokens", "run"),
                             key=("ensemble", "model", "d", "n_tokens", "beta", "run", "t")),
    "atlas": TableSpec(numeric=("beta", "fraction", "ci_low", "ci_high"), finite=("beta", "fraction"),
                       text=("ensemble", "model", "method"), labels=("regime",), integer=("d", "count", "n_samples"),
                       key=("ensemble", "model", "method", "d", "beta", "regime")),
    "atlas_invariants": TableSpec(numeric=("lo", "hi", "fraction", "ci_low", "ci_high", "share"),
                                  text=("ensemble", "invariant"), integer=("bin", "n_samples", "n_oscillate"),
                                  key=("ensemble", "invariant", "bin")),
    "atlas_phase_table": TableSpec(numeric=("beta", "t", "fraction", "ci_low", "ci_high", "mean_pairs"),
                                   finite=("beta", "t", "fraction"), text=("ensemble", "model"),
                                   integer=("d", "n_tokens", "n_runs", "n_clustered"),
                                   key=("ensemble", "model", "d", "n_tokens", "beta", "t")),
})

# the looped stage (lsadyn.paper.looped): training curves and the flow-against-network table (rates and periods are
# NaN where a run has none: undetermined, or not turning)
TABLES.update({
    "looped_train": TableSpec(numeric=("loss", "test_loss", "baseline_loss", "reference_loss", "accuracy",
                                       "baseline_accuracy", "h"),
                              finite=("loss", "test_loss", "baseline_loss", "h"), text=("task", "model"),
                              integer=("seed", "step", "d", "n", "L"), key=("task", "model", "seed", "step")),
    "looped": TableSpec(numeric=("h", "t_observed", "task_loss", "baseline_loss", "reference_loss", "accuracy",
                                 "baseline_accuracy", "predicted_rate", "observed_rate", "map_rate", "predicted_period",
                                 "observed_period", "predicted_t"),
                        finite=("h", "t_observed", "task_loss", "baseline_loss"),
                        text=("task", "model", "start", "quantised", "weights"),
                        labels=("predicted_regime", "observed_regime"),
                        certified=(("predicted_regime", "predicted_certified"), ("observed_regime", "observed_certified")),
                        integer=("seed", "d", "n", "L", "L_observed", "observed_layers"),
                        boolean=("agree", "decided", "quantised_changed"),
                        required=("predicted_checked", "observed_checked"), key=("task", "model", "seed", "start")),
})


def _labels():
    from lsadyn.regimes.classify import LABELS

    return set(LABELS)


def _check_csv_bytes(path: Path) -> None:
    if not path.exists():
        _fail(path, "file is missing")
    size = path.stat().st_size
    if size == 0:
        _fail(path, "file is empty")
    with open(path, "rb") as fh:
        head = fh.read(4096)
        fh.seek(-1, os.SEEK_END)
        last = fh.read(1)
    if b"\0" in head:
        _fail(path, "not a CSV table (binary data)")
    if last != b"\n":
        _fail(path, "truncated (the last line is incomplete)")


def _finite_in_rows(path, df, rows, cols, whose, label) -> None:
    """Fail naming the first of ``cols`` that holds NaN or inf in the rows selected by the mask ``rows``;
    ``whose(first row, its label value)`` says which rows those are."""
    for col in cols:
        bad = rows & ~np.isfinite(df[col].to_numpy(dtype=float))
        if bad.any():
            first = int(bad.argmax()) + 1
            _fail(path, f"column {col} has NaN or inf in {int(bad.sum())} row(s) {whose(first, df[label].iloc[first - 1])}")


def _true_false(path, df, col):
    """The column ``col`` as lower-case text, after checking that it holds only true/false."""
    vals = df[col].astype(str).str.lower()
    if not set(vals) <= {"true", "false"}:
        _fail(path, f"column {col} must be true/false, found {sorted(set(vals) - {'true', 'false'})[:3]}")
    return vals


def load_table(path, kind: str = "any", *, rows: int | None = None, rows_like=None, min_rows: int = 1):
    """Read and check a CSV intermediate of ``kind`` (a key of :data:`TABLES`).

    Checks: the file exists, is complete (ends with a newline), parses, has the kind's columns with
    the right types, finite values where required, valid regime labels, and exactly ``rows`` rows
    (or as many rows, with the same ``point_id`` values, as the params table ``rows_like``).
    Raises :class:`ResultFileError` (one line naming the file) instead of a pandas error.
    """
    import pandas as pd

    _ensure_job()
    path = Path(path)
    spec = TABLES[kind]
    _check_csv_bytes(path)
    try:
        df = read_csv(path)
    except Exception as err:  # noqa: BLE001 (any parser failure is a corrupted file)
        _fail(path, f"not a readable CSV table ({type(err).__name__}: {' '.join(str(err).split())[:120]})")
    missing = [c for c in spec.columns if c not in df.columns]
    if missing:
        _fail(path, f"missing column(s) {', '.join(missing)}")
    for col in spec.numeric + spec.integer:
        if not pd.api.types.is_numeric_dtype(df[col]) or pd.api.types.is_bool_dtype(df[col]):
            bad = pd.to_numeric(df[col], errors="coerce").isna() & (df[col].astype(str) != "")
            row = int(bad.to_numpy().argmax()) if bad.any() else 0
            _fail(path, f"column {col} is not numeric (row {row + 1}: {df[col].iloc[row]!r})")
    for col in spec.finite + spec.integer:
        ok = np.isfinite(df[col].to_numpy(dtype=float))
        if not ok.all():
            first = int((~ok).argmax()) + 1
            _fail(path, f"column {col} has NaN or inf in {int((~ok).sum())} row(s) (first: row {first})")
    for label, cols in spec.finite_unless_undetermined:
        _finite_in_rows(path, df, (df[label].astype(str) != "undetermined").to_numpy(), cols,
                        lambda first, value: f"whose {label} is not undetermined (first: row {first}, {label} {value})",
                        label)
    for col in spec.integer:
        v = df[col].to_numpy(dtype=float)
        if not np.all(v == np.round(v)):
            _fail(path, f"column {col} must hold integers")
    for col in spec.boolean:
        _true_false(path, df, col)
    for col in spec.text:
        if (df[col].astype(str) == "").any():
            _fail(path, f"column {col} has empty cells")
    if spec.labels:
        labels = _labels()
        for col in spec.labels:
            bad = sorted(set(df[col].astype(str)) - labels)
            if bad:
                _fail(path, f"column {col} holds {bad[0]!r}, not a regime label ({', '.join(sorted(labels))})")
    for label, which, cols in spec.finite_when:
        _finite_in_rows(path, df, df[label].astype(str).isin(which).to_numpy(), cols,
                        lambda first, value: f"whose {label} is {value} (first: row {first}): such a run always has one",
                        label)
    if spec.key and len(df):
        dup = df.duplicated(list(spec.key), keep="first").to_numpy()
        if dup.any():
            row = int(dup.argmax())
            vals = tuple(df[list(spec.key)].iloc[row])
            same = df[list(spec.key)].apply(tuple, axis=1) == vals
            first = int(same.to_numpy().argmax())
            _fail(path, f"row {row + 1} repeats row {first + 1} in its key column(s) {', '.join(spec.key)} "
                        f"({', '.join(map(str, vals))}; {int(dup.sum())} repeated row(s)): a run is counted once")
    for label, flag in spec.certified:
        vals = _true_false(path, df, flag)
        bad = (df[label].astype(str) != "undetermined").to_numpy() != (vals == "true").to_numpy()
        if bad.any():
            first = int(bad.argmax())
            _fail(path, f"row {first + 1}: {label} is {df[label].iloc[first]!r} but {flag} is {vals.iloc[first]}: "
                        f"a label is given exactly when its attractor is certified ({int(bad.sum())} such row(s))")
    if rows_like is not None:
        ref = load_table(rows_like, "params")
        if len(df) != len(ref):
            _fail(path, f"{len(df)} rows, expected {len(ref)} (one per row of {rows_like})")
        if "point_id" in df.columns and sorted(df.point_id) != sorted(ref.point_id):
            _fail(path, f"point_id values differ from {rows_like}")
    if rows is not None and len(df) != rows:
        _fail(path, f"{len(df)} rows, expected {rows} (from the config that produced it)")
    if len(df) < min_rows:
        _fail(path, f"{len(df)} rows, expected at least {min_rows}")
    return df


@dataclass(frozen=True)
class ArraySpec:
    """What an .npz intermediate must hold: ``required`` keys (``{m}`` expands to each prefix found
    by ``prefix_key``), and ``finite`` ones among them that may hold no NaN/inf (the inputs of a
    run, such as its time grid; a simulated quantity may legitimately be NaN)."""

    required: tuple = ()
    prefix_key: str | None = None
    finite: tuple = ()


ARRAYS = {
    "traj": ArraySpec(required=("regime", "point_id", "x", "y", "t", "R2_oa", "R2_particles", "theta"),
                      finite=("x", "y", "t")),
    "orbits": ArraySpec(required=("t", "R2", "H", "H_rel_drift", "R2_converge", "v"), finite=("t", "v")),
    "highdim": ArraySpec(required=("{m}_t", "{m}_r", "{m}_swept_angle", "{m}_snapshot_times", "{m}_histograms",
                                   "{m}_bin_edges"), prefix_key="_t",
                         finite=("{m}_t", "{m}_snapshot_times", "{m}_bin_edges")),
    "any": ArraySpec(),
}


def load_arrays(path, kind: str = "any") -> dict:
    """Read and check an .npz intermediate of ``kind`` (a key of :data:`ARRAYS`) → dict of arrays
    (read eagerly, no pickles). Raises :class:`ResultFileError` (one line naming the file)."""
    import zipfile
    import zlib

    _ensure_job()
    path = Path(path)
    spec = ARRAYS[kind]
    if not path.exists():
        _fail(path, "file is missing")
    if path.stat().st_size == 0:
        _fail(path, "file is empty")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"PK\x03\x04":
        _fail(path, "not a NumPy .npz archive (garbage data: no zip header)")
    unreadable = (OSError, EOFError, zipfile.BadZipFile, KeyError, zipfile.LargeZipFile, RuntimeError, zlib.error)
    try:
        z = np.load(path, allow_pickle=False)
    except ValueError as err:
        why = "holds pickled objects" if "pickle" in str(err) else "not a NumPy .npz archive"
        _fail(path, f"{why} (garbage or truncated data)")
    except unreadable as err:
        _fail(path, f"not a readable NumPy .npz archive ({type(err).__name__}: {' '.join(str(err).split())[:100]})")
    arrays = {}
    with z:  # member by member: a damaged member's data (zip directory intact) fails when it is decompressed
        for k in z.files:
            try:
                arrays[k] = z[k]
            except ValueError as err:
                why = "holds pickled objects" if "pickle" in str(err) else "is not a NumPy array"
                _fail(path, f"member {k} {why} (garbage or truncated data)")
            except unreadable as err:
                _fail(path, f"member {k} is damaged ({type(err).__name__}: {' '.join(str(err).split())[:100]})")
    if not isinstance(arrays, dict) or not arrays:
        _fail(path, "archive holds no arrays")
    required, finite = list(spec.required), list(spec.finite)
    if spec.prefix_key:
        prefixes = sorted(k[: -len(spec.prefix_key)] for k in arrays if k.endswith(spec.prefix_key))
        if not prefixes:
            _fail(path, f"no arrays named <model>{spec.prefix_key}")
        required = [r.replace("{m}", m) for m in prefixes for r in spec.required]
        finite = [r.replace("{m}", m) for m in prefixes for r in spec.finite]
    missing = [k for k in required if k not in arrays]
    if missing:
        _fail(path, f"missing array(s) {', '.join(missing)}")
    for k in finite:
        a = arrays[k]
        if a.dtype.kind not in "fciu":
            _fail(path, f"array {k} is not numeric (dtype {a.dtype})")
        if not np.all(np.isfinite(a)):
            _fail(path, f"array {k} has NaN or inf")
    return arrays
