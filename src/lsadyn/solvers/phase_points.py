r"""Compiled (numba) integrator of the d = 2 n-token system in doubled-phase points, batched over
parameter points × tokens (SCIENCE.md §2, :func:`lsadyn.reductions.kuramoto.phase_point_field`).

For every parameter point p and token k, :math:`z_k = e^{2i\theta_k} = x_k + i v_k` obeys

.. math:: \dot z_k = i\omega z_k + \tfrac12 (H - \bar H z_k^2),\qquad
          \omega = \beta\,\mathrm{tr}B(R_2),\ H = i\beta\,\overline{c(R_2)},\ R_2 = \tfrac1n\sum_k z_k .

Each point is stepped on its own by the Dormand–Prince 8(5,3) pair (DOP853) with the same
coefficients, error norm (RMS over the point's 2n components, scale ``atol + rtol·max(|y|, |y_new|)``),
initial-step rule and step-size controller as :class:`scipy.integrate.DOP853` — the reference path
(:func:`lsadyn.solvers.integrate.integrate_observed` with :func:`~lsadyn.reductions.kuramoto.phase_point_field`)
that the
tests compare against. The difference to scipy's run of a whole chunk is that every point has its own
step size (scipy's norm mixes the points of a chunk).

Fused: because every stage input is linear in the stage values, the order parameter of a stage input
is the same linear combination of the per-stage token means, so each stage is one pass over the tokens
(stage sum and field together). Only R₂ is observed, and only at the requested sample times: the
7th-order dense output (three extra stages) is evaluated — on the means only — for the steps that
contain a sample time; nothing else is stored. Runs continue from where they stopped
(state, time and proposed step are kept), which the decision procedure of :mod:`lsadyn.regimes.decision` uses.

Single-threaded by construction (no ``parallel=True``, no BLAS): one job uses one core.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)
from ._dop853_stages import _dense_stages, _stage_11_new_state_and_error, _stages_1_to_10  # generated

_A = np.ascontiguousarray(_dop.A, dtype=np.float64)  # (16, 16), rows 13..15 are the dense-output stages
_B = np.ascontiguousarray(_dop.B, dtype=np.float64)  # (12,)
_E3 = np.ascontiguousarray(_dop.E3, dtype=np.float64)  # (13,)
_E5 = np.ascontiguousarray(_dop.E5, dtype=np.float64)  # (13,)
_D = np.ascontiguousarray(_dop.D, dtype=np.float64)  # (4, 16)
N_STAGES = 12
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / 8.0

#: LLVM flags: reassociation lets the token sums (R₂ means, error norms) vectorise; no finite-math
#: assumptions (the NaN/inf checks must stay). Kernels use error_model="numpy" (no ZeroDivisionError
#: branch per division, which blocks vectorisation; a zero scale gives inf, caught as NOT_FINITE).
FAST = {"reassoc", "contract"}

#: status codes of :func:`advance_phase_points`
OK, STEP_TOO_SMALL, NOT_FINITE = 0, 1, 2


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _omega_h(rr, ri, tr, cre, cim, beta):
    """ω and H/2 (real, imaginary) of one point at R₂ = rr + i ri."""
    trb = tr[0] + tr[1] * rr + tr[2] * ri
    c_r = cre[0] + cre[1] * rr + cre[2] * ri
    c_i = cim[0] + cim[1] * rr + cim[2] * ri
    # H = iβ c̄ = iβ (c_r − i c_i) = β c_i + iβ c_r
    return beta * trb, 0.5 * beta * c_i, 0.5 * beta * c_r


# Nonzero pattern of the DOP853 tableau (rows 1..15 of A, B, E5, E3): stage sums skip the zeros.
_A_NZ = np.zeros((16, 16), dtype=np.int64)
_A_NNZ = np.zeros(16, dtype=np.int64)
for _s in range(1, 16):
    _nz = np.nonzero(_A[_s, :_s])[0]
    _A_NNZ[_s] = _nz.size
    _A_NZ[_s, :_nz.size] = _nz
_B_NZ = np.nonzero(_B)[0].astype(np.int64)
_E_NZ = np.nonzero((_E5 != 0) | (_E3 != 0))[0].astype(np.int64)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _field_row(xs, vs, kx, kv, om, hr, hi):
    """kx, kv = iω z + H/2 − (H̄/2) z² at z = xs + i vs; returns the token means."""
    n = xs.size
    sx = 0.0
    sv = 0.0
    for k in range(n):
        a = xs[k]
        b = vs[k]
        zr = a * a - b * b
        zi = 2.0 * a * b
        fx = -om * b + hr - (hr * zr + hi * zi)
        fv = om * a + hi - (hr * zi - hi * zr)
        kx[k] = fx
        kv[k] = fv
        sx += fx
        sv += fv
    return sx / n, sv / n


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _stage_coefficients(s, h, mx, mv, mkx, mkv, tr, cre, cim, beta):
    """ω and H/2 of stage s: R₂ of the stage input y + h Σ_{j<s} a_sj K_j from the token means."""
    rr = mx
    ri = mv
    for q in range(_A_NNZ[s]):
        j = _A_NZ[s, q]
        rr += h * _A[s, j] * mkx[j]
        ri += h * _A[s, j] * mkv[j]
    return _omega_h(rr, ri, tr, cre, cim, beta)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _rms(ax, av, sx, sv):
    n = ax.size
    acc = 0.0
    for k in range(n):
        acc += (ax[k] / sx[k]) ** 2 + (av[k] / sv[k]) ** 2
    return np.sqrt(acc / (2 * n))


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _dop853_error(h, e5, e3, size):
    """scipy's DOP853 error norm from the squared 5th- and 3rd-order estimates (sums over ``size`` components)."""
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return h * e5 / np.sqrt((e5 + 0.01 * e3) * size)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _accept_factor(err, rejected):
    """Step-size factor after an accepted step (scipy's controller; no growth right after a rejection)."""
    factor = MAX_FACTOR if err == 0 else min(MAX_FACTOR, SAFETY * err ** ERROR_EXPONENT)
    return min(1.0, factor) if rejected else factor


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _initial_step(x, v, kx0, kv0, Kx, Kv, mx, mv, mkx, mkv, t_bound, rtol, atol, tr, cre, cim, beta, xs, vs):
    """scipy's ``select_initial_step`` (order 7); needs K_0 = f(y) (``kx0``, ``kv0``), uses row 13 as scratch."""
    n = x.size
    sx = np.empty(n)
    sv = np.empty(n)
    for k in range(n):
        sx[k] = atol + abs(x[k]) * rtol
        sv[k] = atol + abs(v[k]) * rtol
    d0 = _rms(x, v, sx, sv)
    d1 = _rms(kx0, kv0, sx, sv)
    if d0 < 1e-5 or d1 < 1e-5:
        h0 = 1e-6
    else:
        h0 = 0.01 * d0 / d1
    h0 = min(h0, t_bound)
    for k in range(n):
        xs[k] = x[k] + h0 * kx0[k]
        vs[k] = v[k] + h0 * kv0[k]
    om, hr, hi = _omega_h(mx + h0 * mkx[0], mv + h0 * mkv[0], tr, cre, cim, beta)
    _field_row(xs, vs, Kx[13], Kv[13], om, hr, hi)
    d2 = _rms(Kx[13] - kx0, Kv[13] - kv0, sx, sv) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100 * h0, h1, t_bound)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _dense_means(x, v, Kx, Kv, i0, i12, h, mx, mv, mxn, mvn, mkx, mkv, tr, cre, cim, beta, F):
    """Three extra stages (13..15) from y_old = (x, v), then the 7 interpolant rows F (7, 2) on the means."""
    _dense_stages(x, v, Kx, Kv, i0, i12, h, mx, mv, mkx, mkv, tr, cre, cim, beta)
    dx = mxn - mx
    dv = mvn - mv
    F[0, 0] = dx
    F[0, 1] = dv
    F[1, 0] = h * mkx[0] - dx
    F[1, 1] = h * mkv[0] - dv
    F[2, 0] = 2 * dx - h * (mkx[12] + mkx[0])
    F[2, 1] = 2 * dv - h * (mkv[12] + mkv[0])
    for r in range(4):
        ax = 0.0
        av = 0.0
        for j in range(16):
            ax += _D[r, j] * mkx[j]
            av += _D[r, j] * mkv[j]
        F[3 + r, 0] = h * ax
        F[3 + r, 1] = h * av


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _dense_eval(F, mx, mv, xfrac):
    yr = 0.0
    yi = 0.0
    for i in range(7):
        r = 6 - i
        yr += F[r, 0]
        yi += F[r, 1]
        if i % 2 == 0:
            yr *= xfrac
            yi *= xfrac
        else:
            yr *= 1 - xfrac
            yi *= 1 - xfrac
    return mx + yr, mv + yi


