"""Cost of the full sweeps of issue 12 (workflow/config/sweep.yaml: persistence and robustness), from measured
per-run costs, and the wall time the two stages add to the paper build.

Persistence:

For every class of runs of the sweep's plan (model, d, n, weights dense or plane block + c I) this times a few
RK4 steps of one batch of the size the stage integrates together (:class:`lsadyn.batch.BatchField`,
:func:`lsadyn.solvers.rk4.rk4_stack_step`), giving seconds per member per step. A run costs that times its steps,
horizon / step × the mean horizon multiple the runs of its (study, model) reached in a reference build
(column ``budget_factor`` of results/tables/persistence.csv, default: 1 when no build is there, said in the
output). Observation and classification are not counted (a few % of a run in d ≤ 100).

Robustness (``--measure-robustness``, :func:`measure_robustness`): for every (scenario, d, n, model) class of
the sweep's plan, the runs that three of its jobs integrate together are run for real through
:func:`lsadyn.paper.robustness.runs.run_chunk` at the sweep's sizes, tolerances and budget (adaptive steps and
horizon multiples depend on the run, so they are run, not modelled); seconds per run × the class's runs.
The whole sweep adds the CPU of one paper build (benchmarks/pipeline_timing.json) for the other stages.

Writes benchmarks/persistence_sweep.json and, with ``--write``, the block of docs/cluster.md between
``<!-- sweep:begin -->`` and ``<!-- sweep:end -->``; ``--check`` exits 1 when that block differs from
the JSON (tests/test_persistence_pipeline.py runs it). Usage:
``python benchmarks/bench_persistence.py [--measure] [--write | --check]`` (``--measure`` reruns the timings;
run it under ``flock /tmp/lsadyn-heavy.lock`` on a shared machine).

``--stage-time`` measures the wall time the two issue-12 stages (persistence, robustness) add to the paper
build (:func:`stage_wall`, target ≤ 90 s on 2 cores; run it under the flock) and writes
benchmarks/stage_timing.json, which ``benchmarks/speed_table.py`` shows in the Speed block of docs/performance.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lsadyn.batch import BatchField, run_time_scale  # noqa: E402
from lsadyn.sampling import uniform_sphere  # noqa: E402
from lsadyn.solvers.rk4 import rk4_stack_step  # noqa: E402
from lsadyn_workflow.config import merge  # noqa: E402
from lsadyn.paper.highdim.plan import embed_scenario  # noqa: E402
from lsadyn.paper.persistence.plan import chunk_ids, run_plan, scenario_set  # noqa: E402

PAGE = ROOT / "docs/cluster.md"
JSON = Path(__file__).with_name("persistence_sweep.json")
REFERENCE = ROOT / "results/tables/persistence.csv"
CONFIGS = ["workflow/config/config.yaml", "workflow/config/sweep.yaml"]
BEGIN, END = "<!-- sweep:begin -->", "<!-- sweep:end -->"
STAGE_JSON = Path(__file__).with_name("stage_timing.json")
PIPELINE_JSON = Path(__file__).with_name("pipeline_timing.json")
#: The rules whose jobs (and everything downstream of them) are the stages' part of the paper build.
STAGE_RULES = ("persistence_chunk", "robustness_chunk")
#: The stages' own targets: their tables and figures (everything else of theirs is upstream).
STAGE_TARGETS = ("results/tables/persistence.csv", "results/tables/robustness.csv",
                 "paper_figures/fig_persistence.png", "paper_figures/fig_robustness.png")


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
    rk4_stack_step(f, X, 1e-3)
    best = np.inf
    for _ in range(steps):
        t0 = time.perf_counter()
        rk4_stack_step(f, X, 1e-3)
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


def _timed_build(repo: Path, args: list, cores: int) -> tuple[float, float, str]:
    """(wall s, CPU core-s of every process, stdout+stderr) of ``snakemake --cores N *args`` in ``repo``, with
    the copy's own src/ first on PYTHONPATH and a numba cache of its own (results/numba_cache)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(repo / "results" / "numba_cache"), MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", str(cores), *args], cwd=repo,
                       capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"snakemake {' '.join(args)} failed in {repo}:\n{r.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout + r.stderr


