"""Persistence stage in the pipeline: the full sweep (workflow/config/sweep.yaml) plans one job per chunk of the
run plan (how long that takes is benchmarks/bench_pipeline.py's `sweep_dag_seconds`, not a timed test), and the
sweep size in docs/cluster.md is the benchmark record's."""

import re
from pathlib import Path

import yaml
from lsadyn_workflow.config import merge

from lsadyn.paper.persistence.plan import n_chunks, run_plan, scenario_set

ROOT = Path(__file__).resolve().parents[1]
SWEEP = "workflow/config/sweep.yaml"


def _config(*files):
    cfg = {}
    for f in files:
        cfg = merge(cfg, yaml.safe_load((ROOT / f).read_text()))
    return cfg


def _chunks(cfg):
    pc = cfg["persistence"]
    sc = scenario_set(cfg["highdim"]["scenarios"], cfg["bifurcation"], pc["saddle_node"])
    return len(run_plan(pc, sc, cfg["seed"])), n_chunks(pc, sc, cfg["seed"])


def test_sweep_config_plans_one_job_per_chunk_of_the_full_sweep(tmp_path):
    from conftest import smk
    from test_pipeline import copy_repo

    repo = copy_repo(tmp_path / "repo")
    r = smk(repo, "-n", "--configfile", SWEEP, check=False, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    runs, chunks = _chunks(_config("workflow/config/config.yaml", SWEEP))
    m = re.search(r"^persistence_chunk\s+(\d+)$", r.stdout, re.M)
    assert m and int(m.group(1)) == chunks
    sweep = yaml.safe_load((ROOT / SWEEP).read_text())["persistence"]
    assert sweep["dimension"]["d"] == [2, 3, 4, 8, 16, 32, 64, 100]
    paper_runs, paper_chunks = _chunks(_config("workflow/config/config.yaml"))
    assert runs > 5 * paper_runs and chunks > paper_chunks


def test_quick_config_is_smaller_than_the_paper_config():
    quick = _chunks(_config("workflow/config/config.yaml", "workflow/config/quick.yaml"))
    paper = _chunks(_config("workflow/config/config.yaml"))
    assert quick[0] < paper[0]


def test_readme_sweep_size_is_the_benchmark_record(capsys):
    # `python benchmarks/bench_persistence.py --check`, in process (its __main__ only does sys.exit(main())): saves
    # a Python start and the library imports
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_persistence", ROOT / "benchmarks/bench_persistence.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--check"]) == 0, capsys.readouterr().err
