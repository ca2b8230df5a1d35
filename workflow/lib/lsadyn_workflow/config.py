"""Checking the pipeline configuration: one-line errors that name the offending key.

* :func:`load_config_file` reads a YAML file and reports a syntax error with its line and column;
* :func:`coerce_overrides` turns command-line strings (``--config 'figures={dpi: 200}'`` gives the
  string ``'200'``) into the integers/numbers/booleans the schema asks for;
* :func:`check_config` validates against the JSON schema (required sections, types, ranges, unknown
  keys, 2×2 and d×d matrices) and then the cross-key and semantic constraints a schema cannot
  express (min < max; a config value that names a regime must produce it).

Every problem is a ``ValueError`` whose message starts with ``config key <a.b.c>:`` (or the file
name for a syntax error); the Snakefile prints it as one line before any job runs.
``python -m lsadyn_workflow.config FILE...`` checks config files (merged in order over
workflow/config/config.yaml, as Snakemake does) from the command line, e.g. a ``--configfile`` that
Snakemake refuses as "not valid JSON or YAML".
"""

from __future__ import annotations

import copy
import re
import sys

import jsonschema
import numpy as np
import yaml

# libyaml's loader when PyYAML has it (~6x faster on the schema: every snakemake start loads it), else PyYAML's
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<root>"


def load_config_file(path) -> dict:
    """YAML file → dict; a syntax error raises ``ValueError('<path>, line L, column C: <problem>')``."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_Loader)
    except FileNotFoundError:
        raise ValueError(f"{path}: config file not found") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(err.problem or err.context or "syntax error").split())
        raise ValueError(f"{path}{where}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: YAML syntax error: {' '.join(str(err).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of sections (key: value), got {type(data).__name__}")
    return data


def load_schema(schema_path) -> dict:
    with open(schema_path) as fh:
        return yaml.load(fh, Loader=_Loader)


def _resolve(schema: dict, root: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        node = root
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


_INT = re.compile(r"^[+-]?\d+$")


def _coerce_scalar(value, schema):
    if not isinstance(value, str):
        return value
    kind = schema.get("type")
    text = value.strip()
    if kind == "integer" and _INT.match(text):
        return int(text)
    if kind == "number":
        try:
            return int(text) if _INT.match(text) else float(text)
        except ValueError:
            return value
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return value


def coerce_overrides(config: dict, schema: dict, root: dict | None = None) -> dict:
    """Convert, in place, strings that spell the integer/number/boolean the schema expects (as
    ``--config key=value`` overrides can produce) into that type. Returns ``config``."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if isinstance(config, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for k in list(config):
            sub = props.get(k, extra if isinstance(extra, dict) else None)
            if sub is None:
                continue
            sub = _resolve(sub, root)
            if isinstance(config[k], (dict, list)):
                coerce_overrides(config[k], sub, root)
            else:
                config[k] = _coerce_scalar(config[k], sub)
    elif isinstance(config, list):
        items = _resolve(schema.get("items", {}), root) if isinstance(schema.get("items"), dict) else {}
        for i, v in enumerate(config):
            if isinstance(v, (dict, list)):
                coerce_overrides(v, items, root)
            else:
                config[i] = _coerce_scalar(v, items)
    return config


def check_config(config: dict, schema_path: str) -> None:
    """Raise ``ValueError('config key <a.b.c>: <problem>')`` for the first problem found.

    Command-line strings that spell a number are converted first (:func:`coerce_overrides`)."""
    schema = load_schema(schema_path)
    coerce_overrides(config, schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.path))))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        msg = err.message.splitlines()[0]
        if err.validator == "additionalProperties":
            unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            path = [*err.absolute_path, unknown[0]] if unknown else list(err.absolute_path)
            raise ValueError(f"config key {_key(path)}: unknown key (allowed: {sorted(err.schema['properties'])})")
        if err.validator == "required":
            missing = [k for k in err.validator_value if k not in err.instance]
            path = [*err.absolute_path, missing[0]] if missing else list(err.absolute_path)
            what = "section" if not err.absolute_path else "key"
            raise ValueError(f"config key {_key(path)}: missing {what} (it has no default; copy it from "
                             "workflow/config/config.yaml)")
        path = list(err.absolute_path)
        for i, part in enumerate(path):
            if part in ("A", "V") and i > 0:
                raise ValueError(f"config key {_key(path[:i + 1])}: expected a 2x2 matrix [[a, b], [c, d]] ({msg})")
        raise ValueError(f"config key {_key(path)}: {msg}")
    _check_ranges(config)
    _check_semantics(config)


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
        for model, t in (sc.get("settle_horizon") or {}).items():  # lengthens a model's run (run_horizon)
            if "horizon" in sc and not t >= sc["horizon"]:
                raise ValueError(f"config key highdim.scenarios.{name}.settle_horizon.{model}: must be >= "
                                 f"highdim.scenarios.{name}.horizon ({t} < {sc['horizon']}); it lengthens the run")
        A = np.asarray(sc["A"], dtype=float)
        beta = hd.get("beta", 1.0)
        norm = max(np.linalg.norm(A, 2), abs(sc["rest_A"])) + sc["noise"] * 3
        if "usa" in hd.get("models", ["usa"]) and beta * norm > 700:
            raise ValueError(f"config key highdim.scenarios.{name}.A: beta |A|_2 ~ {beta * norm:.3g} > 700 "
                             "overflows exp in USA")
    _check_robustness(config)
    _check_persistence(config)


