r"""Tasks for looped attention layers: token sequences on the sphere S^{d-1}, targets, and the baselines a trained
model is measured against. Everything is numpy and deterministic from a seed.

Every task makes batches ``(X, target, scale)``: tokens X (B, n, d) with unit rows, the target (B,) and a
per-sequence ``scale`` (B,) the readout multiplies by (see :mod:`lsadyn.looped.train`). The readout reads one
token, ``read_token``, after the loop.

``regression`` — in-context linear regression (the looped-transformer literature's standard task). Per sequence a
weight w ~ N(0, I_p / p); context pairs (x_i, y_i = ⟨w, x_i⟩), x_i ~ N(0, I_p), i < n − 1, embedded as the unit
tokens (x_i, y_i)/‖(x_i, y_i)‖ in d = p + 1; the query (x_q, 0)/‖x_q‖ is the last token, its target y_q and its
scale ‖x_q‖. Loss: mean squared error. Baseline: the zero predictor (loss E[y_q²] ≈ 1), the best a readout of the
query alone can do, since w is new in every sequence; reference: least squares on the context (0 for n − 1 ≥ p).

``majority`` — in-context majority vote, a sequence task chosen because it is consensus: the answer is the sign of
the tokens' mean bit, which attention can carry to every token by gathering them towards the majority's side, the
clustering the paper studies. Per sequence a bias q ~ U(0, 1) and bits b_i = ±1 with P(b_i = 1) = q (n odd, so
the majority is defined); token i is (b_i, σ g_i)/‖(b_i, σ g_i)‖ with g_i ~ N(0, I_{d−1}); the readout reads
token 0 and predicts the majority bit (target 1 for +1, 0 for −1). Loss: binary cross-entropy. Baseline: the best
predictor that sees token 0 alone, which can only use its own bit b_0: cross-entropy H(p₀), p₀ = P(b_0 = majority),
measured on the same test set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TASKS = ("regression", "majority")


def _unit(Z):
    return Z / np.linalg.norm(Z, axis=-1, keepdims=True)


@dataclass(frozen=True)
class Task:
    """A task's sizes: ``name`` (one of :data:`TASKS`), tokens per sequence ``n``, token dimension ``d``, and the
    majority task's noise ``sigma``."""

    name: str
    n: int
    d: int
    sigma: float = 1.0

    def __post_init__(self):
        if self.name not in TASKS:
            raise ValueError(f"task: unknown task {self.name!r}; choose one of {', '.join(TASKS)}")
        if self.d < 2:
            raise ValueError(f"task {self.name}: d = {self.d}, need d >= 2")
        if self.name == "majority" and (self.n < 3 or self.n % 2 == 0):
            raise ValueError(f"task majority: n = {self.n}, need an odd n >= 3 (so that the majority is defined)")
        if self.name == "regression" and self.n < 2:
            raise ValueError(f"task regression: n = {self.n}, need n >= 2 (context and query)")

    @property
    def loss(self) -> str:
        """``"mse"`` or ``"bce"`` (binary cross-entropy of the logit)."""
        return "mse" if self.name == "regression" else "bce"

    @property
    def read_token(self) -> int:
        """The token the readout reads: the query (last) for regression, token 0 for majority."""
        return self.n - 1 if self.name == "regression" else 0

    def batch(self, rng: np.random.Generator, B: int):
        """(X (B, n, d), target (B,), scale (B,)) of B fresh sequences drawn from ``rng``."""
        if self.name == "regression":
            p = self.d - 1
            w = rng.standard_normal((B, p)) / np.sqrt(p)
            x = rng.standard_normal((B, self.n, p))
            y = np.einsum("bnp,bp->bn", x, w)
            target = y[:, -1].copy()
            y[:, -1] = 0.0
            X = _unit(np.concatenate([x, y[..., None]], axis=-1))
            scale = np.linalg.norm(x[:, -1], axis=-1)
            return X, target, scale
        q = rng.uniform(size=(B, 1))
        bits = np.where(rng.uniform(size=(B, self.n)) < q, 1.0, -1.0)
        g = self.sigma * rng.standard_normal((B, self.n, self.d - 1))
        X = _unit(np.concatenate([bits[..., None], g], axis=-1))
        target = (bits.sum(axis=1) > 0).astype(float)
        return X, target, np.ones(B)

    def baseline(self, X, target, scale) -> dict:
        """The baseline (and, for regression, the least-squares reference) on a test set ``batch`` (X, target,
        scale): ``{"baseline_loss", "reference_loss", "baseline_accuracy"}`` (NaN where a value does not apply)."""
        if self.name == "regression":
            # a positive scale per token leaves y_i = <w, x_i> true, so least squares on the unit context tokens
            # recovers w (exactly when the context spans R^p); the query token is (x_q / |x_q|, 0), its scale |x_q|
            x, y = X[:, :-1, :-1], X[:, :-1, -1]
            w = np.stack([np.linalg.lstsq(xb, yb, rcond=None)[0] for xb, yb in zip(x, y)])
            pred = scale * np.einsum("bp,bp->b", w, X[:, -1, :-1])
            return {"baseline_loss": float(np.mean(target ** 2)),
                    "reference_loss": float(np.mean((pred - target) ** 2)),
                    "baseline_accuracy": float("nan")}
        own = X[:, 0, 0] > 0
        p0 = float(np.mean(own == (target > 0.5)))
        p0c = min(max(p0, 1e-12), 1 - 1e-12)
        h = -(p0c * np.log(p0c) + (1 - p0c) * np.log(1 - p0c))
        return {"baseline_loss": float(h), "reference_loss": float("nan"), "baseline_accuracy": p0}
