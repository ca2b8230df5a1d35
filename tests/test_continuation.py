"""lsadyn.continuation: the OA field's Jacobian, pseudo-arclength through a fold, and the continued bifurcation
curves against the closed forms of lsadyn.paper.cases2d.plan (to 1e-8) and against the OA labels of grid points."""

import numpy as np
import pytest

from lsadyn.continuation import (
    bifurcation_curve,
    boundary_equilibria,
    continue_curve,
    continue_plane,
    fd_jacobian,
    field_and_jacobian,
    locate,
    newton,
)
from lsadyn.continuation.arclength import sign_changes
from lsadyn.reductions.kuramoto import kuramoto_coefficients, oa_rhs_complex

J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
I2 = np.eye(2)
TOL = 1e-8


def case1(p):  # V = I, A with tr A = p1, det A = p2
    t, d = p
    return np.array([[t / 2, -1.0], [d - t * t / 4, t / 2]]), I2, 1.0


def case2(p):  # A = I, V = diag(λ1, λ2)
    return I2, np.diag(p), 1.0


def case3(p):  # A = diag(1, σ), V = I + μJ
    return np.diag([1.0, p[0]]), I2 + p[1] * J2, 1.0


def case4(p):  # A = I, V = [[v11, v12], [-v12, -v11]]
    return I2, np.array([[p[0], p[1]], [-p[1], -p[0]]]), 1.0


def saddle_node(p, a=1.0):  # A = I, V = [[a + s, -μ], [μ, a - s]], (p1, p2) = (s, μ)
    s, mu = p
    return I2, np.array([[a + s, -mu], [mu, a - s]]), 1.0


def curves(frame, kind):
    return [g for _, g in frame[frame.kind == kind].groupby("branch")]


