"""Input checking shared by the library and the CLI.

Every function raises :class:`ValueError` with a one-line message that names the
offending argument, so that callers (and the CLI) can report it verbatim.
"""

from __future__ import annotations

import numpy as np


def as_square_matrix(value, name: str, d: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite float64 ``(d, d)`` array or raise ``ValueError``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: not a numeric matrix") from None
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
    arr = np.asarray(X, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"{name}: expected shape (n, d) with d >= 2, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or inf")
    return arr