def _rules_run(log: str) -> dict:
    """Jobs per rule in a Snakemake log (its "Job stats" table)."""
    out, table = {}, False
    for line in log.splitlines():
        if line.startswith("Job stats"):
            table, out = True, {}
            continue
        parts = line.split()
        if table and len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            out[parts[0]] = int(parts[1])
        elif table and parts and parts[0] == "total":
            table = False
    return out


def stage_wall(cores: int = 2, keep: Path | None = None) -> dict:
    """Wall time the persistence and robustness stages add to the paper build, measured in one fresh copy
    (no results, an empty numba cache of its own):

    1. ``snakemake results/sim/kernels_compiled.txt``: the only job of the rest of the build the stages need
       (``compile_kernels``, which every build runs) — timed, not counted;
    2. ``snakemake`` on the stages' own targets (results/tables/persistence.csv, robustness.csv,
       paper_figures/fig_persistence.png, fig_robustness.png): every job the stages add — their chunk
       jobs, tables and figures — at ``cores`` cores: ``added_seconds``.

    The claims table and FINDINGS read every table and run in every build; the stages add rows to them,
    not jobs, so they are not counted. In a full build the stages' jobs also fill cores left idle by other
    jobs, so the wall time they add there is at most this. The stages' jobs' own wall seconds (their
    ``benchmark:`` files) are recorded beside it. ``keep``: copy the build's results/ there."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_pipeline import fresh_copy  # the pipeline benchmark's fresh copy (no results, no caches)

    with tempfile.TemporaryDirectory() as tmp:
        repo = fresh_copy(Path(tmp) / "paper")
        print("compile_kernels (not counted) ...", flush=True)
        pre, _, _ = _timed_build(repo, ["results/sim/kernels_compiled.txt"], cores)
        print(f"  {pre:.1f} s; the stages' jobs ...", flush=True)
        part, part_cpu, log = _timed_build(repo, list(STAGE_TARGETS), cores)
        jobs = {}
        for tsv in sorted((repo / "benchmarks/pipeline").glob("*.tsv")):
            if tsv.stem.startswith(tuple(STAGE_RULES)):
                with open(tsv) as fh:
                    jobs[tsv.stem] = float(next(csv.DictReader(fh, delimiter="\t"))["s"])
        if keep is not None:
            import shutil

            shutil.copytree(repo / "results", keep / "results", dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("numba_cache"))
    return {"config": "paper (workflow/config/config.yaml)", "cores": cores, "cpus": os.cpu_count(),
            "prerequisite_seconds": round(pre, 2), "added_seconds": round(part, 2),
            "added_cpu_seconds": round(part_cpu, 2), "rules": _rules_run(log), "stage_job_seconds": jobs,
            "target_seconds": 90, "load_average_1min": round(os.getloadavg()[0], 2),
            "method": "fresh copy: build compile_kernels (the stages' only prerequisite), then time snakemake "
                      "--cores " + str(cores) + " on " + ", ".join(STAGE_TARGETS),
            "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def robustness_scenarios(cfg) -> dict:
    """The robustness stage's scenarios by name, as workflow/rules/robustness.smk builds them."""
    from lsadyn.paper.persistence.plan import saddle_node_pair

    sn = cfg["persistence"]["saddle_node"]
    out = dict(cfg["highdim"]["scenarios"])
    out.update(saddle_node_pair(cfg["bifurcation"]["a"], cfg["bifurcation"]["s"], sn["delta"], sn["rest_A"],
                                sn["rest_V"], sn["horizon"]))
    return out


def robustness_classes(cfg):
    """The sweep's robustness plan and its classes (scenario, d, n, model); column ``chunk``: the job
    (:func:`lsadyn.paper.robustness.plan.batch_chunks`) of each run."""
    from lsadyn.paper.robustness.plan import batch_chunks
    from lsadyn.paper.robustness.plan import run_plan as robustness_plan

    rc = cfg["robustness"]
    plan = robustness_plan(rc["scenarios"], rc["models"], rc["grids"], batch_runs=int(rc["batch_runs"]))
    plan["chunk"] = plan.batch.map(batch_chunks(plan, int(rc["chunks"])))
    return plan, plan.groupby(["scenario", "d", "n_tokens", "model"], sort=False)


