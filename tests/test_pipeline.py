"""Pipeline: dry runs, bad configs, lint, and an end-to-end build of the quick config in a
temporary copy (partial reruns, failing jobs, determinism, a killed run)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import QUICK, ROOT, checkout_env, copy_repo, smk

TABLES = ["regimes.csv", "agreement.csv", "disagreements.csv", "claims.csv", "bifurcation_fit.csv", "stability.csv",
          "highdim.csv", "offmanifold.csv", "robustness.csv", "persistence.csv", "continuation.csv",
          "atlas.csv", "atlas_invariants.csv", "atlas_phase.csv", "exponents.csv", "floquet.csv", "basins.csv",
          "usa_oscillation.csv", "usa_oscillation_growth.csv", "looped.csv"]
MOVIES = ["cluster_converge", "cluster_rotate", "interior_converge", "oscillate"]


def planned_jobs(cwd, *args, targets=()) -> list[str]:
    """Jobs a dry run (of ``targets``, default: all) would execute, as 'rule' or 'rule[case]' (sorted); ``args``
    are more config files. Targets go before --configfile, which takes every argument after it."""
    r = smk(cwd, "-n", *targets, "--configfile", QUICK, *args)
    jobs, current = [], None
    for line in (r.stdout + r.stderr).splitlines():
        m = re.match(r"^(?:local)?rule (\w+):$", line.strip())
        if m:
            if current:
                jobs.append(current)
            current = m.group(1)
        w = re.match(r"^wildcards: (?:case|scenario|regime|movie)=(\w+)$", line.strip())
        if w and current:
            current = f"{current}[{w.group(1)}]"
    if current:
        jobs.append(current)
    return sorted(jobs)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    return copy_repo(tmp_path_factory.mktemp("fresh") / "repo")


def test_dry_run_plans_every_result(fresh):
    jobs = planned_jobs(fresh)
    for rule in ["simulate_2d[case1]", "simulate_2d[case4]", "regimes_table", "claims_table", "findings", "fig_case1",
                 "fig_bifurcation", "all"]:
        assert rule in jobs
    assert not (fresh / "results").exists()


BAD_CONFIGS = [
    ("case1:\n  n_random: many\n", "case1.n_random"),  # wrong type
    ("oa:\n  horizon: -3\n", "oa.horizon"),  # negative time
    ("trajectories:\n  horizon: 0\n", "trajectories.horizon"),
    ("case2:\n  lam_min: 1\n  lam_max: -1\n", "case2.lam_min"),
    ("case1:\n  n_rnd: 3\n", "case1.n_rnd"),  # unknown key
    ("colour: red\n", "colour"),
    ("highdim:\n  scenarios:\n    identity:\n      A: [[1, 0, 0], [0, 1, 0]]\n", "highdim.scenarios.identity.A"),
    ("stability:\n  regimes:\n    rotating:\n      V: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n",
     "stability.regimes.rotating.V"),  # wrong size
    ("stability:\n  horizon: -1.0\n", "stability.horizon"),
    ("agreement:\n  n_tokens: 100000000\n", "agreement.n_tokens"),  # a size past the machine (issue 45, case 5)
    ("highdim:\n  n_tokens: 10000000\n", "highdim.n_tokens"),
]


def _integer_nodes(node, path, defs):
    """(key path, schema node) of every integer-valued entry of the schema (``$ref`` resolved, arrays' items)."""
    if isinstance(node, dict):
        if "$ref" in node:
            yield from _integer_nodes({**defs[node["$ref"].split("/")[-1]], **{k: v for k, v in node.items()
                                                                              if k != "$ref"}}, path, defs)
            return
        if node.get("type") == "integer":
            yield path, node
        for k, v in node.get("properties", {}).items():
            yield from _integer_nodes(v, f"{path}.{k}" if path else k, defs)
        for k in ("items", "additionalProperties"):
            if isinstance(node.get(k), dict):
                yield from _integer_nodes(node[k], f"{path}[]", defs)
        for k in ("oneOf", "anyOf", "allOf"):
            for v in node.get(k, []):
                yield from _integer_nodes(v, path, defs)


def test_every_size_in_the_schema_is_bounded():
    """Issue 45, case 5: a count past what the machine can hold is refused by the schema, naming its key, before
    any job runs; so every integer key but a seed has a maximum (and the three configs stay inside them)."""
    import yaml

    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    nodes = list(_integer_nodes(schema, "", schema.get("definitions", {})))
    assert len(nodes) > 50
    unbounded = [k for k, n in nodes if "maximum" not in n and not k.split(".")[-1].endswith("seed")]
    assert unbounded == []


@pytest.mark.parametrize("override,key", BAD_CONFIGS)
def test_bad_config_names_the_key(override, key):
    """What the Snakefile does on load, in process: config.yaml with the override merged as Snakemake
    merges a --configfile, then check_config. Every bad value is named by its key."""
    import yaml
    from lsadyn_workflow.config import check_config, load_config_file, merge

    config = merge(load_config_file(ROOT / "workflow/config/config.yaml"), yaml.safe_load(override))
    with pytest.raises(ValueError) as err:
        check_config(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    assert str(err.value).startswith(f"config key {key}:") and "\n" not in str(err.value)


# Through Snakemake itself (each a separate `snakemake -n`): one of each kind of error (wrong type, unknown key,
# matrix of the wrong shape) — the wiring is the same for every key; test_bad_config_names_the_key has them all.
@pytest.mark.parametrize("override,key", [BAD_CONFIGS[0], BAD_CONFIGS[5], BAD_CONFIGS[6], BAD_CONFIGS[9]])
def test_bad_config_stops_before_any_job(fresh, tmp_path, override, key):
    bad = tmp_path / "bad.yaml"
    bad.write_text(override)
    r = smk(fresh, "-n", "--configfile", str(bad), check=False)
    assert r.returncode != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("lsadyn: invalid configuration")]
    assert len(lines) == 1 and f"config key {key}:" in lines[0], r.stderr
    assert not (fresh / "results").exists()


def test_lint_and_format():
    r = smk(ROOT, "--lint", check=False)
    assert r.returncode == 0 and "Congratulations" in r.stdout + r.stderr, r.stdout[-2000:]
    files = ["Snakefile", *map(str, sorted((ROOT / "workflow/rules").glob("*.smk")))]
    f = subprocess.run([sys.executable, "-m", "snakefmt", "--check", *files], cwd=ROOT, capture_output=True, text=True)
    assert f.returncode == 0, f.stderr


def test_every_rule_has_a_log_resources_and_heavy_rules_a_benchmark():
    text = "\n".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    rules = re.split(r"\n *rule\b", "\n" + text)[1:]  # indented: a rule defined once per table row
    assert len(rules) >= 8
    for body in rules:
        name = body.split(":")[0].strip() or body.split("name:")[1].split()[0]
        assert re.search(r"\n +log:", body), name
        assert re.search(r"\n +threads:", body) and "mem_mb=" in body and "runtime=" in body, name  # cluster executors
        if name.startswith("simulate"):
            assert re.search(r"\n +benchmark:", body), name


@pytest.mark.slow
def test_quick_build_makes_every_output_and_then_nothing_to_do(built):
    for t in TABLES:
        assert (built / "results/tables" / t).stat().st_size > 0
    for fig in ["fig_case1", "fig_case2", "fig_case3", "fig_case4", "fig_bifurcation", "fig_stability", "fig_highdim",
                "fig_offmanifold", "fig_persistence", "fig_continuation", "fig_atlas", "fig_exponents",
                "fig_usa_oscillation", "fig_looped"]:
        assert (built / f"paper_figures/{fig}.pdf").stat().st_size > 1000
        assert (built / f"paper_figures/{fig}.png").stat().st_size > 1000
    assert planned_jobs(built) == []
    assert "## C1" in (built / "results/FINDINGS.md").read_text()
    # the build's provenance (lsadyn_workflow.provenance), on the first page of FINDINGS and of the findings page
    rec = json.loads((built / "results/provenance.json").read_text())
    assert rec["build"]["status"] == "complete" and rec["build"]["start"] <= rec["build"]["end"]
    assert sorted(Path(t).name for t in rec["build"]["tables_written"]) == sorted(TABLES)
    assert [f["path"] for f in rec["config"]["files"]] == [QUICK, "workflow/config/config.yaml"]
    head = (built / "results/FINDINGS.md").read_text().split("\n## ")[0]  # the first screen: table, provenance
    assert f"it wrote {len(TABLES)} of the {len(TABLES)} tables" in head and rec["config"]["merged_sha256"][:16] in head
    page = (built / "results/report/findings.html").read_text()
    assert f"numpy {rec['packages']['numpy']}" in page[: page.index("<h2")]  # the first screen, before the sections
    summary = (built.parent / "build_output.txt").read_text()
    assert "lsadyn build summary" in summary and "results/FINDINGS.md" in summary
    assert "snakemake --report report.html --configfile=workflow/config/quick.yaml" in summary
    for m in MOVIES:
        for d in (2, 3):
            assert 10_000 < (built / f"paper_figures/movies/{m}_d{d}.gif").stat().st_size <= 3 * 2**20
    claims = (built / "results/tables/claims.csv").read_text()
    for cid in ["C1a-oa", "C1a-tokens", "C1b-ws", "C1c-hurwitz", "C1c-centre", "C2a-oa", "C2b-tokens", "C3a",
                "C3a-commuting", "C3b", "C4a-oscillate", "C4b", "C4c", "C5a", "C5b", "C5c", "C6a-sym_pos_def",
                "C6b-lambda_max_pos", "C7-lsa", "C7-shape-usa", "C7-rotation-lsa", "C7-oscillation-usa", "C9-lsa",
                "C10-usa-rotation", "C11a-case3", "C11b-saddle_node", "C11c-case4", "C12a-gaussian-d2",
                "C12b-goe-d2", "C12c-gaussian-usa-d3", "C12d-gaussian-sa-d2"]:
        assert f"\n{cid}," in claims


@pytest.mark.slow
def test_partial_rerun_after_editing_one_case(built_copy, tmp_path):
    edit = tmp_path / "edit.yaml"
    edit.write_text("case1:\n  n_random: 41\n")
    jobs = planned_jobs(built_copy, str(edit))
    assert jobs == sorted(["simulate_2d[case1]", "regimes_table",
                           "claims_table", "findings", "fig_case1", "all"])


@pytest.mark.slow
def test_partial_rerun_after_editing_the_beta_sweep_reruns_only_its_chunk(built_copy, tmp_path):
    """A persistence chunk's params are its own runs (lsadyn.paper.persistence.plan.chunk_jobs), not the whole
    persistence section: lengthening the β sweep's rotation runs reruns the one chunk that holds β runs (and what
    reads persistence.csv: its table, fig_persistence, fig_exponents' contraction panel, claims, findings)."""
    edit = tmp_path / "edit.yaml"
    edit.write_text("persistence:\n  beta_sweep:\n    settle_horizon:\n      - {scenario: rotation, horizon: 300.0}\n")
    jobs = planned_jobs(built_copy, str(edit))
    assert jobs.count("persistence_chunk") == 1
    assert set(jobs) <= {"persistence_chunk", "persistence_table", "fig_persistence", "fig_exponents", "claims_table",
                         "findings", "all"}


def _edited(path: Path):
    original = path.read_text()
    path.write_text(original + "\n# edited by a test\n")
    return original


@pytest.mark.slow
def test_partial_rerun_after_editing_a_figure_notebook(built_copy):
    _edited(built_copy / "workflow/notebooks/fig_case3.py")
    assert planned_jobs(built_copy) == ["all", "fig_case3"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "module,expected",
    [
        ("paper/plotting.py", sorted(["all", "fig_atlas", "fig_bifurcation", "fig_case1", "fig_case2", "fig_case3", "fig_case4",
                                      "fig_continuation", "fig_exponents", "fig_usa_oscillation", "fig_highdim", "fig_offmanifold", "fig_persistence", "fig_robustness",
                                      "fig_stability", "fig_looped", "looped_movie"]
                                     + [f"movie[{m}]" for m in MOVIES])),
        ("paper/movies/frames.py", sorted(["all", "looped_movie"] + [f"movie[{m}]" for m in MOVIES])),
        ("paper/movies/runs.py", sorted(["all"] + [f"movie[{m}]" for m in MOVIES])),
        ("distances.py", sorted(["all", "claims_table", "compile_bl_kernels", "findings", "fig_stability",
                                 "stability_table"]
                         + [f"stability_run[{r}]" for r in ("hamiltonian", "interior", "lambda_max_pos", "rotating",
                                                            "sym_pos_def")])),
        ("paper/claims.py", ["all", "claims_table", "findings"]),
        ("paper/findings.py", ["all", "findings"]),
        ("../../workflow/lib/lsadyn_workflow/config.py", []),  # used by the Snakefile only, by no job
    ],
)
def test_partial_rerun_after_editing_a_module(built_copy, module, expected):
    _edited(built_copy / "src/lsadyn" / module)
    assert planned_jobs(built_copy) == expected


# issue 45, case 6: "interrupt snakemake --forcerun simulate_2d, then run snakemake: it said 'Nothing to be done' while
# results/sim/case4.csv and results/params/case4.csv were still missing". The intermediates the claims and figures read
# are targets of rule all, so a plain rerun rebuilds a missing one and what reads it.
@pytest.mark.slow
def test_a_missing_intermediate_is_rebuilt_by_a_plain_rerun(built_copy):
    for f in ("results/sim/case4.csv", "results/params/case4.csv"):
        (built_copy / f).unlink()
    jobs = planned_jobs(built_copy)
    assert "simulate_2d[case4]" in jobs and {"regimes_table", "claims_table", "findings", "fig_case4"} <= set(jobs)


@pytest.mark.slow
def test_failing_job_leaves_no_output(built_copy):
    built = built_copy
    nb = built / "workflow/notebooks/fig_case2.py"
    original = nb.read_text()
    nb.write_text(original + "\nraise RuntimeError('deliberate failure after the figure was saved')\n")
    try:
        r = smk(built, "--cores", "1", "--configfile", QUICK, check=False)
        assert r.returncode != 0
        assert not (built / "paper_figures/fig_case2.pdf").exists()
        assert not (built / "paper_figures/fig_case2.png").exists()
        assert json.loads((built / "results/provenance.json").read_text())["build"]["status"] == "failed"
    finally:
        nb.write_text(original)
    smk(built, "--cores", "1", "--configfile", QUICK)
    assert (built / "paper_figures/fig_case2.pdf").exists()
    assert planned_jobs(built) == []
    # the provenance says what this build did: it completed and wrote none of the tables, only the figure
    rec = json.loads((built / "results/provenance.json").read_text())
    assert rec["build"]["status"] == "complete" and rec["build"]["tables_written"] == []
    assert f"it wrote 0 of the {len(TABLES)} tables" in (built / "results/FINDINGS.md").read_text()


# The d = 2 tables: regimes_table and what it needs (the numba kernels, one simulate_2d job per case). A clean build
# of these is stopped while its simulations run, and built through SLURM: both compare with the shared build.
D2_TABLES = ["regimes.csv", "agreement.csv", "disagreements.csv"]


@pytest.mark.slow
def test_killed_run_leaves_nothing_half_written_resumes_and_matches_the_shared_build(request, tmp_path):
    """A clean build of the d = 2 tables, stopped by SIGTERM once its first simulation has written its table
    (others are running), leaves no table and nothing half-written: every results file it left equals the
    uninterrupted shared build's byte for byte. The same command then completes (nothing left to do) and the
    tables equal the shared build's. That build (conftest.built) is asked for only at the end: under xdist both
    run at once. (Until Nov 30 this test killed and resumed a whole quick build, ~190 s of CPU; the kill and the
    resume do not depend on which targets are built.)"""
    repo = copy_repo(tmp_path / "repo")
    targets = [f"results/tables/{t}" for t in D2_TABLES]
    command = [sys.executable, "-m", "snakemake", *targets, "--cores", "2", "--configfile", QUICK]
    proc = subprocess.Popen(command, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env=checkout_env(repo))
    deadline = time.time() + 300
    while time.time() < deadline and not list((repo / "results/sim").glob("*.csv")):
        time.sleep(0.2)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGTERM)  # what a scheduler or Ctrl-C sends
    proc.wait(timeout=120)
    assert proc.returncode != 0  # Snakemake's own: the interrupted jobs failed
    left = {p.relative_to(repo): p.read_bytes() for p in (repo / "results").rglob("*") if p.is_file()}
    assert not any(str(p).startswith("results/tables/") for p in left), sorted(map(str, left))
    sims = [p for p in left if p.parent == Path("results/sim") and p.suffix == ".csv"]
    smk(repo, *command[3:])  # the same command
    assert planned_jobs(repo, targets=targets) == []
    built = request.getfixturevalue("built")
    assert len(sims) < len(list((built / "results/sim").glob("*.csv"))), "stopped after the last simulation"
    for path, data in left.items():
        if path.suffix == ".csv":  # kernels_compiled.txt says how long compiling took
            assert data == (built / path).read_bytes(), f"{path} was left half-written or differs"
    for t in D2_TABLES:
        assert (repo / "results/tables" / t).read_bytes() == (built / "results/tables" / t).read_bytes(), t