@njit(cache=True, fastmath=FAST, error_model="numpy")
def advance_phase_points(X, Y, t, h_next, tr, cre, cim, beta, t_end, obs_t, obs, active, rtol, atol, nfev,
                         nsteps, status):
    """Advance the points ``active`` from their times ``t[p]`` to ``t_end`` (DOP853, see module doc).

    ``X``, ``Y`` (P, n): Re z, Im z (updated in place); ``t``, ``h_next`` (P,): time and proposed next step
    (0: choose the initial step as scipy does); ``tr``, ``cre``, ``cim`` (P, 3), ``beta`` (P,): affine
    coefficients of tr B and c (:class:`lsadyn.reductions.kuramoto.KuramotoCoefficients`); ``obs_t`` (m,) ascending
    sample times; ``obs`` (len(active), m) complex receives (row ia for point active[ia]) R₂ at those sample
    times lying in (t[p], t_end] (samples at or before the start time get the current R₂). ``nfev``,
    ``nsteps`` (P,) are incremented; ``status`` (P,) set to OK / STEP_TOO_SMALL / NOT_FINITE.
    """
    P, n = X.shape
    m = obs_t.size
    Kx = np.empty((16, n))
    Kv = np.empty((16, n))
    bufx = np.empty(n)
    bufv = np.empty(n)
    xs = np.empty(n)
    vs = np.empty(n)
    mkx = np.zeros(16)
    mkv = np.zeros(16)
    F = np.empty((7, 2))
    for ia in range(active.size):
        p = active[ia]
        x = X[p]
        v = Y[p]
        xn = bufx
        vn = bufv
        swapped = False
        tp = t[p]
        mx = x.mean()
        mv = v.mean()
        j = 0
        while j < m and obs_t[j] <= tp:
            obs[ia, j] = complex(mx, mv)
            j += 1
        status[p] = OK
        if tp >= t_end:
            continue
        # rows of K_0 and K_12 (swapped after every accepted step); np.int64, not the literals 0 and 12: numba types
        # a literal argument as Literal[int] first, which compiled every callee taking i0, i12 (the stage passes and
        # their drivers) twice, once for the literals and once for int64 (~17 s of a ~49 s first compile)
        i0 = np.int64(0)
        i12 = np.int64(12)
        om, hr, hi = _omega_h(mx, mv, tr[p], cre[p], cim[p], beta[p])
        mkx[0], mkv[0] = _field_row(x, v, Kx[i0], Kv[i0], om, hr, hi)
        nfev[p] += 1
        h_abs = h_next[p]
        if h_abs <= 0:
            h_abs = _initial_step(x, v, Kx[i0], Kv[i0], Kx, Kv, mx, mv, mkx, mkv, t_end - tp, rtol, atol, tr[p],
                                  cre[p], cim[p], beta[p], xs, vs)
            nfev[p] += 1
        while tp < t_end:
            min_step = 10 * abs(np.nextafter(tp, np.inf) - tp)
            if h_abs < min_step:
                h_abs = min_step
            rejected = False
            while True:
                if h_abs < min_step:
                    status[p] = STEP_TOO_SMALL
                    break
                t_new = tp + h_abs
                if t_new > t_end:
                    t_new = t_end
                h = t_new - tp
                _stages_1_to_10(x, v, Kx, Kv, i0, i12, h, mx, mv, mkx, mkv, tr[p], cre[p], cim[p], beta[p])
                om, hr, hi = _stage_coefficients(N_STAGES - 1, h, mx, mv, mkx, mkv, tr[p], cre[p], cim[p], beta[p])
                mkx[11], mkv[11], e5, e3 = _stage_11_new_state_and_error(x, v, Kx, Kv, i0, h, om, hr, hi, xn, vn,
                                                                         rtol, atol)
                nfev[p] += N_STAGES - 1
                if not (np.isfinite(e5) and np.isfinite(e3)):
                    status[p] = NOT_FINITE
                    break
                err = _dop853_error(h, e5, e3, 2 * n)
                if err < 1:
                    factor = _accept_factor(err, rejected)
                    # stage 12 (FSAL): K_12 = f(y_new), the next step's K_0 (a rejected step never needs it)
                    mxn = mx
                    mvn = mv
                    for q in range(_B_NZ.size):
                        jj = _B_NZ[q]
                        mxn += h * _B[jj] * mkx[jj]
                        mvn += h * _B[jj] * mkv[jj]
                    om, hr, hi = _omega_h(mxn, mvn, tr[p], cre[p], cim[p], beta[p])
                    mkx[12], mkv[12] = _field_row(xn, vn, Kx[i12], Kv[i12], om, hr, hi)
                    nfev[p] += 1
                    # observe the sample times in (tp, t_new]
                    have_dense = False
                    while j < m and obs_t[j] <= t_new:
                        if obs_t[j] == t_new:
                            obs[ia, j] = complex(mxn, mvn)
                        else:
                            if not have_dense:
                                _dense_means(x, v, Kx, Kv, i0, i12, h, mx, mv, mxn, mvn, mkx, mkv, tr[p], cre[p],
                                             cim[p], beta[p], F)
                                nfev[p] += 3
                                have_dense = True
                            fr, fi = _dense_eval(F, mx, mv, (obs_t[j] - tp) / h)
                            obs[ia, j] = complex(fr, fi)
                        j += 1
                    # accept: y ← y_new and K_0 ← K_12 (swap the buffers and the rows)
                    x, xn = xn, x
                    v, vn = vn, v
                    swapped = not swapped
                    i0, i12 = i12, i0
                    mkx[0] = mkx[12]
                    mkv[0] = mkv[12]
                    mx = mxn
                    mv = mvn
                    # the proposal for the next step (a step clipped at t_end keeps the unclipped proposal)
                    h_abs = h * factor if t_new < t_end else max(h_abs, h * factor)
                    tp = t_new
                    nsteps[p] += 1
                    break
                h_abs *= max(MIN_FACTOR, SAFETY * err ** ERROR_EXPONENT)
                rejected = True
            if status[p] != OK:
                break
        if swapped:  # the final state sits in the scratch buffer
            X[p, :] = x
            Y[p, :] = v
        t[p] = tp
        h_next[p] = h_abs


