r"""Informational claims rows of the continuation stage (C11, beyond the paper).

* ``C11a-<plane>``: the continued curve of the plane's family against its closed form (:mod:`lsadyn.paper.continuation.plan`): the largest
  residual over the continued points, agreement within :data:`CURVE_TOL`;
* ``C11b-<plane>``: the continued rotating clusters' periods against the closed forms
  (saddle-node :math:`\pi/(\beta\sqrt{\mu^2 - s^2})`, case 3 :math:`\pi/(\beta|\mu|\sqrt\sigma)`), within
  :data:`PERIOD_RTOL`;
* ``C11c-case3`` / ``C11c-case4`` / ``C11c-saddle_node``: every grid point of the case's OA run (results/sim) against the side of the
  continued curves it lies on — case 3: rotating clusters right of the circle fold σ = f(μ), converging clusters
  on or left of it and on the degenerate line where every circle point is fixed; case 4: oscillation strictly
  between the two circle folds, convergence outside (points on them skipped: degenerate, no label); the
  saddle-node sweep (results/sim/bifurcation.csv, s = (v11 − v22)/2, μ = v21): rotation above the fold μ = f(s),
  convergence below it;
* ``C11d-<plane>`` (planes with interior limit cycles, e.g. ``limit_cycle``): the branches of limit cycles born at the
  Hopf points (:mod:`lsadyn.continuation.shooting`): along each branch the stability (multiplier < 1 or > 1) changes
  at most once, and only on a branch whose parameter turns at a cycle fold (the fold curve is in the table); the
  detail gives the multipliers, periods and, where a branch passes through the plane's origin (the family's base
  weights), the period and multiplier interpolated there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...continuation import circle_degenerate
from ..cases2d.plan import case3_rotation_rate, saddle_node_period
from ..rows import claim_row, counts_text
from .plan import family

CURVE_TOL = 1e-8
PERIOD_RTOL = 1e-8
ON_CURVE = 1e-9

#: family -> (kind, location, residual(x, y) of the closed form, statement)
CLOSED_FORMS = {
    "case3": ("fold", "circle", lambda x, y: np.abs(x), "the circle fold (rotation boundary) is sigma = 0"),
    "saddle_node": ("fold", "circle", lambda x, y: np.abs(np.abs(y) - x), "the circle fold is |mu| = s"),
    "case4": ("fold", "circle", lambda x, y: np.abs(np.abs(x) - np.abs(y)), "the circle fold is |v11| = |v12|"),
    "case2": ("transcritical", "circle", lambda x, y: np.minimum(np.abs(x), np.abs(y)),
              "the circle transcritical curves are lambda1 = 0 and lambda2 = 0"),
    "case1": ("hopf", "interior", lambda x, y: np.abs(x), "the Hopf curve of the interior equilibrium is tr A = 0"),
}


def _period_theory(fam, x, y, beta):
    if fam == "saddle_node":
        return saddle_node_period(y, x, beta)
    if fam == "case3":
        return 2 * np.pi / np.abs(case3_rotation_rate(x, y, beta))
    return None


def curve_rows(table: pd.DataFrame, planes: list[dict], beta: float) -> list[dict]:
    """C11a and C11b rows, one per plane (C11b only for families with a closed-form period)."""
    rows = []
    for pl in planes:
        if pl["family"] not in CLOSED_FORMS:  # limit_cycle: no closed form (its cycles are C11d's)
            continue
        t = table[table["plane"] == pl["name"]]
        kind, where, resid, statement = CLOSED_FORMS[pl["family"]]
        c = t[(t["kind"] == kind) & (t["location"] == where)]
        r = resid(c["x"].to_numpy(float), c["y"].to_numpy(float))
        worst = float(r.max()) if r.size else float("nan")
        n_ok = int((r <= CURVE_TOL).sum())
        rows.append(claim_row(f"C11a-{pl['name']}", f"Continuation ({pl['family']} plane): {statement}",
                              "continuation", r.size, n_ok, bool(r.size) and n_ok == r.size,
                              f"{c['branch'].nunique()} {kind} curve(s), {r.size} points; largest residual "
                              f"{worst:.2e} (tolerance {CURVE_TOL:g})", informational=True))
        cyc = t[t["kind"] == "cycle"]
        if cyc.empty:
            continue
        theory = _period_theory(pl["family"], cyc["x"].to_numpy(float), cyc["y"].to_numpy(float), beta)
        if theory is None:
            continue
        rel = np.abs(cyc["period"].to_numpy(float) / theory - 1)
        n_ok = int((rel <= PERIOD_RTOL).sum())
        rows.append(claim_row(f"C11b-{pl['name']}", f"Continuation ({pl['family']} plane): the period of the "
                              "rotating clusters equals the closed form", "continuation", rel.size, n_ok,
                              n_ok == rel.size, f"{rel.size} cycle points; largest relative error {rel.max():.2e} "
                              f"(tolerance {PERIOD_RTOL:g})", informational=True))
    return rows


def _interp_curve(g: pd.DataFrame, at):
    g = g.sort_values("y")
    inside = (at >= g["y"].min()) & (at <= g["y"].max())
    return np.where(inside, np.interp(at, g["y"], g["x"]), np.nan)


def side_labels_case3(table: pd.DataFrame, x, y, beta) -> np.ndarray:
    """Label each (σ, μ) implies from the continued circle folds of a case3 plane (``""``: outside the curves)."""
    fam = family("case3", beta)
    deg = np.array([circle_degenerate(fam, np.array([a, b])) for a, b in zip(x, y)])
    folds = table[(table["kind"] == "fold") & (table["location"] == "circle")]
    f = np.full(np.shape(x), np.nan)
    for _, g in folds.groupby("branch"):
        v = _interp_curve(g, y)
        f = np.where(np.isnan(f), v, f)
    out = np.where(x > f + ON_CURVE, "cluster_rotate", np.where(x <= f + ON_CURVE, "cluster_converge", ""))
    return np.where(deg, "cluster_converge", out)


def side_labels_case4(table: pd.DataFrame, x, y) -> np.ndarray:
    """Label each (v11, v12) implies from the two continued circle folds of a case4 plane (``""`` on them)."""
    folds = table[(table["kind"] == "fold") & (table["location"] == "circle")]
    lines = sorted((g for _, g in folds.groupby("branch")), key=lambda g: -np.ptp(g["y"]))[:2]
    if len(lines) < 2:
        return np.full(np.shape(x), "", dtype=object)
    vals = np.sort(np.stack([_interp_curve(g, y) for g in lines]), axis=0)
    on = (np.abs(x - vals[0]) < ON_CURVE) | (np.abs(x - vals[1]) < ON_CURVE) | np.isnan(vals).any(axis=0)
    between = (x > vals[0]) & (x < vals[1])
    return np.where(on, "", np.where(between, "oscillate", "cluster_converge"))


def side_labels_saddle_node(table: pd.DataFrame, s, mu) -> np.ndarray:
    """Label each (s, μ) implies from the continued circle fold μ = f(s) of a saddle_node plane (``""`` on it
    or outside its s range)."""
    folds = table[(table["kind"] == "fold") & (table["location"] == "circle")].sort_values("x")
    if folds.empty:
        return np.full(np.shape(s), "", dtype=object)
    inside = (s >= folds["x"].min()) & (s <= folds["x"].max())
    f = np.interp(s, folds["x"], folds["y"])
    out = np.where(mu > f + ON_CURVE, "cluster_rotate", np.where(mu < f - ON_CURVE, "cluster_converge", ""))
    return np.where(inside, out, "")


#: family -> the sims key of its grid
GRIDS = {"case3": "case3", "case4": "case4", "saddle_node": "bifurcation"}


def _grid_xy(fam, sim):
    if fam == "saddle_node":
        return ((sim["v11"] - sim["v22"]) / 2).to_numpy(float), sim["v21"].to_numpy(float)
    return sim["x"].to_numpy(float), sim["y"].to_numpy(float)


def grid_rows(table: pd.DataFrame, planes: list[dict], sims: dict) -> list[dict]:
    """C11c rows: the OA labels of the case-3, case-4 and saddle-node grids against the side of the continued
    curves."""
    rows = []
    for pl in planes:
        fam = pl["family"]
        if fam not in GRIDS or GRIDS[fam] not in sims:
            continue
        sim = sims[GRIDS[fam]]
        x, y = _grid_xy(fam, sim)
        t = table[table["plane"] == pl["name"]]
        beta = float(sim["beta"].iloc[0])
        if fam == "case3":
            expect = side_labels_case3(t, x, y, beta)
        elif fam == "case4":
            expect = side_labels_case4(t, x, y)
        else:
            expect = side_labels_saddle_node(t, x, y)
        lab = sim["regime_oa"].astype(str).to_numpy()
        tested = expect != ""
        agree = tested & (lab == expect)
        bad = sim.loc[tested & ~agree, "point_id"].tolist()
        rows.append(claim_row(f"C11c-{pl['name']}", f"Continuation ({fam} plane): every grid point's OA label is the "
                              "one the side of the continued curves implies", "oa+continuation", int(tested.sum()),
                              int(agree.sum()), bool(tested.sum()) and int(agree.sum()) == int(tested.sum()),
                              f"OA labels {counts_text(lab[tested])}; {int((~tested).sum())} point(s) on a curve or "
                              f"outside the plane skipped" + (f"; disagreeing point_id {bad[:10]}" if bad else ""),
                              informational=True))
    return rows


def _at_origin(b: pd.DataFrame, col: str):
    """``col`` of a cycle branch linearly interpolated where it crosses the plane's origin along its free
    parameter (None if it does not pass through (0, 0))."""
    for free, fixed in (("x", "y"), ("y", "x")):
        if np.allclose(b[fixed], 0.0, atol=1e-12):
            v = b[free].to_numpy(float)
            k = np.nonzero(np.sign(v[:-1]) * np.sign(v[1:]) <= 0)[0]
            if len(k):
                i = k[0]
                w = v[i] / (v[i] - v[i + 1]) if v[i] != v[i + 1] else 0.0
                return float((1 - w) * b[col].iloc[i] + w * b[col].iloc[i + 1])
    return None


def cycle_rows(table: pd.DataFrame, planes: list[dict]) -> list[dict]:
    """C11d rows, one per plane with interior limit cycles (see the module doc)."""
    rows = []
    for pl in planes:
        t = table[table["plane"] == pl["name"]]
        cyc = t[(t["kind"] == "cycle") & (t["location"] == "interior")]
        if cyc.empty:
            continue
        n_fold = t.loc[t["kind"] == "cycle_fold", "branch"].nunique()
        n_ok, at0 = 0, []
        branches = list(cyc.groupby("branch", sort=False))
        for _, b in branches:
            lab = b["stability"].to_numpy()
            flips = int((lab[1:] != lab[:-1]).sum())
            n_ok += int(flips == 0 or (flips == 1 and n_fold > 0))
            T0, m0 = _at_origin(b, "period"), _at_origin(b, "multiplier")
            if T0 is not None:
                at0.append(f"T = {T0:.4f}, multiplier {m0:.4f} ({b['stability'].iloc[0]} branch)")
        st = cyc["stability"]
        detail = (f"{len(branches)} branch(es) from Hopf points, {len(cyc)} cycles ({counts_text(st)}); multipliers "
                  f"{cyc['multiplier'].min():.3g}–{cyc['multiplier'].max():.3g}, periods {cyc['period'].min():.3g}–"
                  f"{cyc['period'].max():.3g}; {n_fold} cycle-fold curve(s)")
        if at0:
            detail += "; at the origin (linear between branch points): " + "; ".join(at0)
        rows.append(claim_row(f"C11d-{pl['name']}", f"Continuation ({pl['family']} plane): limit cycles born at the "
                              "Hopf points change stability only at a cycle fold", "continuation", len(branches), n_ok,
                              n_ok == len(branches), detail, informational=True))
    return rows


def claim_rows(table: pd.DataFrame, planes: list[dict], beta: float, sims: dict) -> list[dict]:
    """All C11 rows."""
    return curve_rows(table, planes, beta) + grid_rows(table, planes, sims) + cycle_rows(table, planes)
