r"""Compiled (numba) fixed-step RK4 of d = 2 USA tokens with A = I in their angles, the whole run in one call,
and of its linearisation (tangent flow). Used by the long runs of the USA oscillation (``lsadyn.paper.usa_oscillation``),
where the Python overhead of one field evaluation (~0.3 ms) would dominate 10⁴-τ runs of a few hundred tokens.

**Field** (:mod:`lsadyn.fields.kuramoto_daido` with A = I: α = 1, γ = 0, so every token looks along itself,
:math:`x_k = \beta`, :math:`\zeta_k = e^{-i\theta_k}`, and the Bessel weights :math:`I_{|m|}(\beta)` are the same for
every token). With :math:`Vz = \nu z + \mu\bar z` and :math:`Z_q = \frac1n\sum_j e^{iq\theta_j}`
(:math:`Z_{-q} = \bar Z_q`), in the time s = t/τ of the run,

.. math::
    \frac{d\theta_k}{ds} = \tau\,\mathrm{Im}\sum_{p=1-M}^{1+M} I_{|p-1|}(\beta)\,(\nu Z_p + \mu Z_{p-2})\,e^{-ip\theta_k}
    = \mathrm{Im}\sum_{p=0}^{M+1} H_p\,w_k^p,\qquad w_k = e^{-i\theta_k},

with :math:`G_p = \tau I_{|p-1|}(\beta)(\nu Z_p + \mu Z_{p-2})`, :math:`H_0 = G_0`, :math:`H_p = G_p - \overline{G_{-p}}`
(p ≥ 1; :math:`G_p = 0` outside |p − 1| ≤ M). M = :func:`lsadyn.fields.kuramoto_daido.bessel_cutoff` (β): the
dropped kernel terms are below 1e-17 of e^β. Two passes over the tokens per evaluation (the moments Z_0..Z_{M+1};
the sum), O(n M), no allocation.

**Tangent** (:func:`tangent_run`): for a perturbation δθ, :math:`\delta Z_q = \frac1n\sum_j iq\,e^{iq\theta_j}\delta\theta_j`
and

.. math::
    \frac{d\,\delta\theta_k}{ds} = \mathrm{Im}\Big(\sum_p (-ip) H_p w_k^p\Big)\delta\theta_k
        + \mathrm{Im}\sum_p \delta H_p\,w_k^p ,

δH from δZ as H from Z (linear). The pair (θ, δθ) is stepped by the same RK4; δθ is renormalised to unit RMS at
every sample and the logarithms of the factors are accumulated, so the growth of any length of run is kept.

**Stepping.** Classical RK4 with step h in s, samples every ``every`` steps (first at s = 0): Z_1 and Z_2 of the
state. :func:`phase_run` stops ``extra`` samples after the first sample with :math:`|Z_1|` ≥ ``stop_abs_z1`` (no
stop when it is > 1). Single-threaded: one job uses one core.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import _kernel_cache  # noqa: F401  (registers the shared, content-keyed numba cache)


@njit(cache=True, nogil=True)
def _moments(th, K, Zr, Zi):
    """Zr + i Zi (K,) = (1/n) Σ_j e^{iqθ_j}, q = 0..K-1."""
    n = th.shape[0]
    for q in range(K):
        Zr[q] = 0.0
        Zi[q] = 0.0
    for j in range(n):
        a = np.cos(th[j])
        c = np.sin(th[j])
        pr = 1.0
        pi = 0.0
        for q in range(K):
            Zr[q] += pr
            Zi[q] += pi
            pr, pi = pr * a - pi * c, pr * c + pi * a
    for q in range(K):
        Zr[q] /= n
        Zi[q] /= n


@njit(cache=True, nogil=True)
def _h_coefficients(Zr, Zi, cb, nur, nui, mur, mui, M, Hr, Hi):
    """H_p, p = 0..M+1, from Z_q (q = 0..M+1, Z_{-q} = conj) and cb[m] = τ I_m(β), m = 0..M (module docstring)."""
    P = M + 1
    for p in range(P + 1):
        Hr[p] = 0.0
        Hi[p] = 0.0
    for p in range(1 - M, M + 2):
        c = cb[abs(p - 1)]
        # Z_p and Z_{p-2} with Z_{-q} = conj(Z_q)
        ar = Zr[abs(p)]
        ai = Zi[abs(p)] if p >= 0 else -Zi[-p]
        br = Zr[abs(p - 2)]
        bi = Zi[abs(p - 2)] if p >= 2 else -Zi[2 - p]
        gr = c * (nur * ar - nui * ai + mur * br - mui * bi)
        gi = c * (nur * ai + nui * ar + mur * bi + mui * br)
        if p >= 0:
            Hr[p] += gr
            Hi[p] += gi
        else:  # H_{-p} -= conj(G_p)
            Hr[-p] -= gr
            Hi[-p] += gi


@njit(cache=True, nogil=True)
def _velocity(th, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, out, cr, ci, pr, pi):
    """out (n,) = dθ/ds of the angles th (n,); Zr, Zi, Hr, Hi (M+2,) and cr, ci, pr, pi (n,) scratch. Loops over the
    harmonics outside and the tokens inside (vectorised by the compiler)."""
    n = th.shape[0]
    P = M + 1
    for k in range(n):
        cr[k] = np.cos(th[k])
        ci[k] = np.sin(th[k])
        pr[k] = 1.0
        pi[k] = 0.0
    for q in range(P + 1):  # Z_q, with pr + i pi = e^{iqθ}
        sr = 0.0
        si = 0.0
        for k in range(n):
            sr += pr[k]
            si += pi[k]
            a = pr[k] * cr[k] - pi[k] * ci[k]
            pi[k] = pr[k] * ci[k] + pi[k] * cr[k]
            pr[k] = a
        Zr[q] = sr / n
        Zi[q] = si / n
    _h_coefficients(Zr, Zi, cb, nur, nui, mur, mui, M, Hr, Hi)
    for k in range(n):
        out[k] = 0.0
        pr[k] = 1.0
        pi[k] = 0.0
    for p in range(P + 1):  # Im(H_p w^p) with w^p = conj(e^{ipθ})
        hr = Hr[p]
        hi = Hi[p]
        for k in range(n):
            out[k] += hi * pr[k] - hr * pi[k]
            a = pr[k] * cr[k] - pi[k] * ci[k]
            pi[k] = pr[k] * ci[k] + pi[k] * cr[k]
            pr[k] = a


@njit(cache=True, nogil=True)
def velocity(th, cb, nur, nui, mur, mui, M):
    """dθ/ds (n,) of angles th (n,) (allocating; tests and one-off evaluations)."""
    K = M + 2
    n = th.shape[0]
    out = np.empty(n)
    _velocity(th, cb, nur, nui, mur, mui, M, np.empty(K), np.empty(K), np.empty(K), np.empty(K), out, np.empty(n),
              np.empty(n), np.empty(n), np.empty(n))
    return out


@njit(cache=True, nogil=True)
def phase_run(th, cb, nur, nui, mur, mui, M, h, n_samples, every, stop_abs_z1, extra, Z1, Z2):
    """RK4 of the angles th (n,) (advanced in place) for up to (n_samples − 1)·every steps of size h; Z1, Z2
    (n_samples, 2) get [Re, Im] at each sample. Returns the number of samples filled (module docstring: the stop)."""
    n = th.shape[0]
    K = M + 2
    Zr = np.empty(K)
    Zi = np.empty(K)
    Hr = np.empty(K)
    Hi = np.empty(K)
    k1 = np.empty(n)
    k2 = np.empty(n)
    k3 = np.empty(n)
    k4 = np.empty(n)
    y = np.empty(n)
    cr = np.empty(n)
    ci = np.empty(n)
    pr = np.empty(n)
    pi = np.empty(n)
    Zr2 = np.empty(3)
    Zi2 = np.empty(3)
    stop_at = -1
    for s in range(n_samples):
        if s > 0:
            for _ in range(every):
                _velocity(th, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, k1, cr, ci, pr, pi)
                for k in range(n):
                    y[k] = th[k] + 0.5 * h * k1[k]
                _velocity(y, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, k2, cr, ci, pr, pi)
                for k in range(n):
                    y[k] = th[k] + 0.5 * h * k2[k]
                _velocity(y, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, k3, cr, ci, pr, pi)
                for k in range(n):
                    y[k] = th[k] + h * k3[k]
                _velocity(y, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, k4, cr, ci, pr, pi)
                for k in range(n):
                    th[k] += h / 6.0 * (k1[k] + 2.0 * k2[k] + 2.0 * k3[k] + k4[k])
        _moments(th, 3, Zr2, Zi2)
        Z1[s, 0] = Zr2[1]
        Z1[s, 1] = Zi2[1]
        Z2[s, 0] = Zr2[2]
        Z2[s, 1] = Zi2[2]
        if stop_at < 0 and Zr2[1] * Zr2[1] + Zi2[1] * Zi2[1] >= stop_abs_z1 * stop_abs_z1:
            stop_at = s + extra
        if stop_at >= 0 and s >= stop_at:
            return s + 1
    return n_samples


@njit(cache=True, nogil=True)
def _tangent_velocity(th, dth, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, dZr, dZi, dHr, dHi, out, dout):
    """out = dθ/ds, dout = d δθ/ds (module docstring)."""
    n = th.shape[0]
    P = M + 1
    K = P + 1
    _moments(th, K, Zr, Zi)
    _h_coefficients(Zr, Zi, cb, nur, nui, mur, mui, M, Hr, Hi)
    for q in range(K):
        dZr[q] = 0.0
        dZi[q] = 0.0
    for j in range(n):  # δZ_q = (1/n) Σ_j i q e^{iqθ_j} δθ_j
        a = np.cos(th[j])
        c = np.sin(th[j])
        pr = 1.0
        pi = 0.0
        for q in range(K):
            dZr[q] -= q * pi * dth[j]
            dZi[q] += q * pr * dth[j]
            pr, pi = pr * a - pi * c, pr * c + pi * a
    for q in range(K):
        dZr[q] /= n
        dZi[q] /= n
    _h_coefficients(dZr, dZi, cb, nur, nui, mur, mui, M, dHr, dHi)
    for k in range(n):
        a = np.cos(th[k])
        c = -np.sin(th[k])
        pr = 1.0
        pi = 0.0
        acc = 0.0
        dacc = 0.0
        slope = 0.0
        for p in range(P + 1):
            acc += Hr[p] * pi + Hi[p] * pr
            dacc += dHr[p] * pi + dHi[p] * pr
            slope += -p * (Hr[p] * pr - Hi[p] * pi)  # Im(-i p H_p w^p) = -p Re(H_p w^p)
            pr, pi = pr * a - pi * c, pr * c + pi * a
        out[k] = acc
        dout[k] = slope * dth[k] + dacc


@njit(cache=True, nogil=True)
def tangent_run(th, dth, cb, nur, nui, mur, mui, M, h, n_samples, every, symmetric, log_growth, dZ1):
    """RK4 of (θ, δθ) (both (n,), in place). At each sample (first at s = 0) δθ is renormalised to unit RMS;
    log_growth (n_samples,) gets the accumulated log of the factors (0 at the first sample), dZ1 (n_samples, 2)
    δZ_1 of the unit δθ. ``symmetric`` (n even): after every step the second half of the tokens is set to the
    first half + π and δθ's second half to minus its first half, so the base orbit stays on the antipodally
    symmetric subspace (round-off there would otherwise grow like the perturbation) and δθ in the
    symmetry-breaking one."""
    n = th.shape[0]
    half = n // 2
    K = M + 2
    Zr = np.empty(K)
    Zi = np.empty(K)
    Hr = np.empty(K)
    Hi = np.empty(K)
    dZr = np.empty(K)
    dZi = np.empty(K)
    dHr = np.empty(K)
    dHi = np.empty(K)
    ks = np.empty((4, n))
    dks = np.empty((4, n))
    y = np.empty(n)
    dy = np.empty(n)
    total = 0.0
    for s in range(n_samples):
        if s > 0:
            for _ in range(every):
                for st in range(4):
                    if st == 0:
                        for k in range(n):
                            y[k] = th[k]
                            dy[k] = dth[k]
                    else:
                        f = 1.0 if st == 3 else 0.5
                        for k in range(n):
                            y[k] = th[k] + f * h * ks[st - 1, k]
                            dy[k] = dth[k] + f * h * dks[st - 1, k]
                    _tangent_velocity(y, dy, cb, nur, nui, mur, mui, M, Zr, Zi, Hr, Hi, dZr, dZi, dHr, dHi,
                                      ks[st], dks[st])
                for k in range(n):
                    th[k] += h / 6.0 * (ks[0, k] + 2.0 * ks[1, k] + 2.0 * ks[2, k] + ks[3, k])
                    dth[k] += h / 6.0 * (dks[0, k] + 2.0 * dks[1, k] + 2.0 * dks[2, k] + dks[3, k])
                if symmetric:
                    for k in range(half):
                        th[k + half] = th[k] + np.pi
                        dth[k + half] = -dth[k]
        nrm = 0.0
        for k in range(n):
            nrm += dth[k] * dth[k]
        nrm = np.sqrt(nrm / n)
        if s > 0:
            total += np.log(nrm)
        for k in range(n):
            dth[k] /= nrm
        log_growth[s] = total
        zr = 0.0
        zi = 0.0
        for k in range(n):  # δZ_1 = (1/n) Σ i e^{iθ} δθ
            zr -= np.sin(th[k]) * dth[k]
            zi += np.cos(th[k]) * dth[k]
        dZ1[s, 0] = zr / n
        dZ1[s, 1] = zi / n


def coefficients(A, V, beta: float, tau: float = 1.0) -> tuple:
    """The arguments (cb, ν.re, ν.im, μ.re, μ.im, M) the kernels take for USA with ``A`` = I (2, 2), ``V`` (2, 2),
    ``beta`` > 0, time unit ``tau``: cb[m] = τ I_m(β), m = 0..M, and V z = ν z + μ z̄."""
    from scipy.special import iv

    from ..fields.kuramoto_daido import bessel_cutoff, complex_form

    A = np.asarray(A, dtype=float)
    if A.shape != (2, 2) or not np.array_equal(A, np.eye(2)):
        raise ValueError(f"A: the compiled USA phase run needs A = I (2, 2), got {A.tolist()}")
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta: must be finite and > 0, got {beta!r}")
    M = bessel_cutoff(float(beta))
    nu, mu = complex_form(np.asarray(V, dtype=float))
    cb = float(tau) * iv(np.arange(M + 1), float(beta))
    return cb, float(nu.real), float(nu.imag), float(mu.real), float(mu.imag), int(M)
