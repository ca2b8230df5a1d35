"""Cost before work: estimate the memory and time of a run, refuse what the machine cannot do,
warn about long runs, and report progress while they go.

:func:`check_budget` is called at the start of the public entry points (:mod:`lsadyn.api`) and by
the CLI. Its model (fitted to whole API runs on a 2-core x86 machine, one BLAS thread; an upper
estimate, good to a factor of ~3 — runs that the decision procedure settles early take less):

* integration steps: ``STEPS_PER_TAU`` adaptive steps per unit of τ = 1/(β‖A‖₂‖V‖₂) of
  ``horizon`` (``horizon`` is in units of τ everywhere in the API), ``EVALS_PER_STEP`` field
  evaluations per step (DOP853);
* one field evaluation, n tokens in d dimensions (:func:`_eval_seconds`): LSA ``n·d·(a + b·d)``
  (through M = XᵀX/n; compiled in d = 2), USA/SA ``n²·(c + e·d)`` (the n×n kernel), OA (8 complex
  ODEs) about a microsecond, WS (3 variables, n constants) ``1 µs + n·0.7 ns``; d = 2 USA/SA with
  ``harmonics`` = L given: the cheaper of the kernel and the moment form of
  :mod:`lsadyn.fields.kuramoto_daido` (:func:`moment_eval_seconds`, ``2 n (M + 2)`` terms of its two
  compiled passes; :func:`softmax_d2_uses_moments` is the rule the fields dispatch by, so the estimate
  follows the path that runs);
* observing: one symmetric eigendecomposition of the d×d second moment per stored sample (d > 2,
  ~``4e-10·d³`` s);
* memory: the solver keeps ~``STATE_COPIES`` copies of the n×d state, USA/SA ~``KERNEL_COPIES``
  n×n float arrays (none for the d = 2 moment form: O(n)), plus the ``n_samples`` stored observations.

Documented limits (override per call, or for a whole session by environment variable):

* memory: ``max_bytes`` (default: half of the machine's physical memory; ``LSADYN_MAX_BYTES``);
* time: ``max_seconds`` (default :data:`MAX_SECONDS` = 1 hour; ``LSADYN_MAX_SECONDS``; pipeline jobs
  run without a time limit: their sizes are the config's, their runtime is the rule's ``runtime``);
  ``math.inf`` disables a limit.

Runs estimated above :data:`WARN_SECONDS` emit a :class:`LongRunWarning` (and, in the CLI, a note).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass

#: Adaptive (DOP853) steps per unit of τ, measured on the README's examples (6-8).
STEPS_PER_TAU = 8.0
#: Field evaluations per DOP853 step.
EVALS_PER_STEP = 12
#: Fixed cost of one field evaluation in Python/numpy (seconds).
EVAL_OVERHEAD = 3e-5
#: Fixed cost of one evaluation inside the compiled d = 2 kernels (OA, WS, d = 2 LSA tokens).
COMPILED_OVERHEAD = 1e-6
#: Copies of the n×d state held by the solver (stages, error estimate, observer temporaries).
STATE_COPIES = 40
#: n×n float arrays alive during a USA/SA evaluation (logits, kernel, temporaries).
KERNEL_COPIES = 5
#: Estimated seconds above which a run is refused unless ``max_seconds`` says otherwise.
MAX_SECONDS = 3600.0
#: Estimated seconds above which a :class:`LongRunWarning` is emitted.
WARN_SECONDS = 60.0

#: d = 2 softmax by moments (:mod:`lsadyn.fields.kuramoto_daido`), seconds per evaluation: fixed overhead and
#: per token and harmonic of each of its two passes (moments; weights and sums), measured on a loaded 2-core
#: machine for n = 16 … 10⁶, M = 15 … 34 (upper values; ``bench_core.py --only-daido`` records the speed).
MOMENT_OVERHEAD = 8e-5
MOMENT_PER_TOKEN_HARMONIC = 8e-9

MODELS = ("lsa", "usa", "sa", "oa", "ws")


class LongRunWarning(UserWarning):
    """A run is estimated to take longer than :data:`WARN_SECONDS`."""


@dataclass(frozen=True)
class Budget:
    """Estimated cost of one run: peak bytes, field evaluations and seconds."""

    bytes: float
    evaluations: float
    seconds: float

    def describe(self) -> str:
        return f"~{_fmt_bytes(self.bytes)} of memory, ~{_fmt_seconds(self.seconds)}"


def _fmt_bytes(b: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b / 1e3:.3g} kB"


def _fmt_seconds(s: float) -> str:
    if not math.isfinite(s) or s > 3.15e9:
        return "more than a century"
    if s >= 86400:
        return f"{s / 86400:.3g} days"
    if s >= 3600:
        return f"{s / 3600:.3g} h"
    if s >= 60:
        return f"{s / 60:.3g} min"
    return f"{s:.2g} s"


def physical_memory() -> float:
    """Bytes of physical memory of this machine (8 GiB if unknown)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8.0 * 2**30


