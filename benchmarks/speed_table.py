"""The Speed table of docs/performance.md, generated from the benchmark records (never typed by hand).

Reads benchmarks/results.json (``bench_core.py``), benchmarks/pipeline_timing.json (``bench_pipeline.py``),
benchmarks/stage_timing.json (``bench_persistence.py --stage-time``) and benchmarks/test_timing.json
(``bench_tests.py``), benchmarks/atlas.json (``bench_atlas.py``) and benchmarks/continuation.json
(``bench_continuation.py``) and renders the text between ``<!-- speed:begin -->`` and ``<!-- speed:end -->``
in docs/performance.md. ``--write`` rewrites that block; ``--check`` exits 1 if the page differs from what the
records give (tests/test_engine.py runs it). Usage: ``python benchmarks/speed_table.py --write|--check``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs/performance.md"
CORE = Path(__file__).with_name("results.json")
PIPELINE = Path(__file__).with_name("pipeline_timing.json")
STAGES = Path(__file__).with_name("stage_timing.json")  # bench_persistence.py --stage-time (issue 12 stages)
TESTS = Path(__file__).with_name("test_timing.json")  # bench_tests.py (the test commands of README.md)
ATLAS = Path(__file__).with_name("atlas.json")  # bench_atlas.py (issue 29: the d = 2 OA atlas of 10⁵ samples)
CONTINUATION = Path(__file__).with_name("continuation.json")  # bench_continuation.py (issue 29: one plane)
BEGIN = "<!-- speed:begin -->"
END = "<!-- speed:end -->"


def _pair_verdict(r: dict, pairs: list) -> str:
    """What the recorded pair comparison says about the per-evaluation target (from the numbers, not typed)."""
    dop = r["token_step_flops_over_floor"]
    lower = [m for m in pairs if r[f"token_pair_{m}_flops_over_floor"] < dop]
    if not lower:
        return ": no other pair has a lower bound per evaluation"
    cheaper = [m for m in lower if r[f"token_pair_{m}_arithmetic_per_run_over_dop853"] < 1]
    if cheaper:
        return f": {', '.join(cheaper)} would do less arithmetic per run than DOP853"
    return (f": {', '.join(lower)} {'has' if len(lower) == 1 else 'have'} a lower bound per evaluation but more "
            "arithmetic per run, so meeting the ratio that way would make the token runs slower")


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except json.JSONDecodeError as e:
        raise SystemExit(f"{path.relative_to(ROOT)}: not valid JSON ({e.msg}, line {e.lineno}); rerun its benchmark")


def _s(x: float) -> str:
    if x >= 120:
        x = round(x)  # whole seconds: 299.6 s is "5 min 0 s", not "4 min 60 s"
        return f"{int(x // 60)} min" if x % 60 == 0 else f"{int(x // 60)} min {x % 60:.0f} s"
    return f"{x:.3g} s"


def _yes(ok) -> str:
    return "yes" if ok else "**no**"


def _builds(pipe: dict) -> dict:
    """The timed builds of ``pipe`` by name (quick_first, quick_cached, paper_first, paper_cached). Records
    written before the cached builds were timed hold one quick and one paper build at top level, each in a fresh
    copy with an empty numba cache of its own: first builds, whose kernels were compiled."""
    if "builds" in pipe:
        return pipe["builds"]
    old = {}
    for kind, label in (("quick", "quick build"), ("paper", "paper build")):
        if f"{kind}_build_seconds" in pipe:
            old[f"{kind}_first"] = {
                "label": f"{label}, first on the machine (compiles the kernels)",
                "seconds": pipe[f"{kind}_build_seconds"], "cpu_seconds": pipe[f"{kind}_build_cpu_seconds"],
                "kernels": "compiled", "job_seconds": pipe.get(f"{kind}_job_seconds", {}),
                "measured_at": pipe.get(f"{kind}_measured_at", "?")}
    return old


def _atlas_lines(atlas: dict, cont: dict) -> list:
    """Rows of the d = 2 OA atlas (``bench_atlas.py``) and of the continuation planes (``bench_continuation.py``)."""
    out = []
    rec = (atlas or {}).get("runs", {}).get("current")
    if rec:
        out.append(f"| d = 2 OA atlas, {rec['samples']:,} Gaussian samples in {rec['processes']} workers "
                   f"(`bench_atlas.py`, {rec['cpu_s']:.0f} core-s of CPU, load {atlas.get('load_average_1min_after', '?')} "
                   f"after, measured {atlas.get('measured_at', '?')}) | {_s(rec['wall_s'])} | the compiled OA "
                   f"integration alone: {_s(rec['floor_wall_s'])} | {rec['wall_s'] / rec['floor_wall_s']:.3g}× "
                   f"| ≤ {_s(atlas['target_seconds'])} | {_yes(rec['wall_s'] <= atlas['target_seconds'])} |")
    planes = (cont or {}).get("planes", {})
    if planes:
        worst = max(planes, key=lambda k: planes[k]["best_s"])
        target = cont["target_seconds"]
        out.append(f"| continuation, one two-parameter plane (`bench_continuation.py`, slowest of {len(planes)}: "
                   f"{worst}, best of repeats) | {_s(planes[worst]['best_s'])} | | | ≤ {_s(target)} "
                   f"| {_yes(all(v['best_s'] <= target for v in planes.values()))} |")
    return out


def render(core: dict, pipe: dict, stages: dict | None = None, tests: dict | None = None, atlas: dict | None = None,
           cont: dict | None = None) -> str:
    """The Markdown between the markers (deterministic given the records)."""
    r = core.get("ratios", {})
    lines = [BEGIN,
             "_Generated by `python benchmarks/speed_table.py --write` from `benchmarks/results.json` "
             "(`python benchmarks/bench_core.py`), `benchmarks/pipeline_timing.json` "
             "(`python benchmarks/bench_pipeline.py`) and `benchmarks/test_timing.json` "
             "(`python benchmarks/bench_tests.py`); do not edit by hand. Ratios are measured within "
             "one run (the machine is shared and noisy). Wall times are from the moment each row names; on a "
             "busy shared machine the same commands have taken up to twice as long (CPU seconds, beside them, "
             "move less)._",
             "",
             "| measure | measured | floor / reference (same run) | ratio | target | met |",
             "|---|---|---|---|---|---|"]
    if "token_run_over_floor" in r:
        spread = ""
        if "token_run_over_floor_median_round" in r:
            k = r["token_rounds"]
            spread = (f"; best of {k} runs and {k} floor batches in alternation, the rounds' own ratios: median "
                      f"{r['token_run_over_floor_median_round']:.3g}×, worst {r['token_run_over_floor_worst_round']:.3g}×")
        bounds = ""
        if "token_step_arrays_over_floor" in r:
            run, flops, arrays = (r["token_run_over_floor"], r["token_step_flops_over_floor"],
                                  r["token_step_arrays_over_floor"])
            bounds = (f"; a DOP853 step does {flops:.3g}× the arithmetic and streams {arrays:.3g}× the token arrays "
                      "of 12 floor evaluations (lower bounds of the ratio where arithmetic / cache bandwidth limit "
                      "the step as they limit the floor, `bench_core.step_bounds`): the run is at "
                      f"{run / flops:.2f}× the first and {run / arrays:.2f}× the second"
                      + (f", so ≤ 2× needs a step that streams fewer arrays and spends under "
                         f"{100 * (2 / flops - 1):.0f} % beyond its arithmetic on step control, rejected steps and "
                         "dense output" if run > 2 and flops < 2 < arrays else ""))
        lines.append(
            f"| d = 2 token run, per point-token-evaluation (compiled DOP853, 1000 tokens{spread}{bounds}) "
            f"| {r['token_run_ns_per_point_token_eval']:.3g} ns | fused compiled field alone (timed in one compiled "
            f"loop): {r['token_floor_ns_per_point_token']:.3g} ns | {r['token_run_over_floor']:.3g}× | ≤ 2× "
            f"| {_yes(r['token_run_over_floor'] <= 2)} |")
        lines.append(f"| the same through scipy's DOP853 (reference path) | | | {r['token_scipy_over_floor']:.3g}× "
                     "| | |")
        names = {"RK45": "Dormand–Prince 5(4)", "RK23": "Bogacki–Shampine 3(2)"}
        pairs = [m for m in names if f"token_pair_{m}_flops_over_floor" in r]
        if pairs:
            lines.append(
                "| other embedded pairs, from their arithmetic bound per evaluation (as above) and scipy's evaluation "
                f"counts against DOP853's on {r['token_pairs_points']} of the points at rtol {r['token_pairs_rtol']:.0e} "
                "(`bench_core.pair_comparison`): "
                + "; ".join(f"{m} ({names[m]}) {r[f'token_pair_{m}_flops_over_floor']:.3g}× per evaluation, "
                            f"{r[f'token_pair_{m}_evals_over_dop853']:.3g}× the evaluations, so "
                            f"{r[f'token_pair_{m}_arithmetic_per_run_over_dop853']:.3g}× DOP853's arithmetic per run"
                            for m in pairs)
                + _pair_verdict(r, pairs) + " | | | | | |")
    builds = _builds(pipe)
    for name, rec in builds.items():
        limit = 45 if name.startswith("quick") else 240
        target = f"≤ {_s(limit)}"
        fl = rec.get("floor")
        own = (f"; Snakemake's own process {_snakemake_cpu(rec):.0f} core-s"
               if fl and fl.get("cpu_from") == "job logs" else "")
        floor = (f"its jobs' floor on {pipe.get('cores', 2)} cores (`bench_pipeline.py`: the larger of the jobs' "
                 f"{fl['job_cpu_seconds']:.0f} core-s (from {fl.get('cpu_from', 'benchmark: files, which stop short')}) "
                 f"over the cores and the longest chain, {fl['longest_chain_cpu_seconds']:.0f} s{own}): "
                 f"{_s(fl['floor_seconds'])}" if fl else "")
        ratio = f"{rec['seconds'] / fl['floor_seconds']:.3g}×" if fl else ""
        lines.append(f"| {rec['label']}; `--cores {pipe.get('cores', 2)}`, fresh copy, {rec['cpu_seconds']:.0f} core-s "
                     f"of CPU, {fl['jobs'] if fl else '?'} jobs" + (f", measured {rec['measured_at']}" if rec.get("measured_at") else "")
                     + f" | {_s(rec['seconds'])} | {floor} | {ratio} "
                     f"| {target} | {_yes(rec['seconds'] <= limit)} |")
        if fl and "one_job_per_rule_floor_seconds" in fl:
            bound = fl["one_job_per_rule_floor_seconds"]
            lines.append(
                f"| the same build's work with the jobs of each rule merged into one (`bench_pipeline.py`, "
                f"`regrouped_bound`: {fl['rules']} jobs instead of {fl['jobs']}; a merged job pays its fixed cost once, "
                f"and that cost is at most the rule's cheapest job's whole CPU, so this is a lower bound; the figures "
                f"stay one rule each, so that editing one reruns only it; {fl['one_job_per_rule_cpu_seconds']:.0f} "
                f"core-s over {pipe.get('cores', 2)} cores, Snakemake's own process not counted): no build of this "
                f"work is faster | {_s(bound)} | | | {target} "
                f"| {'reachable' if bound <= limit else '**no: the target is below this bound**'} |")
    if stages and "added_seconds" in stages:
        lines.append(f"| wall time the persistence + robustness stages add to the paper build (their chunk jobs, tables "
                     f"and figures, after `compile_kernels`, fresh copy; `bench_persistence.py --stage-time`, "
                     f"{stages['added_cpu_seconds']:.0f} core-s of CPU, load {stages['load_average_1min']:g}, measured "
                     f"{stages['measured_at']}) | {_s(stages['added_seconds'])} | | | ≤ 90 s "
                     f"| {_yes(stages['added_seconds'] <= 90)} |")
    for rec in (tests or {}).get("runs", {}).values():
        lines.append(f"| {rec['label']}, fresh clone (`bench_tests.py`), {rec['cpu_seconds']:.0f} core-s of CPU, "
                     f"{rec['summary']}, measured {rec['measured_at']} | {_s(rec['seconds'])} | | | "
                     f"≤ {_s(rec['target_seconds'])} | {_yes(rec['exit_code'] == 0 and rec['seconds'] <= rec['target_seconds'])} |")
    if "dag_seconds" in pipe:
        lines.append(f"| building the DAG (`snakemake -n`) | {_s(pipe['dag_seconds'])} | | | < 5 s "
                     f"| {_yes(pipe['dag_seconds'] < 5)} |")
    if "sweep_dag_seconds" in pipe:
        lines.append(f"| building the full persistence sweep's DAG (`snakemake -n --configfile workflow/config/sweep.yaml`) "
                     f"| {_s(pipe['sweep_dag_seconds'])} | | | < 5 s | {_yes(pipe['sweep_dag_seconds'] < 5)} |")
    if pipe.get("slurm_probe_seconds") is not None:
        lines.append(f"| of which in every snakemake start: `scontrol show config` (SLURM plugin's probe; ~9 s when "
                     f"no controller answers) | {_s(pipe['slurm_probe_seconds'])} | | | | |")
    for key, v in sorted(r.items()):
        if key.startswith("usa_over_floor"):
            lines.append(f"| USA field vs its product-and-exp floor ({key.split('_')[-1]}) | | | {v:.3g}× | ≤ 3× "
                         f"| {_yes(v <= 3)} |")
    lines += _daido_lines(core)
    lines += _atlas_lines(atlas, cont)
    shown = {"token_run_within_2x_of_fused_floor", "usa_within_3x_of_floor"}
    others = {k: v for k, v in core.get("targets", {}).items() if k not in shown}
    if others:
        lines += ["", "Other targets recorded by `bench_core.py`: "
                  + "; ".join(f"{k.replace('_', ' ')}: {'met' if v else '**not met**'}" for k, v in others.items())
                  + "."]
    lines += _cpu_by_kind_lines(_builds(pipe))
    paper = _builds(pipe).get("paper_first", {})
    jobs = paper.get("job_seconds", {})
    if jobs:
        lines += ["", f"Paper-config jobs of the first paper build (wall seconds, each rule's `benchmark:` file; "
                      f"measured {paper.get('measured_at', 'at the last paper run')}):", "",
                  "| job | s | job | s |", "|---|---|---|---|"]
        items = sorted(jobs.items())
        halves = (len(items) + 1) // 2
        for left, right in zip(items[:halves], items[halves:] + [("", None)]):
            rs = f"{right[1]:.1f}" if right[1] is not None else ""
            lines.append(f"| {left[0]} | {left[1]:.1f} | {right[0]} | {rs} |")
    if core.get("machine") or pipe.get("machine"):
        lines += ["", f"Machine: {pipe.get('cpus', '?')} CPUs, {pipe.get('machine') or core.get('machine')}."]
    lines.append(END)
    return "\n".join(lines)


def _daido_lines(core: dict) -> list:
    """Rows of the d = 2 softmax moment form (``bench_core.py --only-daido``), if recorded."""
    r = core.get("ratios", {})
    rows = {(x["name"], x["n"]): x for x in core.get("rows", [])}
    out = []
    for key in sorted(k for k in r if k.startswith("daido_usa_over_floor_")):
        tag, n = key.removeprefix("daido_usa_over_floor_").split("_n")
        beta = tag.removeprefix("beta")
        floor = rows.get((f"daido_floor_{tag}", int(n)))
        for model in ("usa", "sa"):
            rec = rows.get((f"daido_{model}_{tag}", int(n)))
            if rec is None or floor is None:
                continue
            out.append(f"| d = 2 {model.upper()} by moments (`lsadyn.fields.kuramoto_daido`), n = {int(n):,}, β = {beta}, "
                       f"M = {r.get(f'daido_M_{tag}', '?')}, per evaluation | {_s(rec['seconds_per_eval'])} | its floor: "
                       f"e^(iθ) and the moments Z_m, m ≤ M + 1: {_s(floor['seconds_per_eval'])} "
                       f"| {r[f'daido_{model}_over_floor_{tag}_n{n}']:.3g}× | | |")
    for key in sorted(k for k in r if k.startswith(("daido_usa_speedup_over_direct_n", "daido_sa_speedup_over_direct_n"))):
        model, n = key.removeprefix("daido_").split("_speedup_over_direct_n")
        fast, slow = rows.get((f"daido_{model}_beta1", int(n))), rows.get((f"{model}_direct_d2", int(n)))
        if fast and slow:
            out.append(f"| d = 2 {model.upper()} by moments against the n × n kernel, n = {int(n):,}, β = 1 "
                       f"| {_s(fast['seconds_per_eval'])} | direct field: {_s(slow['seconds_per_eval'])} "
                       f"| {r[key]:.3g}× faster | | |")
    return out


JOB_KINDS = {  # kind of job: does its name start with one of these (first match wins)
    "kernel compilation": ("compile_",),
    "figures": ("fig_",),
    "movies": ("movie_",),
    "tables, claims, findings": ("findings", "bifurcation_fit"),  # and every *_table job (_job_kind)
}


def _job_kind(name: str) -> str:
    for kind, prefixes in JOB_KINDS.items():
        if name.startswith(prefixes):
            return kind
    return "tables, claims, findings" if name.endswith("_table") else "simulations"


def _snakemake_cpu(rec: dict) -> float:
    """Core-seconds of a build's Snakemake process itself: the build's CPU minus its jobs' (from their logs)."""
    return rec["cpu_seconds"] - rec["floor"]["job_cpu_seconds"]


