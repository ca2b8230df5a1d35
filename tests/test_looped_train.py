"""Trained looped layers (lsadyn.looped.tasks, lsadyn.looped.train): the tasks' batches and baselines, a tiny
training run whose loss falls, the trained forward pass against the library's looped map through the weights file
(the weight mapping end to end), and bad inputs (issue 46 parts 2 and 4)."""

import numpy as np
import pytest

pytest.importorskip("jax")

from lsadyn.fields.attention import Attention
from lsadyn.looped import looped_forward
from lsadyn.looped.tasks import Task
from lsadyn.looped.train import forward_numpy, save_weights, train
from lsadyn.weights import read_head


def test_regression_batches_are_unit_tokens_whose_context_determines_the_target():
    task = Task("regression", n=9, d=4)
    X, target, scale = task.batch(np.random.default_rng(0), 64)
    assert X.shape == (64, 9, 4) and target.shape == scale.shape == (64,)
    assert np.allclose(np.linalg.norm(X, axis=-1), 1.0) and np.all(X[:, -1, -1] == 0)
    base = task.baseline(X, target, scale)
    # least squares on 8 context tokens in p = 3 recovers w exactly; the zero predictor's loss is E[y_q^2]
    assert base["reference_loss"] < 1e-20 and np.isclose(base["baseline_loss"], np.mean(target ** 2))


def test_majority_baseline_is_the_entropy_of_the_own_bit():
    task = Task("majority", n=7, d=3, sigma=0.5)
    X, target, _ = task.batch(np.random.default_rng(1), 4000)
    base = task.baseline(X, target, None)
    p0 = np.mean((X[:, 0, 0] > 0) == (target > 0.5))
    assert np.isclose(base["baseline_accuracy"], p0) and 0.5 < p0 < 1
    assert np.isclose(base["baseline_loss"], -(p0 * np.log(p0) + (1 - p0) * np.log(1 - p0)))
    # the target is the majority of the first coordinates' signs
    assert np.array_equal(target > 0.5, np.sign(X[..., 0]).sum(axis=1) > 0)


@pytest.mark.parametrize("model", ["lsa", "sa"])
def test_a_tiny_training_run_lowers_its_loss_and_is_deterministic(model):
    task = Task("regression", n=9, d=3)
    kw = dict(h=0.25, L=4, batch=64, lr=0.02, seed=5, n_test=500, log_every=10)
    start = train(task, model, steps=1, **kw)  # the same initial weights, one step
    a = train(task, model, steps=100, **kw)
    # on the same fixed test set: below half the initial loss, and below the zero predictor
    assert a.test["loss"] < 0.5 * start.test["loss"] and a.test["loss"] < 0.8 * a.test["baseline_loss"], a.test
    b = train(task, model, steps=100, **kw)
    assert all(np.array_equal(a.weights[k], b.weights[k]) for k in a.weights)


@pytest.mark.parametrize("model", ["lsa", "sa"])
def test_the_saved_weights_give_the_library_the_trained_network_s_own_map(model, tmp_path):
    """The weight mapping end to end: the JAX forward, its numpy twin, and lsadyn's looped map with (A, V) read from
    the safetensors file by lsadyn.weights agree on random tokens."""
    task = Task("majority", n=5, d=3)
    trained = train(task, model, h=0.3, L=3, steps=3, batch=8, lr=0.05, seed=2, n_test=20)
    path = save_weights(trained, tmp_path / "w.safetensors")
    assert not list(tmp_path.glob("*.tmp"))
    head = read_head(path)
    assert head.model == model and np.allclose(head.A, trained.A) and np.allclose(head.V, trained.V)
    X, _, _ = task.batch(np.random.default_rng(9), 4)
    import jax.numpy as jnp

    from lsadyn.looped.train import _forward

    params = {k: jnp.asarray(v) for k, v in trained.weights.items()}
    ours = np.stack([looped_forward(x, Attention(head.A, head.V, head.beta), model, 0.3, 7)[-1] for x in X])
    assert np.allclose(forward_numpy(trained.weights, X, model, 0.3, 7), ours, atol=1e-12)
    assert np.allclose(np.asarray(_forward(jnp, params, jnp.asarray(X), model, 0.3, 7)), ours, atol=1e-12)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="^task majority: n = 4"):
        Task("majority", n=4, d=3)
    with pytest.raises(ValueError, match="^task: unknown task"):
        Task("sorting", n=4, d=3)
    task = Task("regression", n=5, d=3)
    for kw, name in [({"model": "usa"}, "model"), ({"h": 0.0}, "h"), ({"L": 0}, "L"), ({"lr": -1.0}, "lr"),
                     ({"steps": 1.5}, "steps")]:
        args = dict(model="lsa", h=0.1, L=2, steps=2, batch=4, lr=0.01, seed=0) | kw
        with pytest.raises(ValueError, match=f"^{name}:"):
            train(task, **args)
