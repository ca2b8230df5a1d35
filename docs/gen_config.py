"""Write docs/configuration.md from workflow/schemas/config.schema.yaml (run by docs/conf.py at every build).

One table row per leaf key of the schema: dotted key, unit, allowed range, default and description, all read from
the schema (the one place they are written). Usage: ``python docs/gen_config.py [OUT]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
OUT = Path(__file__).with_name("configuration.md")
UNIT = re.compile(r"\b(?:units? of ([\w|/ ]+?)(?=[,;)]|$)|(radians))")


def resolve(node: dict, defs: dict) -> dict:
    """``node`` merged over the definition its ``$ref`` names (the node's own keys win)."""
    ref = node.get("$ref")
    if not ref:
        return node
    base = resolve(defs[ref.rsplit("/", 1)[1]], defs)
    return {**base, **{k: v for k, v in node.items() if k != "$ref"}}


def unit(node: dict) -> str:
    m = UNIT.search(str(node.get("description", "")))
    if m:
        return (m.group(1) or m.group(2)).strip().replace("tau", "τ")
    return "dimensionless" if "dimensionless" in str(node.get("description", "")) else ""


def value_range(node: dict) -> str:
    if "enum" in node:
        return " / ".join(f"`{v}`" for v in node["enum"])
    lo = (f"> {node['exclusiveMinimum']}" if "exclusiveMinimum" in node
          else f"≥ {node['minimum']}" if "minimum" in node else "")
    hi = (f"< {node['exclusiveMaximum']}" if "exclusiveMaximum" in node
          else f"≤ {node['maximum']}" if "maximum" in node else "")
    kind = node.get("type", "")
    kind = "/".join(kind) if isinstance(kind, list) else kind
    if kind == "array":
        items = node.get("items", {})
        n = (f"{node['minItems']}" if node.get("minItems") == node.get("maxItems") and "minItems" in node
             else "")
        kind = f"list of {n + ' ' if n else ''}{items.get('type', 'items') if isinstance(items, dict) else 'items'}"
    return ", ".join(x for x in (kind, lo, hi) if x)


def cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ").strip()


def rows(props: dict, defs: dict, prefix: str = ""):
    for key, raw in props.items():
        node = resolve(raw, defs)
        name = f"{prefix}{key}"
        if node.get("type") == "object" and "properties" in node:
            yield name, None, node
            yield from rows(node["properties"], defs, name + ".")
        else:
            yield name, True, node


def render(schema: dict) -> str:
    defs = schema.get("definitions", {})
    out = ["# Configuration", "",
           ("Generated from `workflow/schemas/config.schema.yaml` when the docs are built (`docs/gen_config.py`); "
           "edit the schema, not this page. Every key is validated before any job runs; a bad value stops the "
           "run with one line naming the key. The paper-fidelity values are in `workflow/config/config.yaml`, the "
           "smoke build's overrides in `workflow/config/quick.yaml`, the full sweeps in `workflow/config/sweep.yaml`."),
           "", cell(schema.get("description", "")), ""]
    required = set(schema.get("required", []))
    for name, leaf, node in rows(schema["properties"], defs):
        if leaf is None:
            out += ["", f"## `{name}`", ""]
            if node.get("description"):
                out += [cell(node["description"]), ""]
            if name in required:
                out += ["This section has no default: it must be in the config file.", ""]
            out += ["| key | unit | range | default | description |", "|---|---|---|---|---|"]
            continue
        if "." not in name and (not out[-1].startswith("|")):
            out += ["| key | unit | range | default | description |", "|---|---|---|---|---|"]
        default = f"`{cell(node['default'])}`" if "default" in node else ""
        out.append(f"| `{name}` | {cell(unit(node))} | {cell(value_range(node))} | {default} | "
                   f"{cell(node.get('description', ''))} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else OUT
    out.write_text(render(yaml.safe_load(SCHEMA.read_text())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
