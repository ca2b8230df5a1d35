r"""Runs of the robustness stage: the long-time regime under perturbed and quantised weights (issue 12, part 2;
claim C8, beyond the paper).

For each embedded scenario of config ``highdim.scenarios`` (:func:`lsadyn.paper.highdim.plan.embed_scenario`,
no noise) at each dimension d and for each model (LSA, USA), the regime of the unperturbed (A, V) is
compared with the regime of

* **perturbed weights** (:func:`perturb`): :math:`A' = A + \delta\,\|A\|_F\,G_A/\|G_A\|_F`,
  :math:`V' = V + \delta\,\|V\|_F\,G_V/\|G_V\|_F`, G with i.i.d. N(0, 1) entries (a fresh pair per
  seed), so :math:`\|A' - A\|_F = \delta\|A\|_F` exactly;
* **b-bit quantised weights** (:func:`quantise`): the symmetric uniform (mid-tread) quantiser of a whole
  matrix, step :math:`s = \max_{ij}|M_{ij}| / (2^{b-1} - 1)`, :math:`Q_b(M) = s\,\mathrm{sgn}(M)
  \lfloor |M|/s + 1/2\rfloor` (round half away from zero): the :math:`2^b - 1` levels
  :math:`\{-(2^{b-1}-1), \dots, 2^{b-1}-1\}\,s` include 0 and ±max|M|, so b ≥ 2; the error is
  ≤ s/2 per entry and Q_b is idempotent. Matrices whose entries already lie on the grid (e.g. A = I) are
  unchanged at every b.

Every run of one (scenario, d, model) starts from the same n seeded uniform tokens (common random
numbers), so a change of regime comes from the weights alone. Regimes come from the decision procedure
(:mod:`lsadyn.regimes.decision`: undecided runs continue up to ``budget`` × the horizon; still undecided →
``undetermined``, counted and shown). d = 2 LSA runs use the compiled doubled-phase points
(:func:`lsadyn.api.particles_regime_batch`, exact); the others a batch of token systems integrated as one
DOP853 system on the sphere (:class:`BatchSphereRun`, each system in its own rescaled time s = t/τ).

**Prediction for clustered states** (derived here, tested in tests/test_robustness.py). With every token
at ±x (two antipodal clusters of masses p, 1 − p), LSA gives
:math:`\dot x = \beta\langle x, Ax\rangle P^\perp_x(Vx)` and USA
:math:`\dot x = (p e^{\beta f} - (1-p) e^{-\beta f}) P^\perp_x(Vx)` with :math:`f = \langle x, Ax\rangle`:
when sym(A) is positive definite (f > 0) the cluster axis follows the normalised linear flow of V (time
changed), so the clusters **converge** to the eigenvector of V's rightmost eigenvalue when that
eigenvalue is real and **rotate** (in the plane of the pair) when it is a complex pair
(:func:`cluster_prediction`). In d = 2 the criterion reads: rotation iff the rotation margin
:math:`m(V) = |\alpha| - \rho > 0`, :math:`\alpha = (v_{21} - v_{12})/2`,
:math:`\rho = \|((v_{21} + v_{12})/2, (v_{22} - v_{11})/2)\|` (:func:`rotation_margin`; for the
saddle-node family V = [[a + s, −μ], [μ, a − s]], m = |μ| − s). The gradient of m with respect to the
entries of V has unit Frobenius norm, so a perturbation E of V changes m by at most ‖E‖_F to first
order: a run with margin m₀ cannot flip below :math:`\delta_{min} = |m_0| / \|V\|_F`, and flips
typically near :math:`\delta_{typ} = |m_0|\,d / \|V\|_F` (a random E puts a share ~1/d of its norm
along the gradient, which lives in the 2 × 2 block: :func:`flip_deltas`). V = I (m₀ = 0) sits on the
boundary: in d = 2 a random perturbation rotates the clusters with probability 1 − 1/√2 at any δ (with
a rate ∝ δ, possibly too slow to see within the budget). The hidden-Hamiltonian oscillation (a centre) is
structurally unstable too: a generic perturbation turns it into a slow focus; there the table reports what
the decision procedure saw, without a prediction.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ...api import particles_regime_batch, time_scale
from ...fields.attention import USA_MAX_LOGIT
from ...observers import r_noise_floor
from ...regimes.classify import RegimeTolerances, classify_r2_trajectory
from ...fields.attention import Attention
from ...regimes.decision import decide, window_tolerances
from ...regimes.tokens import TokenCertifier, certified_token_result
from ...sampling import uniform_sphere
from ...solvers.dop853 import dop853_sphere
from ...solvers.integrate import one_blas_thread
from ..highdim.plan import embed_scenario
from .plan import _check_bits

#: Kinds of run: the unperturbed weights, a random perturbation of size δ, a b-bit quantisation.
KINDS = ("none", "perturb", "quantise")
#: Labels of a clustered state (where :func:`cluster_prediction` applies).
CLUSTER_LABELS = ("cluster_converge", "cluster_rotate")


# ---------------------------------------------------------------------------------------------------------------
# Weight transformations


def perturb(M, delta: float, rng: np.random.Generator) -> np.ndarray:
    r""":math:`M + \delta\,\|M\|_F\,G/\|G\|_F`, G (same shape as M) with i.i.d. N(0, 1) entries drawn from
    ``rng``; the perturbation has Frobenius norm exactly δ‖M‖_F (0 when M = 0). ``delta`` ≥ 0."""
    M = np.asarray(M, dtype=float)
    delta = float(delta)
    if not (np.isfinite(delta) and delta >= 0):
        raise ValueError(f"delta: must be a finite number >= 0, got {delta!r}")
    G = rng.standard_normal(M.shape)
    return M + (delta * np.linalg.norm(M) / np.linalg.norm(G)) * G


def quantisation_step(M, bits: int) -> float:
    r"""Step :math:`s = \max|M_{ij}| / (2^{b-1} - 1)` of the b-bit symmetric quantiser of M (0 if M = 0)."""
    b = _check_bits(bits)
    return float(np.max(np.abs(np.asarray(M, dtype=float)))) / (2 ** (b - 1) - 1)


def quantise(M, bits: int) -> np.ndarray:
    r"""b-bit symmetric uniform (mid-tread) quantisation of the whole matrix M:
    :math:`s\,\mathrm{sgn}(M)\lfloor |M|/s + 1/2\rfloor`, s = :func:`quantisation_step` (see module doc).
    Odd under M → −M; |error| ≤ s/2 per entry; idempotent (up to one rounding of s)."""
    M = np.asarray(M, dtype=float)
    if not np.all(np.isfinite(M)):
        raise ValueError("M: contains NaN or inf")
    s = quantisation_step(M, bits)
    if s == 0:
        return M.copy()
    return s * np.sign(M) * np.floor(np.abs(M) / s + 0.5)


# ---------------------------------------------------------------------------------------------------------------
# Predictions for clustered states


def rotation_margin(V2) -> float:
    r"""d = 2 rotation margin :math:`m = |\alpha| - \rho` of V (2 × 2), see the module doc: clusters rotate
    iff m > 0 (V has complex eigenvalues: m has the sign of :math:`\alpha^2 - \rho^2 = -\mathrm{disc}`)."""
    V2 = np.asarray(V2, dtype=float)
    if V2.shape != (2, 2):
        raise ValueError(f"V2: expected a 2x2 matrix, got shape {V2.shape}")
    alpha = (V2[1, 0] - V2[0, 1]) / 2
    rho = np.hypot((V2[1, 0] + V2[0, 1]) / 2, (V2[1, 1] - V2[0, 0]) / 2)
    return float(abs(alpha) - rho)


def cluster_prediction(A, V, tol: float = 1e-9) -> str:
    r"""Regime of a clustered state by the eigenvalue criterion (module doc): ``"cluster_rotate"`` if the
    rightmost eigenvalue(s) of V are a complex pair, ``"cluster_converge"`` if real; ``""`` (no prediction)
    when sym(A) is not positive definite, or when a real and a complex eigenvalue tie for the largest real
    part within ``tol``, or when the imaginary part is within ``tol`` of 0 (on the threshold)."""
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    if np.linalg.eigvalsh((A + A.T) / 2)[0] <= tol:
        return ""
    lam = np.linalg.eigvals(V)
    top = lam.real.max()
    lead = lam[lam.real >= top - tol]
    complex_ = np.abs(lead.imag) > tol
    if complex_.all():
        return "cluster_rotate"
    if not complex_.any():
        if np.any(np.abs(lead.imag) > 0) or len(lead) == 0:
            return ""
        return "cluster_converge"
    return ""


def cluster_rate(V, beta: float, model: str) -> float:
    r"""Lower estimate of the rotation rate of arg R₂ (rad per unit time) of clusters on the rightmost complex
    pair a ± ib of V, for A = I: the cluster axis turns by π every π/b of its own time, so arg R₂ turns at
    2βb (LSA); USA multiplies the speed by the cluster factor, at least sinh β (a balanced pair; e^β for one
    cluster). 0 when the rightmost eigenvalue is real."""
    lam = np.linalg.eigvals(np.asarray(V, dtype=float))
    b = float(np.abs(lam[np.argmax(lam.real)].imag))
    return 2 * beta * b * (np.sinh(beta) if model == "usa" else 1.0)


def flip_deltas(margin: float, norm_V: float, d: int) -> tuple[float, float]:
    r"""(δ_min, δ_typ) = (|m₀| / ‖V‖_F, |m₀| d / ‖V‖_F): below δ_min no perturbation of relative size δ can
    move the rotation margin m₀ across 0 to first order; δ_typ is only a heuristic scale for a random direction
    (a perturbation's projection on the margin shrinks like 1/d; not tested as a prediction)."""
    if not norm_V > 0:
        return np.nan, np.nan
    return abs(margin) / norm_V, abs(margin) * d / norm_V


# ---------------------------------------------------------------------------------------------------------------
# Weights (the run plan: lsadyn.paper.robustness.plan)


def base_weights(scenario: dict, d: int):
    """The unperturbed (A, V) of a scenario of config ``highdim.scenarios`` in d dimensions (no noise)."""
    return embed_scenario(scenario["A"], scenario["V"], d, scenario["rest_A"], scenario["rest_V"], 0.0)


def run_weights(row, scenario: dict, seed: int):
    """(A, V) of one plan row. Perturbation seed: ``(seed, d, perturb_seed)`` — the same G for both models
    and for every δ of one seed (so δ scales one direction); independent of the scenario."""
    A, V = base_weights(scenario, int(row["d"]))
    if row["kind"] == "perturb":
        rng = np.random.default_rng([int(seed), int(row["d"]), int(row["perturb_seed"])])
        A2 = perturb(A, row["delta"], rng)
        V2 = perturb(V, row["delta"], rng)
        return A2, V2
    if row["kind"] == "quantise":
        return quantise(A, row["bits"]), quantise(V, row["bits"])
    if row["kind"] == "none":
        return A, V
    raise ValueError(f"kind: unknown run kind {row['kind']!r}; choose one of {KINDS}")


# ---------------------------------------------------------------------------------------------------------------
# Batched token runs on the sphere


def batch_field(X, A, V, tau, beta, model: str):
    r"""Velocities of R token systems, X (R, n, d), A and V (R, d, d), tau and beta (R,), in the rescaled
    time s = t/τ of each system: :math:`\tau\,P^\perp_{x_k}(\frac1n\sum_j h(\beta\langle x_k, A x_j\rangle)
    V x_j)` with h(y) = y (LSA) or e^y (USA). Costs 2nd² + 2n²d per system (no d × d × d product)."""
    return batch_field_of(A, V, tau, beta, model, X.shape[1])(X)


def batch_field_of(A, V, tau, beta, model: str, n: int):
    """:func:`batch_field` for fixed A, V, tau, beta and n tokens, as a function of X (R, n, d): what does not depend
    on X (transposed V, the per-system factors) is formed once, the rest as :func:`batch_field` evaluates it."""
    if model not in ("lsa", "usa"):
        raise ValueError(f"model: unknown model {model!r}; choose lsa or usa")
    VT = np.swapaxes(V, 1, 2)
    usa = model == "usa"
    factor = (tau / n)[:, None, None] if usa else (beta * tau / n)[:, None, None]
    beta3 = np.asarray(beta)[:, None, None] if usa else None

    def field(X):
        L = np.matmul(np.matmul(X, A), X.transpose(0, 2, 1))  # L[r, k, j] = <x_k, A x_j>
        XV = np.matmul(X, VT)  # row j: (V x_j)^T
        if usa:
            L *= beta3
            top = float(L.max())
            if top > USA_MAX_LOGIT:
                raise OverflowError(f"beta: USA logit beta*<x, A y> reaches {top:.4g} > {USA_MAX_LOGIT:g}")
            np.exp(L, out=L)
        S = np.matmul(L, XV)
        S *= factor
        S -= np.einsum("rkd,rkd->rk", X, S)[..., None] * X
        return S

    return field


def _batch_state(X, fld):
    """[r, leading axis (d), |mean token|, max token speed] (R, d + 3) of R systems X (R, n, d) under the rescaled
    field ``fld`` (speeds per unit of s = t/τ): what :class:`lsadyn.regimes.tokens.TokenCertifier` reads."""
    R, n, d = X.shape
    lam, vec = np.linalg.eigh(np.matmul(np.swapaxes(X, 1, 2), X) / n)
    v = vec[..., -1]
    v = v * np.sign(v[np.arange(R), np.argmax(np.abs(v), axis=1)])[:, None]
    r = (d * lam[:, -1] - 1.0) / (d - 1.0)
    m = np.linalg.norm(X.mean(axis=1), axis=1)
    speed = np.max(np.linalg.norm(fld(X), axis=-1), axis=1)
    return np.concatenate([r[:, None], v, m[:, None], speed[:, None]], axis=1)


def _batch_observe(X):
    """[r, leading axis] (R, d + 1) of R systems X (R, n, d), or R₂ (R,) complex when d = 2."""
    R, n, d = X.shape
    if d == 2:
        return np.mean((X[..., 0] + 1j * X[..., 1]) ** 2, axis=-1)
    lam, vec = np.linalg.eigh(np.matmul(np.swapaxes(X, 1, 2), X) / n)
    v = vec[..., -1]
    v = v * np.sign(v[np.arange(R), np.argmax(np.abs(v), axis=1)])[:, None]
    return np.concatenate([((d * lam[:, -1] - 1.0) / (d - 1.0))[:, None], v], axis=1)


class BatchSphereRun:
    """R token systems (same n, d, model), integrated together as one DOP853 system on the sphere
    (:func:`lsadyn.solvers.dop853.dop853_sphere`, shared step) in rescaled time s = t/τ_r; the object
    :func:`lsadyn.regimes.decision.decide` drives (``advance(idx, times)`` continues the systems ``idx``)."""

    def __init__(self, X0, A, V, beta, tau, model, rtol=1e-7, atol=1e-9, state=False):
        self.state = state  # observe what the certifier reads (:func:`_batch_state`) instead of R₂ or [r, axis]
        self.X = np.array(X0, dtype=float)  # (R, n, d)
        self.A, self.V = np.asarray(A, float), np.asarray(V, float)
        self.tau = np.asarray(tau, float)
        self.beta = np.array(np.broadcast_to(np.asarray(beta, float), self.tau.shape))
        self.model, self.rtol, self.atol = model, rtol, atol
        self.s, self.h = 0.0, None

    def advance(self, idx, times):
        idx = np.asarray(idx)
        R, (n, d) = idx.size, self.X.shape[1:]
        A, V = self.A[idx], self.V[idx]
        tau, beta = self.tau[idx], self.beta[idx]

        fld = batch_field_of(A, V, tau, beta, self.model, n)

        def field(t, Y, args):
            return fld(Y.reshape(R, n, d)).reshape(R * n, d)

        def observe(Y):
            if self.state:
                return _batch_state(Y.reshape(R, n, d), fld)
            return _batch_observe(Y.reshape(R, n, d))

        with one_blas_thread():
            out, X_end, h, _, _ = dop853_sphere(field, self.X[idx].reshape(R * n, d), np.asarray(times, float), None,
                                                t0=self.s, rtol=self.rtol, atol=self.atol, observer=observe,
                                                first_step=self.h)
        self.X[idx] = X_end.reshape(R, n, d)
        self.s, self.h = float(times[-1]), h
        return np.swapaxes(np.asarray(out), 0, 1)  # (R, m, ...)


def decide_batch(A, V, beta, model: str, X0, *, horizon, n_samples, budget, tol: RegimeTolerances, rtol=1e-7,
                 atol=1e-9, certify=True) -> list:
    """Regimes (:class:`lsadyn.regimes.classify.RegimeResult`) of R token systems A, V (R, d, d), all from the tokens
    X0 (n, d), by the decision procedure, in :class:`BatchSphereRun`. ``certify`` (default): a run is labelled only
    when :class:`lsadyn.regimes.tokens.TokenCertifier` checks its attractor (``details['checked']``, or
    ``['reason']`` when none). ``certify=False``: the window classifier (d = 2 LSA then in compiled doubled-phase
    points; d > 2 classifies r(t)·e^{2iφ(t)}, φ the angle swept by the leading axis)."""
    A, V = np.asarray(A, float), np.asarray(V, float)
    R, d = A.shape[0], A.shape[-1]
    if certify:
        return _certified_batch(A, V, beta, model, X0, horizon=horizon, n_samples=n_samples, budget=budget,
                                tol=tol, rtol=rtol, atol=atol)
    if d == 2 and model == "lsa":
        z0 = (X0[:, 0] + 1j * X0[:, 1]) ** 2
        return particles_regime_batch(A, V, beta, z0=z0, horizon=horizon, n_samples=n_samples, tol=tol,
                                      rtol=rtol, atol=atol, budget=budget)
    tau = np.array([time_scale(a, v, beta) for a, v in zip(A, V)])
    run = BatchSphereRun(np.broadcast_to(X0, (R,) + X0.shape), A, V, beta, tau, model, rtol=rtol, atol=atol)
    wtol = window_tolerances(tol)
    method = f"particles-{model}"

    def classify(i, s, obs):
        signal = obs if d == 2 else _pseudo_r2(obs[:, 0].real, obs[:, 1:].real)
        res = classify_r2_trajectory(s, signal, wtol, method=method)
        res.arg_R2_rate /= tau[i]
        res.period *= tau[i]
        return res

    return decide(run, R, horizon, n_samples, budget, classify, tau, window=tol.window)


def _certified_batch(A, V, beta, model, X0, *, horizon, n_samples, budget, tol, rtol, atol) -> list:
    R, d = A.shape[0], A.shape[-1]
    tau = np.array([time_scale(a, v, beta) for a, v in zip(A, V)])
    run = BatchSphereRun(np.broadcast_to(X0, (R,) + X0.shape), A, V, beta, tau, model, rtol=rtol, atol=atol,
                         state=True)
    certifiers = {}
    method = f"particles-{model}"

    def classify(i, s, obs):
        if i not in certifiers:
            certifiers[i] = TokenCertifier(model, Attention(A[i], V[i], float(beta)),
                                           t_end=float(horizon) * float(budget) * tau[i],
                                           speed_floor=100 * atol / tau[i], X0=X0)
        t = np.asarray(s, dtype=float) * tau[i]
        w = np.array(obs, dtype=float)
        w[:, d + 2] /= tau[i]  # the speed in physical time
        return certified_token_result(*certifiers[i].check(t, w, run.X[i]), t, w[:, 0], w[:, 1:d + 1], run.X[i],
                                      method)

    return decide(run, R, horizon, n_samples, budget, classify, tau, window=tol.window)


def _pseudo_r2(r, axes):
    from ...observers import pseudo_r2

    return pseudo_r2(r, axes)


# ---------------------------------------------------------------------------------------------------------------
# One chunk of the plan


def run_chunk(plan: pd.DataFrame, scenarios: dict, *, beta: float, horizon: float, n_samples: int,
              budget: float, tol: dict, seed: int, rtol: float = 1e-7, atol: float = 1e-9, log=None) -> pd.DataFrame:
    """Decide every run of ``plan`` (rows of
    :func:`~lsadyn.paper.robustness.plan.run_plan`); ``scenarios``: config ``highdim.scenarios``
    (A, V, rest_A, rest_V, expect). ``horizon`` (units of τ) and ``n_samples``: the base grid of the decision
    procedure, continued up to ``budget`` × ``horizon``. Runs of one ``batch``
    (:func:`~lsadyn.paper.robustness.plan.run_plan`) are integrated
    together; tokens: n seeded uniform tokens per (d), seed ``seed + d``. Returns the plan with the weights'
    distances (``rel_change_A``, ``rel_change_V``: ‖A' − A‖_F/‖A‖_F), the prediction (:func:`cluster_prediction`, ``""`` when none),
    regime, limit values and decision details."""
    out = []
    for _, g in plan.groupby("batch", sort=False):
        sc, d, n_tokens, model = g.iloc[0][["scenario", "d", "n_tokens", "model"]]
        if sc not in scenarios:
            raise ValueError(f"robustness.scenarios: {sc!r} is not a scenario of highdim.scenarios "
                             f"({', '.join(sorted(scenarios))})")
        spec = scenarios[sc]
        A0, V0 = base_weights(spec, d)
        weights = [run_weights(row, spec, seed) for _, row in g.iterrows()]
        A = np.stack([w[0] for w in weights])
        V = np.stack([w[1] for w in weights])
        X0 = uniform_sphere(int(n_tokens), int(d), int(seed) + int(d))
        t = RegimeTolerances(**tol)
        if d > 2:
            t = RegimeTolerances(**{**tol, "tol_zero": r_noise_floor(int(n_tokens), int(d))})
        start = time.perf_counter()
        res = decide_batch(A, V, beta, model, X0, horizon=horizon, n_samples=n_samples, budget=budget,
                           tol=t, rtol=rtol, atol=atol)
        seconds = time.perf_counter() - start
        if log is not None:
            log.info("%s d=%d %s: %d runs in %.1f s (%s)", sc, d, model, len(g), seconds,
                     ", ".join(f"{k} {v}" for k, v in pd.Series([r.regime for r in res]).value_counts().items()))
        margin = rotation_margin(np.asarray(spec["V"], float))
        clustered = spec.get("expect", "") in CLUSTER_LABELS
        gg = g.copy()
        gg["expect"] = spec.get("expect", "")
        gg["rel_change_A"] = [np.linalg.norm(a - A0) / np.linalg.norm(A0) for a in A]
        gg["rel_change_V"] = [np.linalg.norm(v - V0) / np.linalg.norm(V0) for v in V]
        gg["margin"] = margin
        dmin, dtyp = flip_deltas(margin, float(np.linalg.norm(V0)), d) if clustered else (np.nan, np.nan)
        gg["delta_min"], gg["delta_typ"] = dmin, dtyp
        gg["predicted"] = [cluster_prediction(a, v) if clustered else "" for a, v in zip(A, V)]
        tau = np.array([time_scale(a, v, beta) for a, v in zip(A, V)])
        gg["tau"] = tau
        gg["predicted_rate"] = [cluster_rate(v, beta, model) if p == "cluster_rotate" else 0.0
                                for v, p in zip(V, gg["predicted"])]
        # slowest rotation of arg R2 the decision procedure can see: min_turn within the window of the last horizon
        gg["min_rate"] = t.min_turn / (t.window * budget * horizon * tau)
        gg["regime"] = [r.regime for r in res]
        gg["certified"] = [r.certified for r in res]
        gg["abs_R2"] = [r.abs_R2 for r in res]
        gg["rate"] = [r.arg_R2_rate for r in res]
        gg["period"] = [r.period for r in res]
        gg["budget_factor"] = [r.details.get("budget_factor", np.nan) for r in res]
        # the certificate, or why none (a run is labelled only when its attractor is checked)
        gg["checked"] = [r.details.get("checked") or r.details.get("reason", "") for r in res]
        out.append(gg)
    return pd.concat(out, ignore_index=True) if out else plan.iloc[:0]
