"""Token trajectories for the movies (one per regime, d = 2 on the circle and d = 3 on S²).
:func:`token_movie_run` simulates (called by the movie rule's script, which then draws its arrays with
:func:`lsadyn.paper.movies.frames.write_token_movie`).

A scenario is a d = 2 pair (A₂, V₂) embedded in d dimensions as A = diag(A₂, rest_A I),
V = diag(V₂, rest_V I) (:func:`lsadyn.paper.highdim.plan.embed_scenario`), LSA field, n tokens i.i.d.
uniform on S^{d−1} from the seed; times in units of τ = 1/(β‖A‖₂‖V‖₂).
"""

from __future__ import annotations

import numpy as np

from ...api import time_scale
from ...fields.attention import attention, lsa_field
from ...observers import leading_axis, order_parameter_r, order_parameter_r2_tokens
from ...sampling import uniform_sphere
from ...solvers.integrate import integrate_sphere
from ..highdim.plan import embed_scenario


def token_movie_run(A2, V2, d: int, rest_A: float, rest_V: float, beta: float, n: int, seed: int,
                    horizon: float, n_frames: int) -> dict:
    """Tokens X(t) of shape (n_frames, n, d) at n_frames equally spaced times in [0, horizon τ], with
    their order parameters: ``R2`` (complex, d = 2 only; else NaN), ``r`` = (d λ_max(M) − 1)/(d − 1)
    and the leading axis of M per frame. Arrays for ``np.savez``."""
    A, V = embed_scenario(A2, V2, d, rest_A, rest_V)
    p = attention(A, V, beta)
    t = np.linspace(0.0, horizon * time_scale(A, V, beta), int(n_frames))
    X = integrate_sphere(lsa_field, uniform_sphere(n, d, seed), t, p, rtol=1e-8, atol=1e-10).y
    R2 = order_parameter_r2_tokens(X) if d == 2 else np.full(len(t), np.nan + 0j)
    return {"t": t, "X": X, "A": A, "V": V, "beta": float(beta), "R2": R2, "r": order_parameter_r(X),
            "axis": np.array([leading_axis(x) for x in X])}
