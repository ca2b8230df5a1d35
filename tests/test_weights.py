"""lsadyn.weights: a head's (A, V, beta) from .npz, .safetensors and dicts of arrays, per-head and packed layouts,
and one clear line for every bad input (issue 46 part 1)."""

import json
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import save_file

from lsadyn.weights import load_arrays, read_head


def _head(rng, d=3, dh=2):
    return {"q": rng.standard_normal((dh, d)), "k": rng.standard_normal((dh, d)), "v": rng.standard_normal((dh, d)),
            "o": rng.standard_normal((d, dh))}


def _keys(h, layer=0):
    return {f"layers.{layer}.attn.{k}.weight": v for k, v in h.items()}


@pytest.mark.parametrize("seed", range(5))
def test_A_and_V_are_the_paper_s_products_with_the_scaling_stated(seed):
    rng = np.random.default_rng(seed)
    h = _head(rng, d=4, dh=3)
    hw = read_head(_keys(h))
    assert np.allclose(hw.A, h["q"].T @ h["k"] / np.sqrt(3)) and np.allclose(hw.V, h["o"] @ h["v"])
    assert hw.beta == 1.0 and hw.d == 4 and hw.d_head == 3
    # the logits of the head are beta <x, A y>: the scaling lives in A
    x, y = rng.standard_normal((2, 4))
    assert np.isclose(x @ hw.A @ y, (h["q"] @ x) @ (h["k"] @ y) / np.sqrt(3))


def test_files_round_trip_and_carry_model_and_head_count(tmp_path):
    rng = np.random.default_rng(1)
    heads = [_head(rng, d=3, dh=2) for _ in range(2)]
    packed = {f"layers.0.attn.{k}.weight": (np.concatenate([hh[k] for hh in heads], axis=1 if k == "o" else 0))
              for k in "qkvo"}
    save_file({k: v.astype(np.float64) for k, v in packed.items()}, str(tmp_path / "m.safetensors"),
              metadata={"model": "usa", "n_heads": "2"})
    np.savez(tmp_path / "m.npz", **packed)
    for h in (0, 1):
        a = read_head(tmp_path / "m.safetensors", head=h)
        b = read_head(tmp_path / "m.npz", head=h, n_heads=2)
        ref = read_head(_keys(heads[h]))
        assert np.allclose(a.A, ref.A) and np.allclose(a.V, ref.V) and np.allclose(b.A, ref.A)
        assert a.model == "usa" and b.model is None
    stacked = {f"layers.0.attn.{k}.weight": np.stack([hh[k] for hh in heads]) for k in "qkvo"}
    assert np.allclose(read_head(stacked, head=1).V, read_head(_keys(heads[1])).V)
    arrays, meta = load_arrays(tmp_path / "m.safetensors")
    assert set(arrays) == set(packed) and meta["n_heads"] == "2"


def test_row_layout_and_a_custom_pattern():
    rng = np.random.default_rng(2)
    h = _head(rng)
    rows = {f"blk{3}.{n}": m.T for n, m in zip(("wq", "wk", "wv", "wo"), (h["q"], h["k"], h["v"], h["o"]))}
    hw = read_head(rows, layer=3, pattern="blk{layer}.{name}", layout="row",
                   names={"W_Q": "wq", "W_K": "wk", "W_V": "wv", "W_O": "wo"})
    assert np.allclose(hw.A, read_head(_keys(h)).A) and np.allclose(hw.V, read_head(_keys(h)).V)


@pytest.mark.parametrize("break_it, message", [
    (lambda a: a.pop("layers.0.attn.k.weight"), "has no key 'layers.0.attn.k.weight'"),
    (lambda a: a.update({"layers.0.attn.k.weight": np.ones((2, 5))}), "layers.0.attn.k.weight: shape (2, 5)"),
    (lambda a: a.update({"layers.0.attn.o.weight": np.ones((3, 4))}), "layers.0.attn.o.weight: shape (3, 4)"),
    (lambda a: a["layers.0.attn.v.weight"].__setitem__((0, 0), np.nan), "layers.0.attn.v.weight: contains NaN"),
    (lambda a: a.update({"layers.0.attn.q.weight": np.ones(3)}), "layers.0.attn.q.weight: expected a 2-D"),
])
def test_bad_weights_get_one_line_naming_the_key(break_it, message):
    arrays = _keys(_head(np.random.default_rng(3)))
    break_it(arrays)
    with pytest.raises(ValueError) as err:
        read_head(arrays)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_packed_heads_need_a_head_count_and_a_head_in_range(tmp_path):
    arrays = _keys(_head(np.random.default_rng(4), dh=4))
    with pytest.raises(ValueError, match="head 1 asked, but the file holds this layer as one 2-D array and says no "
                                         "head count"):
        read_head(arrays, head=1)
    with pytest.raises(ValueError, match="head 2 out of range for n_heads = 2"):
        read_head(arrays, head=2, n_heads=2)
    with pytest.raises(ValueError, match="not a multiple of n_heads = 3"):
        read_head(arrays, n_heads=3)


def test_bad_files_get_one_line_naming_the_file(tmp_path):
    (tmp_path / "x.safetensors").write_bytes(b"junk")
    (tmp_path / "x.npz").write_bytes(b"junk")
    (tmp_path / "x.pt").write_bytes(b"junk")
    for name, msg in (("x.safetensors", "not a readable .safetensors"), ("x.npz", "not a readable .npz"),
                      ("x.pt", "unknown format .pt"), ("missing.npz", "no such file")):
        with pytest.raises(ValueError) as err:
            read_head(tmp_path / name)
        assert msg in str(err.value) and name in str(err.value) and "\n" not in str(err.value)


def test_cli_reads_a_head_from_a_file(tmp_path):
    h = _head(np.random.default_rng(5), d=2, dh=2)
    save_file({k: v.astype(np.float32) for k, v in _keys(h).items()}, str(tmp_path / "h.safetensors"))
    run = [sys.executable, "-m", "lsadyn", "regime", "--weights", str(tmp_path / "h.safetensors"), "--json"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and '"regime"' in out.stdout, out.stderr
    bad = subprocess.run(run[:-1] + ["--layer", "2"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("lsadyn: error: weights:") and \
        "layers.2.attn.q.weight" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_cli_picks_the_token_run_for_a_d3_head_and_the_file_s_model(tmp_path):
    """Without --method: the OA flow needs d = 2 and LSA, so a d = 3 SA head runs its tokens under SA."""
    A, V = np.eye(3), np.diag([1.2, 0.5, 0.5])
    save_file({"layers.0.attn.q.weight": A, "layers.0.attn.k.weight": A * np.sqrt(3), "layers.0.attn.v.weight": V,
               "layers.0.attn.o.weight": np.eye(3)}, str(tmp_path / "h.safetensors"), metadata={"model": "sa"})
    run = [sys.executable, "-m", "lsadyn", "regime", "--weights", str(tmp_path / "h.safetensors"), "--n", "32",
           "--json"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["method"] == "particles" and res["model"] == "sa" and res["regime"] == "cluster_converge"
    bad = subprocess.run(run[:6] + ["--method", "oa"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("lsadyn: error: --weights: --method oa needs d = 2")
