"""The claims table: rows per claim C1…C7 of the paper (stated in CLAIM_ROWS), each computed from results tables
(never typed in, never relabelled).

Columns (``COLUMNS``): ``id`` (unique per row, scheme in workflow/report/claims_legend.md), ``claim``
(C1…C7), ``statement``, ``method`` (oa, ws, tokens, particles-lsa, …), ``n_tested``, ``n_agree``,
``n_undetermined`` (tested runs without a certified label), ``pass`` (true/false), ``informational`` (true:
outside the claim's hypotheses — e.g. token runs off the OA manifold — and not counted toward the claim's verdict;
``pass`` then says whether the row's own statement held), ``evidence`` (files), ``note`` (plain words). A row that
does not pass only because some of its runs are undetermined (every decided run agrees) reads "undecided (k of N
runs)", never FAIL: an undecided run is not evidence against a claim (:func:`lsadyn.paper.findings.claim_verdict`).

A row about every tested point passes when every *determined* point agrees and at most ``max_undetermined``
(fraction) of them are ``undetermined`` (inconclusive within the budget, counted in the note); rows with
another rule (C3a: a region exists, C6b, C8a–d, …) say it in their docstrings and in
workflow/report/claims_legend.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cases2d.plan import case1_oa_prediction, matches, matrices
from .persistence.plan import LIMIT_CYCLE
from .rows import COLUMNS, counts_text, span
from .rows import claim_row as _row

#: C5b holds when the fitted exponent of the period near the saddle-node is within this of -1/2
EXPONENT_TOL = 0.05

#: The rows of the first screen of results/FINDINGS.md and of the report's findings page, in order: a key (a claim
#: of the claims table, or the id of a row that is a study of its own filed under a paper claim's number) ->
#: (what the paper says, in one sentence, docs/theory.md §3; the figures to look at). C1–C7 are the paper's claims;
#: C8–C11 and ``C1b-offmanifold`` go beyond it (their sentence says what the paper leaves open). The only prose about the paper the findings pages hold: the
#: findings job stops, naming the claim, when the claims table has one without an entry here.
CLAIM_ROWS = {
    "C1": (("V = I: clustering if tr A > 0 or det A ≤ 0; if sym(A) is negative definite, convergence to an "
           "interior point (no clustering)."), ("fig_case1",)),
    "C2": ("A = I, V symmetric: clustering if λ_max(V) ≥ 0; if λ_max(V) < 0, convergence without clustering.",
           ("fig_case2",)),
    "C3": ("A and V not commuting: regions of clustering without convergence (rotating clusters).", ("fig_case3",)),
    "C4": (("Hidden Hamiltonian, V = [[v11, v12], [−v12, −v11]]: periodic orbits when v11 < v12, convergence when "
           "v11 ≥ v12."), ("fig_case4",)),
    "C5": (("Small changes of V cross a saddle-node bifurcation (rotation → clustering); on |R₂| = 1, arg R₂ obeys an "
           "Adler equation."), ("fig_bifurcation",)),
    "C6": (("V = I with sym(A) > 0, or A = I with λ_max(V) > 0: data close enough to uniform in d_BL reach the OA "
           "solution's long-time state."), ("fig_stability",)),
    "C7": (("High dimension (numerical): clustering, rotating clusters and oscillation persist at d = 100, for LSA "
           "and USA."), ("fig_highdim", "fig_persistence")),
    "C8": (("Not measured: the paper calls the dynamics sensitive to the weights and links this to quantisation; "
           "here weights are perturbed and quantised."), ("fig_robustness",)),
    "C9": ("Not studied: the paper takes structured A, V; here random weights A, V ~ N(0, 1/d).",
           ("fig_persistence",)),
    "C10": ("Not studied: the paper's softmax (USA) results are numerical at one β; here β is swept.",
            ("fig_persistence",)),
    "C11": (("Not done: the paper samples (A, V) on grids; here the OA flow's bifurcation curves and limit cycles "
             "are continued and checked."),
            ("fig_continuation",)),
    "C7-usa-oscillation": (("Not studied: C7's oscillation (case 4's centre) is taken to persist for USA; how long it "
                            "lasts, and what ends it, is not said."),
                           ("fig_usa_oscillation",)),
    "C7-limitcycle": (("Not tested: the paper's d = 100 oscillation is the case-4 centre; here an attracting OA limit "
                       "cycle is embedded, from uniform and near-plane starts."), ("fig_highdim", "fig_persistence")),
    "C12": (("Not studied: the paper shows each regime for chosen A, V; here how common each is for random weights, "
             "and softmax clustering over (β, t)."), ("fig_atlas",)),
    "C13": (("Not measured: the paper shows the regimes exist; here their Floquet and Lyapunov exponents and the "
             "basins where OA is multistable."),
            ("fig_exponents",)),
    "C14": (("Rotating clusters are likened to looped transformers' cycles; here trained looped layers' regimes are "
             "set against the flow's."),
            ("fig_looped",)),
    "C1b-offmanifold": (("Not studied: claims 1–2 hold on the OA manifold; here tokens start off it, about an OA "
                        "interior point."), ("fig_offmanifold",)),
}

METHODS = ("oa", "ws", "particles")
#: How a method is named in row ids and the ``method`` column.
METHOD_NAME = {"oa": "oa", "ws": "ws", "particles": "tokens"}


def _tally(labels, predictions, max_undetermined):
    """(n agreeing, n undetermined, n contradicting, pass) of labels against per-row predictions."""
    agree = sum(matches(lab, p) for lab, p in zip(labels, predictions))
    und = sum(lab == "undetermined" for lab in labels)
    wrong = len(labels) - agree - und
    return agree, und, wrong, bool(len(labels) > 0 and wrong == 0 and und <= max_undetermined * len(labels))


def _amplitude_text(g, m):
    osc = g[g[f"regime_{m}"] == "oscillate"]
    if not len(osc) or f"amplitude_{m}" not in g:
        return ""
    amp = osc[f"amplitude_{m}"].astype(float)
    where = f"; where: {counts_text(osc.kind)}" if "kind" in osc else ""  # e.g. on claim 1's boundary det_A=0
    end = ""
    if f"abs_R2_{m}" in osc:
        r = osc[f"abs_R2_{m}"].astype(float)
        end = f"; |R2| at the end {span(np.nanmin(r), np.nanmax(r), '.4g')}"
    return (f"; {len(osc)} runs keep oscillating (peak-to-peak of |R2| median {np.nanmedian(amp):.3g}, "
            f"max {np.nanmax(amp):.3g}{end}{where}; disagreements.csv gives each one's reason)")


def _prediction_rows(cid, statement, g, prediction, evidence, max_undetermined, methods=METHODS, n_tokens=None):
    """One row per method. WS and token runs start from n i.i.d. uniform angles, which lie off the OA
    manifold (distance ~1/sqrt(n)): outside the claim's hypotheses, so those rows are informational and
    report the labels the runs gave, unchanged."""
    rows = []
    for m in methods:
        labels = list(g[f"regime_{m}"])
        agree, und, wrong, ok = _tally(labels, [prediction] * len(labels), max_undetermined)
        note = f"observed {counts_text(labels)}; {und} undetermined, {wrong} differ from the prediction"
        off = m != "oa"
        if off:
            note += (f"; n = {n_tokens} tokens from i.i.d. uniform angles, off the OA manifold (distance of order "
                     f"1/sqrt(n), see fig_offmanifold)" + _amplitude_text(g, m))
        rows.append(_row(f"{cid}-{METHOD_NAME[m]}", statement, METHOD_NAME[m], len(g), agree, ok, evidence, note,
                         informational=off, n_undetermined=und))
    return rows


def _case1_derived_rows(c1, ev1, max_undetermined):
    """C1c: what the derived V = I criterion (cases.case1_oa_prediction) says where claim 1 is silent."""
    rows = []
    A, _, _ = matrices(c1)
    derived = [case1_oa_prediction(a)[0] for a in A]
    det = np.where(c1.kind == "det_A=0", 0.0, np.linalg.det(A))  # exactly 0 on the sampled boundary
    c1 = c1.assign(derived=derived, trA=np.trace(A, axis1=1, axis2=2), detA=det)
    hurwitz = c1[(c1.trA < 0) & (c1.detA > 0) & (c1.sym_max_eig > 0)]
    agree, und, wrong, ok = _tally(list(hurwitz.regime_oa), list(hurwitz.derived), max_undetermined)
    n_cl = int((hurwitz.regime_oa == "cluster_converge").sum())
    rows.append(_row("C1c-hurwitz", "V = I, A Hurwitz (tr A < 0 < det A) with indefinite symmetric part: claim 1 is "
                     "silent; derived: clusters iff the OA spiral from R2 = 0 reaches |R2| = 1 "
                     "(|R*| sup|1 - exp(lambda s)| >= 1), else converges to R* = -p/lambda", "oa", len(hurwitz),
                     agree, ok and n_cl > 0, ev1,
                     f"observed {counts_text(hurwitz.regime_oa)}; derived {counts_text(hurwitz.derived)}; {wrong} "
                     f"contradict the derived criterion, {und} undetermined; {n_cl} of these Hurwitz points cluster "
                     f"(pass needs agreement and at least one clustering point)", informational=True,
                     n_undetermined=und))
    centre = c1[(c1.kind == "tr_A=0") & (c1.detA > 0)]
    agree, und, wrong, ok = _tally(list(centre.regime_oa), list(centre.derived), max_undetermined)
    rows.append(_row("C1c-centre", "V = I, tr A = 0 < det A: the interior point R* = -p/lambda is a centre; derived: "
                     "periodic orbits (oscillate) iff 2|R*| < 1, clusters otherwise", "oa", len(centre), agree, ok,
                     ev1, f"observed {counts_text(centre.regime_oa)}; derived {counts_text(centre.derived)}; {wrong} "
                     f"contradict, {und} undetermined", informational=True, n_undetermined=und))
    return rows


def claims_2d(sims: dict, bif: pd.DataFrame, orbits: dict, n_tokens: int, max_undetermined: float = 0.05) -> list[dict]:
    """Rows for C1–C5 from the per-case simulation tables, the saddle-node summary and case-4 orbits.

    Claims 1–2 get one row per method: ``oa`` (the claim's own setting) and ``ws`` / ``tokens``
    (n tokens from i.i.d. uniform angles: informational, labels as the runs gave them)."""
    rows = []
    c1 = sims["case1"]
    ev1 = "paper_figures/fig_case1.pdf; results/sim/case1.csv"
    rows += _prediction_rows("C1a", "V = I: clustering if tr A > 0 or det A <= 0", c1[c1.prediction.str.startswith(
        "cluster")], "cluster_converge|cluster_rotate", ev1, max_undetermined, n_tokens=n_tokens)
    rows += _prediction_rows("C1b", "V = I, sym(A) negative definite: convergence to an interior point",
                             c1[c1.prediction == "interior_converge"], "interior_converge", ev1, max_undetermined,
                             n_tokens=n_tokens)
    rows += _case1_derived_rows(c1, ev1, max_undetermined)
    c2 = sims["case2"]
    ev2 = "paper_figures/fig_case2.pdf; results/sim/case2.csv"
    rows += _prediction_rows("C2a", "A = I, V symmetric: clustering if lambda_max(V) >= 0",
                             c2[c2.prediction.str.startswith("cluster")], "cluster_converge|cluster_rotate", ev2,
                             max_undetermined, n_tokens=n_tokens)
    rows += _prediction_rows("C2b", "A = I, V symmetric, lambda_max(V) < 0: convergence without clustering",
                             c2[c2.prediction == "interior_converge"], "interior_converge", ev2, max_undetermined,
                             n_tokens=n_tokens)
    rows += _case3_rows(sims["case3"], max_undetermined)
    rows += _case4_rows(sims["case4"], orbits, max_undetermined)
    rows += _bifurcation_rows(bif)
    return rows


def case3_rotation_condition(x, y):
    """Derived for A = diag(1, σ), V = I + μJ (both from the data's own coordinates): rotating clusters iff
    disc(V) < 0 (μ ≠ 0: complex eigenvalues 1 ± iμ) and sym(A) definite (σ > 0)."""
    return (np.asarray(x) > 0) & (np.asarray(y) != 0)


def _case3_rows(c3, max_undetermined):
    rows = []
    ev3 = "paper_figures/fig_case3.pdf; results/sim/case3.csv"
    noncomm = c3[(c3.x != 1) & (c3.y != 0)]
    comm = c3[(c3.x == 1) & (c3.y != 0)]
    rot = noncomm[noncomm.regime_oa == "cluster_rotate"]
    rows.append(_row("C3a", "A, V not commuting: a region of clustering without convergence (rotating clusters)",
                     "oa", len(noncomm), len(rot), len(rot) > 0, ev3,
                     f"A = diag(1, sigma), V = I + mu J; rotating at {len(rot)} of {len(noncomm)} non-commuting "
                     f"grid points; regimes {counts_text(noncomm.regime_oa)}"))
    crot = comm[comm.regime_oa == "cluster_rotate"]
    rows.append(_row("C3a-commuting", "commuting points of the same family (sigma = 1, A = I, mu != 0) also rotate: "
                     "non-commutativity is not what matters", "oa", len(comm), len(crot),
                     len(comm) > 0 and len(crot) == len(comm), ev3,
                     f"regimes at sigma = 1: {counts_text(comm.regime_oa)}", informational=True))
    rotating = case3_rotation_condition(c3.x, c3.y)
    agree = int(((c3.regime_oa == "cluster_rotate") == rotating).sum())
    rows.append(_row("C3a-condition", "on this family the data support: rotating clusters iff disc(V) < 0 (mu != 0) "
                     "and sym(A) definite (sigma > 0)", "oa", len(c3), agree, agree == len(c3), ev3,
                     f"{len(c3) - agree} grid points contradict; rotating at {int((c3.regime_oa == 'cluster_rotate').sum())}"
                     f" of {len(c3)} points, condition holds at {int(rotating.sum())}", informational=True))
    rotall = c3[c3.regime_oa == "cluster_rotate"]
    rel = np.abs(rotall.rate_oa / rotall.rate_theory - 1)
    rows.append(_row("C3b", "rotation rate of arg R2 = 2 beta mu sqrt(sigma) (derived on |R2| = 1)", "oa",
                     len(rotall), int((rel < 1e-3).sum()), len(rotall) > 0 and bool((rel < 1e-3).all()), ev3,
                     f"max relative error {rel.max() if len(rotall) else np.nan:.2e} over every rotating grid point "
                     f"(commuting ones included)"))
    return rows


def _case4_rows(c4, orbits, max_undetermined):
    rows = []
    ev4 = "paper_figures/fig_case4.pdf; results/sim/case4.csv"
    osc = c4[c4.prediction == "oscillate"]
    agree, und, wrong, ok = _tally(list(osc.regime_oa), ["oscillate"] * len(osc), max_undetermined)
    rows.append(_row("C4a-oscillate", "A = I, V = [[v11, v12], [-v12, -v11]]: oscillation iff v11 < v12 (as worded)",
                     "oa", len(osc), agree, ok, ev4, f"observed {counts_text(osc.regime_oa)}; {und} undetermined, "
                     f"{wrong} contradicting", n_undetermined=und))
    conv = c4[c4.prediction != "oscillate"]
    agree, und, wrong, ok = _tally(list(conv.regime_oa), list(conv.prediction), max_undetermined)
    rows.append(_row("C4a-converge", "same family: convergence when v11 >= v12 (as worded)", "oa", len(conv), agree,
                     ok, ev4, f"observed {counts_text(conv.regime_oa)}; {und} undetermined, {wrong} contradicting",
                     n_undetermined=und))
    cor = c4[c4.prediction_corrected != ""]
    agree, und, wrong, ok = _tally(list(cor.regime_oa), list(cor.prediction_corrected), max_undetermined)
    counter = c4[(c4.x < c4.y) & (c4.x.abs() > c4.y.abs())]  # worded: oscillate; derived: converge
    counter_up = c4[(c4.x >= c4.y) & (c4.x.abs() < c4.y.abs())]  # worded: converge; derived: oscillate
    ties = c4[c4.prediction_corrected == ""]
    rows.append(_row("C4b", "derived: oscillation iff |v11| < |v12| (interior centre of the conserved H), convergence "
                     "to clusters iff |v11| > |v12|; the boundary is both diagonals v11 = +-v12", "oa", len(cor), agree,
                     ok, ev4, f"{und} undetermined, {wrong} contradicting; as-worded counterexamples (v11 < -|v12|): "
                     f"{len(counter)} grid points, observed {counts_text(counter.regime_oa)}; (v11 >= v12, |v11| < "
                     f"|v12|): {len(counter_up)} grid points, observed {counts_text(counter_up.regime_oa)}; "
                     f"{len(ties)} grid points on the diagonals (no prediction)", n_undetermined=und))
    drift = float(np.max(orbits["H_rel_drift"]))
    rows.append(_row("C4c", "H = (v12 (1 + |R2|^2) + 2 v11 Im R2) / (1 - |R2|^2)^2 is conserved along OA orbits",
                     "oa", len(orbits["H_rel_drift"]), int((orbits["H_rel_drift"] < 1e-6).sum()), drift < 1e-6,
                     "paper_figures/fig_case4.pdf; results/sim/case4_orbits.npz", f"max relative drift {drift:.2e}"))
    return rows


def _bifurcation_rows(bif):
    b = bif.iloc[0]
    evb = "paper_figures/fig_bifurcation.pdf; results/tables/bifurcation_fit.csv"
    rows = [_row("C5a", "saddle-node: rotation -> clustering at mu_c = s (Adler equation on |R2| = 1: "
                 "dphi/dt = 2 beta (mu - s sin phi))", "oa", 1, int(b.threshold_in_bracket),
                 bool(b.threshold_in_bracket), evb,
                 f"sweep bracket [{b.mu_converge_max:.4g}, {b.mu_rotate_min:.4g}] vs mu_c = {b.mu_c_theory:.4g}")]
    ok_k = bool(abs(b.fit_exponent + 0.5) < EXPONENT_TOL)
    rows.append(_row("C5b", "period ~ |mu - mu_c|^(-1/2) near the threshold", "oa", int(b.n_fit),
                     int(b.n_fit) if ok_k else 0, ok_k, evb,
                     f"fitted exponent {b.fit_exponent:.4f} (theory -0.5, tolerance {EXPONENT_TOL:g}) over mu - mu_c "
                     f"in [{b.fit_dmu_min:.3g}, {b.fit_dmu_max:.3g}], prefactor {b.fit_prefactor:.4g} (leading-order "
                     f"theory pi / (beta sqrt(2s)) = {b.theory_prefactor:.4g}); the exact law pi / (beta sqrt(mu^2 - "
                     f"s^2)) fitted on the same points gives exponent {b.exact_law_fit_exponent:.4f}, prefactor "
                     f"{b.exact_law_fit_prefactor:.4g} (the leading-order prefactor drops the factor "
                     "sqrt(2s / (mu + s)))"))
    ok_T = bool(b.period_max_rel_err < 1e-3)
    rows.append(_row("C5c", "period = pi / (beta sqrt(mu^2 - s^2)) above threshold", "oa", int(b.n_rotating),
                     int(b.n_rotating) if ok_T else 0, ok_T, evb, f"max relative error {b.period_max_rel_err:.2e}"))
    return rows


def claims_offmanifold(om: pd.DataFrame, tol_n: float = 0.05, tol_linear: float = 0.2) -> list[dict]:
    """``C1b-offmanifold`` (informational): tokens started from a fixed density off the OA manifold, about an
    OA interior fixed point, keep oscillating; the peak-to-peak of |R2| is the same for every n (within
    ``tol_n``, relative) and proportional to the distance D from the manifold (amplitude / D within
    ``tol_linear`` of its median across densities)."""
    dens = om[om.start == "density"]
    if not len(dens):
        return []
    osc = int((dens.regime_tokens == "oscillate").sum())
    spread_n = float(dens.groupby("eps").amplitude.agg(lambda a: np.ptp(a) / np.mean(a)).max())
    ratio = dens.amplitude / dens.oa_distance
    spread_d = float(np.max(np.abs(ratio / np.median(ratio) - 1)))
    iid = om[om.start == "iid"]
    iid_txt = ""
    if len(iid):
        iid_txt = (f"; i.i.d. starts: distance {span(iid.oa_distance.min(), iid.oa_distance.max())}, "
                   f"amplitude / D {span(np.min(iid.amplitude / iid.oa_distance), np.max(iid.amplitude / iid.oa_distance))}"
                   f", labels {counts_text(iid.regime_tokens)}")
    ok = osc == len(dens) and spread_n <= tol_n and spread_d <= tol_linear
    return [_row("C1b-offmanifold", "V = I, sym(A) negative definite, tokens from a fixed density off the OA "
                 "manifold: |R2| keeps oscillating about the OA interior point, with an amplitude proportional to the "
                 "distance D from the manifold and independent of n", "tokens", len(dens), osc, ok,
                 "paper_figures/fig_offmanifold.pdf; results/tables/offmanifold.csv",
                 f"labels {counts_text(dens.regime_tokens)} (OA: {counts_text(dens.regime_oa)}); n "
                 f"{span(int(dens.n.min()), int(dens.n.max()), 'd', start='from ')}; largest relative spread of the "
                 f"amplitude across n at one density {spread_n:.2g}; amplitude / D {span(ratio.min(), ratio.max())}"
                 + iid_txt,
                 informational=True)]


def claims_highdim(hd: pd.DataFrame) -> list[dict]:
    """Rows for C7, per model: (``C7-<model>``) the d = 2 regime of every scenario with a prediction
    reappears in d dimensions (and the same run at tighter tolerances agrees, ``check_ok``; a run whose r(t) has not
    settled is ``undetermined``, :mod:`lsadyn.regimes`, and the row does not pass on it);
    (``C7-shape-<model>``, informational) the clustered end states have the d = 2 shape, an antipodal pair
    (|mean token| < 1), or not (runs whose regime is ``undetermined`` are not end states and have no shape:
    excluded, and counted in the note);
    (``C7x-<model>``, informational) scenarios without a d = 2 prediction;
    (``C7-limitcycle``, informational, beyond the paper) the runs of the limit-cycle scenarios
    (:data:`~lsadyn.paper.persistence.plan.LIMIT_CYCLE`, left out of the rows above): do they oscillate, from a
    uniform and from a near-plane start, with the plane's transverse exponent (``transverse_rate``,
    :mod:`lsadyn.paper.highdim.transverse`) and how far from the plane the tokens end (``offplane_final``)."""
    rows = []
    ev = "paper_figures/fig_highdim.pdf; results/tables/highdim.csv"
    shape_col = "cluster_shape" in hd
    cycle = hd[hd.scenario.isin(LIMIT_CYCLE)]
    for model, g in hd[~hd.scenario.isin(LIMIT_CYCLE)].groupby("model", sort=False):
        tested = g[(g.expect != "") & ~g.scenario.isin(LIMIT_CYCLE)]
        agree = tested[(tested.regime == tested.expect) & tested.check_ok.astype(bool)]
        d = int(g.d.iloc[0])
        details = "; ".join(f"{r.scenario}: {r.regime} (expected {r.expect}, tolerance check "
                            f"{'ok' if r.check_ok else 'FAILED'})" for r in tested.itertuples())
        rows.append(_row(f"C7-{model}", f"d = 2 regimes reappear at d = {d} ({model.upper()}); cluster shape in "
                         f"C7-shape-{model}", f"particles-{model}", len(tested), len(agree),
                         len(tested) > 0 and len(agree) == len(tested), ev, details,
                         n_undetermined=int((tested.regime == "undetermined").sum())))
        if shape_col:
            # an undetermined run has no end state yet: highdim.csv leaves its cluster_shape empty (lsadyn.paper.
            # highdim.end_shape) and it is not a clustered end state (tables written before that are read alike)
            undet = g[g.regime == "undetermined"]
            cl = g[g.cluster_shape.isin(["single", "antipodal_pair"]) & (g.regime != "undetermined")]
            pair = cl[cl.cluster_shape == "antipodal_pair"]
            where = "; ".join(f"{r.scenario}: {r.cluster_shape.replace('_', ' ')} (|mean token| "
                              f"{r.mean_token_norm:.2f})" for r in cl.itertuples())
            # the d = 2 shape is LSA's: USA's own d = 2 runs can end in one cluster (persistence table)
            same = ("as in d = 2 (one cluster is a different end state)" if model == "lsa" else
                    "the shape LSA keeps in d = 2 (one cluster, which softmax reaches in d = 2 too, is a different "
                    "end state)")
            rows.append(_row(f"C7-shape-{model}", f"clustered end states at d = {d} ({model.upper()}) are antipodal "
                             f"pairs, {same}", f"particles-{model}",
                             len(cl), len(pair), len(cl) > 0 and len(pair) == len(cl), ev,
                             (where or "no clustered end state") + "; in d = 2 LSA keeps the tokens' split between "
                             "the two poles, softmax (USA) can gather every token in one cluster"
                             + (f"; {len(undet)} undetermined run{'s' if len(undet) != 1 else ''} excluded ("
                                + ", ".join(undet.scenario) + ")" if len(undet) else ""),
                             informational=True))
        other = g[g.expect == ""]
        if len(other):
            rows.append(_row(f"C7x-{model}", f"scenarios with no d = 2 prediction at d = {d} ({model.upper()}): "
                             "every run reaches a determined regime", f"particles-{model}", len(other),
                             int((other.regime != "undetermined").sum()), bool((other.regime != "undetermined").all()),
                             ev, "; ".join(f"{r.scenario}: {r.regime}" for r in other.itertuples()),
                             informational=True, n_undetermined=int((other.regime == "undetermined").sum())))
    if len(cycle):
        rows.append(_limit_cycle_row(cycle, ev))
    return rows


def _limit_cycle_row(cycle: pd.DataFrame, ev: str) -> dict:
    """Row ``C7-limitcycle`` of :func:`claims_highdim` from the limit-cycle runs of highdim.csv."""
    def start(r):
        return ("uniform start" if r.scenario == "limit_cycle" else
                f"near-plane start (off-plane mass {r.offplane_start:.2g})")

    def run(r):
        bits = [f"{r.scenario} {r.model.upper()} ({start(r)}): {r.regime}"]
        if r.regime == "oscillate":
            bits.append(f"period {r.period:.4g}")
        bits.append(f"tolerance check {'ok' if r.check_ok else 'FAILED'}")
        if np.isfinite(r.transverse_rate):
            bits.append(f"transverse exponent {r.transverse_rate:+.3g} per tau "
                        f"({'plane attracts' if r.transverse_rate < 0 else 'plane repels'})")
        if np.isfinite(r.offplane_final):
            bits.append(f"off-plane mass at the end {r.offplane_final:.2g}")
        return ", ".join(bits)

    cycle = cycle.assign(**{c: np.nan for c in ("period", "offplane_start", "offplane_final", "transverse_rate")
                            if c not in cycle})  # a table written before these columns
    osc = cycle[(cycle.regime == "oscillate") & cycle.check_ok.astype(bool)]
    d = ", ".join(str(int(x)) for x in sorted(cycle.d.unique()))
    models = "/".join(m.upper() for m in dict.fromkeys(cycle.model))
    return _row("C7-limitcycle", f"the attracting limit cycle of the d = 2 OA flow, embedded at d = {d} ({models}), "
                "keeps oscillating from uniform and from near-plane starts (beyond the paper)",
                "particles-" + "-".join(dict.fromkeys(cycle.model)), len(cycle), len(osc), len(osc) == len(cycle), ev,
                "; ".join(run(r) for r in cycle.itertuples()), informational=True)


def slope_with_interval(x, y, level: float = 0.95):
    """Least-squares slope of log y on log x and its two-sided ``level`` confidence interval (Student t);
    needs ≥ 3 points (else NaNs)."""
    from scipy import stats

    x, y = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if x.size < 3:
        return np.nan, np.nan, np.nan
    res = stats.linregress(x, y)
    half = stats.t.ppf(0.5 + level / 2, x.size - 2) * res.stderr
    return float(res.slope), float(res.slope - half), float(res.slope + half)


def claims_stability(st: pd.DataFrame, eps_small: float, floor: float = 1e-6) -> list[dict]:
    """Rows for C6, per (A, V) regime: (``C6a-<regime>``) every run with ε ≤ ``eps_small`` reaches the OA
    regime; (``C6b-<regime>``) the final-state discrepancy shrinks with ε: with at least 3 runs whose D is
    above the numerical ``floor``, the least-squares slope of log D against log ε has a 95 % confidence
    interval above 0; when no run's D is above the floor (the states coincide up to the integration tolerance at
    every ε) the row holds, counting every run (D → 0 as ε → 0 holds with D = 0); with 1 or 2 runs above it the
    row fails with "not enough runs". Outside the theorem's hypotheses the rows are informational."""
    rows = []
    ev = "paper_figures/fig_stability.pdf; results/tables/stability.csv"
    for regime, g in st.groupby("regime", sort=False):
        near = g[g.eps <= eps_small]
        decided = (g.regime_tokens != "undetermined") & (g.regime_oa != "undetermined")
        # a run without a certified label on either side is undecided, not evidence either way
        n_und = int((~decided[near.index]).sum())
        agree = near[decided[near.index] & (near.regime_tokens == near.regime_oa)]
        differ = g[decided & (g.regime_tokens != g.regime_oa)]
        threshold = float(differ.eps.min()) if len(differ) else np.nan
        hyp = bool(g.hypothesis.iloc[0])
        what = "within the hypotheses" if hyp else "outside the hypotheses"
        dist = ""
        if "oa_distance" in g:
            dist = f"; distance from the OA manifold {span(g.oa_distance.min(), g.oa_distance.max())}"
        note = (f"{g.statement.iloc[0]}; token labels {counts_text(g.regime_tokens)}; OA labels "
                f"{counts_text(g.regime_oa)}; labels differ from OA in {len(differ)} of {len(g)} runs"
                + (f" (smallest such eps {threshold:.3g})" if len(differ) else "") + dist
                + (f"; {int((~decided).sum())} of {len(g)} runs without a certified label on both sides"
                   if (~decided).any() else ""))
        rows.append(_row(f"C6a-{regime}", f"near-uniform data off the OA manifold (eps <= {eps_small}) reach the OA "
                         f"regime ({regime}, {what})", "tokens", len(near), len(agree),
                         len(near) > 0 and len(agree) == len(near), ev, note, informational=not hyp,
                         n_undetermined=n_und))
        above = g[g.discrepancy > floor]
        slope, lo, hi = slope_with_interval(above.eps, above.discrepancy)
        ratio = float((near.discrepancy / near.eps).max()) if len(near) else np.nan
        tested = len(above)
        if not len(above):  # D = 0 up to the tolerance at every eps: the limit holds, there is no slope to fit
            ok_b, tested = len(g) > 0, len(g)
            note_b = (f"no slope to fit: every run's discrepancy (all {len(g)}) is below {floor:g}, zero up to the "
                      "integration tolerance at every eps")
        elif len(above) < 3:
            ok_b = False
            note_b = f"not enough runs: {len(above)} of {len(g)} runs have a discrepancy above {floor:g} (3 needed)"
        else:
            ok_b = bool(lo > 0)
            note_b = (f"log-log slope {slope:.3g} (95% interval {lo:.3g} to {hi:.3g}) over {len(above)} runs above "
                      f"{floor:g}")
        note_b += f"; max discrepancy/eps at eps <= {eps_small}: {ratio:.3g}"
        rows.append(_row(f"C6b-{regime}", f"final-state discrepancy |R2_tokens - R2_OA| shrinks with eps ({regime}, "
                         f"{what})", "tokens", tested, tested if ok_b else 0, ok_b, ev, note_b,
                         informational=not hyp))
    return rows


def claims_robustness(robustness: pd.DataFrame) -> list[dict]:
    """C8 rows (beyond the paper, informational): :func:`lsadyn.paper.robustness.summary.claim_rows` of
    results/tables/robustness.csv."""
    from .robustness.summary import claim_rows

    return claim_rows(robustness)


def claims_table(rows: list[dict]) -> pd.DataFrame:
    """The rows as a DataFrame with ``COLUMNS``; raises ValueError on a duplicate id."""
    table = pd.DataFrame(rows, columns=COLUMNS)
    dup = table.id[table.id.duplicated()]
    if len(dup):
        raise ValueError(f"claims: duplicate row ids {sorted(set(dup))}")
    return table
