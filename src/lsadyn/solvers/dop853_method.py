r"""The Dormand–Prince 8(5,3) method (DOP853) written once: its tableau, error norm, step-size controller and
dense output, as scipy's :class:`scipy.integrate.DOP853` defines them. Every DOP853 loop of lsadyn takes them
from here:

* :func:`lsadyn.solvers.dop853.dop853_sphere` (numpy, a state X (n, d) on the sphere) calls the Python bodies of
  the functions below (``.py_func``: no compilation, the roundings of plain Python floats / numpy arrays);
* :func:`lsadyn.solvers.phase_points.advance_phase_points` and :func:`~lsadyn.solvers.phase_points.advance_small`
  (numba) call the compiled functions, which LLVM inlines into their loops;
* ``tools/generate_dop853_stages.py`` writes the fused d = 2 stage passes (:mod:`lsadyn.solvers._dop853_stages`)
  from :data:`A`, :data:`B`, :data:`E5`, :data:`E3`.

What stays with each loop is what depends on its state's layout: the stage sums y + h Σ_j a_sj K_j, the error
sums over components and the RMS norms of the initial step (BLAS products in numpy, loops in numba, fused with
the field for d = 2), and what a loop does with a failed step (numpy rejects a non-finite trial step and shrinks
it by :data:`MIN_FACTOR`; the compiled loops stop the point with a status code).

**Tableau** (scipy's ``dop853_coefficients``): stages :math:`K_s = f(t + c_s h, y + h\sum_{j<s} a_{sj} K_j)`,
s = 0..11 for the step (:data:`N_STAGES` = 12), :math:`K_{12} = f(t + h, y_{new})` (first stage of the next
step, FSAL) and s = 13..15 for the dense output; :math:`y_{new} = y + h\sum_j b_j K_j`. Shapes: :data:`A`
(16, 16), :data:`B` (12,), :data:`C` (16,), :data:`E5`, :data:`E3` (13,), :data:`D` (4, 16).

**Error norm** (:func:`error_norm`): with :math:`e_5 = h\,E_5\cdot K`, :math:`e_3 = h\,E_3\cdot K` and the scale
:math:`sc = atol + rtol\max(|y|, |y_{new}|)` per component, :math:`s_5 = \sum (E_5\cdot K / sc)^2`,
:math:`s_3 = \sum (E_3\cdot K / sc)^2` over the N components,

.. math:: \mathrm{err} = \frac{h\, s_5}{\sqrt{N (s_5 + 0.01\, s_3)}} .

**Step-size controller**: a trial step from t is :math:`\min(t + |h|, t_{end}) - t` (:func:`trial_step`), never
below :func:`min_step` (10 ulp of t); it is accepted if err < 1, the next one then being
:math:`h \cdot` :func:`accept_factor` (:math:`\min(10, 0.9\,\mathrm{err}^{-1/8})`, at most 1 right after a
rejection); a rejected one is retried with :math:`|h| \cdot` :func:`reject_factor`
(:math:`\max(0.2, 0.9\,\mathrm{err}^{-1/8})`). The first step is Hairer–Nørsett–Wanner's
(:func:`initial_trial_step`, then :func:`initial_step_size` after one field evaluation at y0 + h0 f0), as
scipy's ``select_initial_step`` for an order-7 estimator.

**Dense output** (7th order): rows :math:`F_0..F_2` = :func:`dense_head` (Δy, h K_0 − Δy, 2Δy − h (K_12 + K_0)),
:math:`F_{3..6} = h\,D\cdot K` (a stage sum, in each loop's layout), and
:math:`y(t + x h) = y +` :func:`dense_eval` (scipy's ``Dop853DenseOutput`` recurrence on the rows of F).

The functions take and return float64 scalars (:func:`dense_head` also numpy arrays, elementwise); compiled with
the kernels' flags (:data:`FAST`), so in the numba loops LLVM may contract a multiply-add into one FMA, as it does
in the loops themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)

N_STAGES = 12  # stages of a step; K_12 = f(t + h, y_new) is the first stage of the next one
A = np.ascontiguousarray(_dop.A, dtype=np.float64)  # (16, 16), rows 13..15 are the dense-output stages
B = np.ascontiguousarray(_dop.B, dtype=np.float64)  # (12,)
C = np.ascontiguousarray(_dop.C, dtype=np.float64)  # (16,)
E3 = np.ascontiguousarray(_dop.E3, dtype=np.float64)  # (13,)
E5 = np.ascontiguousarray(_dop.E5, dtype=np.float64)  # (13,)
D = np.ascontiguousarray(_dop.D, dtype=np.float64)  # (4, 16)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / 8.0  # -1/(q + 1) for the error estimator of order q = 7

#: LLVM flags of the compiled kernels: reassociation lets the token sums (R₂ means, error norms) vectorise; no
#: finite-math assumptions (the NaN/inf checks must stay). Kernels use error_model="numpy" (no ZeroDivisionError
#: branch per division, which blocks vectorisation; a zero scale gives inf, caught as non-finite).
FAST = {"reassoc", "contract"}


@njit(cache=True, fastmath=FAST, error_model="numpy")
def min_step(t):
    """The smallest step the controller takes at time t: 10 × the spacing of doubles at t (scipy's)."""
    return 10 * abs(np.nextafter(t, np.inf) - t)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def trial_step(t, h_abs, t_end):
    """The trial step from t of size h_abs, clipped to end at t_end: returns ``(t_new, h)``, h = t_new − t."""
    t_new = min(t + h_abs, t_end)
    return t_new, t_new - t


@njit(cache=True, fastmath=FAST, error_model="numpy")
def error_norm(h, s5, s3, size):
    """scipy's DOP853 error norm from the sums s5, s3 of the squared scaled 5th- and 3rd-order estimates over
    ``size`` components (0 when both vanish)."""
    if s5 == 0.0 and s3 == 0.0:
        return 0.0
    return h * s5 / np.sqrt((s5 + 0.01 * s3) * size)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def accept_factor(err, rejected):
    """Step-size factor after an accepted step with error norm err < 1 (no growth right after a rejection)."""
    factor = MAX_FACTOR if err == 0 else min(MAX_FACTOR, SAFETY * err ** ERROR_EXPONENT)
    return min(1.0, factor) if rejected else factor


@njit(cache=True, fastmath=FAST, error_model="numpy")
def reject_factor(err):
    """Step-size factor after a step rejected with error norm err ≥ 1."""
    return max(MIN_FACTOR, SAFETY * err ** ERROR_EXPONENT)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def initial_trial_step(d0, d1, length):
    """h0 of the starting-step rule from d0 = ‖y0‖ and d1 = ‖f(t0, y0)‖ (scaled RMS norms), at most ``length``;
    the rule then evaluates f at y0 + h0 f0 (:func:`initial_step_size`)."""
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    return min(h0, length)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def initial_step_size(h0, d1, d2, length):
    """The starting step from h0, d1 and d2 = ‖f(t0 + h0, y0 + h0 f0) − f0‖ / h0, at most ``length``."""
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100 * h0, h1, length)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def dense_head(dy, k0, k12, h):
    """Rows F_0, F_1, F_2 of the interpolant from Δy = y_new − y, K_0, K_12 and h (scalars, or arrays
    elementwise): ``(Δy, h K_0 − Δy, 2 Δy − h (K_12 + K_0))``."""
    return dy, h * k0 - dy, 2 * dy - h * (k12 + k0)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def dense_eval(F, i, x):
    """y(t + x h) − y for component i of the interpolant rows F (7 rows, ``F[r][i]``) at the fraction x ∈ [0, 1]
    of the step: scipy's recurrence (from the last row down: add F_r, then multiply by x or 1 − x, alternately)."""
    acc = 0.0
    for q in range(7):
        acc += F[6 - q][i]
        if q % 2 == 0:
            acc *= x
        else:
            acc *= 1 - x
    return acc