@njit(cache=True, fastmath=FAST, error_model="numpy")
def field_floor(X, Y, tr, cre, cim, beta, OX, OY):
    """The fused field alone on the same arrays (one evaluation per point and token): the floor that
    :func:`advance_phase_points` is measured against (benchmarks/bench_core.py)."""
    P, n = X.shape
    for p in range(P):
        x = X[p]
        v = Y[p]
        om, hr, hi = _omega_h(x.mean(), v.mean(), tr[p], cre[p], cim[p], beta[p])
        for k in range(n):
            xi = x[k]
            vi = v[k]
            zr = xi * xi - vi * vi
            zi = 2.0 * xi * vi
            OX[p, k] = -om * vi + hr - (hr * zr + hi * zi)
            OY[p, k] = om * xi + hi - (hr * zi - hi * zr)


# ---------------------------------------------------------------------------------------------------------------
# Small systems: the OA ODE (state R₂, 2 reals) and the WS variables (α, η; 3 reals, R₂ by the exact O(n) sum
# over the constants of motion w_k), one system per row, same DOP853 pair and controller as above.

OA_KIND, WS_KIND = 0, 1


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _riccati(a, b, om, hr, hi):
    """iω z + H/2 − (H̄/2) z² for z = a + ib and H/2 = hr + i hi."""
    zr = a * a - b * b
    zi = 2.0 * a * b
    return -om * b + hr - (hr * zr + hi * zi), om * a + hi - (hr * zi - hi * zr)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _ws_r2(y0, y1, y2, w_re, w_im):
    """R₂ = (1/n) Σ_k (α + u_k)/(1 + ᾱ u_k), u_k = e^{iη} w_k (exact sum)."""
    ce = np.cos(y2)
    se = np.sin(y2)
    sr = 0.0
    si = 0.0
    n = w_re.size
    for k in range(n):
        ur = ce * w_re[k] - se * w_im[k]
        ui = ce * w_im[k] + se * w_re[k]
        nr = y0 + ur
        ni = y1 + ui
        # 1 + conj(α) u
        dr = 1.0 + y0 * ur + y1 * ui
        di = y0 * ui - y1 * ur
        den = dr * dr + di * di
        sr += (nr * dr + ni * di) / den
        si += (ni * dr - nr * di) / den
    return sr / n, si / n


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _small_field(kind, y, out, cf, w_re, w_im):
    if kind == OA_KIND:
        rr = y[0]
        ri = y[1]
    else:
        rr, ri = _ws_r2(y[0], y[1], y[2], w_re, w_im)
    om, hr, hi = _omega_h(rr, ri, cf[0:3], cf[3:6], cf[6:9], cf[9])
    out[0], out[1] = _riccati(y[0], y[1], om, hr, hi)
    if kind == WS_KIND:
        out[2] = om - 2.0 * (hr * y[1] - hi * y[0])


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _small_observe(kind, y, w_re, w_im):
    if kind == OA_KIND:
        return complex(y[0], y[1])
    rr, ri = _ws_r2(y[0], y[1], y[2], w_re, w_im)
    return complex(rr, ri)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def _small_rms(a, scale):
    acc = 0.0
    for i in range(a.size):
        acc += (a[i] / scale[i]) ** 2
    return np.sqrt(acc / a.size)