def _cpu_by_kind_lines(builds: dict) -> list:
    """Where each build's CPU went: core-seconds by kind of job (each job's log), Snakemake's own process (the
    build's CPU minus its jobs'), the cheapest job (what a job costs before it does any work: starting Python,
    Snakemake's script preamble and the imports), and the jobs' CPU split into imports (before the first line of a
    job's log) and work (after it)."""
    rows = {n: r for n, r in builds.items() if (r.get("floor") or {}).get("cpu_from") == "job logs"}
    if not rows:
        return []
    kinds = [*JOB_KINDS, "simulations"]
    out = ["", "Where each build's CPU goes (core-seconds; jobs: each job's log, its whole process with its imports; "
               "the cheapest job is what a job costs before it does any work):", "",
           "| build | " + " | ".join(f"{k} (jobs)" for k in kinds)
           + " | Snakemake's own process | build | cheapest job | all jobs' imports | all jobs' work |",
           "|---" * (len(kinds) + 6) + "|"]
    for name, rec in rows.items():
        cpu = rec["job_cpu_seconds"]
        by = {k: [v for j, v in cpu.items() if _job_kind(j) == k] for k in kinds}
        cheapest = min(cpu, key=cpu.get)
        out.append(f"| {name} | " + " | ".join(f"{sum(by[k]):.0f} ({len(by[k])})" for k in kinds)
                   + f" | {_snakemake_cpu(rec):.0f} | {rec['cpu_seconds']:.0f} "
                   f"| {cpu[cheapest]:.2f} ({cheapest}) "
                   + (f"| {rec['floor']['import_cpu_seconds']:.0f} | {rec['floor']['work_cpu_seconds']:.0f} |"
                      if "work_cpu_seconds" in rec["floor"] else "| | |"))
    return out


def current_block(text: str) -> str | None:
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, flags=re.S)
    return m.group(0) if m else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite the Speed block of docs/performance.md")
    g.add_argument("--check", action="store_true", help="exit 1 if the Speed block of docs/performance.md is out of date")
    args = ap.parse_args(argv)
    text = PAGE.read_text()
    block = current_block(text)
    if block is None:
        sys.stderr.write(f"docs/performance.md: no {BEGIN} ... {END} block\n")
        return 1
    new = render(_load(CORE), _load(PIPELINE), _load(STAGES), _load(TESTS), _load(ATLAS), _load(CONTINUATION))
    if args.check:
        if block != new:
            sys.stderr.write("docs/performance.md: the Speed block differs from the benchmark records; run "
                             "python benchmarks/speed_table.py --write\n")
            return 1
        return 0
    PAGE.write_text(text.replace(block, new))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
