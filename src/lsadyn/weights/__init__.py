r"""Weights in: one attention head of a trained model as the paper's (A, V, β).

A head with query, key, value and output projections W_Q, W_K, W_V (d_head, d) and W_O (d, d_head), in the
layout of ``torch.nn.Linear`` (``weight`` is (out, in): q = W_Q x), attends with logits
:math:`\langle W_Q x_k, W_K x_j\rangle/\sqrt{d_{head}}` and moves a token by :math:`W_O W_V x_j`. So, in the
paper's notation (:mod:`lsadyn.fields.attention`),

.. math:: A = W_Q^\top W_K / \sqrt{d_{head}},\qquad V = W_O W_V,\qquad \beta = 1 .

The 1/√d_head scaling is put into A (β stays 1); a row layout (q = x W_Q, W_Q (d, d_head)) is transposed first.

* :mod:`~lsadyn.weights.files`: arrays by name from ``.npz`` and ``.safetensors`` files (safetensors' numpy API:
  no deep-learning framework), with their metadata.
* :mod:`~lsadyn.weights.head`: :func:`~lsadyn.weights.head.read_head` finds a head's four matrices by a key pattern
  (per-head keys, or heads packed along d_head) and returns a :class:`~lsadyn.weights.head.HeadWeights`.
"""

from .files import load_arrays
from .head import DEFAULT_NAMES, DEFAULT_PATTERN, HeadWeights, head_weights, read_head

__all__ = ["DEFAULT_NAMES", "DEFAULT_PATTERN", "HeadWeights", "head_weights", "load_arrays", "read_head"]