def default_max_bytes() -> float:
    """``LSADYN_MAX_BYTES`` if set, else half of the physical memory."""
    env = os.environ.get("LSADYN_MAX_BYTES")
    return float(env) if env else physical_memory() / 2


def default_max_seconds() -> float:
    """``LSADYN_MAX_SECONDS`` if set, else :data:`MAX_SECONDS`."""
    env = os.environ.get("LSADYN_MAX_SECONDS")
    return float(env) if env else MAX_SECONDS  # pipeline jobs set inf (lsadyn_workflow.io.setup_log)


def moment_eval_seconds(n: float, harmonics: float) -> float:
    """Estimated seconds of one d = 2 softmax evaluation by moments, n tokens, cutoff M = ``harmonics``."""
    return MOMENT_OVERHEAD + 2.0 * n * (float(harmonics) + 2.0) * MOMENT_PER_TOKEN_HARMONIC


def _kernel_eval_seconds(n: float, d: float) -> float:
    return EVAL_OVERHEAD + n * n * (6e-9 + 5e-10 * d) + n * d * d * 2e-11


def softmax_d2_uses_moments(n: float, harmonics: float) -> bool:
    """The d = 2 USA/SA dispatch rule: the moment form when its estimate is below the n×n kernel's."""
    return moment_eval_seconds(n, harmonics) < _kernel_eval_seconds(n, 2.0)


def _uses_moments(model, n, d, harmonics) -> bool:
    return model in ("usa", "sa") and d == 2 and harmonics is not None and softmax_d2_uses_moments(n, harmonics)


def _eval_seconds(model: str, n: float, d: float, harmonics=None) -> float:
    """Seconds per field evaluation, fitted to whole runs of the API (compiled d = 2 kernels for
    OA, WS and d = 2 LSA tokens; two GEMMs for LSA in d > 2; compiled exp for USA/SA; the moment form
    for d = 2 USA/SA when ``harmonics`` is given and it is the cheaper)."""
    if model == "lsa":
        if d == 2:
            return COMPILED_OVERHEAD + n * 1e-9
        return EVAL_OVERHEAD + n * d * (5e-10 + 2e-11 * d)
    if model in ("usa", "sa"):
        if _uses_moments(model, n, d, harmonics):
            return moment_eval_seconds(n, harmonics)
        return _kernel_eval_seconds(n, d)
    if model == "ws":
        return COMPILED_OVERHEAD + n * 7e-10
    return COMPILED_OVERHEAD  # oa: 8 complex ODEs


def estimate(n, d, model, horizon, n_samples, *, dt=None, runs=1, harmonics=None) -> Budget:
    """Estimated :class:`Budget` of ``runs`` integrations of n tokens in d dimensions to ``horizon``
    (units of τ), storing ``n_samples`` observations. ``dt`` (fixed-step RK4, units of τ) replaces
    the adaptive step count. ``harmonics``: the cutoff M of the d = 2 softmax moment form
    (:func:`lsadyn.fields.kuramoto_daido.harmonics`; None: the n×n kernel). Pure arithmetic: never allocates."""
    n, d, horizon, n_samples = float(n), float(d), float(horizon), float(n_samples)
    if dt is not None:
        evals = 4.0 * horizon / float(dt)
    else:
        evals = EVALS_PER_STEP * STEPS_PER_TAU * horizon
    evals = max(evals, 1.0) * runs
    if model in ("oa",):
        state = 8 * 2 * 8.0
    elif model == "ws":
        state = 8.0 * (3 + 2 * n)
    else:
        state = 8.0 * n * d
    mem = STATE_COPIES * state + 8.0 * n_samples * (d + 4)
    if _uses_moments(model, n, d, harmonics):
        mem += 16.0 * 8 * n  # O(n): phases, moments' inputs, sums, velocities
    elif model in ("usa", "sa"):
        mem += KERNEL_COPIES * 8.0 * n * n
    observe = n_samples * (n * d * 2e-9 + (4e-10 * d**3 if d > 2 and model in ("lsa", "usa", "sa") else 0.0))
    return Budget(bytes=mem, evaluations=evals,
                  seconds=evals * _eval_seconds(model, n, d, harmonics) + runs * observe)


