"""The batch OA path of lsadyn.api against its per-point reference: the stacked time scales, the vote's medians, and
the atlas's d = 2 rows computed with the per-point functions (equal bit for bit, so the atlas tables do not move)."""

import numpy as np
import pandas as pd
import pytest

from lsadyn import api
from lsadyn.ensembles import weight_pairs


def _bits(x):
    return np.asarray(x, dtype=np.float64).tobytes()


def test_time_scales_equal_time_scale_point_by_point():
    A, V = weight_pairs("gaussian", 2, 20_000, (1, 0, 2))
    A[:3] = 0.0  # zero weights: τ = 1
    V[5] = 0.0
    beta = np.linspace(0.1, 9.0, A.shape[0])
    ref = np.array([api.time_scale(a, v, b) for a, v, b in zip(A, V, beta)])
    assert _bits(api.time_scales(A, V, beta)) == _bits(ref)
    assert np.all(api.time_scales(A, V, beta)[[0, 1, 2, 5]] == 1.0)
    A, V = weight_pairs("goe", 5, 200, (1, 1, 5))
    ref = np.array([api.time_scale(a, v, 0.7) for a, v in zip(A, V)])
    assert _bits(api.time_scales(A, V, 0.7)) == _bits(ref)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_median_equals_numpy_median(n):
    rng = np.random.default_rng(n)
    special = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300, -2.5]
    for _ in range(300):
        v = list(rng.standard_normal(n))
        for i in np.nonzero(rng.random(n) < 0.3)[0]:
            v[i] = special[rng.integers(len(special))]
        with np.errstate(invalid="ignore"):  # inf - inf in numpy's mean of two middles
            assert _bits(api._median(v)) == _bits(float(np.median(v)))


def test_atlas_rows_equal_the_per_point_reference(monkeypatch):
    """run_d2's rows with the batched time scales and the one-start median equal those with time_scale per point and
    np.median (the path before batching), on Gaussian and GOE samples."""
    from lsadyn.paper.atlas.runs import run_d2

    job = {"part": "d2", "beta": 1.0, "n_starts": 1, "horizon": 200.0, "n_times": 4000, "budget_factor": 16,
           "slices": [{"ensemble": e, "seed": [5, i, 2], "n_total": 60, "start": 0, "stop": 60}
                      for i, e in enumerate(("gaussian", "goe"))]}
    fast = run_d2(job)
    monkeypatch.setattr(api, "time_scales", lambda A, V, beta: np.array(
        [api.time_scale(a, v, b) for a, v, b in zip(A, V, np.broadcast_to(beta, A.shape[:1]))]))
    monkeypatch.setattr(api, "_median", lambda values: float(np.median(values)))
    ref = run_d2(job)
    pd.testing.assert_frame_equal(fast, ref, check_exact=True)
    assert fast.regime.nunique() >= 2
