"""Named arrays from weight files: ``.npz`` (numpy) and ``.safetensors`` (its numpy API), with string metadata.

:func:`load_arrays` returns ``(arrays, metadata)``: ``{name: ndarray}`` (float64 copies) and ``{key: str}``
(safetensors' header metadata; for ``.npz``, 0-d string arrays). A missing, unreadable or foreign file raises one
ValueError line naming it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np


def _npz(path: Path):
    try:
        with np.load(path, allow_pickle=False) as z:
            raw = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(f"weights: {path} is not a readable .npz file ({type(err).__name__}: {err})") from None
    arrays, meta = {}, {}
    for k, v in raw.items():
        if v.ndim == 0 and v.dtype.kind in "US":
            meta[k] = str(v)
        elif v.dtype.kind in "fiu":
            arrays[k] = np.asarray(v, dtype=float)
    return arrays, meta


def _safetensors(path: Path):
    try:
        from safetensors import safe_open
    except ImportError:  # pragma: no cover - a declared dependency
        raise ValueError("weights: reading .safetensors needs the package safetensors (pip install safetensors)") from None
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = dict(f.metadata() or {})
            arrays = {k: np.asarray(f.get_tensor(k), dtype=float) for k in f.keys()}
    except Exception as err:  # safetensors raises its own SafetensorError for a malformed header
        raise ValueError(f"weights: {path} is not a readable .safetensors file ({type(err).__name__}: "
                         f"{str(err).splitlines()[0] if str(err) else ''})") from None
    return arrays, meta


def load_arrays(path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(arrays, metadata) of a ``.npz`` or ``.safetensors`` file (see the module)."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"weights: no such file {p}")
    suffix = p.suffix.lower()
    if suffix == ".npz":
        return _npz(p)
    if suffix == ".safetensors":
        return _safetensors(p)
    raise ValueError(f"weights: {p}: unknown format {suffix or '(no suffix)'}; give a .npz or .safetensors file")
