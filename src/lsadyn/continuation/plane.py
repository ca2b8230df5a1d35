r"""A two-parameter plane of a family: equilibrium branches on slices p₂ = const and every bifurcation curve
they reveal, continued across the plane; from every Hopf point found on a slice, the branch of interior limit cycles it
gives birth to, and every cycle fold on those branches continued in two parameters (:mod:`.shooting`).

:func:`continue_plane` (1) on ``n_slices`` slices p₂ = const finds the interior and circle equilibria at
``n_seeds`` values of p₁, continues each over the p₁ range (skipping seeds that lie on a branch already
continued), and locates the folds, Hopf points and boundary transcritical points on the branches; (2)
continues each located point in (p₁, p₂) across the box (:func:`.branches.bifurcation_curve`), skipping seeds
already on a curve of the same kind. The result is one long frame (one row per point) with columns
``branch, kind, p1, p2, re, im, period, multiplier, stability``; kind ∈ equilibrium, boundary_equilibrium, fold,
hopf, boundary_fold, boundary_transcritical, cycle, interior_cycle, cycle_fold (re, im = R₂ of the point; for
boundary kinds cos φ, sin φ; for interior cycles and cycle folds the orbit's point on its Poincaré section; NaN for
a cycle, which is the whole circle: the rotating clusters of :mod:`.cycles` on an ``n_cycle`` × ``n_cycle`` grid
of the box, where they exist, with their period, their normal multiplier :math:`e^{\lambda_\perp T}` and its
side of 1 as stability; interior cycles carry their period, nontrivial Floquet multiplier and stability).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .branches import (
    bifurcation_curve,
    boundary_branch,
    boundary_equilibria,
    curve_stability_rows,
    equilibrium_branch,
    interior_equilibria,
)
from .cycles import circle_cycle, cycle_stability

COLUMNS = ["branch", "kind", "p1", "p2", "re", "im", "period", "multiplier", "stability"]


def _near(u, pts, tol, periodic_first=False):
    if not len(pts):
        return False
    d = np.asarray(pts) - u
    if periodic_first:
        d[:, 0] = (d[:, 0] + np.pi) % (2 * np.pi) - np.pi
    return bool(np.min(np.linalg.norm(d, axis=1)) < tol)


def _both_ways(branch, family, x, p, free, p_range, ds_max, max_steps, seeds):
    parts = []
    for sgn in (1.0, -1.0):
        df, ev = branch(family, x, p, free, p_range, sgn, ds_max, max_steps)
        parts.append(df.iloc[::-1] if sgn < 0 else df.iloc[1:])
        seeds += ev
    return pd.concat(parts, ignore_index=True)


def continue_plane(family, box, *, n_slices=3, n_seeds=3, n_cycle=25, ds_max=0.05, max_steps=1500,
                   cycle_ds_max=0.1, cycle_max_steps=40, interior_cycles=True):
    """Continue the plane ``box`` = ((p1_lo, p1_hi), (p2_lo, p2_hi)) of ``family`` (see module doc); limit cycles
    with steps up to ``cycle_ds_max`` (in ξ, ln T and the parameter together) and ``cycle_max_steps`` steps per
    branch or half curve (``interior_cycles=False`` skips the interior limit cycles and their folds, the costly part
    of a plane with Hopf points, for a caller who needs only the equilibria and their bifurcation curves). Returns
    (frame, info) with info = counts of branches, curves and their stop reasons, and
    the seconds spent on the interior limit cycles."""
    (lo1, hi1), (lo2, hi2) = box
    frames, seeds = [], []
    n_branch = 0
    for free in (0, 1):  # slices p2 = const (p1 free), then p1 = const (p2 free), at the slice midpoints
        (lo_f, hi_f), (lo_s, hi_s) = box[free], box[1 - free]
        for fixed in lo_s + (np.arange(n_slices) + 0.5) / n_slices * (hi_s - lo_s):
            done_int, done_bnd = [], []
            for value in np.linspace(lo_f, hi_f, n_seeds):
                p = np.empty(2)
                p[free], p[1 - free] = value, fixed
                for x in interior_equilibria(family, p):
                    if _near(np.array([x[0], x[1], value]), done_int, 2 * ds_max):
                        continue
                    df = _both_ways(equilibrium_branch, family, x, p, free, (lo_f, hi_f), ds_max, max_steps, seeds)
                    done_int += list(df[["re", "im", f"p{free + 1}"]].to_numpy())
                    frames.append(df.assign(branch=f"eq{n_branch}", kind="equilibrium"))
                    n_branch += 1
                for phi in boundary_equilibria(family, p):
                    if _near(np.array([phi, value]), done_bnd, 2 * ds_max, periodic_first=True):
                        continue
                    df = _both_ways(boundary_branch, family, phi, p, free, (lo_f, hi_f), ds_max, max_steps, seeds)
                    done_bnd += list(df[["phi", f"p{free + 1}"]].to_numpy())
                    frames.append(df.assign(branch=f"eq{n_branch}", kind="boundary_equilibrium",
                                            re=np.cos(df["phi"]), im=np.sin(df["phi"])))
                    n_branch += 1
    curves: dict[str, list] = {}
    stops = []
    n_curve = 0
    for ev in seeds:
        kind, u = ev["kind"], ev["u"]
        pts_kind = curves.setdefault(kind, [])
        if _near(u, pts_kind, 0.75 * ds_max, periodic_first=kind.startswith("boundary")):
            continue
        pts, stop = bifurcation_curve(kind, family, u, box, ds_max=ds_max, max_steps=max_steps)
        stops.append((kind, stop))
        pts_kind += list(pts)
        if kind.startswith("boundary"):
            p1, p2, re, im = pts[:, 1], pts[:, 2], np.cos(pts[:, 0]), np.sin(pts[:, 0])
        else:
            p1, p2, re, im = pts[:, 2], pts[:, 3], pts[:, 0], pts[:, 1]
        frames.append(pd.DataFrame({"branch": f"{kind}{n_curve}", "kind": kind, "p1": p1, "p2": p2, "re": re,
                                    "im": im, "stability": curve_stability_rows(kind, family, pts)}))
        n_curve += 1
    rows = []
    for p2 in np.linspace(lo2, hi2, n_cycle):
        for p1 in np.linspace(lo1, hi1, n_cycle):
            cyc = circle_cycle(family, np.array([p1, p2]))
            if cyc is not None:
                rows.append((p1, p2, cyc[0], np.exp(cyc[1] * cyc[0]), cycle_stability(cyc[1])))
    if rows:
        df = pd.DataFrame(rows, columns=["p1", "p2", "period", "multiplier", "stability"])
        frames.append(df.assign(branch="cycles", kind="cycle", re=np.nan, im=np.nan))
    t_cycles = time.perf_counter()
    n_cycle_branch, cycle_stops, fold_seeds = (_interior_cycles(family, box, seeds, frames, cycle_ds_max,
                                                                cycle_max_steps) if interior_cycles else (0, [], 0))
    t_cycles = time.perf_counter() - t_cycles
    frames = [f[(f["p1"] >= box[0][0]) & (f["p1"] <= box[0][1]) & (f["p2"] >= box[1][0]) & (f["p2"] <= box[1][1])]
              for f in frames]
    out = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS) if frames else pd.DataFrame(columns=COLUMNS)
    return out, {"n_branches": n_branch, "n_curves": n_curve, "curve_stops": stops,
                 "n_cycle_branches": n_cycle_branch, "cycle_stops": cycle_stops, "n_cycle_folds": fold_seeds,
                 "cycle_seconds": t_cycles}


def _to_polyline(q, pts):
    """Distance from the point q (2,) to the polyline through pts (m, 2)."""
    if len(pts) == 1:
        return float(np.linalg.norm(q - pts[0]))
    a, b = pts[:-1], pts[1:]
    d = b - a
    w = np.clip(np.einsum("ij,ij->i", q - a, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300), 0, 1)
    return float(np.min(np.linalg.norm(a + w[:, None] * d - q, axis=1)))


def _interior_cycles(family, box, seeds, frames, ds_max, max_steps):
    """Cycle branches from the Hopf points among ``seeds`` (one per slice where a Hopf point was found) and the
    two-parameter curves of the cycle folds on them (a fold already on a continued curve is skipped); frames are
    appended to ``frames``. Returns (number of branches, their stop reasons, number of fold curves)."""
    from .shooting import cycle_branch, cycle_fold_curve  # numba: only when a plane is continued

    n_branch, stops, fold_pts, n_fold = 0, [], [], 0
    folds = []
    for ev in seeds:
        if ev["kind"] != "hopf" or "free" not in ev:
            continue
        free = ev["free"]
        df, found, stop = cycle_branch(family, ev["u"], free, box[free], ds_max=ds_max, max_steps=max_steps)
        stops.append(stop)
        if len(df):
            frames.append(df.assign(branch=f"cyc{n_branch}", kind="interior_cycle"))
            n_branch += 1
        folds += found
    scale = max(box[0][1] - box[0][0], box[1][1] - box[1][0])
    for f in folds:
        u = f["u"]
        if any(_to_polyline(u[3:5], c) < 0.01 * scale for c in fold_pts):
            continue
        df, st = cycle_fold_curve(family, u, box, ds_max=ds_max, max_steps=max_steps)
        stops.append(st)
        fold_pts.append(df[["p1", "p2"]].to_numpy())
        frames.append(df.assign(branch=f"cycle_fold{n_fold}", kind="cycle_fold", stability="neutral"))
        n_fold += 1
    return n_branch, stops, n_fold