@njit(cache=True, fastmath=FAST, error_model="numpy")
def advance_small(kind, Y, t, h_next, cf, w_re, w_im, t_end, obs_t, obs, active, rtol, atol, nfev, nsteps, status):
    """Like :func:`advance_phase_points` for small systems, one per row of ``Y`` (P, dim): ``kind`` OA_KIND
    (dim 2, y = [Re R₂, Im R₂]) or WS_KIND (dim 3, y = [Re α, Im α, η] with constants w = w_re + i w_im).
    ``cf`` (P, 10): [tr (3), Re c (3), Im c (3), β]. ``obs`` rows follow ``active``."""
    dim = Y.shape[1]
    m = obs_t.size
    K = np.empty((16, dim))
    yn = np.empty(dim)
    ys = np.empty(dim)
    sc = np.empty(dim)
    e5 = np.empty(dim)
    e3 = np.empty(dim)
    F = np.empty((7, dim))
    A = _A
    for ia in range(active.size):
        p = active[ia]
        y = Y[p]
        c = cf[p]
        tp = t[p]
        j = 0
        while j < m and obs_t[j] <= tp:
            obs[ia, j] = _small_observe(kind, y, w_re, w_im)
            j += 1
        status[p] = OK
        if tp >= t_end:
            continue
        _small_field(kind, y, K[0], c, w_re, w_im)
        nfev[p] += 1
        h_abs = h_next[p]
        if h_abs <= 0:  # scipy's select_initial_step, order 7
            for i in range(dim):
                sc[i] = atol + abs(y[i]) * rtol
            d0 = _small_rms(y, sc)
            d1 = _small_rms(K[0], sc)
            h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
            h0 = min(h0, t_end - tp)
            for i in range(dim):
                ys[i] = y[i] + h0 * K[0, i]
            _small_field(kind, ys, K[13], c, w_re, w_im)
            nfev[p] += 1
            d2 = _small_rms(K[13] - K[0], sc) / h0
            if d1 <= 1e-15 and d2 <= 1e-15:
                h1 = max(1e-6, h0 * 1e-3)
            else:
                h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
            h_abs = min(100 * h0, h1, t_end - tp)
        while tp < t_end:
            min_step = 10 * abs(np.nextafter(tp, np.inf) - tp)
            if h_abs < min_step:
                h_abs = min_step
            rejected = False
            while True:
                if h_abs < min_step:
                    status[p] = STEP_TOO_SMALL
                    break
                t_new = min(tp + h_abs, t_end)
                h = t_new - tp
                for s in range(1, N_STAGES):
                    for i in range(dim):
                        acc = y[i]
                        for q in range(s):
                            acc += h * A[s, q] * K[q, i]
                        ys[i] = acc
                    _small_field(kind, ys, K[s], c, w_re, w_im)
                for i in range(dim):
                    acc = y[i]
                    for q in range(N_STAGES):
                        acc += h * _B[q] * K[q, i]
                    yn[i] = acc
                _small_field(kind, yn, K[12], c, w_re, w_im)
                nfev[p] += N_STAGES
                s5 = 0.0
                s3 = 0.0
                for i in range(dim):
                    a5 = 0.0
                    a3 = 0.0
                    for q in range(13):
                        a5 += _E5[q] * K[q, i]
                        a3 += _E3[q] * K[q, i]
                    scale = atol + max(abs(y[i]), abs(yn[i])) * rtol
                    s5 += (a5 / scale) ** 2
                    s3 += (a3 / scale) ** 2
                if not (np.isfinite(s5) and np.isfinite(s3)):
                    status[p] = NOT_FINITE
                    break
                err = _dop853_error(h, s5, s3, dim)
                if err < 1:
                    factor = _accept_factor(err, rejected)
                    have_dense = False
                    while j < m and obs_t[j] <= t_new:
                        if obs_t[j] == t_new:
                            obs[ia, j] = _small_observe(kind, yn, w_re, w_im)
                        else:
                            if not have_dense:
                                for s in range(13, 16):
                                    for i in range(dim):
                                        acc = y[i]
                                        for q in range(s):
                                            acc += h * A[s, q] * K[q, i]
                                        ys[i] = acc
                                    _small_field(kind, ys, K[s], c, w_re, w_im)
                                nfev[p] += 3
                                for i in range(dim):
                                    dy = yn[i] - y[i]
                                    F[0, i] = dy
                                    F[1, i] = h * K[0, i] - dy
                                    F[2, i] = 2 * dy - h * (K[12, i] + K[0, i])
                                    for r in range(4):
                                        acc = 0.0
                                        for q in range(16):
                                            acc += _D[r, q] * K[q, i]
                                        F[3 + r, i] = h * acc
                                have_dense = True
                            xf = (obs_t[j] - tp) / h
                            for i in range(dim):
                                acc = 0.0
                                for q in range(7):
                                    acc += F[6 - q, i]
                                    acc *= xf if q % 2 == 0 else 1 - xf
                                ys[i] = y[i] + acc
                            obs[ia, j] = _small_observe(kind, ys, w_re, w_im)
                        j += 1
                    for i in range(dim):
                        y[i] = yn[i]
                        K[0, i] = K[12, i]
                    h_abs = h * factor if t_new < t_end else max(h_abs, h * factor)
                    tp = t_new
                    nsteps[p] += 1
                    break
                h_abs *= max(MIN_FACTOR, SAFETY * err ** ERROR_EXPONENT)
                rejected = True
            if status[p] != OK:
                break
        t[p] = tp
        h_next[p] = h_abs


