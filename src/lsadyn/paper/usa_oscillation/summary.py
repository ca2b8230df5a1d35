r"""Informational C7 claims rows of the USA-oscillation stage (d = 2 USA, A = I, V the case-4 centre; the
oscillation C7 embeds at d > 2). From results/tables/usa_oscillation.csv (runs) and usa_oscillation_growth.csv
(λ, the linearised first-harmonic growth rate about the symmetric orbit, :mod:`lsadyn.paper.usa_oscillation.runs`):

* ``C7-usa-oscillation``: the symmetric start leaves by t_max exactly where λ predicts it: where λ ≤ the config's
  neutral rate it stays; where λ is larger the predicted exit :math:`t^* = \ln(z_{exit}/|Z_1(0)|)/\lambda` (growth
  from the start's round-off) decides — leave if :math:`t^* \le t_{max}/`:data:`MARGIN`, stay if
  :math:`t^* \ge` :data:`MARGIN` :math:`t_{max}`, untested between;
* ``C7-usa-oscillation-rate``: the rate measured on the symmetric runs equals λ within :data:`RATE_RTOL`;
* ``C7-usa-oscillation-unstable``: at each β where λ is not neutral, every i.i.d. run leaves by t_max; the note
  sets the exit times beside what linear growth at rate λ from the run's |Z₁(0)| (≈ n^{-1/2}) would give, and the
  fitted slope of exit time against ln n beside 1/(2λ) (informative only: an i.i.d. start is not the symmetric
  orbit perturbed in its first harmonic alone);
* ``C7-usa-oscillation-neutral``: at each β where λ is neutral, the i.i.d. runs leave only through finite n: the
  fraction of runs that leave by t_max does not grow with n (per β, from the smallest n to the largest).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rows import claim_row
from .plan import SYMMETRIC

MARGIN = 1.5
RATE_RTOL = 0.1
EVIDENCE = "results/tables/usa_oscillation.csv; results/tables/usa_oscillation_growth.csv; fig_usa_oscillation"


def _g(x) -> str:
    return f"{x:.3g}"


def _betas(values) -> str:
    return "{" + ", ".join(f"{b:g}" for b in values) + "}" if len(values) else "none"


def _split(table: pd.DataFrame):
    start = table["start"].astype(str)
    return table[start == SYMMETRIC], table[start != SYMMETRIC]


def symmetric_rows(table: pd.DataFrame, growth: pd.DataFrame, z_exit: float) -> list[dict]:
    """``C7-usa-oscillation`` and ``C7-usa-oscillation-rate``; ``z_exit``: the runs' exit threshold of |Z₁|."""
    sym, _ = _split(table)
    lam = growth.set_index("beta")
    tested, agree, left, stayed, skipped = [], [], [], [], []
    for r in sym.itertuples():
        if r.beta not in lam.index:
            continue
        g = lam.loc[r.beta]
        did_leave = bool(np.isfinite(r.exit_time))
        (left if did_leave else stayed).append(r.beta)
        if bool(g["neutral"]):
            expect = False
        else:
            t_star = np.log(z_exit / max(r.initial_abs_Z1, 1e-300)) / float(g["growth_rate"])
            if t_star <= r.t_max / MARGIN:
                expect = True
            elif t_star >= MARGIN * r.t_max:
                expect = False
            else:
                skipped.append(r.beta)
                continue
        tested.append(r.beta)
        agree.append(expect == did_leave)
    rates = ", ".join(f"{b:g}: {_g(v)}" for b, v in zip(growth.beta, growth.growth_rate))
    unstable = growth.loc[~growth.neutral.astype(bool), "beta"].tolist()
    note = (f"symmetric start left by t_max at beta {_betas(left)}, stayed at {_betas(stayed)}; linearised growth "
            f"rate per tau at beta {rates}; above the neutral rate (unstable) at beta {_betas(unstable)}")
    if skipped:
        note += f"; untested (predicted exit within a factor {MARGIN} of t_max): beta {_betas(skipped)}"
    rows = [claim_row("C7-usa-oscillation", "d = 2 USA, case-4 centre: the antipodally symmetric (mean-field) "
                      "oscillation leaves by t_max exactly where its linearised first-harmonic growth rate is positive",
                      "tokens-usa+linearisation", len(tested), int(sum(agree)), bool(tested) and all(agree), EVIDENCE,
                      note, informational=True)]
    m = growth[growth.measured_rate.notna()]
    if len(m):
        rel = np.abs(m.measured_rate / m.growth_rate - 1)
        ok = rel <= RATE_RTOL
        rows.append(claim_row("C7-usa-oscillation-rate", "the growth rate of |Z1| measured on the symmetric runs is "
                              "the linearised one", "tokens-usa+linearisation", len(m), int(ok.sum()), bool(ok.all()),
                              EVIDENCE, "; ".join(f"beta {b:g}: measured {_g(x)}, linearised {_g(y)} per tau"
                                                  for b, x, y in zip(m.beta, m.measured_rate, m.growth_rate))
                              + f" (tolerance {RATE_RTOL:.0%})", informational=True))
    return rows


