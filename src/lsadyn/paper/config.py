"""Checking the pipeline configuration: one-line errors that name the offending key.

:func:`check_config` validates against the JSON schema (types, ranges, unknown keys, 2×2 and
d×d matrices) and then the cross-key constraints a schema cannot express (min < max, sizes).
"""

from __future__ import annotations

import jsonschema
import numpy as np
import yaml


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<root>"


def check_config(config: dict, schema_path: str) -> None:
    """Raise ``ValueError('config key <a.b.c>: <problem>')`` for the first problem found."""
    with open(schema_path) as fh:
        schema = yaml.safe_load(fh)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.path))))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        msg = err.message.splitlines()[0]
        if err.validator == "additionalProperties":
            unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            path = [*err.absolute_path, unknown[0]] if unknown else list(err.absolute_path)
            raise ValueError(f"config key {_key(path)}: unknown key (allowed: {sorted(err.schema['properties'])})")
        path = list(err.absolute_path)
        for i, part in enumerate(path):
            if part in ("A", "V") and i > 0:
                raise ValueError(f"config key {_key(path[:i + 1])}: expected a 2x2 matrix [[a, b], [c, d]] ({msg})")
        raise ValueError(f"config key {_key(path)}: {msg}")
    _check_ranges(config)


def _pairs(config):
    yield "case2", "lam_min", "lam_max"
    yield "case3", "sigma_min", "sigma_max"
    yield "case3", "mu_min", "mu_max"
    yield "case4", "v11_min", "v11_max"
    yield "case4", "v12_min", "v12_max"
    yield "bifurcation", "mu_min", "mu_max"
    yield "bifurcation", "near_min", "near_max"


def _check_ranges(config: dict) -> None:
    for section, lo, hi in _pairs(config):
        sec = config.get(section, {})
        if lo in sec and hi in sec and not sec[lo] < sec[hi]:
            raise ValueError(f"config key {section}.{lo}: must be < {section}.{hi} ({sec[lo]} >= {sec[hi]})")
    hd = config.get("highdim", {})
    for name, sc in hd.get("scenarios", {}).items():
        A = np.asarray(sc["A"], dtype=float)
        beta = hd.get("beta", 1.0)
        norm = max(np.linalg.norm(A, 2), abs(sc["rest_A"])) + sc["noise"] * 3
        if "usa" in hd.get("models", ["usa"]) and beta * norm > 700:
            raise ValueError(f"config key highdim.scenarios.{name}.A: beta |A|_2 ~ {beta * norm:.3g} > 700 "
                             "overflows exp in USA")