def _check_persistence(config: dict) -> None:
    """persistence.dimension and persistence.beta_sweep: their scenarios exist, and each settle_horizon entry names
    one of the study's scenarios and lengthens its run (:func:`lsadyn.paper.persistence.plan.settle_horizons`,
    :func:`~lsadyn.paper.persistence.plan.beta_settle_horizons`), checked here so that a mistake is one line before
    the rules are parsed (the persistence rules plan their chunks from these keys)."""
    pc = config.get("persistence")
    hd = config.get("highdim", {}).get("scenarios")
    if not pc or hd is None or "saddle_node" not in pc or "bifurcation" not in config:
        return  # what is missing is the schema's to report
    from lsadyn.paper.persistence.plan import beta_settle_horizons, scenario_set, settle_horizons

    bif, sn = config["bifurcation"], pc["saddle_node"]
    if not all(k in bif for k in ("a", "s")) or not all(k in sn for k in ("delta", "rest_A", "rest_V", "horizon")):
        return
    known = scenario_set(hd, bif, sn)
    for key, check in (("dimension", settle_horizons), ("beta_sweep", beta_settle_horizons)):
        study = pc.get(key) or {}
        for i, name in enumerate(study.get("scenarios", [])):
            if name not in known:
                raise ValueError(f"config key persistence.{key}.scenarios.{i}: {name!r} is not a scenario of "
                                 f"highdim.scenarios or the saddle-node pair ({', '.join(sorted(known))})")
        if study.get("settle_horizon") and "scenarios" in study:
            check(study, known)


def _check_robustness(config: dict) -> None:
    """robustness.scenarios name highdim scenarios; one grid per d; USA logits stay below 700 at the largest δ
    (|A'|_2 <= |A|_2 + δ |A|_F)."""
    rb = config.get("robustness", {})
    known = dict(config.get("highdim", {}).get("scenarios", {}))
    sn = config.get("persistence", {}).get("saddle_node")
    if sn:  # the saddle-node pair (lsadyn.paper.persistence.plan.saddle_node_pair)
        from lsadyn.paper.persistence.plan import saddle_node_pair

        bif = config.get("bifurcation", {})
        known.update(saddle_node_pair(bif.get("a", 1.0), bif.get("s", 0.5), sn["delta"], sn["rest_A"], sn["rest_V"],
                                      sn["horizon"]))
    for i, name in enumerate(rb.get("scenarios", [])):
        if name not in known:
            raise ValueError(f"config key robustness.scenarios.{i}: {name!r} is not a scenario of highdim.scenarios "
                             f"or the saddle-node pair of persistence.saddle_node ({', '.join(sorted(known))})")
    dims = [g["d"] for g in rb.get("grids", [])]
    if len(set(dims)) != len(dims):
        raise ValueError(f"config key robustness.grids: one entry per d, got d = {dims}")
    if "usa" not in rb.get("models", ["usa"]):
        return
    beta = rb.get("beta", 1.0)
    for g in rb.get("grids", []):
        for name in rb.get("scenarios", []):
            sc = known[name]
            A2 = np.asarray(sc["A"], dtype=float)
            nA2 = max(np.linalg.norm(A2, 2), abs(sc["rest_A"]))
            nAF = np.sqrt(np.sum(A2 ** 2) + (g["d"] - 2) * sc["rest_A"] ** 2)
            top = beta * (nA2 + max(g["deltas"], default=0.0) * nAF)
            if top > 700:
                raise ValueError(f"config key robustness.grids: beta |A'|_2 may reach {top:.3g} > 700 for "
                                 f"{name} at d = {g['d']} (largest delta); exp overflows in USA")


def _check_semantics(config: dict) -> None:
    """Config values that name a regime must produce it (conditions derived in docs/theory.md §3 and the claims' statements).

    Case 4 (A = I, V = [[v11, v12], [−v12, −v11]]): the OA flow has closed orbits (oscillation)
    exactly when |v11| < |v12| and converges when |v11| ≥ |v12| (the conserved 𝓗 is bounded below
    on the disk iff |v11| < |v12|); ``orbit_*`` is drawn as the oscillating example,
    ``converge_*`` as the converging one."""
    c4 = config.get("case4", {})
    if "orbit_v11" in c4 and "orbit_v12" in c4 and not abs(c4["orbit_v11"]) < abs(c4["orbit_v12"]):
        raise ValueError(
            f"config key case4.orbit_v11: the oscillating example needs |orbit_v11| < |orbit_v12| "
            f"(got |{c4['orbit_v11']}| >= |{c4['orbit_v12']}|, which converges)")
    if "converge_v11" in c4 and "converge_v12" in c4 and not abs(c4["converge_v11"]) >= abs(c4["converge_v12"]):
        raise ValueError(
            f"config key case4.converge_v11: the converging example needs |converge_v11| >= |converge_v12| "
            f"(got |{c4['converge_v11']}| < |{c4['converge_v12']}|, which oscillates)")


def merge(base: dict, override: dict) -> dict:
    """Recursive dict update (Snakemake's rule for --configfile over configfile:)."""
    out = copy.deepcopy(base)
    for k, v in override.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def main(argv=None) -> int:
    """``python -m lsadyn_workflow.config [--schema S] FILE...``: merge and check config files."""
    argv = list(sys.argv[1:] if argv is None else argv)
    schema = "workflow/schemas/config.schema.yaml"
    if argv[:1] == ["--schema"]:
        schema, argv = argv[1], argv[2:]
    default = "workflow/config/config.yaml"
    if not argv or (argv[0] != default and __import__("os").path.exists(default)):
        argv = [default, *argv]
    try:
        config: dict = {}
        for path in argv:
            config = merge(config, load_config_file(path))
        check_config(config, schema)
    except ValueError as err:
        sys.stderr.write(f"lsadyn: invalid configuration: {err}\n")
        return 1
    print(f"lsadyn: configuration OK ({', '.join(argv)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