#: The parts of :func:`warm_up`. ``stages`` (stage passes 1..10), ``dense`` (the initial step, stage 11 with the
#: error norm, the dense-output stages) and ``small`` (:func:`advance_small`) compile independently, each into the
#: shared cache, so a build compiles them in parallel jobs; ``driver`` (:func:`advance_phase_points`) then links
#: the machine code of ``stages`` and ``dense`` from the cache (or compiles what is missing itself). The driver's
#: code is the same either way (numba caches a callee's optimised IR with its machine code and links that IR).
WARM_UP_PARTS = ("stages", "dense", "small", "driver")


def warm_up(parts=WARM_UP_PARTS) -> None:
    """Compile (or load from numba's cache) the kernels of ``parts`` (:data:`WARM_UP_PARTS`) on a tiny problem,
    with the argument types :func:`advance_phase_points` passes its callees, so that the pipeline's parallel jobs
    find them compiled (rules ``compile_kernel_part`` and ``compile_kernels``). :func:`field_floor` (benchmarks
    only) is left to its first call."""
    unknown = sorted(set(parts) - set(WARM_UP_PARTS))
    if unknown:
        raise ValueError(f"warm_up: unknown part(s) {unknown}; the parts are {list(WARM_UP_PARTS)}")
    P, n = 1, 8
    z = np.exp(1j * np.linspace(0.1, 3.0, n))
    X = np.ascontiguousarray(np.broadcast_to(z.real, (P, n)))
    Y = np.ascontiguousarray(np.broadcast_to(z.imag, (P, n)))
    tr = np.array([[0.5, 0.1, 0.0]])
    cre = np.array([[0.0, 0.2, 0.1]])
    cim = np.array([[0.3, 0.0, 0.2]])
    beta = np.ones(P)
    zeros, ints = (lambda: np.zeros(P)), (lambda: np.zeros(P, dtype=np.int64))
    times = np.array([0.5, 1.0])
    active = np.arange(P, dtype=np.int64)
    # the callees' arguments, typed as advance_phase_points passes them (rows of C-contiguous 2-d arrays, int64
    # row indices, float64 scalars): the driver then finds exactly these signatures compiled
    x, v, xn, vn = X[0], Y[0], np.zeros(n), np.zeros(n)
    Kx, Kv = np.zeros((16, n)), np.zeros((16, n))
    mkx, mkv, F = np.zeros(16), np.zeros(16), np.zeros((7, 2))
    i0, i12 = np.int64(0), np.int64(12)
    h, mx, mv = 0.01, float(x.mean()), float(v.mean())
    if "stages" in parts:
        _stages_1_to_10(x, v, Kx, Kv, i0, i12, h, mx, mv, mkx, mkv, tr[0], cre[0], cim[0], beta[0])
    if "dense" in parts:
        _initial_step(x, v, Kx[i0], Kv[i0], Kx, Kv, mx, mv, mkx, mkv, 1.0, 1e-7, 1e-9, tr[0], cre[0], cim[0], beta[0],
                      xn.copy(), vn.copy())
        _stage_11_new_state_and_error(x, v, Kx, Kv, i0, h, 0.1, 0.1, 0.1, xn, vn, 1e-7, 1e-9)
        _dense_means(x, v, Kx, Kv, i0, i12, h, mx, mv, mx, mv, mkx, mkv, tr[0], cre[0], cim[0], beta[0], F)
    if "driver" in parts:
        advance_phase_points(X, Y, zeros(), zeros(), tr, cre, cim, beta, 1.0, times, np.empty((P, 2), complex),
                             active, 1e-7, 1e-9, ints(), ints(), ints())
    if "small" in parts:
        cf = np.concatenate([tr, cre, cim, beta[:, None]], axis=1)
        w = np.exp(1j * np.linspace(0.0, 6.0, n))
        for kind, dim in ((OA_KIND, 2), (WS_KIND, 3)):
            advance_small(kind, np.full((P, dim), 0.01), zeros(), zeros(), cf, np.ascontiguousarray(w.real),
                          np.ascontiguousarray(w.imag), 1.0, times, np.empty((P, 2), complex), active, 1e-10, 1e-12,
                          ints(), ints(), ints())
