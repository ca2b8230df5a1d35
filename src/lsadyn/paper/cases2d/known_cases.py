r"""Known cases: d = 2 parameter points (A, V, β) whose long-time regime and limit values follow in
closed form from the OA ODE (derivations: tests/known_cases.md). The data live in
tests/known_cases.csv; :func:`load_known_cases` reads them, :func:`closed_form` recomputes every
expected value from the formulas (so the file cannot drift from the derivation), and
:func:`run_known_cases` classifies every case by OA, WS and tokens (benchmarks/known_cases.py).

Closed forms (β multiplies every rate; τ-free):

* V = I: :math:`\dot R = \frac\beta4(1-|R|^2)(p + \lambda R)`, p = (a11 − a22) + i(a12 + a21),
  λ = tr A + i(a12 − a21); interior point R* = −p/λ iff det A > 0 (see :mod:`lsadyn.paper.cases2d.plan`);
  centre (tr A = 0 < det A, 2|R*| < 1): period :math:`T = 8\pi/(\beta|\omega|\sqrt{1-4|R^*|^2})`,
  ω = a12 − a21 (orbit through R = 0).
* A = I, V symmetric with eigenvalues l1 ≥ l2: λmax < 0 ⇒ interior point |R*| = (l1 − l2)/|l1 + l2|.
* Rotation-equivariant pairs A = a0 I + a1 J, V = v0 I + v1 J: :math:`\dot r = \frac\beta2 r(1-r^2)(a_0v_0 -
  a_1v_1)`, on r = 1 :math:`\dot\varphi = 2\beta a_0 v_1`.
* Case 3 (A = diag(1, σ), V = I + μJ): on r = 1 :math:`\dot\varphi = \beta\mu[(1+\sigma) + (1-\sigma)\cos\varphi]`,
  mean rate 2βμ√σ (σ > 0), the circle attracts.
* Saddle-node family (A = I, V = [[a+s, −μ], [μ, a−s]]): :math:`\dot\varphi = 2\beta(\mu - s\sin\varphi)`,
  rate 2β√(μ² − s²) sign μ for |μ| > s.
* Limit cycle: one (A, V) with a unique interior fixed point that is an unstable focus and a repelling
  boundary circle (Poincaré–Bendixson: an attracting periodic orbit in between); no closed-form period.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from .plan import ENTRIES, case1_oa_prediction, case4_prediction_corrected

KNOWN_CASES_CSV = Path(__file__).resolve().parents[4] / "tests" / "known_cases.csv"
COLUMNS = ["case", "family", *ENTRIES, "beta", "expected", "abs_R2", "rate", "period", "slow", "token_label"]
J = np.array([[0.0, -1.0], [1.0, 0.0]])


def _rot(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def closed_form(family: str, A, V, beta: float) -> dict:
    """Expected regime and limits of one known case from its family's closed form (module doc).

    Returns {expected, abs_R2, rate, period, slow, token_label}; NaN where a limit does not apply.
    ``token_label``: the label n tokens from i.i.d. angles may show instead (off the OA manifold an
    interior state is an ``oscillate`` about it), or "" if they must agree."""
    A, V = np.asarray(A, float), np.asarray(V, float)
    nan = float("nan")
    out = dict(abs_R2=nan, rate=nan, period=nan, slow=False, token_label="")
    if family == "v_identity":
        label, r_star = case1_oa_prediction(A)
        out.update(expected=label)
        if label == "interior_converge":
            out.update(abs_R2=r_star, token_label="oscillate")
        elif label == "oscillate":
            p = (A[0, 0] - A[1, 1]) + 1j * (A[0, 1] + A[1, 0])
            lam = 1j * (A[0, 1] - A[1, 0])
            r = abs(p / lam)
            out.update(period=8 * np.pi / (beta * abs(lam.imag) * np.sqrt(1 - 4 * r * r)))
        else:
            out.update(abs_R2=1.0, slow=bool(abs(np.linalg.det(A)) < 1e-12))
        return out
    if family == "a_identity_symmetric":
        lam = np.linalg.eigvalsh((V + V.T) / 2)
        l2, l1 = lam
        if l1 < 0:
            out.update(expected="interior_converge", abs_R2=(l1 - l2) / abs(l1 + l2), token_label="oscillate")
        else:
            out.update(expected="cluster_converge", abs_R2=1.0, slow=bool(abs(l1) < 1e-12))
        return out
    if family == "rotation_equivariant":
        a0, a1 = A[0, 0], A[1, 0]
        v0, v1 = V[0, 0], V[1, 0]
        growth = a0 * v0 - a1 * v1
        if growth > 0:
            rate = 2 * beta * a0 * v1
            if rate != 0:
                out.update(expected="cluster_rotate", abs_R2=1.0, rate=rate, period=2 * np.pi / abs(rate))
            else:
                out.update(expected="cluster_converge", abs_R2=1.0)
        else:
            out.update(expected="interior_converge", abs_R2=0.0, token_label="oscillate")
        return out
    if family == "case3":
        sigma, mu = A[1, 1], V[1, 0]
        if sigma > 0 and mu != 0:
            rate = 2 * beta * mu * np.sqrt(sigma)
            out.update(expected="cluster_rotate", abs_R2=1.0, rate=rate, period=2 * np.pi / abs(rate))
        else:
            out.update(expected="cluster_converge", abs_R2=1.0)
        return out
    if family == "case4":
        label = str(case4_prediction_corrected(V[0, 0], V[0, 1]))
        out.update(expected=label, abs_R2=1.0 if label == "cluster_converge" else nan)
        return out
    if family == "saddle_node":
        s, mu = (V[0, 0] - V[1, 1]) / 2, V[1, 0]
        if abs(mu) > s:
            rate = 2 * beta * np.sign(mu) * np.sqrt(mu * mu - s * s)
            out.update(expected="cluster_rotate", abs_R2=1.0, rate=rate, period=2 * np.pi / abs(rate))
        else:
            out.update(expected="cluster_converge", abs_R2=1.0)
        return out
    if family == "limit_cycle":  # Poincaré–Bendixson certificate (tests/known_cases.md §7); no closed-form period
        out.update(expected="oscillate")
        return out
    raise ValueError(f"family: unknown known-case family {family!r}")


def known_case_points() -> list[tuple[str, str, np.ndarray, np.ndarray, float]]:
    """(case, family, A, V, β) of every known case (the rows of tests/known_cases.csv)."""
    I2 = np.eye(2)
    pts = []

    def add(name, fam, A, V, beta=1.0):
        pts.append((name, fam, np.asarray(A, float), np.asarray(V, float), float(beta)))

    # V = I (claim 1 and where it is silent)
    add("v_id_identity", "v_identity", I2, I2)
    add("v_id_trace_positive", "v_identity", [[1.0, 0.5], [-0.3, 0.8]], I2, 0.7)
    add("v_id_det_negative", "v_identity", [[1.0, 0.2], [0.4, -1.0]], I2)
    add("v_id_det_zero_trace_negative", "v_identity", [[-1.0, 0.4], [-0.5, 0.2]], I2)
    add("v_id_det_zero_trace_positive", "v_identity", [[1.0, 0.4], [0.5, 0.2]], I2)
    add("v_id_sym_negdef", "v_identity", [[-0.5, 0.4], [0.0, -0.7]], I2)
    add("v_id_sym_negdef_far", "v_identity", [[-1.0, 0.3], [0.5, -0.4]], I2, 1.5)
    add("v_id_minus_identity", "v_identity", -I2, I2)
    add("v_id_hurwitz_indefinite_clusters", "v_identity", [[-0.1, 3.0], [-0.5, -0.1]], I2)
    add("v_id_hurwitz_indefinite_interior", "v_identity", [[-0.5, 2.0], [-1.0, 0.3]], I2)
    add("v_id_centre_orbits", "v_identity", [[0.2, 1.0], [-1.0, -0.2]], I2)
    add("v_id_centre_orbits_beta2", "v_identity", [[0.3, 0.8], [-1.2, -0.3]], I2, 2.0)
    add("v_id_centre_clusters", "v_identity", [[0.6, 1.0], [-1.0, -0.6]], I2)
    # A = I, V symmetric (claim 2)
    add("a_id_lambda_positive", "a_identity_symmetric", I2, np.diag([1.0, -0.5]))
    add("a_id_lambda_positive_rotated", "a_identity_symmetric", I2, _rot(0.3) @ np.diag([2.0, 0.5]) @ _rot(0.3).T)
    add("a_id_lambda_negative", "a_identity_symmetric", I2, np.diag([-1.0, -3.0]))
    add("a_id_minus_identity", "a_identity_symmetric", I2, -I2)
    add("a_id_lambda_negative_rotated", "a_identity_symmetric", I2,
        _rot(1.0) @ np.diag([-0.5, -2.0]) @ _rot(1.0).T, 0.5)
    add("a_id_lambda_zero", "a_identity_symmetric", I2, np.diag([0.0, -1.0]))
    add("a_id_lambda_zero_rotated", "a_identity_symmetric", I2, _rot(0.7) @ np.diag([0.0, -2.0]) @ _rot(0.7).T)
    # rotation-equivariant pairs: rotating clusters with A = I (commuting), tr V != 0
    add("rot_a_id_v_i_plus_j", "rotation_equivariant", I2, I2 + J)
    add("rot_a_id_trace_v", "rotation_equivariant", I2, 0.5 * I2 - 1.5 * J)
    add("rot_general", "rotation_equivariant", 0.8 * I2 + 0.5 * J, 1.2 * I2 + 0.6 * J, 0.5)
    add("rot_decays_to_uniform", "rotation_equivariant", I2, -0.5 * I2 + 2.0 * J)
    # case 3 (non-commuting)
    add("case3_rotate", "case3", np.diag([1.0, 0.5]), I2 + J)
    add("case3_rotate_backwards", "case3", np.diag([1.0, 2.0]), I2 - 0.5 * J, 0.8)
    add("case3_converge", "case3", np.diag([1.0, -0.5]), I2 + J)
    # case 4 (hidden Hamiltonian)
    add("case4_orbits", "case4", I2, [[0.5, 1.0], [-1.0, -0.5]])
    add("case4_orbits_negative_v12", "case4", I2, [[0.5, -1.0], [1.0, -0.5]])
    add("case4_clusters", "case4", I2, [[1.0, 0.5], [-0.5, -1.0]])
    add("case4_clusters_negative_v11", "case4", I2, [[-1.0, 0.5], [-0.5, 1.0]])
    # saddle-node on |R2| = 1 (both sides)
    add("saddle_node_below", "saddle_node", I2, [[1.5, -0.4], [0.4, 0.5]])
    add("saddle_node_above", "saddle_node", I2, [[1.5, -0.6], [0.6, 0.5]])
    add("saddle_node_far", "saddle_node", I2, [[1.5, -1.5], [1.5, 0.5]], 0.5)
    # an attracting limit cycle of a non-Hamiltonian (A, V)
    add("limit_cycle", "limit_cycle", [[-0.19, -0.27], [0.17, -0.92]], [[0.84, 0.97], [-1.33, 0.49]])
    return pts


def build_known_cases() -> pd.DataFrame:
    """The known-case table from :func:`known_case_points` and :func:`closed_form`."""
    rows = []
    for name, fam, A, V, beta in known_case_points():
        cf = closed_form(fam, A, V, beta)
        rows.append({"case": name, "family": fam, **dict(zip(ENTRIES, np.concatenate([A.ravel(), V.ravel()]))),
                     "beta": beta, **cf})
    return pd.DataFrame(rows, columns=COLUMNS)


def load_known_cases(path=KNOWN_CASES_CSV) -> pd.DataFrame:
    """Read the known-case data file (tests/known_cases.csv)."""
    df = pd.read_csv(path, keep_default_na=True)
    df["token_label"] = df["token_label"].fillna("")
    return df


def run_known_cases(df: pd.DataFrame, n_tokens: int = 400, seed: int = 0, methods=("oa", "ws", "tokens"),
                    progress=None) -> pd.DataFrame:
    """Classify every known case by OA (:func:`lsadyn.predict_regime`), WS (:func:`lsadyn.ws_regime`) and
    n tokens from i.i.d. angles (:func:`lsadyn.simulate_regime`); one row per case with the labels, the
    physical time at which each decided (``details['t_decide']`` when the decision procedure reports it,
    else the horizon used) and the wall time."""
    from ... import predict_regime, simulate_regime, ws_regime

    run = {"oa": lambda A, V, b: predict_regime(A, V, b),
           "ws": lambda A, V, b: ws_regime(A, V, b, n=n_tokens, seed=seed),
           "tokens": lambda A, V, b: simulate_regime(A, V, b, n=n_tokens, seed=seed)}
    out = []
    for i, row in enumerate(df.itertuples()):
        A = np.array([[row.a11, row.a12], [row.a21, row.a22]])
        V = np.array([[row.v11, row.v12], [row.v21, row.v22]])
        rec = {"case": row.case, "expected": row.expected}
        for m in methods:
            start = time.perf_counter()
            res = run[m](A, V, row.beta)
            rec[m] = res.regime
            rec[f"abs_R2_{m}"] = res.abs_R2
            rec[f"rate_{m}"] = res.arg_R2_rate
            rec[f"period_{m}"] = res.period
            rec[f"amplitude_{m}"] = res.details.get("amplitude", np.nan)
            rec[f"t_decide_{m}"] = res.details.get("t_decide", res.details.get("horizon_time", np.nan))
            rec[f"seconds_{m}"] = time.perf_counter() - start
        out.append(rec)
        if progress:
            progress((i + 1) / len(df))
    return pd.DataFrame(out)


def token_verdict(expected: str, token_label: str, label: str) -> str:
    """'right', 'off-manifold' (the documented off-manifold label), 'undetermined' or 'wrong'."""
    if label == expected:
        return "right"
    if label == "undetermined":
        return "undetermined"
    if token_label and label == token_label:
        return "off-manifold"
    return "wrong"
