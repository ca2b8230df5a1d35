r"""The two-parameter families of the continuation stage and its planes (pure: no computation), each
(x, y) -> (A, V) with the closed form of one of its curves:

* ``case3`` (σ, μ): A = diag(1, σ), V = I + μJ; circle fold σ = 0;
* ``saddle_node`` (s, μ): A = I, V = [[a + s, −μ], [μ, a − s]] (a fixed); circle fold ``|μ| = s``;
* ``case4`` (v11, v12): A = I, V = [[v11, v12], [−v12, −v11]]; circle fold ``|v11| = |v12|``;
* ``case2`` (λ1, λ2): A = I, V = diag(λ1, λ2); circle transcritical λ1 = 0, λ2 = 0;
* ``case1`` (tr A, det A): V = I, A = [[x/2, −1], [y − x²/4, x/2]]; Hopf tr A = 0;
* ``limit_cycle`` (δv, δa): A = A₀ + δa I, V = V₀ + δv I around the weights of a known attracting OA limit cycle
  (:data:`A_CYCLE`, :data:`V_CYCLE`, period ≈ 19.26 at β = 1, at δv = δa = 0); no closed form: its Hopf curve,
  the limit cycles born there and their fold are computed by shooting (:mod:`lsadyn.continuation.shooting`).

All with the config's β. A plane entry of the config: ``{name, family, x_min, x_max, y_min, y_max}``.
"""

from __future__ import annotations

import numpy as np

J = np.array([[0.0, -1.0], [1.0, 0.0]])
I2 = np.eye(2)
#: weights with an attracting interior limit cycle of the OA flow (β = 1)
A_CYCLE = np.array([[-0.495, 0.95], [0.723, 2.783]])
V_CYCLE = np.array([[-1.089, -0.106], [-0.146, 0.254]])

#: family -> names of its two parameters (the table's x_name, y_name)
PARAMETERS = {"case3": ("sigma", "mu"), "saddle_node": ("s", "mu"), "case4": ("v11", "v12"),
              "case2": ("lambda1", "lambda2"), "case1": ("trA", "detA"), "limit_cycle": ("dv", "da")}
PLANE_KEYS = ("name", "family", "x_min", "x_max", "y_min", "y_max")


def family(name: str, beta: float, a: float = 1.0):
    """The callable p -> (A, V, β) of family ``name`` (see the module table); ``a`` only for saddle_node."""
    beta = float(beta)
    builders = {
        "case3": lambda p: (np.diag([1.0, p[0]]), I2 + p[1] * J, beta),
        "saddle_node": lambda p: (I2, np.array([[a + p[0], -p[1]], [p[1], a - p[0]]]), beta),
        "case4": lambda p: (I2, np.array([[p[0], p[1]], [-p[1], -p[0]]]), beta),
        "case2": lambda p: (I2, np.diag([p[0], p[1]]), beta),
        "case1": lambda p: (np.array([[p[0] / 2, -1.0], [p[1] - p[0] ** 2 / 4, p[0] / 2]]), I2, beta),
        "limit_cycle": lambda p: (A_CYCLE + p[1] * I2, V_CYCLE + p[0] * I2, beta),
    }
    if name not in builders:
        raise ValueError(f"continuation.planes: unknown family {name!r}; choose one of {sorted(builders)}")
    return builders[name]


def planes(cfg: dict) -> list[dict]:
    """The plane entries of ``cfg['continuation']['planes']``, checked (keys, known family, lo < hi)."""
    out = []
    for k, pl in enumerate(cfg["continuation"]["planes"]):
        missing = [key for key in PLANE_KEYS if key not in pl]
        if missing:
            raise ValueError(f"continuation.planes[{k}]: missing {', '.join(missing)}")
        if pl["family"] not in PARAMETERS:
            raise ValueError(f"continuation.planes[{k}].family: unknown family {pl['family']!r}")
        for ax in "xy":
            if not pl[f"{ax}_min"] < pl[f"{ax}_max"]:
                raise ValueError(f"continuation.planes[{k}]: {ax}_min must be < {ax}_max")
        out.append({key: pl[key] for key in PLANE_KEYS})
    names = [p["name"] for p in out]
    if len(set(names)) != len(names):
        raise ValueError("continuation.planes: plane names must be unique")
    return out


def box(plane: dict):
    """((x_min, x_max), (y_min, y_max)) of a plane entry."""
    return (float(plane["x_min"]), float(plane["x_max"])), (float(plane["y_min"]), float(plane["y_max"]))
