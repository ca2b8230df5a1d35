r"""Training a looped attention layer on a task (:mod:`lsadyn.looped.tasks`), in JAX with optax (extra ``looped``).

The model is the map of :mod:`lsadyn.looped.forward` with the head's own matrices as parameters: W_Q, W_K, W_V
(d_head, d) and W_O (d, d_head), d_head = d, one head, no MLP, applied L times at step h,

.. math:: x_k \leftarrow \frac{x_k + h\,a_k}{\lVert x_k + h\,a_k\rVert},\quad
          a_k = \sum_j w_{kj}\, W_O W_V x_j,\quad
          \ell_{kj} = \frac{\langle W_Q x_k, W_K x_j\rangle}{\sqrt{d_{head}}},

w_kj = ℓ_kj / n (``lsa``) or softmax_j ℓ_kj (``sa``): so (A, V, β) = (W_Qᵀ W_K / √d_head, W_O W_V, 1), the reading
of :mod:`lsadyn.weights`. A linear readout u (d,) of the task's ``read_token`` after the loop predicts
scale·⟨u, x⟩ (regression, squared error) or the logit ⟨u, x⟩ (majority, cross-entropy).

:func:`train` draws its initial weights and every batch from numpy generators seeded by ``seed`` (the initial
weights N(0, 1/d), the readout N(0, 1/d)), runs ``steps`` Adam steps in float64 (it switches JAX's x64 mode on),
and returns a :class:`TrainedLoop` with the loss every ``log_every`` steps and the test loss on a fixed test set
(seed + 1). The same seed gives bitwise the same weights on the same machine and library versions.
:func:`save_weights` writes the head as safetensors in :mod:`lsadyn.weights`' default keys
(``layers.0.attn.{q,k,v,o}.weight``, plus ``readout.weight``), with the model, task, h and L as metadata.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .tasks import Task

MODELS = ("lsa", "sa")
NAMES = {"W_Q": "q", "W_K": "k", "W_V": "v", "W_O": "o"}


@dataclass
class TrainedLoop:
    """A trained looped layer: ``weights`` {W_Q, W_K, W_V, W_O, u} (numpy), its task, model, h, L, seed, the
    training curve ``curve`` [(step, loss)] and ``test`` {loss, accuracy, baseline_loss, reference_loss,
    baseline_accuracy} on the test set."""

    weights: dict
    task: Task
    model: str
    h: float
    L: int
    seed: int
    curve: list = field(default_factory=list)
    test: dict = field(default_factory=dict)

    @property
    def A(self) -> np.ndarray:
        w = self.weights
        return w["W_Q"].T @ w["W_K"] / np.sqrt(w["W_Q"].shape[0])

    @property
    def V(self) -> np.ndarray:
        return self.weights["W_O"] @ self.weights["W_V"]


def _check(model, h, L, steps, batch, lr):
    if model not in MODELS:
        raise ValueError(f"model: a looped layer is trained as one of {', '.join(MODELS)}, got {model!r}")
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"h: must be a positive step, got {h!r}")
    for name, v in (("L", L), ("steps", steps), ("batch", batch)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name}: must be an integer >= 1, got {v!r}")
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr: must be a positive learning rate, got {lr!r}")


def _jax():
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        raise ImportError("lsadyn.looped.train needs JAX and optax: pip install 'lsadyn[looped]'") from None
    jax.config.update("jax_enable_x64", True)
    return jax, jnp, optax


def _forward(jnp, params, X, model, h, L):
    """The looped map in JAX on a batch X (B, n, d) (see the module)."""
    n = X.shape[1]
    dh = params["W_Q"].shape[0]
    vo = params["W_O"] @ params["W_V"]
    for _ in range(L):
        q = X @ params["W_Q"].T
        k = X @ params["W_K"].T
        logits = jnp.einsum("bki,bji->bkj", q, k) / jnp.sqrt(dh)
        if model == "lsa":
            w = logits / n
        else:
            w = jnp.exp(logits - logits.max(axis=-1, keepdims=True))
            w = w / w.sum(axis=-1, keepdims=True)
        a = jnp.einsum("bkj,bjd->bkd", w, X @ vo.T)
        Y = X + h * a
        X = Y / jnp.linalg.norm(Y, axis=-1, keepdims=True)
    return X


def _loss_fn(jnp, task, model, h, L):
    read = task.read_token

    def loss(params, X, target, scale):
        out = _forward(jnp, params, X, model, h, L)[:, read]
        z = out @ params["u"]
        if task.loss == "mse":
            return jnp.mean((scale * z - target) ** 2), z
        # binary cross-entropy of the logit z, written stably: log(1 + e^z) - target z
        return jnp.mean(jnp.logaddexp(0.0, z) - target * z), z

    return loss


def train(task: Task, model: str, *, h: float, L: int, steps: int, batch: int, lr: float, seed: int,
          n_test: int = 2000, log_every: int = 50, progress=None) -> TrainedLoop:
    """Train a looped layer (see the module); ``progress(fraction)`` is called every ``log_every`` steps."""
    _check(model, h, L, steps, batch, lr)
    jax, jnp, optax = _jax()
    d = task.d
    rng = np.random.default_rng(seed)
    params = {k: rng.standard_normal((d, d)) / np.sqrt(d) for k in ("W_Q", "W_K", "W_V", "W_O")}
    params["u"] = rng.standard_normal(d) / np.sqrt(d)
    params = jax.tree_util.tree_map(jnp.asarray, params)
    loss = _loss_fn(jnp, task, model, float(h), int(L))
    opt = optax.adam(float(lr))
    state = opt.init(params)

    @jax.jit
    def step(params, state, X, target, scale):
        (value, _), grads = jax.value_and_grad(loss, has_aux=True)(params, X, target, scale)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    curve = []
    for i in range(int(steps)):
        X, target, scale = task.batch(rng, int(batch))
        params, state, value = step(params, state, X, target, scale)
        if i % log_every == 0 or i == steps - 1:
            v = float(value)
            if not np.isfinite(v):
                raise FloatingPointError(f"training diverged at step {i} (loss {v}); lower lr (here {lr})")
            curve.append((i, v))
            if progress is not None:
                progress((i + 1) / steps)
    weights = {k: np.asarray(v, dtype=float) for k, v in params.items()}
    test_set = task.batch(np.random.default_rng(seed + 1), int(n_test))
    value, z = jax.jit(loss)(params, *test_set)
    test = {"loss": float(value), **task.baseline(*test_set)}
    z = np.asarray(z)
    test["accuracy"] = float(np.mean((z > 0) == (test_set[1] > 0.5))) if task.loss == "bce" else float("nan")
    return TrainedLoop(weights, task, model, float(h), int(L), int(seed), curve, test)


def forward_numpy(weights: dict, X, model: str, h: float, L: int) -> np.ndarray:
    """The trained model's own looped map in numpy (the reference the JAX forward is tested against): X (B, n, d)
    → X after L steps."""
    return np.asarray(_forward(np, weights, np.asarray(X, dtype=float), model, h, L))


def save_weights(trained: TrainedLoop, path) -> Path:
    """Write the trained head as safetensors (see the module) atomically: a temporary file renamed into place."""
    from safetensors.numpy import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {f"layers.0.attn.{NAMES[k]}.weight": np.ascontiguousarray(trained.weights[k]) for k in NAMES}
    tensors["readout.weight"] = np.ascontiguousarray(trained.weights["u"])
    meta = {"model": trained.model, "n_heads": "1", "task": trained.task.name, "h": repr(trained.h),
            "L": str(trained.L), "n": str(trained.task.n), "d": str(trained.task.d), "seed": str(trained.seed),
            "beta": "1.0", "convention": "A = W_Q^T W_K / sqrt(d_head), V = W_O W_V (lsadyn.weights)"}
    tmp = path.with_name(path.name + ".tmp")
    try:
        save_file(tensors, str(tmp), metadata=meta)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
