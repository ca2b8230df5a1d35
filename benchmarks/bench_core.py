"""Speed of the core fields (issue: lsadyn core). Prints a table, writes benchmarks/results.json.

Each entry is the best of several repeats of one field evaluation (``evals_per_s``) and
``token_steps_per_s = n · evals_per_s``. Ratios are measured within this one run.
Usage: ``python benchmarks/bench_core.py [--quick]``; ``--profile-tokens2d`` prints where a d = 2 token step goes;
``--only-highdim`` / ``--only-tokens2d`` / ``--only-daido`` (d = 2 softmax by moments) refresh one group of rows.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from lsadyn import attention, kuramoto_coefficients, lsa_field, uniform_sphere, usa_field
from lsadyn.fields.attention import lsa_field_pairwise
from lsadyn.reductions.kuramoto import angle_field
from lsadyn.reductions.watanabe_strogatz import ws_field, ws_from_angles

OUT = Path(__file__).with_name("results.json")


def best_time(fn, repeats=5, min_time=0.2):
    """Best wall time of one call of ``fn`` over ``repeats`` batches lasting ≥ ``min_time`` each."""
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    loops = max(1, int(min_time / max(one, 1e-9)))
    best = np.inf
    for _ in range(repeats if one < 2 else 1):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        best = min(best, (time.perf_counter() - t0) / loops)
    return best


def row(name, n, d, seconds, note=""):
    return {"name": name, "n": n, "d": d, "seconds_per_eval": seconds, "evals_per_s": 1 / seconds,
            "token_steps_per_s": n / seconds, "note": note}


def bench_lsa(rows, sizes):
    ratios = {}
    for d in (2, 100):
        rng = np.random.default_rng(d)
        p = attention(rng.standard_normal((d, d)), rng.standard_normal((d, d)))
        for n in sizes:
            X = uniform_sphere(n, d, seed=0)
            fast = best_time(lambda: lsa_field(0, X, p))
            rows.append(row("lsa_fast", n, d, fast))
            if n <= 10_000:
                slow = best_time(lambda: lsa_field_pairwise(0, X, p), repeats=1, min_time=0)
                note = ""
            else:  # the reference is O(n^2 d): time 1000 rows and scale by n/1000 (cost per row is uniform)
                m = 1000
                sub = X[:m]
                AX = X @ p.A.T
                VX = X @ p.V.T

                def partial():
                    for k in range(m):
                        w = p.beta * (AX @ sub[k])
                        s = (w @ VX) / n
                        _ = s - (sub[k] @ s) * sub[k]

                slow = best_time(partial, repeats=1, min_time=0) * n / m
                note = "pairwise extrapolated from 1000 rows"
            rows.append(row("lsa_pairwise", n, d, slow, note))
            ratios[f"lsa_fast_over_pairwise_n{n}_d{d}"] = slow / fast
    return ratios


def bench_usa(rows, sizes):
    ratios = {}
    d = 100
    rng = np.random.default_rng(7)
    p = attention(rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d))
    for n in sizes:
        X = uniform_sphere(n, d, seed=1)
        t_field = best_time(lambda: usa_field(0, X, p), repeats=3)

        def floor():  # the products and the one exp the USA field cannot avoid
            K = np.exp(p.beta * (X @ p.A) @ X.T)
            return (K @ X) @ p.V.T

        t_floor = best_time(floor, repeats=3)
        rows.append(row("usa_field", n, d, t_field))
        rows.append(row("usa_floor", n, d, t_floor, "exp(beta X A X^T) then K X V^T"))
        ratios[f"usa_over_floor_n{n}"] = t_field / t_floor
    return ratios


def bench_ws(rows, sizes):
    ratios = {}
    rng = np.random.default_rng(3)
    coeffs = kuramoto_coefficients(rng.standard_normal((2, 2)), rng.standard_normal((2, 2)))
    y = np.array([0.3, -0.4, 1.1])  # |alpha| = 0.5: the moment series needs ~50 terms
    for n in sizes:
        theta = rng.uniform(0, 2 * np.pi, n)
        _, const = ws_from_angles(theta, coeffs)
        t_ws = best_time(lambda: ws_field(0, y, const))
        t_np = best_time(lambda: angle_field(0, theta, coeffs))
        rows.append(row("ws_step", n, 2, t_ws, "|alpha| = 0.5"))
        rows.append(row("particle_step", n, 2, t_np, "angle form, O(n)"))
        ratios[f"ws_step_seconds_n{n}"] = t_ws
    ratios["ws_step_cost_ratio_largest_over_smallest_n"] = ratios[f"ws_step_seconds_n{sizes[-1]}"] / ratios[
        f"ws_step_seconds_n{sizes[0]}"]
    return ratios


def bench_tokens_2d(rows, n=1000, points=16, rounds=7):
    """d = 2 token run (lsadyn.solvers.phase_points, DOP853 per point) per point-token-evaluation against the fused
    compiled field alone on the same arrays (the floor), and the scipy reference path, in this one run: ``rounds``
    runs and ``rounds`` floor batches (≥ 0.2 s each) in alternation, best of each.

    The run integrates ``points`` parameter points (random A, V = I and A = I, random V) × ``n`` tokens to
    s = 400 observing the classifier's window (600 samples in [280, 400]), as the pipeline does; its cost per
    point-token-evaluation is wall time / (Σ field evaluations × n). Evaluations are counted as performed: 12 per
    accepted step (stages 1..11 and the FSAL evaluation at y_new), 11 per rejected attempt (no FSAL), 3 more for
    a step whose interval holds sample times (dense output). Also recorded: the whole run's wall time and its
    steps, so a change that lowers the cost per evaluation by evaluating more shows up, and scipy's evaluation
    counts of its other embedded pairs on four of the points (:func:`pair_comparison`)."""
    from lsadyn.api import _batch_inputs
    from lsadyn.runs import PhasePointRun, PhasePointRunScipy
    from lsadyn.solvers.phase_points import field_floor
    from lsadyn.sampling import uniform_angles
    from lsadyn.reductions.kuramoto import kuramoto_coefficients, phase_point_field

    rng = np.random.default_rng(5)
    half = points // 2
    A = np.concatenate([rng.standard_normal((half, 2, 2)), np.broadcast_to(np.eye(2), (points - half, 2, 2))])
    V = np.concatenate([np.broadcast_to(np.eye(2), (half, 2, 2)), rng.standard_normal((points - half, 2, 2))])
    A, V, beta, tau = _batch_inputs(A, V, 1.0)
    coeffs = kuramoto_coefficients(A, V, beta * tau)
    z0 = np.exp(2j * uniform_angles(n, 1))
    window = np.linspace(280.0, 400.0, 600)
    idx = np.arange(points)
    PhasePointRun(coeffs, z0, 1e-7, 1e-9).advance(idx[:1], np.array([1.0]))  # load the compiled kernels

    def one_run():
        run = PhasePointRun(coeffs, z0, 1e-7, 1e-9)
        t0 = time.perf_counter()
        run.advance(idx, window)
        return time.perf_counter() - t0, int(run.nfev.sum()), int(run.nsteps.sum())

    ref = PhasePointRun(coeffs, z0, 1e-7, 1e-9)
    X, Y = ref.X, ref.Y
    OX, OY = np.empty_like(X), np.empty_like(Y)
    floor_batch = _compiled_floor_batch(field_floor)

    def floor(loops=1):
        # `loops` evaluations in one compiled call: a call from Python costs ~0.5-1 µs of numba dispatch, ~10 % of one
        # evaluation of 16 points x 1000 tokens, which timed call by call made the floor look slower than the field is
        return floor_batch(loops, X, Y, ref.tr, ref.cre, ref.cim, ref.beta, OX, OY)

    # run and floor in alternation (as _interleaved_best does for the d = 100 rows): the machine's speed drifts
    # between moments, so both sides of the ratio are timed in the same minutes; best of `rounds` each
    floor()
    t0 = time.perf_counter()
    floor()
    loops = max(1, int(0.2 / max(time.perf_counter() - t0, 1e-9)))
    best, t_floor, round_ratios = (np.inf, 0, 0), np.inf, []
    for _ in range(rounds):
        this = one_run()
        best = min(best, this)
        t0 = time.perf_counter()
        floor(loops)
        this_floor = (time.perf_counter() - t0) / loops
        t_floor = min(t_floor, this_floor)
        round_ratios.append((this[0] / this[1]) / (this_floor / points))
    t_eval = best[0] / (best[1] * n)
    t_floor /= points * n
    # scipy reference (4 points, to s = 40): the same field through scipy's DOP853, evaluations counted
    calls = [0]

    def counted(t, y, c):
        calls[0] += 1
        return phase_point_field(t, y, c)

    sub = np.arange(4)
    sc = PhasePointRunScipy(kuramoto_coefficients(A[sub], V[sub], (beta * tau)[sub]), z0, 1e-7, 1e-9, 4)
    import lsadyn.api as api

    orig, api.phase_point_field = api.phase_point_field, counted
    try:
        t0 = time.perf_counter()
        sc.advance(sub, np.linspace(28.0, 40.0, 60))
        t_scipy = (time.perf_counter() - t0) / (calls[0] * 4 * n)
    finally:
        api.phase_point_field = orig
    rows.append(row("tokens2d_run", n, 2, t_eval, f"compiled DOP853, per point-token-evaluation, {points} points"))
    rows.append(row("tokens2d_floor", n, 2, t_floor, "fused compiled field alone, per point-token"))
    rows.append(row("tokens2d_scipy", n, 2, t_scipy, "scipy DOP853 reference, per point-token-evaluation"))
    return {"token_run_ns_per_point_token_eval": t_eval * 1e9, "token_floor_ns_per_point_token": t_floor * 1e9,
            "token_run_over_floor": t_eval / t_floor, "token_scipy_over_floor": t_scipy / t_floor,
            "token_rounds": rounds, "token_run_over_floor_median_round": float(np.median(round_ratios)),
            "token_run_over_floor_worst_round": float(np.max(round_ratios)),
            "token_evals_per_point": best[1] / points, "token_steps_per_point": best[2] / points,
            "token_run_seconds_16_points_n1000": best[0],
            **{k: v for k, v in step_bounds().items() if k.startswith("token_")},
            # two points of each family (random A, V = I and A = I, random V), at the run's tolerances
            **pair_comparison(coeffs, z0, [0, 1, half, half + 1], 1e-7, 1e-9)}


def step_bounds() -> dict:
    """Lower bounds of the d = 2 token run's cost per evaluation relative to the floor, from DOP853's tableau: the
    floating-point operations of one step (12 evaluations) against 12 floor evaluations (the bound when both are
    limited by arithmetic), and the token-arrays of n doubles a step streams (reads + writes) against 12 floor
    evaluations (the bound when both are limited by cache bandwidth: with 1000 tokens the 13 stage rows, y and
    y_new, ~240 KB, live in L2, not L1). The floor streams 6 arrays per evaluation (its mean pass reads 2, its field
    pass reads 2 and writes 2); stage s of 1..10 reads y and its nnz(s) earlier rows and writes its own
    (2 + 2 nnz + 2); stage 11 shares its pass with y_new and the error (its loop, then one loop per component
    reading y and the rows of B, writing y_new); the FSAL evaluation reads y_new and writes K_12 (4). Flops per
    token: the field 12 and 2 mean sums per evaluation; 2 multiply-adds per stage coefficient; per component nb
    for S = Σ_j b_j K_j, 1 for y_new = y + h S, nb for E5, 4 for E3 = S − (3 BHH terms); ~8 per component for the
    scale and the squared errors. Steps with sample times add 3 dense-output evaluations (not counted here)."""
    from scipy.integrate._ivp import dop853_coefficients as dop

    from lsadyn.solvers.phase_points import N_STAGES

    nnz = {s: int(np.count_nonzero(dop.A[s, :s])) for s in range(1, N_STAGES)}
    nb = int(np.count_nonzero(dop.B))
    streams = {s: 2 + 2 * nnz[s] + 2 for s in range(1, N_STAGES - 1)}
    streams[N_STAGES - 1] = 2 + 2 * nnz[N_STAGES - 1] + 2 + 2 * (1 + nb + 1)
    field, sums = 12, 2
    flops = 12 * (field + sums) + 2 * sum(nnz.values()) + 2 * (2 * nb + 5) + 2 * 8
    arrays = sum(streams.values()) + 4
    return {"nnz": nnz, "streams": streams, "step_flops": flops, "floor_flops": 12 * (field + sums),
            "step_arrays": arrays, "floor_arrays": 12 * 6,
            "token_step_flops_over_floor": flops / (12 * (field + sums)),
            "token_step_arrays_over_floor": arrays / (12 * 6)}


#: scipy's other embedded Runge–Kutta pairs, compared with DOP853 by :func:`pair_comparison`
OTHER_PAIRS = ("RK45", "RK23")


def pair_arithmetic_bound(method: str) -> float:
    """The arithmetic bound of :func:`step_bounds` (floating-point operations of one step over those of as many
    floor evaluations as the step evaluates) for a scipy pair: ``"DOP853"`` (as :func:`step_bounds`) or an FSAL
    pair with one error estimate (``"RK45"``: Dormand–Prince 5(4), 6 evaluations per step; ``"RK23"``:
    Bogacki–Shampine 3(2), 3). Same model: the field 12 and 2 mean sums per evaluation, 2 multiply-adds per
    nonzero stage coefficient, per component nnz(B) for S, 1 for y_new, nnz(E) for the error, ~8 for the scale and
    the squared error."""
    if method == "DOP853":
        return step_bounds()["token_step_flops_over_floor"]
    from scipy.integrate._ivp import rk

    pair = getattr(rk, method)
    evals = pair.n_stages  # stages 1..n_stages-1 and the FSAL evaluation at y_new
    nnz = sum(int(np.count_nonzero(pair.A[s, :s])) for s in range(1, pair.n_stages))
    per_eval = 12 + 2
    flops = evals * per_eval + 2 * nnz + 2 * (int(np.count_nonzero(pair.B)) + 1 + int(np.count_nonzero(pair.E))) + 2 * 8
    return flops / (evals * per_eval)


def pair_comparison(coeffs, z0, points, rtol, atol, s_end=400.0) -> dict:
    """Whether another embedded pair would make the d = 2 token run cheaper: scipy's own evaluation counts
    (``solve_ivp``, phase-point field, one point at a time, to ``s_end``) of DOP853 and of :data:`OTHER_PAIRS` on
    the parameter points ``points`` of ``coeffs``, at the token runs' tolerances. A pair's arithmetic per run
    relative to DOP853's is its arithmetic bound per evaluation (:func:`pair_arithmetic_bound`) times its
    evaluations over DOP853's: a pair with a lower bound per evaluation but more evaluations would meet a
    per-evaluation target by making runs slower."""
    from scipy.integrate import solve_ivp

    from lsadyn.runs import _take
    from lsadyn.reductions.kuramoto import phase_point_field

    y0 = np.concatenate([z0.real, z0.imag])
    nfev = {}
    for method in ("DOP853", *OTHER_PAIRS):
        nfev[method] = sum(solve_ivp(phase_point_field, (0.0, s_end), y0, method=method, rtol=rtol, atol=atol,
                                     args=(_take(coeffs, np.array([p])),)).nfev for p in points)
    out = {"token_pairs_points": len(points), "token_pairs_rtol": rtol}
    dop = pair_arithmetic_bound("DOP853")
    for method in OTHER_PAIRS:
        bound, evals = pair_arithmetic_bound(method), nfev[method] / nfev["DOP853"]
        out.update({f"token_pair_{method}_flops_over_floor": bound, f"token_pair_{method}_evals_over_dop853": evals,
                    f"token_pair_{method}_arithmetic_per_run_over_dop853": bound * evals / dop})
    return out


def _compiled_floor_batch(field_floor):
    """A compiled loop calling ``field_floor`` ``loops`` times (no dispatch from Python between evaluations); returns
    a sum of outputs, so no evaluation can be dropped."""
    from numba import njit

    @njit
    def floor_batch(loops, X, Y, tr, cre, cim, beta, OX, OY):
        acc = 0.0
        for r in range(loops):
            field_floor(X, Y, tr, cre, cim, beta, OX, OY)
            acc += OX[r % OX.shape[0], 0]
        return acc

    return floor_batch


def profile_tokens_2d(n=1000, repeats=2000):
    """``--profile-tokens2d``: where a DOP853 step of the d = 2 token run goes, per token (CPU time, so other
    work on the machine counts less): each stage pass 1..10 (stage s reads y and the nnz(s) earlier stage rows,
    evaluates the field, sums the means), the pass of stage 11 with the new state and the error sums (stage 11's
    loop, then one loop per component for y_new and the 5th/3rd-order errors over the 8 rows of B, E5, E3), and the FSAL field at y_new
    (accepted steps only), against the fused field floor, plus the floating-point operation count of a step
    relative to 12 floor evaluations (a lower bound on the ratio when both are limited by arithmetic) and the
    number of token-arrays a step streams (the bound when limited by cache bandwidth; :func:`step_bounds`). The
    floor is timed in one compiled loop (no numba dispatch per evaluation). Prints only."""
    from numba import njit

    from lsadyn.solvers._dop853_stages import _stage_11_new_state_and_error, _stage_pass
    from lsadyn.solvers.phase_points import N_STAGES, _field_row, field_floor

    @njit
    def stages(s, reps, x, v, Kx, Kv):
        acc = 0.0
        for _ in range(reps):
            a, _ = _stage_pass(s, x, v, Kx, Kv, 0, 12, 1e-3, 0.1, 0.2, 0.3)
            acc += a
        return acc

    @njit
    def last_pass(reps, x, v, Kx, Kv, xn, vn):
        acc = 0.0
        for _ in range(reps):
            _, _, c, _ = _stage_11_new_state_and_error(x, v, Kx, Kv, 0, 1e-3, 0.1, 0.2, 0.3, xn, vn, 1e-7, 1e-9)
            acc += c
        return acc

    @njit
    def fsal(reps, xn, vn, Kx, Kv):
        acc = 0.0
        for _ in range(reps):
            a, _ = _field_row(xn, vn, Kx[12], Kv[12], 0.1, 0.2, 0.3)
            acc += a
        return acc

    rng = np.random.default_rng(0)
    th = rng.uniform(0, 2 * np.pi, n)
    x, v = np.cos(th), np.sin(th)
    Kx, Kv = 0.1 * rng.random((16, n)), 0.1 * rng.random((16, n))
    xn, vn = x + 1e-3 * Kx[0], v + 1e-3 * Kv[0]
    P = 16
    X, Y = np.tile(x, (P, 1)), np.tile(v, (P, 1))
    OX, OY = np.empty_like(X), np.empty_like(Y)
    cf = rng.random((3, P, 3))

    def cpu_best(fn, per):
        fn()
        best = np.inf
        for _ in range(5):
            t0 = time.process_time()
            fn()
            best = min(best, time.process_time() - t0)
        return best / per * 1e9

    passes = list(range(1, N_STAGES - 1))
    bounds = step_bounds()
    nnz, streams = bounds["nnz"], bounds["streams"]
    t_stage = [cpu_best(lambda s=s: stages(s, repeats, x, v, Kx, Kv), repeats * n) for s in passes]
    t_last = cpu_best(lambda: last_pass(repeats, x, v, Kx, Kv, xn, vn), repeats * n)
    t_fsal = cpu_best(lambda: fsal(repeats, xn, vn, Kx, Kv), repeats * n)
    floor_batch, ones = _compiled_floor_batch(field_floor), np.ones(P)
    t_floor = cpu_best(lambda: floor_batch(200, X, Y, cf[0], cf[1], cf[2], ones, OX, OY), 200 * P * n)
    print(f"{'pass':<26}{'nnz':>4}{'arrays':>7}{'ns/token':>10}{'x floor':>9}")
    for s, t in zip(passes, t_stage):
        print(f"{'stage ' + str(s):<26}{nnz[s]:>4}{streams[s]:>7}{t:>10.3f}{t / t_floor:>9.2f}")
    print(f"{'stage 11 + y_new + error':<26}{nnz[11]:>4}{streams[11]:>7}{t_last:>10.3f}{t_last / t_floor:>9.2f}")
    print(f"{'stage 12 (FSAL at y_new)':<26}{'':>4}{4:>7}{t_fsal:>10.3f}{t_fsal / t_floor:>9.2f}")
    step = sum(t_stage) + t_last + t_fsal
    print(f"{'floor (field + mean)':<26}{'':>4}{6:>7}{t_floor:>10.3f}{1:>9.2f}")
    print(f"step / 12 evaluations: {step / 12:.3f} ns per token-evaluation = {step / 12 / t_floor:.2f} x floor "
          f"(stage passes 1-10 {100 * sum(t_stage) / step:.0f} %, stage 11 + error {100 * t_last / step:.0f} %, "
          f"FSAL {100 * t_fsal / step:.0f} %)")
    print(f"flop count: step {bounds['step_flops']} vs 12 floor evaluations {bounds['floor_flops']}: "
          f"{bounds['token_step_flops_over_floor']:.2f} x (lower bound of the ratio when arithmetic-bound)")
    print(f"token-arrays streamed: step {bounds['step_arrays']} vs 12 floor evaluations {bounds['floor_arrays']}: "
          f"{bounds['token_step_arrays_over_floor']:.2f} x (lower bound of the ratio when bound by cache bandwidth)")


def bench_bl(rows):
    from lsadyn import distances as bl

    x = np.random.default_rng(11).uniform(0, 2 * np.pi, 10_000)
    t = best_time(lambda: bl.bl_distance_to_uniform(x), repeats=3, min_time=0)
    rows.append(row("bl_to_uniform", 10_000, 2, t, "LP on samples + 4096-point grid (compiled cycle DP)"))
    fast = bl._lp
    try:
        bl._lp = bl._lp_highs  # the reference solver on the same LP
        t_ref = best_time(lambda: bl.bl_distance_to_uniform(x), repeats=3, min_time=0)
    finally:
        bl._lp = fast
    rows.append(row("bl_to_uniform_lp", 10_000, 2, t_ref, "the same LP through scipy's HiGHS IPM (reference)"))
    return {"bl_to_uniform_seconds_n1e4": t, "bl_highs_over_dp_n1e4": t_ref / t}


# --- d > 2 (sphere): fields against their GEMM floors and simulate_regime at d = 100 ------------------------


def _interleaved_best(fns, repeats=7, min_time=0.2):
    """Best time of one call of each function in ``fns``, measured in alternation (the machine's load
    hits all of them alike), ``repeats`` rounds of batches lasting ≥ ``min_time``."""
    loops = []
    for fn in fns:
        fn()
        t0 = time.perf_counter()
        fn()
        loops.append(max(1, int(min_time / max(time.perf_counter() - t0, 1e-9))))
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(loops[i]):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / loops[i])
    return best


#: d = 100 scenarios of simulate_regime (2x2 blocks embedded as in workflow/config/config.yaml highdim).
SIM_SCENARIOS = {
    "identity": ([[1, 0], [0, 1]], [[1, 0], [0, 1]], 1.0, 1.0),
    "oscillation": ([[1, 0], [0, 1]], [[0.5, 1], [-1, -0.5]], 1.0, -2.0),
}


def bench_sphere_highdim(rows, quick=False, threads=1):
    """d = 100 (one BLAS thread unless ``threads``): the LSA field at n = 10⁴ against its two-GEMM floor
    (M = XᵀX and X G, G = β A M Vᵀ, same arrays), the USA field at n = 1000 against its floor (logits
    β (X A) Xᵀ, exp, K (X Vᵀ)), and the wall time of ``lsadyn.simulate_regime`` at n = 200 for LSA and USA on
    embedded scenarios (one call each, after a small warm-up call that loads the compiled kernels)."""
    from threadpoolctl import threadpool_limits

    from lsadyn import simulate_regime
    from lsadyn.fields.kernels import exp_inplace
    from lsadyn.paper.highdim.plan import embed_scenario

    out = {}
    d = 100
    with threadpool_limits(limits=threads):
        rng = np.random.default_rng(100)
        p = attention(rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d))
        n = 2000 if quick else 10_000
        X = uniform_sphere(n, d, seed=2)
        G = p.A @ (X.T @ X / n) @ p.V.T

        def lsa_floor():
            _ = X.T @ X
            return X @ G

        t_field, t_floor = _interleaved_best([lambda: lsa_field(0, X, p), lsa_floor])
        rows.append(row("lsa_field_d100", n, d, t_field, f"compiled projection, {threads} BLAS thread(s)"))
        rows.append(row("lsa_floor_d100", n, d, t_floor, "two GEMMs: X^T X and X G"))
        out[f"lsa_over_two_gemm_floor_n{n}_d{d}"] = t_field / t_floor

        n = 1000
        X = uniform_sphere(n, d, seed=3)

        def usa_floor():  # the same compiled exp as the field
            return exp_inplace(p.beta * (X @ p.A) @ X.T) @ (X @ p.V.T)

        t_field, t_floor = _interleaved_best([lambda: usa_field(0, X, p), usa_floor], repeats=5)
        rows.append(row("usa_field_d100", n, d, t_field, f"{threads} BLAS thread(s)"))
        rows.append(row("usa_floor_d100", n, d, t_floor, "K = exp(beta X A X^T) (compiled exp), K (X V^T)"))
        out[f"usa_over_floor_n{n}_d{d}"] = t_field / t_floor

        simulate_regime(np.eye(3), np.eye(3), n=10, model="lsa", horizon=2.0, n_samples=64)  # warm-up
        simulate_regime(np.eye(3), np.eye(3), n=10, model="usa", horizon=2.0, n_samples=64)
        for name, (A2, V2, ra, rv) in SIM_SCENARIOS.items():
            if quick and name != "identity":
                continue
            A, V = embed_scenario(A2, V2, d, ra, rv)
            for model in ("lsa", "usa"):
                t0 = time.perf_counter()
                res = simulate_regime(A, V, n=200, model=model)
                sec = time.perf_counter() - t0
                info = {k: res.details[k] for k in ("n_steps", "t_decide", "budget_factor") if k in res.details}
                rows.append({**row(f"simulate_{model}_d100", 200, d, sec, f"simulate_regime {name}: {res.regime}"),
                             "scenario": name, "model": model, "regime": res.regime, "abs_R2": res.abs_R2, **info})
                out[f"simulate_regime_seconds_{model}_{name}_d100_n200"] = sec
    out["highdim_blas_threads"] = threads
    return out


HIGHDIM_ROWS = ("lsa_field_d100", "lsa_floor_d100", "usa_field_d100", "usa_floor_d100", "simulate_lsa_d100",
                "simulate_usa_d100")
HIGHDIM_TARGETS = ("lsa_within_1.5x_of_two_gemm_floor_n1e4_d100", "simulate_regime_d100_n200_under_10s")


def highdim_targets(summary):
    return {
        HIGHDIM_TARGETS[0]: summary.get("lsa_over_two_gemm_floor_n10000_d100", np.inf) <= 1.5,
        HIGHDIM_TARGETS[1]: all(v < 10 for k, v in summary.items() if k.startswith("simulate_regime_seconds_")),
    }


def refresh_highdim(args):
    """``--only-highdim``: run :func:`bench_sphere_highdim` alone and replace its rows, ratios and targets in
    the existing results.json (every other row is kept as recorded)."""
    rows: list[dict] = []
    summary = bench_sphere_highdim(rows, quick=args.quick, threads=args.threads)
    for r in rows:
        print(f"{r['name']:<18}{r['n']:>7}{r['d']:>5}{r['seconds_per_eval']:>12.3e}  {r['note']}")
    for k, v in summary.items():
        print(f"  {k:<48} {v:10.3g}")
    targets = highdim_targets(summary)
    for k, v in targets.items():
        print(f"  {k:<48} {'met' if v else 'NOT MET'}")
    data = json.loads(OUT.read_text()) if OUT.exists() else {"rows": [], "ratios": {}, "targets": {}}
    data["rows"] = [r for r in data.get("rows", []) if r["name"] not in HIGHDIM_ROWS] + rows
    data.setdefault("ratios", {}).update(summary)
    data.setdefault("targets", {}).update({k: bool(v) for k, v in targets.items()})
    data["highdim_machine"] = platform.platform()
    data["highdim_quick"] = args.quick
    OUT.write_text(json.dumps(data, indent=2) + "\n")
    print(f"updated the d = 100 rows of {OUT}")


TOKENS2D_ROWS = ("tokens2d_run", "tokens2d_floor", "tokens2d_scipy")


def refresh_tokens2d(args):
    """``--only-tokens2d``: run :func:`bench_tokens_2d` alone and replace its rows, ratios and target in the
    existing results.json (every other row is kept as recorded)."""
    rows: list[dict] = []
    summary = bench_tokens_2d(rows)
    for k, v in summary.items():
        print(f"  {k:<48} {v:10.3g}")
    ok = summary["token_run_over_floor"] <= 2.0
    print(f"  {'token_run_within_2x_of_fused_floor':<48} {'met' if ok else 'NOT MET'}")
    data = json.loads(OUT.read_text()) if OUT.exists() else {"rows": [], "ratios": {}, "targets": {}}
    data["rows"] = [r for r in data.get("rows", []) if r["name"] not in TOKENS2D_ROWS] + rows
    data.setdefault("ratios", {}).update(summary)
    data.setdefault("targets", {})["token_run_within_2x_of_fused_floor"] = bool(ok)
    data["tokens2d_machine"] = platform.platform()
    OUT.write_text(json.dumps(data, indent=2) + "\n")
    print(f"updated the d = 2 token rows of {OUT}")


# --- d = 2 softmax by moments (lsadyn.fields.kuramoto_daido) ------------------------------------------------------


def bench_daido(rows, quick=False):
    """d = 2 USA/SA by moments, one BLAS thread: at n = 10⁶ (10⁵ with ``quick``) per evaluation against its own
    floor (the moments Z_m, m = 0..L+1, of the tokens plus one exp pass over them: what any evaluation through the
    moments must do), for one random A at β = 1 and β = 5; and at n = 10⁴ (2000 with ``quick``) against the
    direct O(n²) field (:func:`lsadyn.fields.attention.usa_field`), same tokens, in alternation."""
    from threadpoolctl import threadpool_limits

    from lsadyn.fields import kuramoto_daido as kd
    from lsadyn.fields.attention import sa_field

    out = {}
    rng = np.random.default_rng(22)
    A, V = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    with threadpool_limits(limits=1):
        for beta in (1.0, 5.0):
            p = attention(A, V, beta)
            L = kd.harmonics(p.A, p.beta)
            n = 100_000 if quick else 1_000_000
            X = uniform_sphere(n, 2, seed=4)
            theta = np.arctan2(X[:, 1], X[:, 0])

            def floor():
                z = np.exp(1j * theta)
                return kd.moments(z, L + 2)

            t_usa, t_sa, t_floor = _interleaved_best([lambda: kd.usa_field_moments(0, X, p),
                                                      lambda: kd.sa_field_moments(0, X, p), floor], repeats=3)
            tag = f"beta{beta:g}"
            rows.append(row(f"daido_usa_{tag}", n, 2, t_usa, f"moments, M = {L}, |A| = {np.linalg.norm(A, 2):.3g}"))
            rows.append(row(f"daido_sa_{tag}", n, 2, t_sa, f"moments, M = {L}"))
            rows.append(row(f"daido_floor_{tag}", n, 2, t_floor, f"exp(i theta) and Z_m, m <= {L + 1}"))
            out[f"daido_usa_over_floor_{tag}_n{n}"] = t_usa / t_floor
            out[f"daido_sa_over_floor_{tag}_n{n}"] = t_sa / t_floor
            out[f"daido_M_{tag}"] = L
        p = attention(A, V, 1.0)
        n = 2000 if quick else 10_000
        X = uniform_sphere(n, 2, seed=5)
        t_m, t_d = _interleaved_best([lambda: kd.usa_field_moments(0, X, p), lambda: usa_field(0, X, p)], repeats=3)
        t_ms, t_ds = _interleaved_best([lambda: kd.sa_field_moments(0, X, p), lambda: sa_field(0, X, p)], repeats=3)
        rows.append(row("daido_usa_beta1", n, 2, t_m, "moments"))
        rows.append(row("usa_direct_d2", n, 2, t_d, "n x n kernel"))
        rows.append(row("daido_sa_beta1", n, 2, t_ms, "moments"))
        rows.append(row("sa_direct_d2", n, 2, t_ds, "n x n kernel, row max-shift"))
        out[f"daido_usa_speedup_over_direct_n{n}"] = t_d / t_m
        out[f"daido_sa_speedup_over_direct_n{n}"] = t_ds / t_ms
    out["daido_quick"] = quick
    return out


DAIDO_PREFIXES = ("daido_", "usa_direct_d2", "sa_direct_d2")


def refresh_daido(args):
    """``--only-daido``: run :func:`bench_daido` alone and replace its rows and ratios in the existing results.json
    (every other row is kept as recorded)."""
    rows: list[dict] = []
    summary = bench_daido(rows, quick=args.quick)
    for r in rows:
        print(f"{r['name']:<20}{r['n']:>9}{r['d']:>3}{r['seconds_per_eval']:>12.3e}  {r['note']}")
    for k, v in summary.items():
        print(f"  {k:<48} {v:10.4g}")
    data = json.loads(OUT.read_text()) if OUT.exists() else {"rows": [], "ratios": {}, "targets": {}}
    data["rows"] = [r for r in data.get("rows", []) if not r["name"].startswith(DAIDO_PREFIXES)] + rows
    data["ratios"] = {k: v for k, v in data.get("ratios", {}).items() if not k.startswith("daido_")} | summary
    data["daido_machine"] = platform.platform()
    OUT.write_text(json.dumps(data, indent=2) + "\n")
    print(f"updated the d = 2 moment-form rows of {OUT}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for the d = 100 rows (default 1)")
    ap.add_argument("--only-highdim", action="store_true", help="refresh only the d = 100 rows of results.json")
    ap.add_argument("--only-tokens2d", action="store_true", help="refresh only the d = 2 token rows of results.json")
    ap.add_argument("--only-daido", action="store_true",
                    help="refresh only the d = 2 softmax moment-form rows of results.json")
    ap.add_argument("--profile-tokens2d", action="store_true",
                    help="print where a d = 2 DOP853 step goes (per pass, against the floor); writes nothing")
    args = ap.parse_args(argv)
    if args.profile_tokens2d:
        return profile_tokens_2d()
    if args.only_highdim:
        return refresh_highdim(args)
    if args.only_tokens2d:
        return refresh_tokens2d(args)
    if args.only_daido:
        return refresh_daido(args)
    lsa_sizes = [1000] if args.quick else [1000, 10_000, 100_000]
    usa_sizes = [1000] if args.quick else [1000, 10_000]
    ws_sizes = [1000, 100_000] if args.quick else [1000, 1_000_000]
    rows: list[dict] = []
    summary = {}
    summary.update(bench_lsa(rows, lsa_sizes))
    summary.update(bench_usa(rows, usa_sizes))
    summary.update(bench_sphere_highdim(rows, quick=args.quick, threads=args.threads))
    summary.update(bench_ws(rows, ws_sizes))
    summary.update(bench_bl(rows))
    summary.update(bench_tokens_2d(rows))
    summary.update(bench_daido(rows, quick=args.quick))
    print(f"{'benchmark':<16}{'n':>9}{'d':>5}{'s/eval':>12}{'evals/s':>12}{'token-steps/s':>15}  note")
    for r in rows:
        print(f"{r['name']:<16}{r['n']:>9}{r['d']:>5}{r['seconds_per_eval']:>12.3e}{r['evals_per_s']:>12.3e}"
              f"{r['token_steps_per_s']:>15.3e}  {r['note']}")
    print("\nratios (measured in this run):")
    for k, v in summary.items():
        print(f"  {k:<48} {v:10.3g}")
    targets = {
        "lsa_fast_ge_100x_pairwise_at_n1e4_d100": summary.get("lsa_fast_over_pairwise_n10000_d100", np.nan) >= 100,
        **highdim_targets(summary),
        "usa_within_3x_of_floor": all(v <= 3 for k, v in summary.items() if k.startswith("usa_over_floor")),
        "ws_step_flat_in_n (ratio <= 3)": summary["ws_step_cost_ratio_largest_over_smallest_n"] <= 3,
        "bl_to_uniform_1e4_under_1s": summary["bl_to_uniform_seconds_n1e4"] < 1.0,
        "token_run_within_2x_of_fused_floor": summary["token_run_over_floor"] <= 2.0,
    }
    print("\ntargets:")
    for k, v in targets.items():
        print(f"  {k:<48} {'met' if v else 'NOT MET'}")
    OUT.write_text(json.dumps({"machine": platform.platform(), "python": sys.version.split()[0],
                               "quick": args.quick, "rows": rows, "ratios": summary,
                               "targets": {k: bool(v) for k, v in targets.items()}}, indent=2) + "\n")
    print(f"\nwrote {OUT}")


if __name__ == "__main__":
    main()