def measure_robustness(cfg, samples: int = 3) -> dict:
    """Seconds per run of the robustness sweep, per class (scenario, d, n, model), measured by running real
    runs of the sweep's plan at its sizes (tokens, horizon, tolerances, budget) through
    :func:`lsadyn.paper.robustness.runs.run_chunk`, the job's code path: ``samples`` batches per class (column
    ``batch`` of the plan: the runs one sweep job integrates together, so the batch size is the sweep's), spread
    over the class (unperturbed, small and large δ, quantised)."""
    from lsadyn.paper.robustness.runs import run_chunk as robustness_run

    rc = cfg["robustness"]
    scenarios = robustness_scenarios(cfg)
    plan, classes = robustness_classes(cfg)
    kw = {"beta": rc["beta"], "horizon": rc["horizon"], "n_samples": rc["n_samples"], "tol": cfg["classifier"],
          "seed": cfg["seed"] + 700, "rtol": rc["rtol"], "atol": rc["atol"]}
    for _, g in plan.groupby(["d", "model"]):  # warm-up, not timed: numba kernels loaded or compiled once per process
        robustness_run(g.head(1), scenarios, budget=1, **kw)
    out = {}
    for (sc, d, n, model), g in classes:
        batches = sorted(g.batch.unique())
        pick = [batches[int(i)] for i in np.unique(np.linspace(0, len(batches) - 1, samples).round())]
        runs, seconds = 0, 0.0
        for j in pick:
            part = g[g.batch == j]
            t0 = time.perf_counter()
            robustness_run(part, scenarios, budget=rc["budget_factor"], **kw)
            seconds += time.perf_counter() - t0
            runs += len(part)
        key = f"{sc}|{d}|{n}|{model}"
        out[key] = seconds / runs
        print(f"  robustness {sc} d={d} n={n} {model}: {runs} runs in {seconds:.1f} s "
              f"({out[key]:.3g} s per run)", flush=True)
    return out


def estimate_robustness(cfg, run_seconds: dict) -> dict:
    """Runs, jobs and core-hours of the sweep's robustness stage from the measured seconds per run."""
    plan, _ = robustness_classes(cfg)
    plan["seconds"] = [run_seconds[f"{r.scenario}|{r.d}|{r.n_tokens}|{r.model}"] for r in plan.itertuples()]
    by_d = {f"d = {d}": round(float(g.seconds.sum()) / 3600, 2) for d, g in plan.groupby("d")}
    return {"runs": len(plan), "jobs": int(cfg["robustness"]["chunks"]),
            "core_hours": round(float(plan.seconds.sum()) / 3600, 2), "core_hours_by_d": by_d,
            "longest_job_minutes": round(float(plan.groupby("chunk").seconds.sum().max()) / 60, 1)}


