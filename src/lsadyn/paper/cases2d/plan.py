r"""Plan of the d = 2 study: the parameter families (cases 1–4, the saddle-node family), a case's parameter frame
from its config section (:func:`build_case`), and the closed-form predictions each is tested against
(derived in tests/known_cases.md; the labels: docs/theory.md §3). numpy and pandas only.

Every sampler returns a :class:`pandas.DataFrame` with one row per parameter point: the
entries ``a11..a22``, ``v11..v22``, ``beta``, the case's own coordinates, and
``prediction`` (the label set the claim predicts, ``""`` where the claim is silent).
Seeds come from the caller (the config), never from the clock.

Closed forms used (derived here, each checked against simulations by the tests):

* Case 1, :math:`V = I`. The OA ODE factorises (β = 1; β rescales time):
  :math:`\dot R_2 = \tfrac14(1 - |R_2|^2)\,(p + \lambda R_2)` with
  :math:`p = (a_{11} - a_{22}) + i(a_{12} + a_{21})`, :math:`\lambda = \mathrm{tr}A + i(a_{12} - a_{21})`.
  Inside the disc the orbits are those of the linear flow :math:`p + \lambda R` (time reparametrised);
  every point of |R₂| = 1 is fixed. :math:`|\lambda|^2 - |p|^2 = 4\det A`, so an interior fixed point
  :math:`R^* = -p/\lambda` exists iff det A > 0; it attracts iff tr A < 0 and is a centre iff tr A = 0.
  From R₂(0) = 0 the orbit is :math:`R(s) = R^*(1 - e^{\lambda s})`: the tokens cluster iff it reaches
  |R| = 1, i.e. iff :math:`|R^*|\,\sup_{s\ge0}|1 - e^{\lambda s}| \ge 1` (for tr A = 0: iff
  :math:`2|R^*| \ge 1`, otherwise a periodic orbit). :math:`\lambda_{max}(\mathrm{sym}A) = (\mathrm{tr}A + |p|)/2`,
  so sym(A) negative definite makes the linear field point inward on all of |R| = 1 (no clustering),
  while a Hurwitz A with indefinite symmetric part clusters when the spiral from 0 leaves the disc.

* Case 3, :math:`A = \mathrm{diag}(1, \sigma)`, :math:`V = I + \mu J`. On the invariant circle
  :math:`|R_2| = 1` (two antipodal clusters at angle φ/2),
  :math:`\dot\varphi = \beta\mu\,[(1+\sigma) + (1-\sigma)\cos\varphi]`: fixed points iff σ ≤ 0 or μ = 0;
  otherwise a rotation with mean rate :math:`2\beta\mu\sqrt\sigma` (when the circle attracts).
* Case 4, :math:`A = I`, :math:`V = [[v_{11}, v_{12}], [-v_{12}, -v_{11}]]`: conserved
  :math:`\mathcal H` (:func:`lsadyn.reductions.kuramoto.case4_hamiltonian`); an interior centre, hence closed
  orbits for every interior start, iff :math:`|v_{11}| < |v_{12}|`.
* Saddle-node family, :math:`A = I`, :math:`V = [[a+s, -\mu], [\mu, a-s]]`: on the circle
  :math:`\dot\varphi = 2\beta(\mu - s\sin\varphi)` (Adler; from the OA ODE at :math:`R_2 = e^{i\varphi}`), threshold :math:`\mu_c = s`, rotation
  period of :math:`R_2` :math:`T = \pi / (\beta\sqrt{\mu^2 - s^2})`, i.e.
  :math:`T \approx \pi (2s)^{-1/2}\beta^{-1}(\mu-\mu_c)^{-1/2}`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

J = np.array([[0.0, -1.0], [1.0, 0.0]])
CLUSTER = "cluster_converge|cluster_rotate"
ENTRIES = ["a11", "a12", "a21", "a22", "v11", "v12", "v21", "v22"]


def frame(A, V, beta, **columns) -> pd.DataFrame:
    """DataFrame of N points from A, V (N, 2, 2) plus extra columns."""
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    df = pd.DataFrame(np.concatenate([A.reshape(-1, 4), V.reshape(-1, 4)], axis=1), columns=ENTRIES)
    df.insert(0, "point_id", np.arange(len(df)))
    df["beta"] = float(beta)
    for k, v in columns.items():
        df[k] = v
    return df


def matrices(df: pd.DataFrame):
    """(A, V, beta) arrays of shapes (N, 2, 2), (N, 2, 2), (N,) from a parameter frame."""
    A = df[ENTRIES[:4]].to_numpy(float).reshape(-1, 2, 2)
    V = df[ENTRIES[4:]].to_numpy(float).reshape(-1, 2, 2)
    return A, V, df["beta"].to_numpy(float)


def case1_prediction(trA, detA, sym_max_eig):
    """Claim 1 (V = I): clustering if tr A > 0 or det A ≤ 0; interior convergence if sym(A) < 0."""
    trA, detA, sym_max_eig = map(np.asarray, (trA, detA, sym_max_eig))
    return np.where((trA > 0) | (detA <= 0), CLUSTER, np.where(sym_max_eig < 0, "interior_converge", ""))


def case1_oa_prediction(A) -> tuple[str, float]:
    """Derived OA regime of V = I from R₂(0) = 0 (module doc) and its interior limit |R*| (NaN if none):
    ``cluster_converge`` | ``interior_converge`` | ``oscillate`` (centre, tr A = 0 < det A, 2|R*| < 1)."""
    A = np.asarray(A, dtype=float)
    p = (A[0, 0] - A[1, 1]) + 1j * (A[0, 1] + A[1, 0])
    lam = (A[0, 0] + A[1, 1]) + 1j * (A[0, 1] - A[1, 0])
    det = float(np.linalg.det(A))
    if det <= 0 or lam.real > 0:
        return "cluster_converge", np.nan
    r_star = abs(p / lam)
    if r_star >= 1 - 1e-9:  # det A = 0 up to rounding: R* on the circle
        return "cluster_converge", np.nan
    if lam.real == 0:
        return ("oscillate", np.nan) if 2 * r_star < 1 else ("cluster_converge", np.nan)
    return ("cluster_converge", np.nan) if r_star * case1_spiral_reach(lam) >= 1 else ("interior_converge", r_star)


def case1_spiral_reach(lam: complex) -> float:
    r""":math:`\sup_{s\ge0}|1 - e^{\lambda s}|` for Re λ < 0 (1 for real λ; up to 2 as Re λ → 0)."""
    if lam.imag == 0:
        return 1.0
    kappa, omega = -lam.real, abs(lam.imag)
    # |1 - e^{λs}|² = 1 - 2 e^{-κs} cos ωs + e^{-2κs}; its maximum lies in the first turn, ωs ∈ [0, 2π]
    s = np.linspace(0, 2 * np.pi / omega, 20001)
    f = 1 - 2 * np.exp(-kappa * s) * np.cos(omega * s) + np.exp(-2 * kappa * s)
    i = int(np.argmax(f))
    lo, hi = s[max(i - 1, 0)], s[min(i + 1, s.size - 1)]
    for _ in range(60):  # golden-section refinement
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        fa = 1 - 2 * np.exp(-kappa * a) * np.cos(omega * a) + np.exp(-2 * kappa * a)
        fb = 1 - 2 * np.exp(-kappa * b) * np.cos(omega * b) + np.exp(-2 * kappa * b)
        lo, hi = (lo, b) if fa > fb else (a, hi)
    return float(np.sqrt(max(f[i], 1 - 2 * np.exp(-kappa * lo) * np.cos(omega * lo) + np.exp(-2 * kappa * lo))))


def sample_case1(n_random: int, n_boundary: int, scale: float, beta: float, seed: int) -> pd.DataFrame:
    """Case 1: V = I; A with i.i.d. N(0, scale²) entries, plus ``n_boundary`` points on each of
    det A = 0 (A = u vᵀ) and tr A = 0 (A − tr A/2 · I)."""
    rng = np.random.default_rng(seed)
    rand = scale * rng.standard_normal((n_random, 2, 2))
    u, v = scale * rng.standard_normal((2, n_boundary, 2))
    det0 = u[:, :, None] * v[:, None, :]
    tr0 = scale * rng.standard_normal((n_boundary, 2, 2))
    tr0 -= np.trace(tr0, axis1=1, axis2=2)[:, None, None] / 2 * np.eye(2)
    A = np.concatenate([rand, det0, tr0])
    kind = ["random"] * n_random + ["det_A=0"] * n_boundary + ["tr_A=0"] * n_boundary
    V = np.broadcast_to(np.eye(2), A.shape)
    trA = np.trace(A, axis1=1, axis2=2)
    detA = np.linalg.det(A)
    detA[n_random:n_random + n_boundary] = 0.0  # exactly on the boundary by construction
    trA[n_random + n_boundary:] = 0.0
    sym = np.linalg.eigvalsh((A + np.swapaxes(A, 1, 2)) / 2)[:, -1]
    return frame(A, V, beta, case="case1", kind=kind, x=trA, y=detA, sym_max_eig=sym,
                 prediction=case1_prediction(trA, detA, sym))


def case2_prediction(lam_max):
    """Claim 2 (A = I, V symmetric): clustering iff λ_max(V) ≥ 0, else interior convergence."""
    return np.where(np.asarray(lam_max) >= 0, CLUSTER, "interior_converge")


def sample_case2(n_random: int, n_boundary: int, lam_min: float, lam_max: float, beta: float, seed: int):
    """Case 2: A = I, V = R(φ) diag(λ₁, λ₂) R(φ)ᵀ with λ's uniform in [lam_min, lam_max], φ uniform;
    plus ``n_boundary`` points with λ_max(V) = 0 exactly."""
    rng = np.random.default_rng(seed)
    lam = rng.uniform(lam_min, lam_max, (n_random + n_boundary, 2))
    lam[n_random:, 0] = 0.0
    lam[n_random:, 1] = rng.uniform(lam_min, 0.0, n_boundary)
    phi = rng.uniform(0, np.pi, len(lam))
    c, s = np.cos(phi), np.sin(phi)
    R = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    V = R @ (lam[:, :, None] * np.eye(2)) @ np.swapaxes(R, 1, 2)
    V = (V + np.swapaxes(V, 1, 2)) / 2
    A = np.broadcast_to(np.eye(2), V.shape)
    lo, hi = lam.min(axis=1), lam.max(axis=1)
    kind = ["random"] * n_random + ["lambda_max=0"] * n_boundary
    return frame(A, V, beta, case="case2", kind=kind, x=lo, y=hi, prediction=case2_prediction(hi))


def case3_rotation_rate(sigma, mu, beta):
    """Mean rate of arg R₂ on the circle for case 3: 2βμ√σ for σ > 0 (0 otherwise)."""
    sigma = np.asarray(sigma, dtype=float)
    return np.where(sigma > 0, 2 * beta * np.asarray(mu) * np.sqrt(np.clip(sigma, 0, None)), 0.0)


def grid_case3(sigma_range, mu_range, n_sigma: int, n_mu: int, beta: float) -> pd.DataFrame:
    """Case 3: A = diag(1, σ), V = I + μJ (they commute only if σ = 1 or μ = 0), on a σ × μ grid that
    always contains σ = 1 (commuting points: rotation does not need non-commutativity).

    ``prediction`` = 'cluster_rotate' where the circle analysis gives no fixed point (σ > 0, μ ≠ 0)
    — valid only where the clusters attract, which the OA map shows."""
    sig_axis = np.linspace(*sigma_range, n_sigma)
    if sigma_range[0] <= 1 <= sigma_range[1]:  # the commuting column σ = 1 (A = I) is always on the grid
        sig_axis = np.union1d(sig_axis[~np.isclose(sig_axis, 1.0, rtol=0, atol=1e-9)], [1.0])
    sig, mu = np.meshgrid(sig_axis, np.linspace(*mu_range, n_mu), indexing="ij")
    sig, mu = sig.ravel(), mu.ravel()
    A = np.zeros((sig.size, 2, 2))
    A[:, 0, 0] = 1.0
    A[:, 1, 1] = sig
    V = np.eye(2) + mu[:, None, None] * J
    pred = np.where((sig > 0) & (mu != 0), "cluster_rotate", "")
    return frame(A, V, beta, case="case3", kind="grid", x=sig, y=mu, prediction=pred,
                 rate_theory=case3_rotation_rate(sig, mu, beta))


def case4_prediction_as_worded(v11, v12):
    """Claim 4 as worded: periodic orbits when v11 < v12, convergence when v11 ≥ v12."""
    return np.where(np.asarray(v11) < np.asarray(v12), "oscillate", "cluster_converge|interior_converge")


def case4_prediction_corrected(v11, v12):
    """Derived: closed orbits iff |v11| < |v12| (interior centre of the conserved 𝓗); otherwise
    orbits reach the circle |R₂| = 1 and converge there; |v11| = |v12| is degenerate (no label)."""
    a, b = np.abs(v11), np.abs(v12)
    tie = np.isclose(a, b, rtol=1e-9, atol=1e-12)
    return np.where(tie, "", np.where(a < b, "oscillate", "cluster_converge"))


def grid_case4(v11_range, v12_range, n_v11: int, n_v12: int, beta: float) -> pd.DataFrame:
    """Case 4: A = I, V = [[v11, v12], [−v12, −v11]] on a grid."""
    p, q = np.meshgrid(np.linspace(*v11_range, n_v11), np.linspace(*v12_range, n_v12), indexing="ij")
    p, q = p.ravel(), q.ravel()
    V = np.stack([np.stack([p, q], -1), np.stack([-q, -p], -1)], -2)
    A = np.broadcast_to(np.eye(2), V.shape)
    return frame(A, V, beta, case="case4", kind="grid", x=p, y=q,
                 prediction=case4_prediction_as_worded(p, q),
                 prediction_corrected=case4_prediction_corrected(p, q))


def saddle_node_period(mu, s, beta):
    """Rotation period of R₂ on the circle, π / (β √(μ² − s²)) for |μ| > s (inf otherwise)."""
    mu = np.asarray(mu, dtype=float)
    disc = mu * mu - s * s
    return np.where(disc > 0, np.pi / (beta * np.sqrt(np.clip(disc, 1e-300, None))), np.inf)


def family_saddle_node(a: float, s: float, mu_range, n_mu: int, beta: float, n_near: int = 0,
                       near_range=(2e-3, 2e-1)) -> pd.DataFrame:
    """Saddle-node family A = I, V = [[a+s, −μ], [μ, a−s]]: μ on a linear grid plus ``n_near``
    log-spaced points μ = μ_c (1 + δ), δ ∈ ``near_range``, on the rotating side (for the
    square-root law); threshold μ_c = s."""
    mu = np.linspace(*mu_range, n_mu)
    if n_near:
        mu = np.concatenate([mu, s * (1 + np.geomspace(*near_range, n_near))])
    V = np.stack([np.stack([a + s + 0 * mu, -mu], -1), np.stack([mu, a - s + 0 * mu], -1)], -2)
    A = np.broadcast_to(np.eye(2), V.shape)
    pred = np.where(np.abs(mu) > s, "cluster_rotate", np.where(np.abs(mu) < s, "cluster_converge", ""))
    kind = ["grid"] * n_mu + ["near_threshold"] * (mu.size - n_mu)
    return frame(A, V, beta, case="bifurcation", kind=kind, x=mu, y=0.0 * mu, prediction=pred,
                 period_theory=saddle_node_period(mu, s, beta), mu_c=s)


def fit_power_law(x, y):
    """Least-squares fit of log y = log C + k log x; returns (k, C)."""
    k, logc = np.polyfit(np.log(x), np.log(y), 1)
    return float(k), float(np.exp(logc))


def bifurcation_bracket(mu, labels):
    """(largest μ labelled cluster_converge, smallest μ > it labelled cluster_rotate) on a sweep."""
    mu = np.asarray(mu)
    labels = np.asarray(labels)
    conv = mu[labels == "cluster_converge"]
    if conv.size == 0:
        return np.nan, np.nan
    lo = conv.max()
    rot = mu[(labels == "cluster_rotate") & (mu > lo)]
    return float(lo), float(rot.min()) if rot.size else np.nan


def matches(label: str, prediction: str) -> bool:
    """Does ``label`` satisfy a prediction such as 'cluster_converge|cluster_rotate'?"""
    return bool(prediction) and label in prediction.split("|")


#: Seed offsets: the seed of case k is ``config['seed'] + SEED_OFFSET[k]``.
SEED_OFFSET = {"case1": 1, "case2": 2, "case3": 3, "case4": 4, "bifurcation": 5}
CASES = tuple(SEED_OFFSET)


def build_case(case: str, cfg: dict, seed: int, beta: float) -> pd.DataFrame:
    """Parameter frame of ``case`` from its config section (see workflow/schemas)."""
    s = seed + SEED_OFFSET[case]
    if case == "case1":
        return sample_case1(cfg["n_random"], cfg["n_boundary"], cfg["scale"], beta, s)
    if case == "case2":
        return sample_case2(cfg["n_random"], cfg["n_boundary"], cfg["lam_min"], cfg["lam_max"], beta, s)
    if case == "case3":
        return grid_case3((cfg["sigma_min"], cfg["sigma_max"]), (cfg["mu_min"], cfg["mu_max"]), cfg["n_sigma"],
                          cfg["n_mu"], beta)
    if case == "case4":
        return grid_case4((cfg["v11_min"], cfg["v11_max"]), (cfg["v12_min"], cfg["v12_max"]), cfg["n_v11"],
                          cfg["n_v12"], beta)
    if case == "bifurcation":
        return family_saddle_node(cfg["a"], cfg["s"], (cfg["mu_min"], cfg["mu_max"]), cfg["n_mu"], beta,
                                  cfg["n_near"], (cfg["near_min"], cfg["near_max"]))
    raise ValueError(f"case: unknown case {case!r}; choose one of {CASES}")