def _exit_fraction(g: pd.DataFrame) -> pd.Series:
    return g.groupby("n").exit_time.apply(lambda e: float(np.isfinite(e).mean()))


def iid_rows(table: pd.DataFrame, growth: pd.DataFrame, z_exit: float) -> list[dict]:
    """``C7-usa-oscillation-unstable`` and ``C7-usa-oscillation-neutral``."""
    _, iid = _split(table)
    lam = growth.set_index("beta")
    rows = []
    unstable = [b for b in sorted(iid.beta.unique()) if b in lam.index and not bool(lam.loc[b, "neutral"])]
    neutral = [b for b in sorted(iid.beta.unique()) if b in lam.index and bool(lam.loc[b, "neutral"])]
    if unstable:
        parts, n_ok = [], 0
        for b in unstable:
            g = iid[iid.beta == b]
            lam_b = float(lam.loc[b, "growth_rate"])
            all_left = bool(np.isfinite(g.exit_time).all())
            n_ok += all_left
            # linear growth from |Z1(0)| at the symmetric orbit's rate: the exit it would give
            linear = np.log(z_exit / g.initial_abs_Z1.astype(float)) / lam_b
            text = (f"beta {b:g}: {int(np.isfinite(g.exit_time).sum())} of {len(g)} runs left, exit "
                    + ", ".join(f"{_g(e)}" for e in g.exit_time) + " tau (linear growth at the symmetric orbit's "
                    f"rate {_g(lam_b)} from |Z1(0)| would give " + ", ".join(f"{_g(e)}" for e in linear) + ")")
            ok = np.isfinite(g.exit_time)
            if ok.sum() > 1 and g.n[ok].nunique() > 1:
                slope = float(np.polyfit(np.log(g.n[ok].astype(float)), g.exit_time[ok], 1)[0])
                text += f"; slope of exit time against ln n {_g(slope)} tau (1/(2 lambda) = {_g(1 / (2 * lam_b))})"
            parts.append(text)
        rows.append(claim_row("C7-usa-oscillation-unstable", "where the symmetric orbit is unstable, every i.i.d. run "
                              "leaves by t_max", "tokens-usa", len(unstable), n_ok, n_ok == len(unstable), EVIDENCE,
                              "; ".join(parts), informational=True))
    if neutral:
        parts, n_ok = [], 0
        for b in neutral:
            g = iid[iid.beta == b]
            frac = _exit_fraction(g)
            ok = bool(np.all(np.diff(frac.to_numpy()) <= 1e-12))
            n_ok += ok
            med = g.groupby("n").exit_time.median()
            parts.append(f"beta {b:g}: left by t_max " + ", ".join(
                f"n {n}: {round(f * (g.n == n).sum())} of {int((g.n == n).sum())}"
                + (f" (median exit {_g(med[n])} tau)" if np.isfinite(med[n]) else "") for n, f in frac.items()))
        rows.append(claim_row("C7-usa-oscillation-neutral", "where the symmetric orbit is neutral, i.i.d. runs leave "
                              "only through finite n: the fraction leaving by t_max does not grow with n",
                              "tokens-usa", len(neutral), n_ok, n_ok == len(neutral), EVIDENCE, "; ".join(parts),
                              informational=True))
    return rows


def lifetime_growth(table: pd.DataFrame, beta: float) -> dict | None:
    """How the i.i.d. runs' lifetime (exit time) grows with n at ``beta``: per n the runs' exit times, ascending (inf:
    stayed to t_max); the least-squares slope of ln(exit) against ln(n) over the runs that left (None with fewer
    than two n among them); ``decades`` spanned by n. None when there are no i.i.d. runs at ``beta``."""
    _, iid = _split(table)
    g = iid[np.isclose(iid.beta.astype(float), float(beta))]
    if not len(g):
        return None
    left = g[np.isfinite(g.exit_time.astype(float))]
    per_n = [(int(n), sorted(gn.exit_time.astype(float).fillna(float("inf")))) for n, gn in g.groupby("n")]
    slope = (float(np.polyfit(np.log(left.n.astype(float)), np.log(left.exit_time.astype(float)), 1)[0])
             if left.n.nunique() >= 2 else None)
    ns = g.n.astype(float)
    return {"per_n": per_n, "slope": slope, "decades": float(np.log10(ns.max() / ns.min())),
            "t_max": float(g.t_max.max()), "n_stayed": int(len(g) - len(left))}


def claim_rows(table: pd.DataFrame, growth: pd.DataFrame, exit_abs_z1: float) -> list[dict]:
    """All rows of the stage; ``exit_abs_z1``: the threshold of the runs (config usa_oscillation.exit_abs_z1)."""
    return symmetric_rows(table, growth, float(exit_abs_z1)) + iid_rows(table, growth, float(exit_abs_z1))
