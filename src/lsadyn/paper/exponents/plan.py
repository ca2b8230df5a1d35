r"""The runs of the exponents stage from its config section (pure: no computation).

* token runs: every scenario (a 2 × 2 block A₂, V₂ embedded in d dimensions as in :mod:`lsadyn.paper.highdim.plan`:
  A = diag(A₂, rest_A I), V likewise) × model × d; at d = 2 the tokens start on the OA manifold at R₂(0) (config
  ``R2_0``) and all n tangent vectors are followed (the full spectrum), at d > 2 from i.i.d. uniform points on the
  sphere with ``n_vectors`` tangent vectors; run k has seed ``seed + k``;
* Floquet points: the case-3 family A = diag(1, σ), V = I + μJ on the config's σ × μ grid (rotating clusters for
  σ > 0, μ ≠ 0) and every scenario whose OA regime is rotation;
* basin points: named (A, V) of the config where the OA flow has several attractors.
"""

from __future__ import annotations

import numpy as np

J = np.array([[0.0, -1.0], [1.0, 0.0]])
SCENARIO_KEYS = ("A", "V", "rest_A", "rest_V", "expect")
RUN_COLUMNS = ["run", "scenario", "expect", "model", "d", "n_tokens", "n_vectors", "start", "seed"]


def scenarios(cfg: dict) -> dict:
    """name -> {A, V (2 × 2 arrays), rest_A, rest_V, expect} of ``cfg['exponents']['scenarios']``, checked."""
    out = {}
    for name, sc in cfg["exponents"]["scenarios"].items():
        missing = [k for k in SCENARIO_KEYS if k not in sc]
        if missing:
            raise ValueError(f"exponents.scenarios.{name}: missing {', '.join(missing)}")
        A, V = np.asarray(sc["A"], dtype=float), np.asarray(sc["V"], dtype=float)
        if A.shape != (2, 2) or V.shape != (2, 2):
            raise ValueError(f"exponents.scenarios.{name}: A and V must be 2 x 2")
        out[name] = {"A": A, "V": V, "rest_A": float(sc["rest_A"]), "rest_V": float(sc["rest_V"]),
                     "expect": str(sc["expect"])}
    return out


def runs(cfg: dict) -> list[dict]:
    """One dict per token run (keys :data:`RUN_COLUMNS`), scenarios × models × dims in config order."""
    ex = cfg["exponents"]
    n = int(ex["n_tokens"])
    out = []
    for name, sc in scenarios(cfg).items():
        for model in ex["models"]:
            for d in ex["dims"]:
                d = int(d)
                k = len(out)
                out.append({"run": k, "scenario": name, "expect": sc["expect"], "model": str(model), "d": d,
                            "n_tokens": n, "n_vectors": n if d == 2 else min(int(ex["n_vectors"]), n * (d - 1)),
                            "start": "oa_manifold" if d == 2 else "uniform", "seed": int(ex["seed"]) + k})
    return out


def floquet_points(cfg: dict) -> list[dict]:
    """(family, x_name, x, y_name, y, A, V) of every Floquet point: the case-3 grid, then the rotating scenarios."""
    fl = cfg["exponents"]["floquet"]
    out = [{"family": "case3", "x_name": "sigma", "x": float(s), "y_name": "mu", "y": float(m),
            "A": np.diag([1.0, float(s)]), "V": np.eye(2) + float(m) * J} for s in fl["sigma"] for m in fl["mu"]]
    for name, sc in scenarios(cfg).items():
        if sc["expect"] == "cluster_rotate":
            out.append({"family": f"scenario:{name}", "x_name": "", "x": float("nan"), "y_name": "",
                        "y": float("nan"), "A": sc["A"], "V": sc["V"]})
    return out


def basin_points(cfg: dict) -> dict:
    """name -> (A, V) 2 × 2 arrays of ``cfg['exponents']['basins']['points']``."""
    out = {}
    for name, pt in cfg["exponents"]["basins"]["points"].items():
        A, V = np.asarray(pt["A"], dtype=float), np.asarray(pt["V"], dtype=float)
        if A.shape != (2, 2) or V.shape != (2, 2):
            raise ValueError(f"exponents.basins.points.{name}: A and V must be 2 x 2")
        out[name] = (A, V)
    return out
