r"""Many token systems of the same size (n tokens on :math:`S^{d-1}`) integrated together, one
vectorised fixed-step RK4 over a stack ``X`` of shape (B, n, d), each member with its own A, V, β, and
decided by the shared decision procedure (:func:`lsadyn.regimes.decision.decide`).

Member b follows :math:`\dot x_k = P^\perp_{x_k}\big(\tfrac1n\sum_j h(\beta_b\langle x_k, A_b x_j\rangle)
V_b x_j\big)` (docs/theory.md §1; LSA h(y) = y, USA h(y) = eᵞ), in its own rescaled time s = t/τ_b:

* LSA: :math:`\tau = 1/(\beta\|A\|_2\|V\|_2)` (:func:`lsadyn.api.time_scale`, as every other run);
* USA: :math:`\tau = 1/(\|V\|_2\, e^{\beta\|A\|_2})` (:func:`usa_time_scale`), a bound on the USA speed:
  the softmax weights reach :math:`e^{\beta\|A\|}`, so with the LSA unit a USA run at large β would need
  e^β/β times more steps per unit of s and its horizon would span e^β/β times more dynamics.

Per step the cost is that of the B fields (stacked GEMMs, no Python loop over members or tokens); the
Python overhead of a step is paid once for the batch, which is what makes many small runs (d ≤ 32)
cheap. The step in s is the largest ``≤ dt`` that divides the sample spacing, so every output time is a
step boundary (the run: :class:`lsadyn.runs.BatchTokenRun`). Observed at each output time: ``[r, leading axis of
M]`` (:func:`lsadyn.observers.batch_axis_observer`); classified as r(t) e^{2iφ(t)}
(:func:`lsadyn.observers.pseudo_r2`) like :func:`lsadyn.api.simulate_regime` in d > 2, with the noise floor
of i.i.d. uniform tokens as the "interior" threshold in d > 2.

:func:`lsadyn.api.simulate_regime` (adaptive DOP853, one system) is the reference the tests compare with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .api import time_scale
from .budget import softmax_d2_uses_moments
from .exponents.cluster import run_contraction_exponent
from .fields.attention import USA_MAX_LOGIT, Attention
from .fields.kernels import exp_inplace
from .fields.kuramoto_daido import batch_forms, usa_field_batch_moments
from .observers import (
    SETTLED_R_CHANGE,
    batch_axis_observer,
    cluster_shape,
    mean_token_norm,
    pseudo_r2,
    r_change_last_quarter,
    r_noise_floor,
    r_settled,
)
from .regimes.classify import RegimeResult, RegimeTolerances, classify_r2_trajectory
from .regimes.decision import DEFAULT_BUDGET, decide, window_tolerances
from .regimes.tokens import TokenCertifier, certified_token_result
from .runs import BatchTokenRun

BATCH_MODELS = ("lsa", "usa")


def usa_time_scale(A, V, beta) -> float:
    r""":math:`\tau_{USA} = 1/(\|V\|_2 e^{\beta\|A\|_2})` (1 when V = 0): the time unit of a USA run."""
    nv = float(np.linalg.norm(V, 2))
    return 1.0 / (nv * np.exp(beta * float(np.linalg.norm(A, 2)))) if nv > 0 else 1.0


def run_time_scale(model: str, A, V, beta) -> float:
    """The time unit τ of a batch member: :func:`lsadyn.api.time_scale` (LSA), :func:`usa_time_scale` (USA)."""
    if model == "lsa":
        return time_scale(A, V, beta)
    if model == "usa":
        return usa_time_scale(A, V, beta)
    raise ValueError(f"model: batch runs support {', '.join(BATCH_MODELS)}, got {model!r}")


def _is_identity_stack(M) -> bool:
    return bool(np.array_equal(M, np.broadcast_to(np.eye(M.shape[-1]), M.shape)))


class _RightProduct:
    """X ↦ X Mᵀ for a stack M (B, d, d), X (B, n, d). When every member is a plane block plus a multiple
    of the identity, M = diag(M₂, c I_{d−2}) (the embedded scenarios), the product costs O(n d), not O(n d²)."""

    def __init__(self, M):
        M = np.asarray(M, dtype=float)
        d = M.shape[-1]
        self.identity = _is_identity_stack(M)
        c = M[:, -1, -1].copy()
        rest = np.zeros_like(M)
        rest[:, 2:, 2:] = c[:, None, None] * np.eye(d - 2) if d > 2 else 0.0
        rest[:, :2, :2] = M[:, :2, :2]
        self.block = d > 2 and bool(np.array_equal(M, rest))
        self.MT = np.ascontiguousarray(np.swapaxes(M, -1, -2))
        self.c = c[:, None, None]  # (B, 1, 1): broadcast over tokens and coordinates
        self.M2T = np.ascontiguousarray(self.MT[:, :2, :2])

    def take(self, idx):
        out = object.__new__(_RightProduct)
        out.__dict__.update(self.__dict__)
        out.MT, out.c, out.M2T = self.MT[idx], self.c[idx], self.M2T[idx]
        return out

    def __call__(self, X):
        if self.identity:
            return X
        if not self.block:
            return np.matmul(X, self.MT)
        Y = X * self.c
        Y[:, :, :2] = np.matmul(X[:, :, :2], self.M2T)
        return Y


def batch_structure(A, V) -> tuple:
    """What decides how :class:`BatchField` evaluates the products with A and V of a stack (B, d, d): whether every
    member's A (V) is the identity, or a plane block plus a multiple of the identity. Members are integrated
    member by member (stacked products, no sum across members), so stacks of one size whose structures agree give
    each member the same numbers whether integrated apart or in one batch (concatenate them to save the per-step
    overhead)."""
    XA = _RightProduct(np.swapaxes(np.asarray(A, dtype=float), -1, -2))
    XVT = _RightProduct(np.asarray(V, dtype=float))
    return XA.identity, XA.block, XVT.identity, XVT.block


class BatchField:
    r"""The time-rescaled fields :math:`\tau_b f_b(X_b)` of a batch, X (B, n, d) → (B, n, d).

    ``A``, ``V`` (B, d, d), ``beta`` (B,), ``tau`` (B,). LSA: row k is :math:`(\tau\beta V M A^\top x_k)^\top`,
    M = XᵀX/n, evaluated as :math:`(X A M) V^\top` (O(n d²)) or, when n < d, as :math:`(X A X^\top)(X V^\top)/n`
    (O(n² d)); USA: :math:`\tau K (X V^\top)/n` with :math:`K_{kj} = e^{\beta\langle x_k, A x_j\rangle}`, O(n² d);
    then the row-wise tangent projection. Products with A or V cost O(n d) when every member's matrix is
    the identity or a plane block plus a multiple of the identity (:class:`_RightProduct`). d = 2 USA: the moment
    form (:func:`lsadyn.fields.kuramoto_daido.usa_field_batch_moments`, with the batch's largest cutoff M)
    when :func:`lsadyn.budget.softmax_d2_uses_moments` estimates it cheaper for the n of the call."""

    def __init__(self, model, A, V, beta, tau):
        if model not in BATCH_MODELS:
            raise ValueError(f"model: batch runs support {', '.join(BATCH_MODELS)}, got {model!r}")
        self.model = model
        # X ↦ X A is the right product with (Aᵀ)ᵀ; X ↦ X Vᵀ with V
        self.XA = _RightProduct(np.swapaxes(np.asarray(A, dtype=float), -1, -2))
        self.XVT = _RightProduct(V)
        self.beta = np.asarray(beta, dtype=float)
        self.tau = np.asarray(tau, dtype=float)
        self._scales = {}
        self.forms = batch_forms(A, V, self.beta) if model == "usa" and np.shape(A)[-1] == 2 else None

    def take(self, idx) -> BatchField:
        """The field of the members ``idx``."""
        out = object.__new__(BatchField)
        out.__dict__.update(self.__dict__)
        out.XA, out.XVT, out.beta, out.tau = self.XA.take(idx), self.XVT.take(idx), self.beta[idx], self.tau[idx]
        out.forms = None if self.forms is None else self.forms.take(idx)
        out._scales = {}
        return out

    def _scale(self, n: int):
        """(β (B, 1, 1), factor (B, 1, 1)) for n tokens: the factor is τβ/n (LSA), τ/n (USA); computed once per n."""
        sc = self._scales.get(n)
        if sc is None:
            factor = self.tau / n if self.model == "usa" else self.tau * self.beta / n
            sc = self._scales[n] = (self.beta[:, None, None], factor[:, None, None])
        return sc

    def __call__(self, X):
        n, d = X.shape[1:]
        if self.forms is not None and softmax_d2_uses_moments(n, self.forms.M):
            return usa_field_batch_moments(X, self.forms, self.tau)
        XT = X.transpose(0, 2, 1)
        beta, factor = self._scale(n)
        if self.model == "lsa" and n >= d:
            Y = self.XVT(np.matmul(np.matmul(self.XA(X), XT), X))  # X A M Vᵀ (times n)
        else:
            L = np.matmul(self.XA(X), XT)  # L[k, j] = <x_k, A x_j>
            if self.model == "usa":
                L *= beta
                top = float(L.max())
                if top > USA_MAX_LOGIT:
                    raise OverflowError(f"beta: USA logit beta*<x, A y> reaches {top:.4g} > {USA_MAX_LOGIT:g}; "
                                        "exp would overflow")
                exp_inplace(L)
            Y = np.matmul(L, self.XVT(X))
        Y *= factor
        Y -= np.einsum("bkd,bkd->bk", X, Y)[:, :, None] * X
        return Y


@dataclass
class BatchResult:
    """What one member's run showed: the decided :class:`lsadyn.regimes.classify.RegimeResult` (rates and periods in
    physical time), the time unit ``tau``, summaries of r over the classified window (``r_min``,
    ``r_max``, ``r_mean``) and of the final state (``cluster_shape``, ``mean_token_norm``, ``majority``:
    fraction of tokens on the majority side of the hyperplane orthogonal to the leading axis),
    ``r_change_last_quarter`` (:func:`lsadyn.observers.r_change_last_quarter` of r over the run up to where it was
    decided), ``settled`` (the run was decided: ``result.regime != 'undetermined'``; a labelled run always has
    |``r_change_last_quarter``| ≤ :data:`lsadyn.observers.SETTLED_R_CHANGE`, as :func:`regime_batch` never labels a
    run whose r(t) is still changing, so False means its r and period describe a transient), ``X`` (the final
    tokens, (n, d)) and ``contraction_exponent`` (1 / time: :func:`lsadyn.exponents.cluster.contraction_exponent` of
    r over the observed part of a run labelled with clusters, how fast they tighten; NaN otherwise)."""

    result: RegimeResult
    tau: float
    r_min: float
    r_max: float
    r_mean: float
    cluster_shape: str
    mean_token_norm: float
    majority: float
    r_change_last_quarter: float
    settled: bool
    X: np.ndarray = field(repr=False)
    contraction_exponent: float = float("nan")


def regime_batch(model, A, V, beta, X0, *, horizon, n_samples, dt=0.1, tol: RegimeTolerances | None = None,
                 budget=DEFAULT_BUDGET, progress=None, certify=True) -> list[BatchResult]:
    """Regimes of B token systems of one size, A, V (B, d, d), ``beta`` scalar or (B,), X0 (B, n, d) unit rows.

    ``horizon`` and ``dt`` are in units of each member's τ (:func:`run_time_scale`); ``n_samples`` samples
    per horizon; undecided members continue up to ``budget`` × the horizon (:mod:`lsadyn.regimes.decision`). In
    d > 2 the classifier's ``tol_zero`` defaults to :func:`lsadyn.observers.r_noise_floor` (an r below the noise of
    i.i.d. uniform tokens is an interior state).

    The guarantee (what the study's tables rely on): with ``certify`` (the default) a member is given a label other
    than ``undetermined`` only when :class:`lsadyn.regimes.tokens.TokenCertifier` has found and checked its attractor
    (``details['certified']``, ``['attractor']``, ``['checked']``); with ``certify=False`` only when its classified
    window is stationary (:mod:`lsadyn.regimes.classify`) **and** its r(t) has settled
    (:func:`lsadyn.observers.r_settled` of :func:`lsadyn.observers.r_change_last_quarter` over the run up to the
    checkpoint). Otherwise it continues, and at the budget it is ``undetermined`` with the reason. So
    ``settled == (result.regime != 'undetermined')`` for every member."""
    A = np.asarray(A, dtype=float)
    V = np.asarray(V, dtype=float)
    X0 = np.asarray(X0, dtype=float)
    if A.ndim != 3 or A.shape[1] != A.shape[2]:
        raise ValueError(f"A: expected a stack of square matrices (B, d, d), got shape {A.shape}")
    if V.shape != A.shape:
        raise ValueError(f"V: expected shape {A.shape}, got {V.shape}")
    B, d = A.shape[:2]
    if X0.ndim != 3 or X0.shape[0] != B or X0.shape[2] != d:
        raise ValueError(f"X0: expected tokens of shape ({B}, n, {d}), got {X0.shape}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(V)) and np.all(np.isfinite(X0))):
        raise ValueError("A, V, X0: contain NaN or inf")
    beta = np.broadcast_to(np.asarray(beta, dtype=float), (B,)).copy()
    if not np.all(beta > 0):
        raise ValueError("beta: must be > 0")
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt: must be a positive number, got {dt!r}")
    n = X0.shape[1]
    tau = np.array([run_time_scale(model, a, v, b) for a, v, b in zip(A, V, beta)])
    ds = float(horizon) / (int(n_samples) - 1)
    h = ds / np.ceil(ds / dt - 1e-9)
    run = BatchTokenRun(BatchField(model, A, V, beta, tau), X0, h, moments=certify)
    if tol is None:
        tol = RegimeTolerances(tol_zero=r_noise_floor(n, d)) if d > 2 else RegimeTolerances()
    wtol = window_tolerances(tol)
    windows, changes, observed = {}, {}, {}
    # observed: the last half of the run (what r_change_last_quarter reads) or the classifier's window if longer;
    # the classifier reads its own window, cut from it as decide would cut it (same samples, same result)
    observe = max(float(tol.window), 0.5)

    certifiers = {}
    t_end = float(horizon) * float(budget)

    def classify(i, s, obs):
        j = np.rint(s / ds).astype(int)
        n_run = int(j[-1]) + 1
        cut = j >= int(np.floor((1 - tol.window) * n_run))
        changes[i] = r_change_last_quarter(obs[:, 0], n_run=n_run)
        windows[i] = obs[cut, 0].copy()
        observed[i] = (s.copy(), obs[:, 0].copy())
        if certify:
            if i not in certifiers:
                certifiers[i] = TokenCertifier(model, Attention(A[i], V[i], float(beta[i])), t_end=t_end * tau[i],
                                               speed_floor=1e-9 / tau[i])
            t = s[cut] * tau[i]
            w = np.array(obs[cut], dtype=float)
            w[:, d + 2] /= tau[i]  # the speed in physical time
            return certified_token_result(*certifiers[i].check(t, w, run.X[i]), t, w[:, 0], w[:, 1:d + 1], run.X[i],
                                          f"batch-{model}")
        res = classify_r2_trajectory(s[cut], pseudo_r2(obs[cut, 0], obs[cut, 1:d + 1]), wtol, method=f"batch-{model}",
                                     unit="τ")
        if res.regime != "undetermined" and not r_settled(changes[i]):
            # the guarantee: a run whose r(t) has not settled is never labelled (it continues; undetermined at the budget)
            res = RegimeResult("undetermined", res.abs_R2, res.arg_R2_rate, float("nan"), res.method,
                               {"reason": f"r still changing: {changes[i]:+.3f} between the run's last two quarters "
                                          f"(> {SETTLED_R_CHANGE:g}); the window alone read {res.regime}"})
        res.arg_R2_rate = res.arg_R2_rate / tau[i]
        res.period = res.period * tau[i]
        return res

    results = decide(run, B, horizon, n_samples, budget, classify, tau, window=observe, progress=progress)
    out = []
    for i, res in enumerate(results):
        X = run.X[i]
        u = batch_axis_observer(X[None])[0, 1:]
        side = X @ u
        maj = max(int(np.sum(side > 0)), int(np.sum(side < 0))) / n
        r = windows[i]
        lam = run_contraction_exponent(res.regime, *observed[i], res.period / tau[i]) / tau[i]
        out.append(BatchResult(res, float(tau[i]), float(r.min()), float(r.max()), float(r.mean()),
                               cluster_shape(X), float(mean_token_norm(X)), maj, changes[i],
                               res.regime != "undetermined", X.copy(), lam))
    return out

