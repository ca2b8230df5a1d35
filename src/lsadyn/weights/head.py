r"""One head's (A, V, β) from named arrays (see :mod:`lsadyn.weights` for the convention and the scaling).

Keys are found by ``pattern`` (default :data:`DEFAULT_PATTERN`, ``"layers.{layer}.attn.{name}"``) with ``name``
each of :data:`DEFAULT_NAMES` (``W_Q``, ``W_K``, ``W_V``, ``W_O`` → ``q.weight``, ``k.weight``, ``v.weight``,
``o.weight``). A key holds either one head (W_Q, W_K, W_V (d_head, d), W_O (d, d_head)) or all heads, packed as in
``torch.nn.MultiheadAttention``: W_Q (H·d_head, d) and W_O (d, H·d_head), head h in rows (columns)
h·d_head … (h + 1)·d_head − 1, or stacked as (H, d_head, d) and W_O (H, d, d_head). ``n_heads`` H is needed for the
packed 2-D layout (read from the metadata key ``n_heads`` when not given). ``layout="row"`` reads x W_Q layouts
(W_Q (d, d_head), W_O (d_head, d)) by transposing. Every shape is checked; a missing key, a wrong shape or a
non-finite entry raises one ValueError line naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .files import load_arrays

DEFAULT_PATTERN = "layers.{layer}.attn.{name}"
DEFAULT_NAMES = {"W_Q": "q.weight", "W_K": "k.weight", "W_V": "v.weight", "W_O": "o.weight"}


@dataclass(frozen=True)
class HeadWeights:
    """A head's matrices and its (A, V, β): ``A = W_Qᵀ W_K / √d_head`` (d, d), ``V = W_O W_V`` (d, d), ``beta`` 1;
    ``model`` (``"lsa"``, ``"usa"``, ``"sa"``) when the source says so (metadata key ``model``), else None;
    ``source``: where it was read, and the keys."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    model: str | None = None
    source: str = ""
    keys: dict = field(default_factory=dict)

    @property
    def d(self) -> int:
        return self.W_Q.shape[1]

    @property
    def d_head(self) -> int:
        return self.W_Q.shape[0]

    @property
    def A(self) -> np.ndarray:
        return self.W_Q.T @ self.W_K / np.sqrt(self.d_head)

    @property
    def V(self) -> np.ndarray:
        return self.W_O @ self.W_V

    beta: float = 1.0


def _pick_head(name, key, M, head, n_heads, d_head_hint):
    """The head's block of an array that holds one head or all of them (see the module)."""
    out_dim = name == "W_O"
    if M.ndim == 3:
        if not 0 <= head < M.shape[0]:
            raise ValueError(f"weights: {key}: head {head} out of range, the array holds {M.shape[0]} heads "
                             f"(shape {M.shape})")
        return M[head]
    if M.ndim != 2:
        raise ValueError(f"weights: {key}: expected a 2-D (or per-head 3-D) array, got shape {M.shape}")
    if n_heads in (None, 1):
        if head != 0:
            what = ("the file holds one head" if n_heads == 1 else
                    "the file holds this layer as one 2-D array and says no head count (metadata n_heads), so it "
                    "is read as one head; the API's n_heads= splits it")
            raise ValueError(f"weights: {key}: head {head} asked, but {what}: use head 0")
        return M
    size = M.shape[1] if out_dim else M.shape[0]
    if size % n_heads:
        raise ValueError(f"weights: {key}: {size} is not a multiple of n_heads = {n_heads} (shape {M.shape})")
    dh = size // n_heads
    if not 0 <= head < n_heads:
        raise ValueError(f"weights: {key}: head {head} out of range for n_heads = {n_heads}")
    return M[:, head * dh:(head + 1) * dh] if out_dim else M[head * dh:(head + 1) * dh]


def head_weights(arrays: dict, *, layer: int = 0, head: int = 0, pattern: str = DEFAULT_PATTERN,
                 names: dict | None = None, n_heads: int | None = None, layout: str = "linear",
                 model: str | None = None, source: str = "arrays") -> HeadWeights:
    """The :class:`HeadWeights` of head ``head`` of layer ``layer`` from ``arrays`` ({key: array}; see the
    module for ``pattern``, ``names``, ``n_heads`` and ``layout``)."""
    if layout not in ("linear", "row"):
        raise ValueError(f"layout: expected 'linear' (torch.nn.Linear, q = W_Q x) or 'row' (q = x W_Q), got {layout!r}")
    names = {**DEFAULT_NAMES, **(names or {})}
    mats, keys = {}, {}
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        key = pattern.format(layer=layer, head=head, name=names[name])
        if key not in arrays:
            near = sorted(k for k in arrays if str(layer) in k)[:6] or sorted(arrays)[:6]
            raise ValueError(f"weights: {source} has no key {key!r} ({name}; keys such as {', '.join(near) or 'none'})")
        M = np.asarray(arrays[key], dtype=float)
        if layout == "row":
            M = np.swapaxes(M, -1, -2)
        M = _pick_head(name, key, M, head, n_heads, None)
        if not np.all(np.isfinite(M)):
            raise ValueError(f"weights: {key}: contains NaN or inf")
        mats[name], keys[name] = M, key
    Q, K, Vv, O = mats["W_Q"], mats["W_K"], mats["W_V"], mats["W_O"]
    d_head, d = Q.shape
    checks = {"W_K": (K.shape, (d_head, d)), "W_V": (Vv.shape[1:], (d,)), "W_O": (O.shape, (d, Vv.shape[0]))}
    for name, (got, want) in checks.items():
        if got != want:
            raise ValueError(f"weights: {keys[name]}: shape {mats[name].shape} does not fit W_Q {Q.shape} "
                             f"({name} must be {'(d, d_v)' if name == 'W_O' else '(d_head, d)'}: {want})")
    if model is not None and model not in ("lsa", "usa", "sa"):
        raise ValueError(f"weights: model {model!r}: expected lsa, usa or sa")
    return HeadWeights(Q, K, Vv, O, model=model, source=source, keys=keys)


def read_head(src, *, layer: int = 0, head: int = 0, pattern: str = DEFAULT_PATTERN, names: dict | None = None,
              n_heads: int | None = None, layout: str = "linear") -> HeadWeights:
    """A head from a ``.npz`` / ``.safetensors`` file or a dict of arrays (see the module). From a file, the
    metadata keys ``n_heads`` and ``model`` are used when present (an explicit ``n_heads`` wins)."""
    if isinstance(src, dict):
        arrays, meta, source = src, {}, "arrays"
    else:
        arrays, meta = load_arrays(src)
        source = str(src)
    if n_heads is None and "n_heads" in meta:
        try:
            n_heads = int(meta["n_heads"])
        except ValueError:
            raise ValueError(f"weights: {source}: metadata n_heads = {meta['n_heads']!r} is not an integer") from None
    try:
        return head_weights(arrays, layer=int(layer), head=int(head), pattern=pattern, names=names, n_heads=n_heads,
                            layout=layout, model=meta.get("model"), source=source)
    except ValueError as err:  # name the file the key was read from
        msg = str(err)
        if source != "arrays" and source not in msg:
            msg = msg.replace("weights: ", f"weights: {source}: ", 1)
        raise ValueError(msg) from None
