"""Continue the planes of the config into the rows of results/tables/continuation.csv.

One row per continued point: ``plane, branch, kind, location, x_name, x, y_name, y, re_R2, im_R2, period,
multiplier, stability``. ``kind`` ∈ equilibrium, fold, hopf, transcritical, cycle, cycle_fold; ``location`` ∈
interior, circle (the invariant unit circle of R₂). A circle cycle is the rotation on the circle at a point of an
n_cycle × n_cycle grid (R₂ columns empty, ``period`` the period of R₂, ``multiplier`` its normal Floquet multiplier
e^{λ⊥T}). An interior cycle is a point of a branch of limit cycles born at a Hopf point (R₂ = the orbit's point on
its Poincaré section, ``period``, ``multiplier`` the nontrivial Floquet multiplier); a cycle_fold row is a point of
a continued saddle-node of cycles (multiplier 1 to the tolerance of Newton). Stability of equilibria from their
eigenvalues, of folds from the other eigenvalue, ``degenerate`` where that eigenvalue vanishes (the fold rows of the
case-3 and case-4 planes: :data:`lsadyn.continuation.branches.DEGENERATE_FORMS` names their normal form), of cycles
from the multiplier (< 1: stable); cycle folds 'neutral'. A curve that stalls at a nilpotent point stops there with
its reason (:mod:`lsadyn.continuation.arclength`), logged. ``multiplier`` is empty for equilibria and their bifurcations.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ...continuation import continue_plane
from .plan import PARAMETERS, box, family

COLUMNS = ["plane", "branch", "kind", "location", "x_name", "x", "y_name", "y", "re_R2", "im_R2", "period",
           "multiplier", "stability"]
#: library kind -> (table kind, location)
KINDS = {"equilibrium": ("equilibrium", "interior"), "boundary_equilibrium": ("equilibrium", "circle"),
         "fold": ("fold", "interior"), "hopf": ("hopf", "interior"), "boundary_fold": ("fold", "circle"),
         "boundary_transcritical": ("transcritical", "circle"), "cycle": ("cycle", "circle"),
         "interior_cycle": ("cycle", "interior"), "cycle_fold": ("cycle_fold", "interior")}


def run_plane(plane: dict, beta: float, a: float, settings: dict) -> tuple[pd.DataFrame, dict]:
    """Rows of one plane and its info (counts, stop reasons, seconds)."""
    t0 = time.perf_counter()
    out, info = continue_plane(family(plane["family"], beta, a), box(plane), n_slices=int(settings["n_slices"]),
                               n_seeds=int(settings["n_seeds"]), n_cycle=int(settings["n_cycle"]),
                               ds_max=float(settings["ds_max"]), cycle_ds_max=float(settings["cycle_ds_max"]),
                               cycle_max_steps=int(settings["cycle_max_steps"]))
    info["seconds"] = time.perf_counter() - t0
    xn, yn = PARAMETERS[plane["family"]]
    kind = out["kind"].map(lambda k: KINDS[k][0])
    where = out["kind"].map(lambda k: KINDS[k][1])
    df = pd.DataFrame({"plane": plane["name"], "branch": out["branch"], "kind": kind, "location": where,
                       "x_name": xn, "x": out["p1"], "y_name": yn, "y": out["p2"], "re_R2": out["re"],
                       "im_R2": out["im"], "period": out["period"], "multiplier": out["multiplier"],
                       "stability": out["stability"]})
    return df[COLUMNS], info


def run_planes(planes: list[dict], beta: float, a: float, settings: dict, log=None) -> pd.DataFrame:
    """All planes, one after the other, in one table (rows in plane order, then as continued)."""
    parts = []
    for pl in planes:
        df, info = run_plane(pl, beta, a, settings)
        if log is not None:
            log.info("plane %s: %d rows, %d branches, %d curves, %d cycle branches, %d cycle-fold curves in %.2f s",
                     pl["name"], len(df), info["n_branches"], info["n_curves"], info["n_cycle_branches"],
                     info["n_cycle_folds"], info["seconds"])
            for kind, stops in info["curve_stops"]:
                for stop in stops:
                    if stop.startswith("stalled") or stop == "ds_min":
                        log.info("plane %s: a %s curve stopped: %s", pl["name"], kind, stop)
        parts.append(df)
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)
    if not np.isfinite(table[["x", "y"]].to_numpy(float)).all():
        raise ValueError("continuation: non-finite parameter values in the continued rows")
    return table