SLURM_FLAGS = ["--workflow-profile", "workflow/profiles/slurm", "--slurm-status-command", "squeue",
               "--slurm-no-account", "--slurm-init-seconds-before-status-checks", "1"]
# built through SLURM: the stability runs (one job per regime) and the table that gathers them
SLURM_TABLES = ["stability.csv"]


@pytest.mark.slow
@pytest.mark.slurm
def test_slurm_build_matches_local_build(request, tmp_path):
    """A real single-node SLURM cluster (tests/slurm/start_cluster.sh; .ci/run installs it) runs the stability
    stage of the quick config (one job per regime, then the table job that waits for them) through the executor
    plugin: every planned job is a SLURM job, and the table equals the local shared build's byte for byte. Every
    rule is submitted the same way (threads 1, mem_mb and runtime from the rule), so the other stages would add
    SLURM jobs, not scheduling paths (until Nov 30 this test built every table, 38 SLURM jobs). The local build
    (conftest.built) is asked for only at the end: under xdist it is built meanwhile."""
    if not shutil.which("slurmctld"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the SLURM test: slurm-wlm is not installed")
        pytest.skip("slurm-wlm not installed (run tests/slurm/start_cluster.sh --install)")
    up = subprocess.run(["bash", str(ROOT / "tests/slurm/start_cluster.sh")], capture_output=True, text=True)
    assert up.returncode == 0, up.stderr

    def n_slurm_jobs():
        out = subprocess.run(["squeue", "--states=all", "--noheader", "--format=%i"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return len(out.stdout.split())

    before = n_slurm_jobs()
    repo = copy_repo(tmp_path / "repo")
    targets = [f"results/tables/{t}" for t in SLURM_TABLES]
    n_planned = len(planned_jobs(repo, targets=targets))
    smk(repo, *SLURM_FLAGS, *targets, "--configfile", QUICK, timeout=1800)
    assert n_planned >= 5 and n_slurm_jobs() - before >= n_planned  # every planned job ran under SLURM
    assert planned_jobs(repo, targets=targets) == []
    built = request.getfixturevalue("built")
    for t in SLURM_TABLES:
        assert (repo / "results/tables" / t).read_bytes() == (built / "results/tables" / t).read_bytes(), t


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.mark.slow
def test_report_renders_every_figure_in_a_real_browser(built_copy, tmp_path):
    """`snakemake --report` makes one self-contained HTML file; headless Chromium opens it, every
    figure of every category displays (a decoded, non-blank PNG) and nothing fails to load."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("CI must run the report test: Chromium or playwright missing")
        pytest.skip("needs Debian's chromium and the playwright package")
    import numpy as np
    from matplotlib.image import imread

    report = tmp_path / "report.html"
    smk(built_copy, "--configfile", QUICK, "--report", str(report))
    figures = {
        "d = 2 cases": ["fig_bifurcation", "fig_case1", "fig_case2", "fig_case3", "fig_case4"],
        "Beyond the OA manifold": ["fig_offmanifold", "fig_stability"],
        "High dimension": ["fig_highdim", "fig_persistence"],
    }
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("requestfailed", lambda r: problems.append(f"failed to load {r.url[:100]}"))
        page.goto(report.as_uri())
        page.wait_for_timeout(1000)
        assert "Claims" in page.inner_text("body")
        for category in ("Findings", "Movies"):
            assert page.get_by_text(category, exact=True).count() > 0, category
        for category, figs in figures.items():
            page.get_by_text(category, exact=True).first.click()
            page.wait_for_timeout(500)
            for fig in figs:
                page.locator("tr", has_text=f"{fig}.png").first.locator("a[iconname=eye]").click()
                page.wait_for_timeout(800)
                sizes = page.eval_on_selector_all(
                    "img", "els => els.filter(e => e.src.startsWith('data:image/png'))"
                           ".map(e => [e.naturalWidth, e.naturalHeight])")
                assert sizes and min(sizes[-1]) > 100, (fig, sizes)
                shot = tmp_path / f"{fig}.png"
                page.screenshot(path=str(shot))
                pixels = imread(shot)[:, 400:, :3]  # right of the navigation panel
                assert np.std(pixels) > 0.05, f"{fig}: the displayed page is blank"
            page.goto(report.as_uri())
            page.wait_for_timeout(500)
        browser.close()
    assert not problems, problems


@pytest.mark.slow
def test_a_script_and_a_notebook_run_on_their_own_in_a_built_tree(built_copy):
    """`python workflow/scripts/regimes_table.py` and `python workflow/notebooks/fig_case1.py` in a built tree, without
    Snakemake: lsadyn_workflow.mock.mock_snakemake gives each its job's files, the table comes out byte-identical."""
    table, fig = built_copy / "results/tables/regimes.csv", built_copy / "paper_figures/fig_case1.png"
    before = table.read_bytes()
    table.unlink()
    fig.unlink()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(built_copy / "src"), str(built_copy / "workflow/lib")]))
    for script in ("workflow/scripts/regimes_table.py", "workflow/notebooks/fig_case1.py"):
        r = subprocess.run([sys.executable, script], cwd=built_copy, env=env, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stderr
    assert table.read_bytes() == before
    assert fig.stat().st_size > 0
