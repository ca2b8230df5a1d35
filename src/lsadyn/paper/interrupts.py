"""Interrupting a build: one message, a documented drain/cancel, an exit code that says so.

Snakemake 9 on its own (read from snakemake/scheduling/job_scheduler.py and workflow.py, 9.15):

* SIGTERM (to the main process): the scheduler's handler switches to "graceful" mode — no new job
  starts, running jobs finish — but it logs "Will exit after finishing currently running jobs" on
  every scheduler wake-up (once per finished job: 16 times in a quick build) and then ends with
  "WorkflowError: At least one job did not complete successfully" and exit code 1, as if a job had
  failed;
* SIGINT: ``KeyboardInterrupt`` in the scheduler, "Terminating processes on user request", the
  local executor's pool is shut down (it waits for running jobs), then the same WorkflowError, exit
  code 1. Ctrl-C on a terminal and ``kill -<sig> -<pgid>`` also reach the job processes, which stop
  at once (their outputs are removed by Snakemake as those of failed jobs).

The Snakefile's ``onstart:`` calls :func:`install` (after the scheduler installed its handlers) and
``onerror:`` calls :func:`finish`. Then:

* the first SIGTERM/SIGINT prints one line saying what happens now (no new job starts; running
  jobs finish, or stop at once if the signal reached them too) and how to resume; repeats of Snakemake's
  "Will exit after finishing" line are dropped;
* the build ends with one line and exit code 143 (SIGTERM) or 130 (SIGINT) instead of the
  WorkflowError (a job that really failed still gives Snakemake's error and exit code 1);
* rerunning the same command resumes: finished outputs are kept, interrupted jobs' outputs are
  removed by Snakemake and rebuilt.

A job that receives the signal before its own code runs (Python start-up, Snakemake's script
preamble: its first second or so) still prints Python's KeyboardInterrupt traceback: that is out of
the workflow's reach. Job processes (scripts and notebooks) stop with their parent: :func:`lsadyn.paper.io.setup_log`
sets ``PR_SET_PDEATHSIG`` so that even after a SIGKILL of the main process no job lives on.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading

EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143}
_STATE: dict = {"signal": None, "installed": False}

#: What happens after the signal (both: Snakemake's local executor waits for running jobs; jobs that
#: got the signal too — Ctrl-C on a terminal, ``kill -TERM -<pgid>`` — stop at once).
_WHAT_NOW = "no new job starts; running jobs finish, or stop at once if the signal reached them too"


class _OnceFilter(logging.Filter):
    """Let Snakemake's "Will exit after finishing currently running jobs" through once."""

    def __init__(self):
        super().__init__()
        self.seen = False

    def filter(self, record):
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001 (never break logging)
            return True
        if "Will exit after finishing currently running jobs" in msg:
            if self.seen or _STATE["signal"] is not None:
                return False  # our own line already said it
            self.seen = True
        return True


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _wrap(sig):
    previous = signal.getsignal(sig)

    def handler(signum, frame):
        name = signal.Signals(signum).name
        if _STATE["signal"] is None:
            _STATE["signal"] = name
            _say(f"lsadyn: {name} received: {_WHAT_NOW}; then the build stops "
                 "(rerun the same command to resume)")
        if callable(previous):
            if getattr(previous, "__name__", "") == "exit_gracefully":
                # Snakemake's SIGTERM handler takes the scheduler's lock (a threading.Lock, not reentrant). Run
                # here, in the main thread, it deadlocks when the signal lands while that thread holds the lock
                # (e.g. handling a job that just ended): the build then never exits. A thread waits for the lock.
                threading.Thread(target=previous, args=(signum, frame), daemon=True).start()
                return None
            return previous(signum, frame)
        if previous == signal.SIG_IGN:
            return None
        raise KeyboardInterrupt(name)

    signal.signal(sig, handler)


def install(workflow=None) -> None:
    """Wrap the scheduler's SIGTERM and SIGINT handlers (call from ``onstart:``)."""
    if _STATE["installed"]:
        return
    _STATE["installed"] = True
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            _wrap(sig)
        except ValueError:  # not in the main thread: leave Snakemake's behaviour
            return
    flt = _OnceFilter()
    for name in ("snakemake", "snakemake.logging", ""):
        logging.getLogger(name).addFilter(flt)
        for h in logging.getLogger(name).handlers:
            h.addFilter(flt)
    try:
        from snakemake.logging import logger as smk_logger

        smk_logger.addFilter(flt)
        for h in getattr(smk_logger, "handlers", []):
            h.addFilter(flt)
    except Exception:  # noqa: BLE001 (another Snakemake version: messages may repeat)
        pass


def interrupted() -> str | None:
    """Name of the signal that interrupted the build, or None."""
    return _STATE["signal"]


def finish(log=None) -> None:
    """Call from ``onerror:``: after an interrupt, one line and exit 130/143 (no WorkflowError)."""
    name = _STATE["signal"]
    if name is None:
        return
    _say(f"lsadyn: build interrupted by {name}; finished outputs are kept; rerun the same command to resume")
    raise SystemExit(EXIT_CODES[name])
