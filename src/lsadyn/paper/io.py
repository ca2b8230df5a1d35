"""Writing results files: atomically (temp file + rename, so no half-written output is left),
with fixed float formatting (byte-identical tables for identical inputs)."""

from __future__ import annotations

import logging
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

FLOAT_FORMAT = "%.12g"
#: Columns holding text even when every cell is empty.
TEXT_COLUMNS = ("prediction", "note_", "reason", "kind", "regime", "case")


@contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it onto ``path`` only on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
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


def setup_log(path) -> logging.Logger:
    """Log to ``path`` (a job's log: file) and return the logger."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=str(path), filemode="w", level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s", force=True)
    logging.captureWarnings(True)
    return logging.getLogger("lsadyn")


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