@pytest.mark.parametrize("seed", range(5))
def test_field_and_jacobian_match_oa_rhs_and_finite_differences(seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((4, 2, 2))

    def fam(p):
        return M[0] + p[0] * M[1], M[2] + p[1] * M[3], 0.7

    x, p = 0.6 * rng.uniform(-1, 1, 2), rng.standard_normal(2)
    F, J = field_and_jacobian(fam, x, p)
    ref = oa_rhs_complex(x[0] + 1j * x[1], kuramoto_coefficients(*fam(p)))
    assert abs(F[0] + 1j * F[1] - ref) < 1e-14
    J_fd = fd_jacobian(lambda y: field_and_jacobian(fam, y, p)[0], x)
    assert np.abs(J - J_fd).max() < 1e-8 * max(1.0, np.abs(J).max())


def test_pseudo_arclength_turns_a_fold_and_locates_it():
    """x' = p − x²: the branch x = ±√p turns at p = 0; natural continuation in p could not pass it."""
    def H(u):
        return [u[1] - u[0] ** 2]

    c = continue_curve(H, [2.0, 4.0], [0, -1], ds_max=0.1, inside=lambda u: u[1] <= 4.5)
    assert c.u[:, 0].min() < -2 and c.u[:, 0].max() >= 2  # both halves of the parabola
    assert np.abs([H(u)[0] for u in c.u]).max() < 1e-9
    (k,) = sign_changes(c.tangent[:, 1])
    u, ok = newton(lambda u: [u[1] - u[0] ** 2, -2 * u[0]], c.u[k])
    assert ok and abs(u[1]) < 1e-12 and abs(u[0]) < 1e-12


@pytest.mark.parametrize("a", [1.0, -0.7, 2.5])
def test_fold_of_A_aI_is_disc_V_zero(a):
    """A = aI: the circle equilibria are the real eigenvector directions of V, so they fold where disc V = 0;
    plane V = [[0.3, p1], [p2, −0.5]]: disc V = 0.64 + 4 p1 p2, two hyperbola branches."""
    def fam(p):
        return a * I2, np.array([[0.3, p[0]], [p[1], -0.5]]), 1.3

    out, _ = continue_plane(fam, ((-1.0, 1.0), (-1.0, 1.0)))
    folds = out[out.kind == "boundary_fold"]
    disc = 0.64 + 4 * folds.p1 * folds.p2
    assert len(folds) > 40
    assert np.abs(disc).max() < TOL
    assert (folds.p1 > 0.2).any() and (folds.p1 < -0.2).any()  # both branches of the hyperbola
    assert out[out.kind == "boundary_fold"].p2.between(-1, 1).all()


def test_case4_boundary_is_abs_v11_equal_abs_v12():
    out, _ = continue_plane(case4, ((-1.5, 1.5), (-1.5, 1.5)))
    folds = out[out.kind == "boundary_fold"]
    assert np.abs(folds.p1.abs() - folds.p2.abs()).max() < TOL
    for sign in (1, -1):  # both lines v11 = ±v12, over most of the box
        line = folds[np.isclose(folds.p1, sign * folds.p2, atol=1e-6)]
        assert line.p2.min() < -1.2 and line.p2.max() > 1.2


def test_case3_rotation_boundary_is_sigma_zero():
    """Circle rate βμ[(1+σ) + (1−σ)cos φ]: fixed points iff σ ≤ 0 (μ ≠ 0); the double root is at σ = 0, φ = π."""
    out, _ = continue_plane(case3, ((-1.0, 2.0), (-2.0, 2.0)))
    folds = out[out.kind == "boundary_fold"]
    assert np.abs(folds.p1).max() < TOL
    assert np.abs(np.cos(np.arctan2(folds.im, folds.re)) + 1).max() < 1e-8
    assert folds.p2.min() < -1.5 and folds.p2.max() > 1.5


def test_saddle_node_family_threshold_is_mu_equal_s():
    out, _ = continue_plane(saddle_node, ((0.1, 1.0), (0.0, 1.5)))
    folds = out[out.kind == "boundary_fold"]
    assert len(folds) > 10
    assert np.abs(folds.p2.abs() - folds.p1).max() < TOL


def test_case1_hopf_is_trace_zero():
    """V = I: the interior equilibrium R* = −p/λ (det A > 0) has tr J = (1 − |R*|²) tr A / 2: Hopf at tr A = 0."""
    out, info = continue_plane(case1, ((-1.0, 1.0), (0.3, 2.0)), interior_cycles=False)  # cycles: test_continuation_cycles
    assert info["n_cycle_branches"] == 0 and not (out.kind == "interior_cycle").any()
    hopf = out[out.kind == "hopf"]
    assert len(hopf) > 10
    assert np.abs(hopf.p1).max() < TOL
    assert hopf.p2.min() < 0.5 and hopf.p2.max() > 1.8


def test_case2_transcritical_is_lambda_zero():
    """A = I, V = diag(λ1, λ2): the circle equilibrium on an eigenvector loses normal stability where its
    eigenvalue crosses 0 (an interior branch meets the circle): the lines λ1 = 0 and λ2 = 0."""
    out, _ = continue_plane(case2, ((-1.0, 1.0), (-1.0, 1.0)))
    tc = out[out.kind == "boundary_transcritical"]
    assert len(tc) > 40
    assert np.minimum(tc.p1.abs(), tc.p2.abs()).max() < TOL
    assert (tc.p1.abs() < TOL).sum() > 10 and (tc.p2.abs() < TOL).sum() > 10


def test_locate_and_curve_from_a_guess():
    """A boundary fold located from a rough guess and continued alone reproduces μ = s."""
    u, ok = locate("boundary_fold", saddle_node, np.array([1.4, 0.5, 0.55]), free=1)
    assert ok and abs(u[2] - 0.5) < 1e-12
    pts, stops = bifurcation_curve("boundary_fold", saddle_node, u, ((0.1, 1.0), (0.0, 1.5)))
    assert np.abs(pts[:, 2] - pts[:, 1]).max() < TOL and pts[:, 1].min() == 0.1 and pts[:, 1].max() == 1.0  # edges
    assert stops == ("left_domain", "left_domain")


def test_boundary_equilibria_count_matches_disc():
    """A = I: two antipodal eigen-directions (4 circle equilibria... 2 angles φ = 2θ) when disc V > 0, none when < 0."""
    assert boundary_equilibria(saddle_node, np.array([0.5, 0.3])).size == 2
    assert boundary_equilibria(saddle_node, np.array([0.5, 0.7])).size == 0


@pytest.mark.parametrize("seed", range(3))
def test_scalar_coefficients_match_kuramoto_coefficients(seed):
    from lsadyn.continuation.oa import coefficients

    rng = np.random.default_rng(10 + seed)
    A, V = rng.standard_normal((2, 2, 2))
    tr, c, beta = coefficients(A, V, 1.7)
    ref = kuramoto_coefficients(A, V, 1.7)
    assert np.abs(np.array(tr) - ref.tr).max() < 1e-15 and np.abs(np.array(c) - ref.c).max() < 1e-15
    assert beta == 1.7


def test_circle_rate_vectorised_equals_scalar():
    from lsadyn.continuation import circle_rate

    phis = np.linspace(0, 6, 7)
    g, dg, nu = circle_rate(case3, phis, np.array([0.4, 0.8]))
    for k, f in enumerate(phis):
        assert np.allclose(circle_rate(case3, f, np.array([0.4, 0.8])), (g[k], dg[k], nu[k]), rtol=0, atol=1e-15)


# ---------------------------------------------------------------- grid points vs the continued curves
def _labels(df):
    from lsadyn.api import predict_regime_batch
    from lsadyn.paper.cases2d import plan as cases

    A, V, b = cases.matrices(df)
    return np.array([r.regime for r in predict_regime_batch(A, V, b, horizon=300.0, n_samples=3000)])


def _threshold(frame, kind, along, at):
    """The continued curve of ``kind`` that spans the ``along`` axis (p1 or p2) furthest, read as the other
    parameter as a function of ``along`` (linear interpolation between continued points) at ``at``."""
    other = "p1" if along == "p2" else "p2"
    best = max(curves(frame, kind), key=lambda g: np.ptp(g[along]))
    g = best.sort_values(along)
    assert g[along].min() <= np.min(at) and g[along].max() >= np.max(at), "curve does not span the grid"
    return np.interp(at, g[along], g[other])


def test_case1_grid_labels_lie_on_their_side_of_the_hopf_curve():
    """V = I (random A, sampled as the pipeline does): interior_converge only where the continued Hopf curve
    says the interior equilibrium attracts (tr A below it, det A > 0); every point above it clusters."""
    from lsadyn.paper.cases2d import plan as cases

    df = cases.sample_case1(40, 6, 1.0, 1.0, 1)
    lab = _labels(df)
    tr, det = df["x"].to_numpy(), df["y"].to_numpy()
    box = ((tr.min() - 0.1, tr.max() + 0.1), (0.02, det.max() + 0.1))
    out, _ = continue_plane(case1, box, interior_cycles=False)  # only the Hopf curve is compared
    pos = det > box[1][0]
    t_h = np.full(tr.shape, np.nan)
    t_h[pos] = _threshold(out, "hopf", "p2", det[pos])
    assert np.abs(t_h[pos]).max() < TOL
    inner = lab == "interior_converge"
    assert inner.any() and np.all(pos[inner]) and np.all(tr[inner] < t_h[inner])
    above = pos & (tr > t_h)
    assert above.any() and np.all(np.char.startswith(lab[above].astype(str), "cluster"))


def test_case2_grid_labels_lie_on_their_side_of_the_transcritical_curve():
    """A = I, V symmetric (rotation-equivariant: a point is (λ1, λ2) = (λ_max, λ_min)): cluster iff λ_max is at or
    right of the continued transcritical curve λ1 = f(λ2), interior convergence left of it."""
    from lsadyn.paper.cases2d import plan as cases

    df = cases.sample_case2(40, 6, -2.0, 2.0, 1.0, 2)
    lab = _labels(df)
    lo, hi = df["x"].to_numpy(), df["y"].to_numpy()
    out, _ = continue_plane(case2, ((-2.0, 2.0), (-2.0, 2.0)))
    f = _threshold(out, "boundary_transcritical", "p2", lo)
    assert np.abs(f).max() < TOL
    right = hi >= f - 1e-9
    assert np.all(np.char.startswith(lab[right].astype(str), "cluster"))
    assert np.all(lab[~right] == "interior_converge") and (~right).any()


def test_case3_grid_labels_lie_on_their_side_of_the_circle_fold():
    """A = diag(1, σ), V = I + μJ on the pipeline's grid: rotating clusters right of the continued circle fold
    σ = f(μ), converging clusters on it or left of it and on the degenerate line μ = 0 (every circle point fixed)."""
    from lsadyn.continuation import circle_degenerate
    from lsadyn.paper.cases2d import plan as cases

    df = cases.grid_case3((-1.0, 2.0), (-2.0, 2.0), 7, 7, 1.0)
    lab = _labels(df)
    sig, mu = df["x"].to_numpy(), df["y"].to_numpy()
    out, _ = continue_plane(case3, ((-1.0, 2.0), (-2.0, 2.0)))
    deg = np.array([circle_degenerate(case3, np.array([s, m])) for s, m in zip(sig, mu)])
    assert deg.sum() == 7  # the μ = 0 row
    f = np.full(sig.shape, np.nan)
    for sign in (1, -1):  # the curve is cut at the degenerate line: one piece per sign of μ
        part = out[(out.kind == "boundary_fold") & (np.sign(out.p2) == sign)]
        m = ~deg & (np.sign(mu) == sign)
        f[m] = _threshold(part, "boundary_fold", "p2", mu[m])
    rot = ~deg & (sig > f + 1e-9)
    assert rot.any() and np.all(lab[rot] == "cluster_rotate")
    # σ = 0 (det A = 0) off μ = 0: the circle equilibrium at R2 = -1 is a fold with J = 0 (both eigenvalues 0), whose
    # normal form attracts from one side only; the certified decision leaves it undetermined, naming it
    fold = ~deg & (sig == 0)
    assert fold.sum() == 6 and np.all(lab[fold] == "undetermined")
    assert np.all(lab[~rot & ~fold] == "cluster_converge")


def test_case4_grid_labels_lie_on_their_side_of_the_circle_folds():
    """Case 4 on the pipeline's grid: oscillation strictly between the two continued circle folds, convergence
    outside; the tie points on them (|v11| = |v12|, no label in the corrected prediction) are skipped."""
    from lsadyn.paper.cases2d import plan as cases

    df = cases.grid_case4((-1.5, 1.5), (-1.5, 1.5), 8, 8, 1.0)
    lab = _labels(df)
    v11, v12 = df["x"].to_numpy(), df["y"].to_numpy()
    out, _ = continue_plane(case4, ((-1.5, 1.5), (-1.5, 1.5)))
    lines = [g.sort_values("p2") for g in curves(out, "boundary_fold") if np.ptp(g.p2) > 2.0]
    vals = np.sort(np.stack([np.interp(v12, g.p2, g.p1) for g in lines[:2]]), axis=0)
    on = (np.abs(v11 - vals[0]) < 1e-9) | (np.abs(v11 - vals[1]) < 1e-9)
    between = (v11 > vals[0]) & (v11 < vals[1]) & ~on
    assert between.any() and np.all(lab[between] == "oscillate")
    assert np.all(lab[~between & ~on] == "cluster_converge")


# ---------------------------------------------------------------- rotating clusters (the circle as a cycle)
@pytest.mark.parametrize("s,mu", [(0.5, 0.7), (0.5, 0.5 * 1.002), (0.2, 1.4)])
def test_circle_cycle_period_of_the_saddle_node_family(s, mu):
    """φ̇ = 2β(μ − s sin φ): T = π / (β √(μ² − s²)) (lsadyn.paper.cases2d.plan.saddle_node_period), to 1e-10."""
    from lsadyn.continuation import circle_cycle
    from lsadyn.paper.cases2d.plan import saddle_node_period

    T, _, sense = circle_cycle(saddle_node, np.array([s, mu]))
    assert abs(T / saddle_node_period(mu, s, 1.0) - 1) < 1e-10
    assert sense == 1


@pytest.mark.parametrize("sigma,mu", [(0.5, 1.0), (1.7, -0.4), (1e-3, 2.0)])
def test_circle_cycle_rate_of_case3(sigma, mu):
    """Case 3: mean rate of arg R₂ on the circle 2βμ√σ (lsadyn.paper.cases2d.plan.case3_rotation_rate)."""
    from lsadyn.continuation import circle_cycle
    from lsadyn.paper.cases2d.plan import case3_rotation_rate

    T, _, sense = circle_cycle(case3, np.array([sigma, mu]))
    assert abs(sense * 2 * np.pi / T / case3_rotation_rate(sigma, mu, 1.0) - 1) < 1e-10


def test_circle_cycle_exponent_matches_a_simulation():
    """λ⊥ from the quadrature vs the decay of 1 − |R₂| along an OA run near the rotating circle (case 3)."""
    from lsadyn.api import integrate_oa
    from lsadyn.continuation import circle_cycle

    p = np.array([0.5, 1.0])
    T, lam, _ = circle_cycle(case3, p)
    A, V, b = case3(p)
    t = np.array([0.0, T, 3 * T])  # whole periods, 1 − |R₂| from 1e-4 to ~1e-8 (linear regime, above atol)
    R = integrate_oa(A, V, b, [(1 - 1e-4) * np.exp(0.3j)], t, rtol=1e-12, atol=1e-16)[:, 0]
    eps = 1 - np.abs(R)
    assert abs(np.log(eps[2] / eps[1]) / (2 * T) / lam - 1) < 1e-3
    assert circle_cycle(case3, np.array([-0.5, 1.0])) is None  # circle equilibria: no rotation
    assert circle_cycle(case3, np.array([0.5, 0.0])) is None  # μ = 0: every circle point fixed


def test_plan_rejects_bad_plane_entries_with_one_line():
    from lsadyn.paper.continuation.plan import planes

    good = {"name": "p", "family": "case3", "x_min": 0.0, "x_max": 1.0, "y_min": 0.0, "y_max": 1.0}
    assert planes({"continuation": {"planes": [good]}}) == [good]
    for bad, msg in [({**good, "family": "case9"}, "unknown family"), ({**good, "x_max": -1.0}, "x_min must be"),
                     ({k: v for k, v in good.items() if k != "y_max"}, "missing y_max")]:
        with pytest.raises(ValueError, match=msg):
            planes({"continuation": {"planes": [bad]}})
    with pytest.raises(ValueError, match="unique"):
        planes({"continuation": {"planes": [good, good]}})


def test_stage_rows_carry_the_table_columns_and_kinds():
    """The stage's run_plane on a small saddle-node plane: the table's columns, kinds and locations."""
    from lsadyn.paper.continuation.runs import COLUMNS, run_plane

    pl = {"name": "sn", "family": "saddle_node", "x_min": 0.1, "x_max": 1.0, "y_min": 0.0, "y_max": 1.5}
    df, _ = run_plane(pl, 1.0, 1.0, {"n_slices": 2, "n_seeds": 2, "n_cycle": 6, "ds_max": 0.05, "cycle_ds_max": 0.1,
                                     "cycle_max_steps": 10})
    assert list(df.columns) == COLUMNS
    assert set(df.kind) <= {"equilibrium", "fold", "hopf", "transcritical", "cycle", "cycle_fold"}
    assert {"fold", "cycle", "equilibrium"} <= set(df.kind) and set(df.location) <= {"interior", "circle"}
    assert (df.x_name == "s").all() and (df.y_name == "mu").all()
    cyc = df[df.kind == "cycle"]
    assert (cyc.y > cyc.x).all()  # rotation only above the fold mu = s


@pytest.mark.parametrize("name", ["case3", "case4"])
def test_folds_where_the_other_eigenvalue_vanishes_are_degenerate_not_stable_or_unstable(name):
    """Issue 42 part 5: in the case-3 and case-4 planes the circle folds have g = g' = nu = 0 (a stable and an
    unstable node meet): no eigenvalue sign decides, so every such row says 'degenerate'; the saddle-node plane's
    folds keep a nonzero nu and their label."""
    from lsadyn.continuation.branches import DEGENERATE_FORMS
    from lsadyn.continuation.oa import circle_rate
    from lsadyn.paper.continuation.plan import family

    box = {"case3": ((-1.0, 2.0), (-2.0, 2.0)), "case4": ((-1.5, 1.5), (-1.5, 1.5))}[name]
    fam = family(name, 1.0, 1.0)
    out, _ = continue_plane(fam, box, interior_cycles=False)
    folds = out[out.kind == "boundary_fold"]
    nu = np.array([circle_rate(fam, np.arctan2(r.im, r.re), np.array([r.p1, r.p2]))[2] for r in folds.itertuples()])
    assert len(folds) > 40 and np.abs(nu).max() < 1e-12
    assert set(folds.stability) == {"degenerate"} and "boundary_fold" in DEGENERATE_FORMS
    sn, _ = continue_plane(family("saddle_node", 1.0, 1.0), ((0.1, 1.0), (0.0, 1.5)), interior_cycles=False)
    assert set(sn[sn.kind == "boundary_fold"].stability) == {"stable"}


def test_a_curve_stalled_at_a_nilpotent_point_stops_with_its_reason():
    """Issue 42 part 5: the case-3 plane's third boundary-transcritical branch was 101 rows bunched at
    sigma = -0.5, mu = 0; continuation now stops there, saying so."""
    from lsadyn.paper.continuation.plan import family

    out, info = continue_plane(family("case3", 1.0, 1.0), ((-1.0, 2.0), (-2.0, 2.0)), interior_cycles=False)
    stalled = [s for _, stops in info["curve_stops"] for s in stops if s.startswith("stalled")]
    assert stalled and "-5.000000e-01" in stalled[0]
    for _, g in out[out.kind == "boundary_transcritical"].groupby("branch"):
        span = np.hypot(np.ptp(g.p1), np.ptp(g.p2))
        assert len(g) <= 3 or span > 0.05 * len(g) * 0.05 / 10  # no branch is a heap of rows at one point


def test_continue_curve_stops_on_a_curve_that_does_not_move():
    from lsadyn.continuation.arclength import continue_curve

    # H(x, y) = x^2 + y^2: its only zero is the origin, a singular point; any continuation from it cannot move
    c = continue_curve(lambda u: np.array([u[0] ** 2 + u[1] ** 2]), np.zeros(2), np.array([1.0, 0.0]), ds_max=0.1,
                       ds_min=1e-9, max_steps=500)
    assert c.stop in ("stalled", "ds_min") and len(c.u) < 100
