r"""Vector fields of the token dynamics on :math:`S^{d-1}`: pure functions ``f(t, X, params)``, X (n, d) -> (n, d).

.. math::
    \dot x_k = P^\perp_{x_k}\Big(\tfrac1n \sum_j h(\beta\langle x_k, A x_j\rangle)\, V x_j\Big),
    \qquad P^\perp_x y = y - \langle x, y\rangle x ,

with h(y) = y (LSA), h(y) = e^y (USA), and the softmax-normalised sum for SA (docs/theory.md §1).

* :mod:`lsadyn.fields.attention`: :class:`~lsadyn.fields.attention.Attention` (A (d, d), V (d, d), β), the LSA,
  USA and SA fields, their O(n² d) pairwise references and the numpy tangent projection.
* :mod:`lsadyn.fields.kuramoto_daido`: the d = 2 USA and SA fields as a Kuramoto–Daido model, through the
  empirical moments :math:`Z_m = \langle e^{im\theta}\rangle` (Jacobi–Anger), O(n L + L²) instead of O(n²);
  what :func:`~lsadyn.fields.attention.field_for` gives for d = 2.
* :mod:`lsadyn.fields.kernels`: the compiled (numba) row kernels the fields and solvers call: in-place tangent
  projection and row normalisation of (n, d) arrays, norm drift, an in-place exponential.

The package imports nothing itself: import the module you need.
"""
