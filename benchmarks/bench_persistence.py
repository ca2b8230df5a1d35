"""Cost of the persistence stage's full sweep (workflow/config/sweep.yaml), from a measured per-run cost.

For every class of runs of the sweep's plan (model, d, n, weights dense or plane block + c I) this times a few
RK4 steps of one batch of the size the stage integrates together (:class:`lsadyn.batch_sphere.BatchField`,
:func:`lsadyn.batch_sphere.rk4_step`), giving seconds per member per step. A run costs that times its steps,
horizon / step × the mean horizon multiple the runs of its (study, model) reached in a reference build
(column ``budget_factor`` of results/tables/persistence.csv, default: 1 when no build is there, said in the
output). Observation and classification are not counted (a few % of a run in d ≤ 100).

Writes benchmarks/persistence_sweep.json and, with ``--write``, the README block between
``<!-- sweep:begin -->`` and ``<!-- sweep:end -->``; ``--check`` exits 1 when the README block differs from
the JSON (tests/test_persistence_pipeline.py runs it). Usage:
``python benchmarks/bench_persistence.py [--measure] [--write | --check]`` (``--measure`` reruns the timings;
run it under ``flock /tmp/lsadyn-heavy.lock`` on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn.batch_sphere import BatchField, rk4_step, run_time_scale  # noqa: E402
from lsadyn.integrate import uniform_sphere  # noqa: E402
from lsadyn.paper.config import merge  # noqa: E402
from lsadyn.paper.highdim import embed_scenario  # noqa: E402
from lsadyn.paper.persistence import chunk_ids, run_plan, scenario_set  # noqa: E402

README = ROOT / "README.md"
JSON = Path(__file__).with_name("persistence_sweep.json")
REFERENCE = ROOT / "results/tables/persistence.csv"
CONFIGS = ["workflow/config/config.yaml", "workflow/config/sweep.yaml"]
BEGIN, END = "<!-- sweep:begin -->", "<!-- sweep:end -->"


def load_config(files):
    cfg = {}
    for f in files:
        cfg = merge(cfg, yaml.safe_load((ROOT / f).read_text()))
    return cfg


def step_cost(model: str, d: int, n: int, dense: bool, batch: int, steps: int = 3) -> float:
    """Seconds per member per RK4 step (best of ``steps`` timed steps after one warm-up)."""
    if dense:
        rng = np.random.default_rng(0)
        mats = [(rng.standard_normal((d, d)) / np.sqrt(d), rng.standard_normal((d, d)) / np.sqrt(d))
                for _ in range(batch)]
    else:
        mats = [embed_scenario(np.eye(2), [[1, -1], [1, 1]], d, 1.0, 0.5) for _ in range(batch)]
    A = np.stack([a for a, _ in mats])
    V = np.stack([v for _, v in mats])
    tau = np.array([run_time_scale(model, a, v, 1.0) for a, v in mats])
    f = BatchField(model, A, V, np.ones(batch), tau)
    X = np.stack([uniform_sphere(n, d, s) for s in range(batch)])
    rk4_step(f, X, 1e-3)
    best = np.inf
    for _ in range(steps):
        t0 = time.perf_counter()
        rk4_step(f, X, 1e-3)
        best = min(best, time.perf_counter() - t0)
    return best / batch


def measure(cfg) -> dict:
    pc = cfg["persistence"]
    scenarios = scenario_set(cfg["highdim"]["scenarios"], cfg["bifurcation"], pc["saddle_node"])
    plan = run_plan(pc, scenarios, cfg["seed"])
    plan["dense"] = plan.study == "random"
    sizes = plan.groupby("batch").size()
    costs = {}
    for (model, d, n, dense), g in plan.groupby(["model", "d", "n_tokens", "dense"]):
        batch = int(min(pc["chunk_size"], sizes[g.batch].max()))
        costs[f"{model}|{d}|{n}|{int(dense)}"] = step_cost(model, int(d), int(n), bool(dense), batch)
        print(f"  {model} d={d} n={n} {'dense' if dense else 'block'} batch {batch}: "
              f"{costs[f'{model}|{d}|{n}|{int(dense)}'] * 1e3:.3g} ms per run-step", flush=True)
    return {"configs": CONFIGS, "step_seconds": costs, "machine_note": "measured on the shared 2-core dev machine"}


def estimate(cfg, record: dict, reference: Path = REFERENCE) -> dict:
    """Runs, jobs and core-hours of the sweep from the measured step costs and the reference budget factors."""
    import pandas as pd

    pc = cfg["persistence"]
    scenarios = scenario_set(cfg["highdim"]["scenarios"], cfg["bifurcation"], pc["saddle_node"])
    plan = run_plan(pc, scenarios, cfg["seed"])
    jobs = int(chunk_ids(plan, pc["chunk_size"]).max()) + 1
    factor, source = {}, "no reference build: every run counted at 1 x its horizon"
    if reference.is_file():
        ref = pd.read_csv(reference)
        factor = ref.groupby(["study", "model"]).budget_factor.mean().to_dict()
        source = (f"mean horizon multiple reached per (study, model) in a {record.get('reference_config', '')} "
                  f"build's results/tables/persistence.csv ({len(ref)} runs)")
    seconds = []  # steps per run: horizon / h (h the largest step <= dt dividing the sample spacing) x multiple
    for r in plan.itertuples():
        spacing = r.horizon / (pc["n_samples"] - 1)
        h = spacing / np.ceil(spacing / pc["dt"] - 1e-9)
        steps = r.horizon / h * factor.get((r.study, r.model), 1.0)
        key = f"{r.model}|{r.d}|{r.n_tokens}|{int(r.study == 'random')}"
        seconds.append(record["step_seconds"][key] * steps)
    plan["seconds"] = seconds
    by_study = {s: round(float(g.seconds.sum()) / 3600, 2) for s, g in plan.groupby("study", sort=False)}
    return {"runs": len(plan), "jobs": jobs, "core_hours": round(float(plan.seconds.sum()) / 3600, 2),
            "core_hours_by_study": by_study, "longest_job_hours": round(float(
                plan.groupby(chunk_ids(plan, pc["chunk_size"])).seconds.sum().max()) / 3600, 2),
            "budget_source": source}


def render(rec: dict) -> str:
    e = rec["estimate"]
    lines = ["```text",
             f"runs: {e['runs']}",
             f"jobs (persistence_chunk): {e['jobs']}",
             f"estimated core-hours: {e['core_hours']} ("
             + ", ".join(f"{k} {v}" for k, v in sorted(e["core_hours_by_study"].items())) + ")",
             f"longest job: {e['longest_job_hours']} h",
             f"horizon multiples: {e['budget_source']}",
             "```"]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", action="store_true", help="rerun the step timings (else reuse the JSON's)")
    ap.add_argument("--reference", type=Path, default=REFERENCE, help="persistence.csv of a build (horizon multiples)")
    ap.add_argument("--reference-config", default="", help="which config built the reference (paper, quick)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="rewrite the README block")
    g.add_argument("--check", action="store_true", help="exit 1 if the README block differs from the JSON")
    args = ap.parse_args(argv)
    cfg = load_config(CONFIGS)
    if args.check:
        rec = json.loads(JSON.read_text())
        text = README.read_text()
        block = text.split(BEGIN)[1].split(END)[0].strip() if BEGIN in text else ""
        if block != render(rec):
            print("README sweep block differs from benchmarks/persistence_sweep.json; run "
                  "python benchmarks/bench_persistence.py --write", file=sys.stderr)
            return 1
        return 0
    if args.measure or not JSON.is_file():
        rec = measure(cfg)
    else:
        rec = json.loads(JSON.read_text())
    if args.reference_config:
        rec["reference_config"] = args.reference_config
    rec["estimate"] = estimate(cfg, rec, args.reference)
    JSON.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
    print(render(rec))
    if args.write:
        text = README.read_text()
        if BEGIN not in text:
            raise SystemExit(f"README.md has no {BEGIN} ... {END} block")
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        README.write_text(f"{head}{BEGIN}\n{render(rec)}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