def check_budget(n, d, model, horizon, n_samples, *, max_bytes=None, max_seconds=None, dt=None, runs=1,
                 names=None, harmonics=None) -> Budget:
    """Refuse a run whose estimated cost exceeds the limits; warn when it will be long.

    Raises ``ValueError`` whose one-line message names the argument that makes the run too big
    (``n`` for memory, ``horizon`` for time, unless ``names`` maps them to e.g. CLI flags) and the
    override (``max_bytes=`` / ``max_seconds=``). ``harmonics``: as in :func:`estimate`. Returns the :class:`Budget`.
    """
    names = {"n": "n", "horizon": "horizon", "max_bytes": "max_bytes=", "max_seconds": "max_seconds=",
             **(names or {})}
    if model not in MODELS:
        raise ValueError(f"model: must be one of {', '.join(MODELS)}, got {model!r}")
    max_bytes = default_max_bytes() if max_bytes is None else float(max_bytes)
    max_seconds = default_max_seconds() if max_seconds is None else float(max_seconds)
    b = estimate(n, d, model, horizon, n_samples, dt=dt, runs=runs, harmonics=harmonics)
    what = (f"model=oa, horizon={horizon:g}" if model == "oa"
            else f"n={n:g}, d={d:g}, model={model}, horizon={horizon:g}")
    if b.bytes > max_bytes:
        raise ValueError(
            f"{names['n']}: the run needs {_fmt_bytes(b.bytes)} of memory ({what}), over the limit of "
            f"{_fmt_bytes(max_bytes)}; reduce {names['n']} (or d), or raise the limit with "
            f"{names['max_bytes']} (or LSADYN_MAX_BYTES)")
    if b.seconds > max_seconds:
        or_n = "" if model == "oa" else f" (or {names['n']})"
        raise ValueError(
            f"{names['horizon']}: the run would take {_fmt_seconds(b.seconds)} ({what}), over the limit of "
            f"{_fmt_seconds(max_seconds)}; reduce {names['horizon']}{or_n}, or raise the limit with "
            f"{names['max_seconds']} (or LSADYN_MAX_SECONDS)")
    if b.seconds > WARN_SECONDS:
        warnings.warn(f"long run: estimated {b.describe()} ({what})", LongRunWarning, stacklevel=2)
    return b


# --------------------------------------------------------------------------------------- progress


class Progress:
    """Progress of one long computation, reported as a fraction done in [0, 1].

    Call the instance with the fraction done (it is the ``progress=`` callback of the API).
    ``mode``:

    * ``"bar"``: a tqdm bar on stderr (the CLI on a terminal);
    * ``"log"``: lines ``<desc>: 40% done, 12.3 s elapsed, ~18 s left`` through ``logger`` (the
      ``lsadyn`` logger of a pipeline job), at most one per ``interval`` seconds (plus 100 %);
    * ``"silent"``: nothing (tests);
    * ``"auto"``: ``bar`` if stderr is a terminal, ``log`` if the ``lsadyn`` logger
      or the root logger writes to a file (a pipeline job: :func:`lsadyn_workflow.io.setup_log`), else
      ``silent`` (tests, scripts).
    """

    def __init__(self, desc: str = "lsadyn", mode: str = "auto", logger: logging.Logger | None = None,
                 interval: float = 10.0):
        self.desc = desc
        self.logger = logger or logging.getLogger("lsadyn")
        if mode == "auto":
            if sys.stderr is not None and hasattr(sys.stderr, "isatty") and sys.stderr.isatty():
                mode = "bar"
            elif any(isinstance(h, logging.FileHandler) and h.baseFilename != os.devnull
                     for h in self.logger.handlers + logging.getLogger().handlers):
                mode = "log"  # a pipeline job's log file (lsadyn_workflow.io.setup_log)
            else:
                mode = "silent"
        if mode not in ("bar", "log", "silent"):
            raise ValueError(f"mode: must be auto, bar, log or silent, got {mode!r}")
        self.mode = mode
        self.interval = interval
        self.start = time.monotonic()
        self._last = -math.inf
        self.fraction = 0.0
        self._bar = None
        if mode == "bar":
            try:
                from tqdm import tqdm
            except ImportError:  # tqdm is optional: fall back to log lines on stderr
                self.mode = "log"
                self.logger = logging.getLogger("lsadyn.progress")
                if not self.logger.handlers:
                    self.logger.addHandler(logging.StreamHandler(sys.stderr))
                    self.logger.setLevel(logging.INFO)
                    self.logger.propagate = False
            else:
                self._bar = tqdm(total=1000, desc=desc, unit="‰", leave=False, file=sys.stderr,
                                 bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")

    def __call__(self, fraction: float) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        if fraction < self.fraction:
            return
        self.fraction = fraction
        if self.mode == "bar" and self._bar is not None:
            self._bar.update(int(round(fraction * 1000)) - self._bar.n)
        elif self.mode == "log":
            now = time.monotonic()
            if now - self._last >= self.interval or fraction >= 1.0:
                self._last = now
                self.logger.info("%s", self.line(now))

    def line(self, now: float | None = None) -> str:
        """``<desc>: 40% done, 12.3 s elapsed, ~18 s left``."""
        elapsed = (time.monotonic() if now is None else now) - self.start
        text = f"{self.desc}: {100 * self.fraction:.0f}% done, {elapsed:.1f} s elapsed"
        if 0.05 <= self.fraction < 1:  # an estimate from the first few percent is noise
            text += f", ~{_fmt_seconds(elapsed * (1 - self.fraction) / self.fraction)} left"
        return text

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
