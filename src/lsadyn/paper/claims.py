"""The claims table: one or more rows per claim C1…C7 of SCIENCE.md §3, each computed from
results tables (never typed in). Columns: claim_id, statement, method, n_tested, n_agree,
pass, evidence, note.

A row passes when every *determined* tested point agrees and at most ``max_undetermined``
(fraction) of them are ``undetermined`` (inconclusive within the horizon, counted in the note).
Rows that report what a claim leaves open carry ``pass = "n/a"``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cases import matches

COLUMNS = ["claim_id", "statement", "method", "n_tested", "n_agree", "pass", "evidence", "note"]
METHODS = ("oa", "ws", "particles")


def _row(cid, statement, method, n_tested, n_agree, ok, evidence, note=""):
    return dict(claim_id=cid, statement=statement, method=method, n_tested=int(n_tested), n_agree=int(n_agree),
                **{"pass": ok}, evidence=evidence, note=note)


def finite_n_label(label: str, amplitude: float, abs_R2: float, n_tokens: int, tol_cluster: float = 1e-3) -> str:
    """Label of an n-token run read as a limit n → ∞: a neutral oscillation of |R₂| with amplitude
    ≤ 3/√n (the size of the WS constants' departure from uniform) is a fluctuation about a fixed
    state — clustered if 1 − |R₂| ≤ ``tol_cluster``, interior otherwise — not an oscillation of the
    limit measure."""
    if label == "oscillate" and np.isfinite(amplitude) and amplitude <= 3 / np.sqrt(n_tokens):
        return "cluster_converge" if 1 - abs_R2 <= tol_cluster else "interior_converge"
    return label


def _tally(labels, predictions, max_undetermined):
    """(n agreeing, n undetermined, n contradicting, pass) of labels against per-row predictions."""
    agree = sum(matches(lab, p) for lab, p in zip(labels, predictions))
    und = sum(lab == "undetermined" for lab in labels)
    wrong = len(labels) - agree - und
    return agree, und, wrong, bool(len(labels) > 0 and wrong == 0 and und <= max_undetermined * len(labels))


def _prediction_rows(cid, statement, g, prediction, evidence, max_undetermined, methods=METHODS, n_tokens=None):
    rows = []
    for m in methods:
        labels = g[f"regime_{m}"]
        extra = ""
        if m != "oa":
            labels = pd.Series([finite_n_label(lab, a, r, n_tokens) for lab, a, r in
                                zip(labels, g[f"amplitude_{m}"], g[f"abs_R2_{m}"])], index=g.index)
            n_fluct = int((labels != g[f"regime_{m}"]).sum())
            extra = (f"; n = {n_tokens} tokens from uniform random angles (off the OA manifold); {n_fluct} runs "
                     f"oscillate with amplitude <= 3/sqrt(n), read as finite-n fluctuations about a fixed state")
        agree, und, wrong, ok = _tally(labels, [prediction] * len(labels), max_undetermined)
        note = f"observed {labels.value_counts().to_dict()}; {und} undetermined, {wrong} contradicting" + extra
        rows.append(_row(cid, statement, m, len(g), agree, ok, evidence, note))
    return rows


def claims_2d(sims: dict, bif: pd.DataFrame, orbits: dict, n_tokens: int, max_undetermined: float = 0.05) -> list[dict]:
    """Rows for C1–C5 from the per-case simulation tables, the saddle-node summary and case-4 orbits.

    Claims 1–2 get one row per method: ``oa`` (the claim's own setting) and ``ws`` / ``particles``
    (n tokens from uniform random angles, read through :func:`finite_n_label`)."""
    rows = []
    c1 = sims["case1"]
    ev1 = "paper_figures/fig_case1.pdf; results/sim/case1.csv"
    rows += _prediction_rows("C1a", "V = I: clustering if tr A > 0 or det A <= 0", c1[c1.prediction.str.startswith(
        "cluster")], "cluster_converge|cluster_rotate", ev1, max_undetermined, n_tokens=n_tokens)
    rows += _prediction_rows("C1b", "V = I, sym(A) negative definite: convergence to an interior point",
                             c1[c1.prediction == "interior_converge"], "interior_converge", ev1, max_undetermined,
                             n_tokens=n_tokens)
    silent = c1[c1.prediction == ""]
    rows.append(_row("C1c", "V = I, tr A <= 0 < det A, sym(A) not negative definite: not covered by claim 1", "oa",
                     len(silent), 0, "n/a", ev1, f"observed {silent.regime_oa.value_counts().to_dict()}"))
    c2 = sims["case2"]
    ev2 = "paper_figures/fig_case2.pdf; results/sim/case2.csv"
    rows += _prediction_rows("C2a", "A = I, V symmetric: clustering if lambda_max(V) >= 0",
                             c2[c2.prediction.str.startswith("cluster")], "cluster_converge|cluster_rotate", ev2,
                             max_undetermined, n_tokens=n_tokens)
    rows += _prediction_rows("C2b", "A = I, V symmetric, lambda_max(V) < 0: convergence without clustering",
                             c2[c2.prediction == "interior_converge"], "interior_converge", ev2, max_undetermined,
                             n_tokens=n_tokens)
    c3 = sims["case3"]
    ev3 = "paper_figures/fig_case3.pdf; results/sim/case3.csv"
    noncomm = c3[(c3.x != 1) & (c3.y != 0)]
    rot = noncomm[noncomm.regime_oa == "cluster_rotate"]
    rows.append(_row("C3a", "A, V not commuting: a region of clustering without convergence (rotating clusters)",
                     "oa", len(noncomm), len(rot), bool(len(rot) > 0), ev3,
                     f"A = diag(1, sigma), V = I + mu J; rotating at {len(rot)} of {len(noncomm)} non-commuting "
                     f"grid points; regimes {noncomm.regime_oa.value_counts().to_dict()}"))
    rel = np.abs(rot.rate_oa / rot.rate_theory - 1)
    rows.append(_row("C3b", "rotation rate of arg R2 = 2 beta mu sqrt(sigma) (derived on |R2| = 1)", "oa", len(rot),
                     int((rel < 1e-3).sum()), bool(len(rot) > 0 and (rel < 1e-3).all()), ev3,
                     f"max relative error {rel.max() if len(rot) else np.nan:.2e}"))
    c4 = sims["case4"]
    ev4 = "paper_figures/fig_case4.pdf; results/sim/case4.csv"
    rows += _prediction_rows("C4a", "A = I, V = [[v11, v12], [-v12, -v11]]: oscillation iff v11 < v12 (as worded)",
                             c4[c4.prediction == "oscillate"], "oscillate", ev4, max_undetermined, ("oa",))
    conv = c4[c4.prediction != "oscillate"]
    rows += _prediction_rows("C4a", "same family: convergence when v11 >= v12 (as worded)", conv,
                             "cluster_converge|interior_converge", ev4, max_undetermined, ("oa",))
    cor = c4[c4.prediction_corrected != ""]
    agree, und, wrong, ok = _tally(list(cor.regime_oa), list(cor.prediction_corrected), max_undetermined)
    counter = c4[(c4.x < c4.y) & (c4.x.abs() > c4.y.abs())]
    rows.append(_row("C4b", "corrected: oscillation iff |v11| < |v12| (interior centre of the conserved H), "
                     "convergence to clusters iff |v11| > |v12|", "oa", len(cor), agree, ok, ev4,
                     f"{und} undetermined, {wrong} contradicting; as-worded counterexamples (v11 < -|v12|): "
                     f"{len(counter)} grid points, observed {counter.regime_oa.value_counts().to_dict()}"))
    drift = float(np.max(orbits["H_rel_drift"]))
    rows.append(_row("C4c", "H = (v12 (1 + |R2|^2) + 2 v11 Im R2) / (1 - |R2|^2)^2 is conserved along OA orbits",
                     "oa", len(orbits["H_rel_drift"]), int((orbits["H_rel_drift"] < 1e-6).sum()), bool(drift < 1e-6),
                     "paper_figures/fig_case4.pdf; results/sim/case4_orbits.npz", f"max relative drift {drift:.2e}"))
    b = bif.iloc[0]
    evb = "paper_figures/fig_bifurcation.pdf; results/tables/bifurcation_fit.csv"
    rows.append(_row("C5a", "saddle-node: rotation -> clustering at mu_c = s (Adler equation on |R2| = 1)", "oa",
                     1, int(b.threshold_in_bracket), bool(b.threshold_in_bracket), evb,
                     f"sweep bracket [{b.mu_converge_max:.4g}, {b.mu_rotate_min:.4g}] vs mu_c = {b.mu_c_theory:.4g}"))
    ok_k = bool(abs(b.fit_exponent + 0.5) < 0.05)
    rows.append(_row("C5b", "period ~ |mu - mu_c|^(-1/2) near the threshold", "oa", int(b.n_fit),
                     int(b.n_fit) if ok_k else 0, ok_k,
                     evb, f"fitted exponent {b.fit_exponent:.4f} (theory -0.5), prefactor {b.fit_prefactor:.4g} "
                          f"(theory {b.theory_prefactor:.4g})"))
    ok_T = bool(b.period_max_rel_err < 1e-3)
    rows.append(_row("C5c", "period = pi / (beta sqrt(mu^2 - s^2)) above threshold", "oa", int(b.n_rotating),
                     int(b.n_rotating) if ok_T else 0, ok_T, evb, f"max relative error {b.period_max_rel_err:.2e}"))
    return rows


def claims_highdim(hd: pd.DataFrame) -> list[dict]:
    """Rows for C7: per model, the d = 2 regime of every scenario with a prediction reappears in d
    dimensions (and the dt / 2 check agrees); scenarios without a prediction are reported."""
    rows = []
    ev = "paper_figures/fig_highdim.pdf; results/tables/highdim.csv"
    for model, g in hd.groupby("model", sort=False):
        tested = g[g.expect != ""]
        agree = tested[(tested.regime == tested.expect) & tested.step_check_ok.astype(bool)]
        d = int(g.d.iloc[0])
        details = "; ".join(f"{r.scenario}: {r.regime} (expected {r.expect}, step check "
                            f"{'ok' if r.step_check_ok else 'FAILED'})" for r in tested.itertuples())
        rows.append(_row("C7", f"d = 2 behaviours persist at d = {d} ({model.upper()})", f"particles-{model}",
                         len(tested), len(agree), bool(len(tested) and len(agree) == len(tested)), ev, details))
        other = g[g.expect == ""]
        if len(other):
            rows.append(_row("C7x", f"scenarios with no d = 2 prediction at d = {d} ({model.upper()})",
                             f"particles-{model}", len(other), 0, "n/a", ev,
                             "; ".join(f"{r.scenario}: {r.regime}" for r in other.itertuples())))
    return rows


def claims_stability(st: pd.DataFrame, eps_small: float, floor: float = 1e-6) -> list[dict]:
    """Rows for C6, per (A, V): (a) every run with ε ≤ ``eps_small`` reaches the OA regime;
    (b) the final-state discrepancy shrinks with ε: the least-squares slope of log D against log ε
    over runs with D above the numerical ``floor`` is positive (or every D is at the floor, an
    isolated attractor). Within the theorem's hypotheses the rows pass or fail; outside them
    (``C6x``) they report what happens."""
    rows = []
    ev = "paper_figures/fig_stability.pdf; results/tables/stability.csv"
    for regime, g in st.groupby("regime", sort=False):
        near = g[g.eps <= eps_small]
        agree = near[near.regime_tokens == near.regime_oa]
        differ = g[g.regime_tokens != g.regime_oa]
        threshold = float(differ.eps.min()) if len(differ) else np.nan
        hyp = bool(g.hypothesis.iloc[0])
        what = "within the hypotheses" if hyp else "outside the hypotheses"
        note = (f"{g.statement.iloc[0]}; labels differ from OA in {len(differ)} of {len(g)} runs "
                f"(smallest such eps {threshold:.3g})")
        ok = bool(len(near) and len(agree) == len(near)) if hyp else "n/a"
        rows.append(_row("C6" if hyp else "C6x", f"near-uniform data off the OA manifold (eps <= {eps_small}) reach "
                         f"the OA regime ({regime}, {what})", "particles", len(near), len(agree), ok, ev, note))
        above = g[g.discrepancy > floor]
        if len(above) >= 3:
            slope = float(np.polyfit(np.log(above.eps), np.log(above.discrepancy), 1)[0])
            ok_b = slope > 0
        else:
            slope, ok_b = np.nan, True
        ratio = float((near.discrepancy / near.eps).max()) if len(near) else np.nan
        rows.append(_row("C6b" if hyp else "C6x", f"final-state discrepancy |R2_tokens - R2_OA| shrinks with eps "
                         f"({regime}, {what})", "particles", len(g), len(g) if ok_b else 0,
                         bool(ok_b) if hyp else "n/a", ev,
                         f"log-log slope {slope:.3g} over {len(above)} runs above {floor:g}; max D/eps at "
                         f"eps <= {eps_small}: {ratio:.3g}; a continuum of equilibria (V = I) lets the limit point "
                         f"move by O(eps), an isolated attractor does not"))
    return rows


def claims_table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)
