r"""The rows of the exponents stage's tables (:mod:`lsadyn.exponents` on the runs of :mod:`lsadyn.paper.exponents.plan`).

* results/tables/exponents.csv, one row per token run: the run's keys (:data:`.plan.RUN_COLUMNS`), the token
  run's Lyapunov exponents ``lyap_1``, ``lyap_2`` and ``lyap_last`` (the ``n_vectors``-th, the smallest computed;
  at d = 2 the whole spectrum is computed), the OA flow's attractor of the 2 × 2 block (``oa_regime``, its leading
  exponent ``oa_exponent``: max Re eig at an equilibrium, λ⊥ in closed form for rotating clusters) and the d = 2
  token spectrum the OA flow predicts for n tokens (``oa_lyap_1``, ``oa_lyap_2``, ``oa_lyap_last``, the n-th);
* results/tables/floquet.csv, one row per Floquet point: period and λ⊥ in closed form
  (:func:`lsadyn.continuation.circle_cycle`) and from the monodromy matrix (:func:`lsadyn.exponents.circle_floquet`),
  and the distance of the trivial multiplier from 1;
* results/tables/basins.csv, one row per attractor (and one ``unresolved``) of each basin point
  (:func:`lsadyn.exponents.basin_fractions`).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ...continuation import circle_cycle
from ...exponents import (
    attractors,
    basin_fractions,
    circle_floquet,
    constant_family,
    lyapunov_spectrum,
    oa_manifold_tokens,
    oa_token_spectrum,
)
from ...exponents.oa import P0
from ...fields.attention import attention
from ...sampling import uniform_sphere
from ..highdim.plan import embed_scenario
from .plan import RUN_COLUMNS

COLUMNS = [*RUN_COLUMNS, "lyap_1", "lyap_2", "lyap_last", "oa_regime", "oa_exponent", "oa_lyap_1", "oa_lyap_2",
           "oa_lyap_last"]
FLOQUET_COLUMNS = ["family", "x_name", "x", "y_name", "y", "period", "period_numeric", "exponent",
                   "exponent_numeric", "trivial_multiplier_error"]
BASIN_COLUMNS = ["point", "attractor", "regime", "exponent", "re_R2", "im_R2", "count", "n_samples", "fraction",
                 "ci_low", "ci_high"]


def _oa_attractor(A2, V2, beta, expect):
    """The OA attractor of the block of kind ``expect`` (the first found), or None."""
    found = [a for a in attractors(A2, V2, beta) if a.regime == expect]
    return found[0] if found else None


def run_one(run: dict, sc: dict, beta: float, settings: dict) -> dict:
    """One row of exponents.csv (see the module)."""
    A, V = embed_scenario(sc["A"], sc["V"], run["d"], sc["rest_A"], sc["rest_V"])
    n = run["n_tokens"]
    if run["start"] == "oa_manifold":
        X0 = oa_manifold_tokens(complex(*settings["R2_0"]), n)
    else:
        X0 = uniform_sphere(n, run["d"], run["seed"])
    lam = lyapunov_spectrum(run["model"], X0, attention(A, V, beta), m=run["n_vectors"],
                            t_transient=float(settings["t_transient"]), t_measure=float(settings["t_measure"]),
                            dt=float(settings["dt"]), renorm=int(settings["renorm"]), seed=run["seed"])
    att = _oa_attractor(sc["A"], sc["V"], beta, sc["expect"])
    pred = oa_token_spectrum(att.regime, n, sc["A"], sc["V"], beta, att) if att else np.full(n, np.nan)
    return {**{k: run[k] for k in RUN_COLUMNS}, "lyap_1": lam[0], "lyap_2": lam[1] if lam.size > 1 else np.nan,
            "lyap_last": lam[-1], "oa_regime": att.regime if att else "", "oa_exponent": att.exponent if att else np.nan,
            "oa_lyap_1": pred[0], "oa_lyap_2": pred[1], "oa_lyap_last": pred[-1]}


def run_token_table(run_list: list[dict], scen: dict, beta: float, settings: dict, log=None) -> pd.DataFrame:
    """exponents.csv: every run of :func:`lsadyn.paper.exponents.plan.runs`, in order."""
    rows = []
    for run in run_list:
        t0 = time.perf_counter()
        rows.append(run_one(run, scen[run["scenario"]], beta, settings))
        if log is not None:
            r = rows[-1]
            log.info("%s %s d=%d: lyap_1 %.4g lyap_2 %.4g (OA %s %.4g) in %.2f s", run["scenario"], run["model"],
                     run["d"], r["lyap_1"], r["lyap_2"], r["oa_regime"], r["oa_exponent"], time.perf_counter() - t0)
    return pd.DataFrame(rows, columns=COLUMNS)


def floquet_table(points: list[dict], beta: float) -> pd.DataFrame:
    """floquet.csv: closed form and monodromy for each point where the circle rotates (others skipped)."""
    rows = []
    for pt in points:
        cf = circle_cycle(constant_family(pt["A"], pt["V"], beta), P0)
        num = circle_floquet(pt["A"], pt["V"], beta)
        if cf is None or num is None:
            continue
        rows.append({**{k: pt[k] for k in ("family", "x_name", "x", "y_name", "y")}, "period": cf[0],
                     "period_numeric": num[0], "exponent": cf[1], "exponent_numeric": num[1],
                     "trivial_multiplier_error": float(abs(num[2][0] - 1))})
    return pd.DataFrame(rows, columns=FLOQUET_COLUMNS)


def basin_table(points: dict, beta: float, settings: dict) -> pd.DataFrame:
    """basins.csv: the attractors of each point and their basin fractions over random R₂(0) in the disc; point k
    draws its starts with seed ``settings['seed'] + k``."""
    rows = []
    for k, (name, (A, V)) in enumerate(points.items()):
        for r in basin_fractions(A, V, beta, int(settings["n_samples"]), int(settings["seed"]) + k,
                                 horizon=float(settings["horizon"]), tol=float(settings["tol"])):
            rows.append({"point": name, **r})
    return pd.DataFrame(rows, columns=BASIN_COLUMNS)
