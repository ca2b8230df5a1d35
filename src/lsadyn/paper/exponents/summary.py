r"""Informational claims rows of the exponents stage (C13, beyond the paper).

* ``C13a-floquet``: the normal Floquet exponent λ⊥ and period of rotating clusters from the monodromy matrix of the
  OA variational equation against the closed form (results/tables/floquet.csv), within :data:`FLOQUET_RTOL`
  (relative, λ⊥ and T) and the trivial multiplier within :data:`FLOQUET_RTOL` of 1;
* ``C13b-<scenario>``: at d = 2, LSA, tokens on the OA manifold: the token run's Lyapunov spectrum (first, second
  and last exponent) against the OA flow's prediction (:func:`lsadyn.exponents.oa_token_spectrum`), within the
  config's ``tol``;
* ``C13c-<point>``: where the OA flow is multistable, every attractor found has a basin of positive measure (the
  lower end of its 95 % interval above 0) and no start is left unresolved (results/tables/basins.csv);
* ``C13d-regimes``: every d = 2 case row (results/tables/regimes.csv) whose OA regime is an equilibrium or rotating
  clusters carries the leading exponent of its attractor, and it is ≤ :data:`NEUTRAL_TOL` (attracting or neutral);
* ``C13e-clusters``: every token run of results/tables/highdim.csv and persistence.csv that ends in clusters and
  carries both exponents tightens at the differential exponent of its final cluster: ``contraction_exponent``
  (measured from r(t)) within :data:`CONTRACTION_RTOL` (relative) of ``contraction_exponent_theory``
  (:mod:`lsadyn.exponents.cluster`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rows import claim_row, span

FLOQUET_RTOL = 1e-8
#: C13d: a leading exponent up to this counts as <= 0 (zero at non-hyperbolic points: a double root of g is located
#: to ~sqrt(machine epsilon), see lsadyn.exponents.attractors)
NEUTRAL_TOL = 1e-7
#: C13e: relative agreement of the measured and the predicted differential exponent (the prediction averages over a
#: finite 50 τ, ~0.5 % for rotating clusters; the fit of log(1 − r) reads a finite window)
CONTRACTION_RTOL = 0.05
#: the regimes of regimes.csv whose rows carry an exponent
EXPONENT_REGIMES = ("cluster_converge", "cluster_rotate", "interior_converge")


def floquet_row(fl: pd.DataFrame) -> dict:
    rel_lam = np.abs(fl.exponent_numeric - fl.exponent) / np.maximum(1.0, np.abs(fl.exponent))
    rel_T = np.abs(fl.period_numeric / fl.period - 1)
    ok = (rel_lam <= FLOQUET_RTOL) & (rel_T <= FLOQUET_RTOL) & (fl.trivial_multiplier_error <= FLOQUET_RTOL)
    return claim_row("C13a-floquet", "Rotating clusters: the normal Floquet exponent from the monodromy matrix of the "
                     "OA variational equation equals the closed form (lsadyn.continuation.circle_cycle)", "oa",
                     len(fl), int(ok.sum()), bool(len(fl)) and bool(ok.all()),
                     f"{len(fl)} rotating points (λ⊥ {span(fl.exponent.min(), fl.exponent.max(), '.4g', start='from ')}); "
                     f"largest relative error of λ⊥ {rel_lam.max():.2e}, of T {rel_T.max():.2e}, trivial multiplier "
                     f"within {fl.trivial_multiplier_error.max():.2e} of 1 (tolerance {FLOQUET_RTOL:g})",
                     informational=True)


def lyapunov_rows(ex: pd.DataFrame, tol: float) -> list[dict]:
    rows = []
    d2 = ex[(ex.d == 2) & (ex.model == "lsa") & (ex.start == "oa_manifold")]
    for r in d2.itertuples():
        got = np.array([r.lyap_1, r.lyap_2, r.lyap_last])
        want = np.array([r.oa_lyap_1, r.oa_lyap_2, r.oa_lyap_last])
        err = float(np.abs(got - want).max())
        ok = bool(np.isfinite(err) and err <= tol)
        rows.append(claim_row(f"C13b-{r.scenario}", f"d = 2 LSA tokens on the OA manifold ({r.scenario}, OA "
                              f"{r.oa_regime}): the token run's Lyapunov spectrum is the OA flow's", "tokens-lsa", 1,
                              int(ok), ok, f"n = {r.n_tokens}: first, second, last exponent "
                              f"{r.lyap_1:.4g}, {r.lyap_2:.4g}, {r.lyap_last:.4g}; OA predicts {r.oa_lyap_1:.4g}, "
                              f"{r.oa_lyap_2:.4g}, {r.oa_lyap_last:.4g} (OA leading exponent {r.oa_exponent:.4g}); "
                              f"largest difference {err:.2e} (tolerance {tol:g})", informational=True))
    return rows


def basin_rows(bs: pd.DataFrame) -> list[dict]:
    rows = []
    for point, g in bs.groupby("point", sort=False):
        att = g[g.attractor >= 0]
        unresolved = int(g.loc[g.attractor < 0, "count"].sum())
        ok = bool(len(att) >= 2 and (att.ci_low > 0).all() and unresolved == 0)
        parts = ", ".join(f"{r.regime} (exponent {r.exponent:.3g}) {r.fraction:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
                          for r in att.itertuples())
        rows.append(claim_row(f"C13c-{point}", f"OA multistable at {point}: every attractor has a basin of positive "
                              "measure over R2(0) uniform in the unit disc", "oa", len(att),
                              int((att.ci_low > 0).sum()), ok, f"{int(g.n_samples.iloc[0])} starts: {parts}; "
                              f"{unresolved} unresolved (95 % Wilson intervals)", informational=True))
    return rows


def regimes_row(reg: pd.DataFrame) -> dict:
    tested = reg[reg.regime_oa.isin(EXPONENT_REGIMES)]
    ex = tested.exponent_oa.astype(float)
    ok = np.isfinite(ex) & (ex <= NEUTRAL_TOL)
    by = ", ".join(f"{k} {span(g.exponent_oa.min(), g.exponent_oa.max())}"
                   for k, g in tested.groupby("regime_oa") if g.exponent_oa.notna().any())
    n_osc = int((reg.regime_oa == "oscillate").sum())
    return claim_row("C13d-regimes", "Every d = 2 case row whose OA regime is an equilibrium or rotating clusters "
                     "carries its attractor's leading exponent, and it is <= 0 "
                     f"(to {NEUTRAL_TOL:g}: 0 at non-hyperbolic points)", "oa", len(tested), int(ok.sum()),
                     bool(len(tested)) and bool(ok.all()), f"leading exponents by regime: {by}; "
                     f"{int((~np.isfinite(ex)).sum())} without one; {n_osc} oscillate rows carry none (interior "
                     "limit cycles and centres: their multipliers need shooting)", informational=True)


def clusters_row(highdim: pd.DataFrame, persistence: pd.DataFrame) -> dict:
    cols = ["model", "d", "regime", "contraction_exponent", "contraction_exponent_theory"]
    runs = pd.concat([highdim[cols].assign(stage="highdim"), persistence[cols].assign(stage="persistence")],
                     ignore_index=True)
    clustered = runs[runs.regime.isin(("cluster_converge", "cluster_rotate"))]
    both = clustered.dropna(subset=["contraction_exponent", "contraction_exponent_theory"])
    rel = (both.contraction_exponent - both.contraction_exponent_theory).abs() / both.contraction_exponent_theory.abs()
    ok = rel <= CONTRACTION_RTOL
    no_fit = int(clustered.contraction_exponent.isna().sum())
    no_theory = int((clustered.contraction_exponent.notna() & clustered.contraction_exponent_theory.isna()).sum())
    by = "; ".join(f"{m} {span(g.contraction_exponent_theory.min(), g.contraction_exponent_theory.max(), '.3g')}"
                   for m, g in both.groupby("model"))
    return claim_row("C13e-clusters", "Token runs that end in clusters (highdim, persistence) tighten at the "
                     "differential exponent of their final cluster: half the slope of log(1 - r) equals it "
                     f"(within {CONTRACTION_RTOL:.0%})", "tokens", len(both), int(ok.sum()),
                     bool(len(both)) and bool(ok.all()),
                     f"{len(both)} of {len(clustered)} clustered runs carry both (predicted exponents by model: {by}); "
                     f"largest relative difference {rel.max():.2e}; {no_fit} without a settled fit (tight to rounding "
                     "before the observed part of the run, never tight, fewer than two turns tight, or a slope still "
                     f"drifting), {no_theory} without a prediction (USA pairs, or not yet tight)",
                     informational=True)


def claim_rows(exponents: pd.DataFrame, floquet: pd.DataFrame, basins: pd.DataFrame, regimes: pd.DataFrame,
               tol: float, highdim: pd.DataFrame, persistence: pd.DataFrame) -> list[dict]:
    """All C13 rows."""
    return [floquet_row(floquet), *lyapunov_rows(exponents, tol), *basin_rows(basins), regimes_row(regimes),
            clusters_row(highdim, persistence)]
