r"""Classical fixed-step RK4, written once: :func:`rk4_step` advances ``dy/dt = f(t, y)`` by

.. math:: k_1 = f(t, y),\ k_2 = f(t + \tfrac h2, y + \tfrac h2 k_1),\ k_3 = f(t + \tfrac h2, y + \tfrac h2 k_2),\
          k_4 = f(t + h, y + h k_3),\qquad y \leftarrow y + \tfrac h6 (k_1 + 2(k_2 + k_3) + k_4),

for a state of any shape. The two sphere integrators on top of it renormalise the rows after every step:

* :func:`rk4_sphere`: one token system X (n, d), ``field(t, X, args)``, rows renormalised by the compiled kernel
  :func:`lsadyn.fields.kernels.normalise_rows_inplace`; output times are hit exactly by shortening the step that
  would cross them (``integrate_sphere(method="rk4")``, ``simulate_regime(method="rk4")``);
* :func:`rk4_stack_step`: one step of a stack X (B, n, d) of systems under an autonomous batched field
  (:class:`lsadyn.batch.BatchField`), rows renormalised with numpy (:class:`lsadyn.runs.BatchTokenRun`).

Each operation is the one numpy's evaluation of the written-out expressions does (same roundings), so the results
are those of the expressions above, into reused buffers.
"""

from __future__ import annotations

import numpy as np

from ..fields.kernels import normalise_rows_inplace


def rk4_increment(k1, k2, k3, k4, h):
    """The classical RK4 increment (h/6)(k₁ + 2(k₂ + k₃) + k₄), formed in place in ``k1`` (``k2`` is overwritten
    too) by the operations numpy's evaluation of that expression does (same roundings); returns ``k1``."""
    k2 += k3
    k2 *= 2.0
    k1 += k2
    k1 += k4
    k1 *= h / 6
    return k1


def rk4_step(f, t, y, h):
    """One classical RK4 step of ``dy/dt = f(t, y)``, ``y`` (any shape, float64) updated in place and returned.

    The stage inputs y + (h/2) k₁, y + (h/2) k₂, y + h k₃ are formed in one reused buffer, so ``f`` must return a new
    array (never a view of its argument), as every field of lsadyn does."""
    tmp = np.empty_like(y)
    k1 = f(t, y)
    np.multiply(k1, h / 2, out=tmp)
    tmp += y
    k2 = f(t + h / 2, tmp)
    np.multiply(k2, h / 2, out=tmp)
    tmp += y
    k3 = f(t + h / 2, tmp)
    np.multiply(k3, h, out=tmp)
    tmp += y
    k4 = f(t + h, tmp)
    y += rk4_increment(k1, k2, k3, k4, h)
    return y


def rk4_sphere(field, X0, t_eval, args, *, t0=0.0, dt, observer=None):
    """Fixed-step RK4 of ``dX/dt = field(t, X, args)``, X (n, d), rows renormalised after every step; the step
    crossing an output time is shortened to end on it. Returns ``(obs, X_end, n_steps)``: observations
    ``observer(X(t_eval[i]))`` (list; states when no observer), the state at ``t_eval[-1]``, steps taken."""
    X = np.array(X0, dtype=float, order="C")
    obs = observer if observer is not None else (lambda Z: Z.copy())

    def f(t, Y):
        return field(t, Y, args)

    out = []
    n_steps = 0
    t = float(t0)
    for te in t_eval:
        while t < te - 1e-14 * max(1.0, abs(te)):
            h = min(dt, te - t)
            rk4_step(f, t, X, h)
            normalise_rows_inplace(X)
            if not np.all(np.isfinite(X)):
                raise FloatingPointError(f"integration produced NaN/inf at t={t + h:.6g}")
            t += h
            n_steps += 1
        out.append(obs(X.copy()))
    return out, X, n_steps


def rk4_stack_step(f, X, h):
    """One RK4 step of ``dX/ds = f(X)`` for a stack X (B, n, d) (:func:`rk4_step`), then every row renormalised
    (X /= its norm, formed as ``numpy.linalg.norm(X, axis=2)`` forms it); in place, returns X."""
    rk4_step(lambda s, Y: f(Y), 0.0, X, h)
    tmp = np.multiply(X, X)  # the row norms as numpy.linalg.norm(X, axis=2) forms them
    nrm = np.add.reduce(tmp, axis=2, keepdims=True)
    np.sqrt(nrm, out=nrm)
    X /= nrm
    return X
