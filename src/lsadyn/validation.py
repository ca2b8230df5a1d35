"""Input checking shared by the library and the CLI.

Every function raises :class:`ValueError` with a one-line message that names the
offending argument, so that callers (and the CLI) can report it verbatim.
"""

from __future__ import annotations

import numpy as np


def _real_array(value, name: str, what: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` for complex, object or non-numeric data
    (numpy would silently keep only the real part of a complex array)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested lists
        raise ValueError(f"{name}: not a numeric {what}") from None
    if raw.dtype.kind == "c":
        raise ValueError(f"{name}: complex values (dtype {raw.dtype}); the model is real: pass a real {what}")
    if raw.dtype.kind not in "fiub":
        raise ValueError(f"{name}: not a numeric {what} (dtype {raw.dtype})")
    return raw.astype(float)


def as_square_matrix(value, name: str, d: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite float64 ``(d, d)`` array or raise ``ValueError`` (also for complex or
    object arrays)."""
    arr = _real_array(value, name, "matrix")
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D square matrix, got {arr.ndim} dimension(s)")
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name}: matrix is not square (shape {arr.shape[0]}x{arr.shape[1]})")
    if arr.shape[0] < 2:
        raise ValueError(f"{name}: dimension must be at least 2, got {arr.shape[0]}")
    if d is not None and arr.shape[0] != d:
        raise ValueError(f"{name}: expected shape {d}x{d}, got {arr.shape[0]}x{arr.shape[1]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or inf")
    return arr


#: Supported range of β, ‖A‖₂, ‖V‖₂ and of their product (the inverse time unit 1/τ). Outside it the
#: products inside the reductions over- or underflow in double precision, and a rate (∝ 1/τ) would
#: be floating-point noise times a huge number. V (and for LSA A, β) only sets the time unit: rescale.
SCALE_RANGE = (1e-100, 1e100)


def check_scale(A, V, beta) -> None:
    """Raise ``ValueError`` naming ``A``, ``V`` or ``beta`` when β, ‖A‖₂, ‖V‖₂ or β‖A‖₂‖V‖₂ is
    outside :data:`SCALE_RANGE`. A zero A or V is refused as a tiny one is (``0`` is below the range too:
    nothing moves, every state is a fixed point and there is no regime, rate or period to read)."""
    lo, hi = SCALE_RANGE
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        norms = {"A": float(np.max(np.abs(A))), "V": float(np.max(np.abs(V))), "beta": float(beta)}
        if norms["A"] > 0:
            norms["A"] = float(np.linalg.norm(np.asarray(A) / norms["A"], 2)) * norms["A"]
        if norms["V"] > 0:
            norms["V"] = float(np.linalg.norm(np.asarray(V) / norms["V"], 2)) * norms["V"]
    for name in ("A", "V"):
        if norms[name] == 0:
            raise ValueError(f"{name}: {name} = 0 (|{name}|_2 = 0 is outside the supported range [{lo:g}, {hi:g}]): "
                             "nothing moves, every state is a fixed point; pass a nonzero matrix")
    log_product = sum(np.log10(v) for v in norms.values())
    for name, v in norms.items():
        if not lo <= v <= hi:
            break
    else:
        if lo <= 10 ** min(max(log_product, -300), 300) <= hi:
            return
        name = max(norms, key=lambda k: abs(np.log10(norms[k])))
    label = {"A": "|A|_2", "V": "|V|_2", "beta": "beta"}[name]
    raise ValueError(
        f"{name}: {label} = {norms[name]:.3g} (beta*|A|_2*|V|_2 = 1e{log_product:.0f}) is outside the supported "
        f"range [{lo:g}, {hi:g}]; rescale it (V, and for LSA also A or beta, only sets the time unit: "
        "rates scale with the factor, the regime does not change)")


def as_positive_float(value, name: str) -> float:
    """Return ``value`` as a finite float > 0 or raise ``ValueError``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: not a number: {value!r}") from None
    if not np.isfinite(x) or x <= 0:
        raise ValueError(f"{name}: must be a finite number > 0, got {value!r}")
    return x


def as_int_at_least(value, name: str, minimum: int) -> int:
    """Return ``value`` as an int >= ``minimum`` or raise ``ValueError``."""
    if isinstance(value, bool):
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    try:
        x = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}") from None
    if x != value and not (isinstance(value, str) and str(x) == value.strip()):
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    if x < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")
    return x


def as_tokens(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite float ``(n, d)`` array with n >= 1, d >= 2."""
    arr = _real_array(X, name, "token array")
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"{name}: expected shape (n, d) with d >= 2, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or inf")
    return arr
