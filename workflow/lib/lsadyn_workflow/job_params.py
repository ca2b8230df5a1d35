"""A chunk's runs as a rule parameter.

Snakemake reruns a job whose params changed since its output was written. A chunked stage (persistence,
robustness) passes each chunk its own runs, and only the settings they read, as params
(``chunk_jobs`` of :mod:`lsadyn.paper.persistence.plan` and :mod:`lsadyn.paper.robustness.plan`: each chunk's runs as a
DataFrame, :func:`chunk_params` turns them into plain values), so a config edit reruns exactly the chunks whose runs
it changes, instead of every chunk of the stage (as passing the stage's whole config section did). Imported when
the Snakefile is parsed: kept light (pandas only, on use).
"""

from __future__ import annotations


def frame_param(frame) -> dict:
    """A DataFrame as a rule parameter: ``{"columns": [...], "rows": [[...], ...]}`` of plain Python values
    (Snakemake compares params by their serialised values); :func:`param_frame` reads it back."""
    return {"columns": [str(c) for c in frame.columns],
            "rows": [[v.item() if hasattr(v, "item") else v for v in row] for row in frame.itertuples(index=False)]}


def chunk_params(chunk: dict) -> dict:
    """One chunk's params: the study's entry ``chunk`` (``runs``: a DataFrame, ``scenarios``, settings) with its
    ``runs`` as plain values (:func:`frame_param`)."""
    return {**chunk, "runs": frame_param(chunk["runs"])}


def param_frame(param: dict, where: str = "params"):
    """The DataFrame of a :func:`frame_param` value; a ValueError naming ``where`` if it is not one."""
    import pandas as pd

    try:
        columns, rows = list(param["columns"]), list(param["rows"])
        if any(len(r) != len(columns) for r in rows):
            raise ValueError("a row's length differs from the columns'")
        return pd.DataFrame(rows, columns=columns)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{where}: not a table of runs ({{'columns', 'rows'}}): {e}") from None
