r"""Compiled (numba) passes of the d = 2 softmax moment form (:mod:`lsadyn.fields.kuramoto_daido`, its derivation).

* :func:`moments_kernel`: :math:`Z_m = \frac1n\sum_j z_j^m`, m = 0..K-1, for B populations z (B, n), by a running
  power per token (one complex product per token and harmonic).
* :func:`sums_kernel`: per token k the look :math:`x_k e^{i\phi_k} = \beta(\bar\alpha z_k + \gamma\bar z_k)`, the
  weights :math:`u_m = e^{-x_k}I_m(x_k)` (Miller's backward recurrence :math:`I_{m-1} = I_{m+1} + (2m/x) I_m` from
  m = M + RATIO_START, rescaled when it grows past 1e250, normalised by :math:`\sum_{m\in\mathbb Z} u_m = 1`), and
  :math:`\sum_{|m|\le M} u_{|m|}\zeta_k^m C_{q,m}` for each row q of C (B, k, 2M+1), :math:`\zeta_k = e^{-i\phi_k}`.

The numpy path of :mod:`lsadyn.fields.kuramoto_daido` (``compiled=False``) computes the same numbers; the tests
compare the two. Arrays are real and imaginary parts, C-contiguous float64.
"""

from __future__ import annotations

import numba
import numpy as np

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)


@numba.njit(cache=True, nogil=True)
def moments_kernel(zr, zi, Zr, Zi):
    """Zr + i Zi (B, K) += Σ_j z_j^m over the tokens zr + i zi (B, n) (the caller divides by n)."""
    B, n = zr.shape
    K = Zr.shape[1]
    for b in range(B):
        for j in range(n):
            a = zr[b, j]
            c = zi[b, j]
            pr = 1.0
            pi = 0.0
            for m in range(K):
                Zr[b, m] += pr
                Zi[b, m] += pi
                pr, pi = pr * a - pi * c, pr * c + pi * a


@numba.njit(cache=True, nogil=True)
def sums_kernel(zr, zi, ar, ai, gr, gi, beta, Cr, Ci, M, start, lsa, outr, outi, xs):
    """outr + i outi (B, k, n) = Σ_{|m|≤M} u_{|m|}(x) ζ^m C[b, q, m + M] per token, xs (B, n) = x; α = ar + i ai,
    γ = gr + i gi, beta: (B,). ``lsa``: weights u_0 = 0, u_1 = x/2 (h(y) = y, M = 1); else the Bessel weights,
    recurrence started at m = M + ``start``."""
    B, n = zr.shape
    k = Cr.shape[1]
    top = M + start
    u = np.empty(M + 1)
    for b in range(B):
        for j in range(n):
            a = zr[b, j]
            c = zi[b, j]
            wr = ar[b] * a + ai[b] * c + gr[b] * a + gi[b] * c  # conj(alpha) z + gamma conj(z)
            wi = ar[b] * c - ai[b] * a + gi[b] * a - gr[b] * c
            rho = np.sqrt(wr * wr + wi * wi)
            x = beta[b] * rho
            xs[b, j] = x
            if rho > 0.0:
                er = wr / rho  # zeta = conj(w) / |w|
                ei = -wi / rho
            else:
                er = 1.0
                ei = 0.0
            if lsa:
                u[0] = 0.0
                u[1] = 0.5 * x
            elif x < 1e-300:
                u[0] = 1.0
                for m in range(1, M + 1):
                    u[m] = 0.0
            else:
                two_over_x = 2.0 / x
                nxt = 0.0  # I_{m+1}
                cur = 1.0  # I_m, from m = top down
                total = cur  # sum of I_m for 1 <= m <= top, so far
                for m in range(top, 0, -1):
                    prev = nxt + m * two_over_x * cur  # I_{m-1}
                    nxt = cur
                    cur = prev
                    if m - 1 >= 1:
                        total += cur
                    if m - 1 <= M:
                        u[m - 1] = cur
                    if cur > 1e250:
                        s = 1e-250
                        cur *= s
                        nxt *= s
                        total *= s
                        for q in range(m - 1, M + 1):
                            u[q] *= s
                norm = 1.0 / (u[0] + 2.0 * total)
                for m in range(M + 1):
                    u[m] *= norm
            for q in range(k):
                accr = 0.0
                acci = 0.0
                pr = 1.0  # zeta^m
                pi = 0.0
                for m in range(M + 1):
                    tr = u[m] * pr
                    ti = u[m] * pi
                    c1r = Cr[b, q, M + m]
                    c1i = Ci[b, q, M + m]
                    accr += tr * c1r - ti * c1i
                    acci += tr * c1i + ti * c1r
                    if m > 0:  # u_m conj(zeta)^m C_{-m}
                        c2r = Cr[b, q, M - m]
                        c2i = Ci[b, q, M - m]
                        accr += tr * c2r + ti * c2i
                        acci += tr * c2i - ti * c2r
                    pr, pi = pr * er - pi * ei, pr * ei + pi * er
                outr[b, q, j] = accr
                outi[b, q, j] = acci