def sweep_jobs(cfg_files=CONFIGS) -> dict:
    """Jobs per rule of ``snakemake -n --configfile workflow/config/sweep.yaml`` (in a fresh copy)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_pipeline import fresh_copy

    with tempfile.TemporaryDirectory() as tmp:
        repo = fresh_copy(Path(tmp) / "sweep")
        r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", cfg_files[-1]], cwd=repo,
                           capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"snakemake -n --configfile {cfg_files[-1]} failed:\n{r.stderr[-2000:]}")
    return _rules_run(r.stdout + r.stderr)


def render(rec: dict) -> str:
    e = rec["estimate"]
    lines = ["```text",
             "persistence:",
             f"  runs: {e['runs']}",
             f"  jobs (persistence_chunk): {e['jobs']}",
             f"  estimated core-hours: {e['core_hours']} ("
             + ", ".join(f"{k} {v}" for k, v in sorted(e["core_hours_by_study"].items())) + ")",
             f"  longest job: {e['longest_job_hours']} h",
             f"  horizon multiples: {e['budget_source']}"]
    rb = rec.get("robustness", {}).get("estimate")
    if not rb:
        lines.append("robustness: not measured yet (python benchmarks/bench_persistence.py --measure-robustness)")
    else:
        lines += ["robustness:",
                  f"  runs: {rb['runs']}",
                  f"  jobs (robustness_chunk): {rb['jobs']}",
                  f"  estimated core-hours: {rb['core_hours']} ("
                  + ", ".join(f"{k} {v}" for k, v in sorted(rb["core_hours_by_d"].items(),
                                                             key=lambda kv: int(kv[0].split("=")[1]))) + ")",
                  f"  longest job: {rb['longest_job_minutes']} min (compute; job start-up not counted)",
                  f"  seconds per run: {rec['robustness']['method']}"]
    tot = rec.get("total")
    if tot:
        lines.append(f"whole sweep.yaml: {tot['jobs']} jobs (snakemake -n), estimated core-hours: {tot['core_hours']} "
                     f"(persistence {e['core_hours']} + robustness {rb['core_hours'] if rb else '?'} + the rest of the "
                     f"pipeline at the paper config, at most {tot['rest_core_hours']}: {tot['rest_source']})")
    lines.append("```")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", action="store_true", help="rerun the step timings (else reuse the JSON's)")
    ap.add_argument("--measure-robustness", action="store_true",
                    help="rerun the robustness sweep's per-run timings (minutes; else reuse the JSON's)")
    ap.add_argument("--reference", type=Path, default=REFERENCE, help="persistence.csv of a build (horizon multiples)")
    ap.add_argument("--reference-config", default="", help="which config built the reference (paper, quick)")
    ap.add_argument("--stage-time", action="store_true",
                    help="measure the wall time the stages add to the paper build (minutes; writes stage_timing.json)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="with --stage-time: copy that build's results/ here")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="rewrite the sweep block of docs/cluster.md")
    g.add_argument("--check", action="store_true", help="exit 1 if the sweep block of docs/cluster.md differs from the JSON")
    args = ap.parse_args(argv)
    if args.stage_time:
        rec = stage_wall(args.cores, args.keep)
        STAGE_JSON.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
        print(f"stages add {rec['added_seconds']:.1f} s of wall time at {args.cores} cores ({rec['added_cpu_seconds']:.0f}"
              f" core-s of CPU; target <= 90 s); wrote {STAGE_JSON.name}")
        return 0
    cfg = load_config(CONFIGS)
    if args.check:
        rec = json.loads(JSON.read_text())
        text = PAGE.read_text()
        block = text.split(BEGIN)[1].split(END)[0].strip() if BEGIN in text else ""
        if block != render(rec):
            print("docs/cluster.md: the sweep block differs from benchmarks/persistence_sweep.json; run "
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
    rb = rec.setdefault("robustness", {})
    if args.measure_robustness:
        samples = 3
        rb["run_seconds"] = measure_robustness(cfg, samples)
        rb["method"] = (f"per (scenario, d, n, model), {samples} of its batches (robustness.batch_runs runs integrated "
                        "together), run at the sweep's sizes, horizon, tolerances and budget (unperturbed, perturbed "
                        "and quantised runs; kernels compiled beforehand, job start-up not counted), shared 2-core "
                        "dev machine")
    if "run_seconds" not in rb:  # never measured: the page says so instead of guessing
        rec.pop("robustness")
        rec.pop("total", None)
        JSON.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
        print(render(rec))
        if args.write:
            _write_block(rec)
        return 0
    rb["estimate"] = estimate_robustness(cfg, rb["run_seconds"])
    jobs = sweep_jobs()
    rest = {"core_hours": 0.0, "source": "no paper build in benchmarks/pipeline_timing.json: not counted"}
    pipe = json.loads(PIPELINE_JSON.read_text()) if PIPELINE_JSON.is_file() else {}
    paper = pipe.get("builds", {}).get("paper_first") or {
        "cpu_seconds": pipe.get("paper_build_cpu_seconds"), "measured_at": pipe.get("paper_measured_at")}
    if paper.get("cpu_seconds"):
        rest = {"core_hours": round(paper["cpu_seconds"] / 3600, 2),
                "source": f"CPU of a whole paper build, benchmarks/pipeline_timing.json, {paper['measured_at']}"}
    rec["total"] = {"jobs": sum(jobs.values()), "jobs_by_rule": jobs, "rest_core_hours": rest["core_hours"],
                    "rest_source": rest["source"],
                    "core_hours": round(rec["estimate"]["core_hours"] + rb["estimate"]["core_hours"]
                                        + rest["core_hours"], 2)}
    JSON.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
    print(render(rec))
    if args.write:
        _write_block(rec)
    return 0


def _write_block(rec: dict) -> None:
    text = PAGE.read_text()
    if BEGIN not in text:
        raise SystemExit(f"docs/cluster.md has no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{BEGIN}\n{render(rec)}\n{END}{tail}")


if __name__ == "__main__":
    sys.exit(main())
