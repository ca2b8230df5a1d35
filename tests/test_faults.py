"""Fault injection, by what fails: 1. tables (corrupted, duplicated, NaN, uncertified intermediates), 2. budget
(runs too big, refused before any work), 3. config, 4. API and CLI edges, 5. interrupts and concurrent builds,
6. filesystem (a full disk, an unwritable results/ or HOME), 7. what a build prints. Fast: unit level, single rules,
tiny workflows and dry runs, no full build (the few slower ones are marked slow).

The comment above each test quotes the fault a trial found (issues 14, 31 and 45)."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import checkout_env, child_pids, pid_alive
from conftest import smk as conftest_smk
from lsadyn_workflow import config as pconfig
from lsadyn_workflow.io import TABLES, ResultFileError, load_arrays, load_table, write_csv, write_npz

from lsadyn import budget

pytestmark = pytest.mark.faults

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
# conftest.py puts this checkout's src first on PYTHONPATH and sets MPLBACKEND=Agg for the whole session: commands
# run with it
ENV = dict(os.environ)
assert ENV["PYTHONPATH"].split(os.pathsep)[0] == SRC and ENV["MPLBACKEND"] == "Agg"
I2 = "[[1,0],[0,1]]"
SCHEMA = str(ROOT / "workflow/schemas/config.schema.yaml")


def one_line(text: str) -> str:
    """The one error line of a CLI run's stderr (a preceding 'lsadyn: note:' is allowed)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip() and not ln.startswith("lsadyn: note:")]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


# ------------------------------------------------------------------ 1. tables: every reader validates


def _good_table(spec, n: int) -> pd.DataFrame:
    """n rows that every check of ``spec`` accepts: decided labels with their certificates, distinct keys, finite
    numbers, non-empty text (a table drawn from its schema, not from a run)."""
    cols = {}
    for c in spec.columns:
        if c in spec.labels:
            cols[c] = ["cluster_converge"] * n
        elif c in {flag for _, flag in spec.certified} or c in spec.boolean:
            cols[c] = [True] * n
        elif c in spec.integer:
            cols[c] = list(range(1, n + 1))
        elif c in spec.numeric or c in spec.finite or any(c in cs for _, cs in spec.finite_unless_undetermined) \
                or any(c in cs for _, _, cs in spec.finite_when):
            cols[c] = [0.5 + i for i in range(n)]
        else:  # text, or required of any type
            cols[c] = [f"t{i}" for i in range(n)]
    return pd.DataFrame(cols)


TABLE_KINDS = sorted(k for k, spec in TABLES.items() if spec.columns)


# issue 45, "a property test that perturbs each table (duplicate a row, NaN a cell, drop a column) and expects one
# line naming the file, row and column": every table kind, drawn from its own spec
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(TABLE_KINDS), n=st.integers(2, 6), data=st.data())
def test_every_table_refuses_a_duplicated_row_a_nan_and_a_missing_column(tmp_path, kind, n, data):
    spec = TABLES[kind]
    good = _good_table(spec, n)
    path = tmp_path / f"{kind}.csv"
    write_csv(good, path)
    assert len(load_table(path, kind)) == n

    def refused(df):
        df.to_csv(path, index=False)
        with pytest.raises(ResultFileError) as err:
            load_table(path, kind)
        msg = str(err.value)
        assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg
        return msg

    col = data.draw(st.sampled_from(spec.columns), label="dropped")
    assert f"missing column(s) {col}" in refused(good.drop(columns=col))
    row = data.draw(st.integers(0, n - 1), label="row")
    if spec.key:
        dup = pd.concat([good.iloc[:row + 1], good.iloc[row:row + 1], good.iloc[row + 1:]], ignore_index=True)
        msg = refused(dup)
        assert f"row {row + 2} repeats row {row + 1} in its key column(s) {', '.join(spec.key)}" in msg
    finite = list(spec.finite) + [c for _, cs in spec.finite_unless_undetermined for c in cs]
    if finite:
        col = data.draw(st.sampled_from(finite), label="NaN column")
        bad = good.copy()
        bad[col] = bad[col].astype(float)
        bad.loc[row, col] = np.nan
        msg = refused(bad)
        assert f"column {col} has NaN or inf" in msg and f"row {row + 1}" in msg


def test_every_run_table_has_a_key():
    """Every table whose rows are runs or points (not a curve, a one-row fit or a free-form table) names the columns
    that identify a row, so a duplicated row is refused (issue 45, case 1)."""
    keyless = {"any", "claims", "continuation", "bifurcation_fit"}
    assert [k for k in TABLE_KINDS if not TABLES[k].key and k not in keyless] == []


# issue 45, case 2: a NaN period of an oscillating run was accepted (FINDINGS' period range changed silently)
@pytest.mark.parametrize("kind", ["persistence_run", "highdim_run"])
def test_an_oscillating_run_without_a_period_is_refused(tmp_path, kind):
    spec = TABLES[kind]
    df = _good_table(spec, 3)
    df.loc[1, "regime"] = "oscillate"
    df["period"] = df["period"].astype(float)
    df.loc[1, "period"] = np.nan
    path = tmp_path / f"{kind}.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ResultFileError, match=r"column period has NaN or inf in 1 row\(s\) whose regime is oscillate "
                                              r"\(first: row 2\)"):
        load_table(path, kind)
    df.loc[1, "regime"] = "cluster_converge"  # a run that does not oscillate has no period
    df.to_csv(path, index=False)
    assert len(load_table(path, kind)) == 3


def _params(tmp_path, n=12):
    from lsadyn.paper.cases2d.plan import build_case

    df = build_case("case2", {"n_random": n - 2, "n_boundary": 2, "lam_min": -2.0, "lam_max": 2.0}, 7, 1.0)
    path = tmp_path / "results/params/case2.csv"
    write_csv(df, path)
    return df, path


def _sim(tmp_path, params):
    out = params.copy()
    for m in ("oa", "ws", "particles"):
        out[f"regime_{m}"] = "cluster_converge"
        out[f"certified_{m}"] = True
        out[f"abs_R2_{m}"] = 0.999
        out[f"rate_{m}"] = 0.0
        out[f"period_{m}"] = np.nan
    out["horizon_factor_oa"] = 1
    out["regime_oa_token_start"] = "cluster_converge"
    path = tmp_path / "results/sim/case2.csv"
    write_csv(out, path)
    return path


def _highdim_run(tmp_path):
    df = pd.DataFrame([{"scenario": "identity", "model": m, "d": 20, "n_tokens": 64, "horizon": 150.0,
                        "expect": "cluster_converge",
                        "regime": "cluster_converge", "certified": True, "r_final": 1.0, "drift_rate": 0.0,
                        "period": np.nan, "certified_check": True,
                        "mean_token_norm": 0.0, "rtol": 1e-7, "rtol_check": 1e-9, "regime_check": "cluster_converge",
                        "r_final_check": 1.0, "drift_rate_check": 0.0, "check_ok": True,
                        "r_change_last_quarter": 0.0, "offplane_start": 0.9, "offplane_final": 0.5,
                        "transverse_rate": np.nan, "contraction_exponent": -1.0,
                        "contraction_exponent_theory": -1.0, "note": ""}
                       for m in ("lsa", "usa")])
    path = tmp_path / "results/highdim/identity.csv"
    write_csv(df, path)
    return path


def _stability_run(tmp_path):
    df = pd.DataFrame([{"regime": "sym_pos_def", "hypothesis": True, "statement": "V = I", "family": "harmonics",
                        "strength": s, "seed": 1, "n": 400, "eps": s / 2, "abs_R2_0": 0.01,
                        "regime_tokens": "cluster_converge", "regime_oa": "cluster_converge", "abs_R2_tokens": 1.0,
                        "abs_R2_oa": 1.0, "rate_tokens": 0.0, "rate_oa": 0.0, "discrepancy": 0.0,
                        "checked_tokens": "Newton: a sink", "checked_oa": "equilibrium on the circle",
                        "certified_tokens": True, "certified_oa": True}
                       for s in (0.03, 0.3)])
    path = tmp_path / "results/stability/sym_pos_def.csv"
    write_csv(df, path)
    return path


def _traj(tmp_path):
    path = tmp_path / "results/sim/case2_traj.npz"
    t = np.linspace(0, 1, 50)
    write_npz(path, regime=np.array(["cluster_converge"]), point_id=np.array([0]), x=np.zeros(1), y=np.zeros(1),
              t=t[None], R2_oa=np.exp(1j * t)[None], R2_particles=np.exp(1j * t)[None], theta=np.zeros((1, 50, 8)))
    return path


def _highdim_npz(tmp_path):
    path = tmp_path / "results/highdim/identity.npz"
    arrays = {}
    for m in ("lsa", "usa"):
        arrays.update({f"{m}_t": np.linspace(0, 1, 10), f"{m}_r": np.ones(10), f"{m}_swept_angle": np.zeros(10),
                       f"{m}_snapshot_times": np.zeros(3), f"{m}_histograms": np.ones((3, 5)),
                       f"{m}_bin_edges": np.linspace(-1, 1, 6)})
    write_npz(path, **arrays)
    return path


def test_results_files_get_the_mode_open_would_give(tmp_path):
    """Atomic writes go through a temporary file (mkstemp: 0600); the renamed results file must be readable as a
    file written with open() is (0666 less the umask), not private to the user who built it."""
    old = os.umask(0o022)
    try:
        write_csv(pd.DataFrame({"a": [1.0]}), tmp_path / "t.csv")
        write_npz(tmp_path / "a.npz", x=np.zeros(2))
        os.umask(0o077)
        write_csv(pd.DataFrame({"a": [1.0]}), tmp_path / "private.csv")
    finally:
        os.umask(old)
    assert (tmp_path / "t.csv").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "a.npz").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "private.csv").stat().st_mode & 0o777 == 0o600


def test_loaders_accept_good_files(tmp_path):
    params, ppath = _params(tmp_path)
    sim = load_table(_sim(tmp_path, params), "sim", rows_like=ppath)
    assert len(sim) == len(params)
    assert len(load_table(_highdim_run(tmp_path), "highdim_run", rows=2)) == 2
    assert len(load_table(_stability_run(tmp_path), "stability_run", rows=2)) == 2
    assert set(load_arrays(_traj(tmp_path), "traj")) >= {"t", "R2_oa", "theta"}
    assert "usa_histograms" in load_arrays(_highdim_npz(tmp_path), "highdim")


def _truncate(path, size=200):
    os.truncate(path, size)


def _garbage(path):
    Path(path).write_bytes(os.urandom(300))


def _drop_column(col):
    def corrupt(path):
        df = pd.read_csv(path)
        df.drop(columns=[col]).to_csv(path, index=False)
    return corrupt


def _nan_in(col):
    def corrupt(path):
        df = pd.read_csv(path)
        df.loc[1, col] = np.nan
        df.to_csv(path, index=False)
    return corrupt


def _drop_last_row(path):
    df = pd.read_csv(path)
    df.iloc[:-1].to_csv(path, index=False)


def _bad_label(path):
    df = pd.read_csv(path)
    df.loc[0, "regime_ws"] = "clustre"
    df.to_csv(path, index=False)


def _empty(path):
    Path(path).write_bytes(b"")


# Why, bullet 1: "truncate -s 200 results/sim/case2.csv ... regimes_table succeeds with 196 rows
# instead of 242 ... claims_table dies with a pandas KeyError" -> every corruption is one line.
@pytest.mark.parametrize("corrupt,expect", [
    (_truncate, "truncated"),
    (_garbage, ""),
    (_drop_column("regime_particles"), "missing column(s) regime_particles"),
    (_nan_in("beta"), "column beta has NaN"),
    (_nan_in("a11"), "column a11 has NaN"),
    (_drop_last_row, "rows, expected"),
    (_bad_label, "not a regime label"),
    (_empty, "empty"),
])
def test_corrupted_sim_table_is_one_line_naming_the_file(tmp_path, corrupt, expect):
    params, ppath = _params(tmp_path)
    path = _sim(tmp_path, params)
    corrupt(path)
    with pytest.raises(ResultFileError) as err:
        load_table(path, "sim", rows_like=ppath)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg
    assert expect in msg


@pytest.mark.parametrize("make,kind,col", [
    (_highdim_run, "highdim_run", "rtol"),
    (_stability_run, "stability_run", "eps"),
])
@pytest.mark.parametrize("how", ["truncate", "garbage", "missing", "nan", "rows"])
def test_corrupted_run_tables(tmp_path, make, kind, col, how):
    path = make(tmp_path)
    {"truncate": lambda p: _truncate(p, 100), "garbage": _garbage, "missing": _drop_column(col),
     "nan": _nan_in(col), "rows": _drop_last_row}[how](path)
    with pytest.raises(ResultFileError) as err:
        load_table(path, kind, rows=2)
    assert "\n" not in str(err.value) and str(path) in str(err.value) and "delete it and rerun" in str(err.value)


def _npz_pickled(path):
    with open(path, "wb") as fh:
        np.savez(fh, t=np.array([object()], dtype=object))


def _npz_missing(path):
    z = dict(np.load(path))
    z.pop("theta", None)
    z.pop("usa_r", None)
    np.savez_compressed(path, **z)


def _npz_nan(path):
    z = dict(np.load(path))
    key = "t" if "t" in z else "lsa_t"
    z[key] = z[key].astype(float)
    z[key].flat[0] = np.nan
    np.savez_compressed(path, **z)


# Why, bullet 1: "A garbage .npz gives numpy's misleading 'pickled (object) data' message."
@pytest.mark.parametrize("make,kind", [(_traj, "traj"), (_highdim_npz, "highdim")])
@pytest.mark.parametrize("corrupt,expect", [
    (_garbage, "garbage"),
    (lambda p: _truncate(p, 120), "not a readable"),
    (_npz_pickled, "pickled"),
    (_npz_missing, "missing array"),
    (_npz_nan, "NaN"),
    (_empty, "empty"),
])
def test_corrupted_npz_is_one_line_naming_the_file(tmp_path, make, kind, corrupt, expect):
    path = make(tmp_path)
    corrupt(path)
    with pytest.raises(ResultFileError) as err:
        load_arrays(path, kind)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg and expect in msg


# Why, bullet 1, end to end: a truncated results/sim/case2.csv (newer than its inputs, so Snakemake
# does not rebuild it) stops regimes_table with one line naming it, in the console and the job log.
def test_truncated_intermediate_stops_the_table_job_with_one_line(tmp_path):
    from lsadyn.paper.cases2d.plan import build_case

    repo = _copy_repo(tmp_path / "repo")
    cfg = pconfig.merge(pconfig.load_config_file(repo / "workflow/config/config.yaml"),
                        pconfig.load_config_file(repo / "workflow/config/quick.yaml"))
    for case in ("case1", "case2", "case3", "case4", "bifurcation"):
        df = build_case(case, cfg[case], cfg["seed"], cfg["beta"])
        write_csv(df, repo / f"results/params/{case}.csv")
        _sim(tmp_path / case, df)
        (repo / "results/sim").mkdir(parents=True, exist_ok=True)
        shutil.move(tmp_path / case / "results/sim/case2.csv", repo / f"results/sim/{case}.csv")
    sim2 = repo / "results/sim/case2.csv"
    _truncate(sim2)
    r = smk(repo, "results/tables/regimes.csv", "--cores", "1", "--configfile", "workflow/config/quick.yaml",
            "--allowed-rules", "regimes_table", "--rerun-triggers", "mtime")
    assert r.returncode != 0
    ours = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith("lsadyn: error:")]
    assert len(ours) == 1 and "results/sim/case2.csv: truncated" in ours[0] and "delete it and rerun" in ours[0]
    assert "KeyError" not in r.stderr and "Traceback" not in r.stderr and "ParserError" not in r.stderr
    log = (repo / "logs/regimes_table.log").read_text()
    assert "results/sim/case2.csv: truncated" in log and "Traceback" not in log
    assert " INFO started (pid " in log.splitlines()[0]  # job logs are written as the job runs
    assert not (repo / "results/tables/regimes.csv").exists()
    # the same file, cut at a line boundary: the row count against results/params/case2.csv catches it
    sim2.unlink()
    df = build_case("case2", cfg["case2"], cfg["seed"], cfg["beta"])
    _sim(tmp_path / "again", df.iloc[:-5])
    shutil.move(tmp_path / "again/results/sim/case2.csv", sim2)
    r = smk(repo, "results/tables/regimes.csv", "--cores", "1", "--configfile", "workflow/config/quick.yaml",
            "--allowed-rules", "regimes_table", "--rerun-triggers", "mtime")
    ours = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith("lsadyn: error:")]
    assert r.returncode != 0 and len(ours) == 1
    assert f"{len(df) - 5} rows, expected {len(df)} (one per row of results/params/case2.csv)" in ours[0]


def test_figure_notebook_without_setup_log_also_fails_with_one_line(tmp_path):
    """Notebooks do not call setup_log: the loaders set the job up on the rule's log themselves."""
    bad = tmp_path / "case2.csv"
    bad.write_text("point_id,a11\n0,1\n1,")
    log = tmp_path / "logs/fig.log"
    script = tmp_path / "nb.py"
    script.write_text(textwrap.dedent(f"""
        import types
        snakemake = types.SimpleNamespace(log=[{str(log)!r}], input=types.SimpleNamespace(sim={str(bad)!r}))
        from lsadyn_workflow.io import load_table
        sim = load_table(snakemake.input.sim, "sim")
        print("not reached")
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 1 and "not reached" not in r.stdout
    line = one_line(r.stderr)
    assert line == f"lsadyn: error: {bad}: truncated (the last line is incomplete); delete it and rerun: snakemake --cores all --forcerun {bad} (with the build's --configfile; rebuilds it and what reads it)"
    assert line in log.read_text()


def test_job_log_heartbeat(tmp_path, monkeypatch):
    import logging

    from lsadyn_workflow import io

    monkeypatch.setattr(io, "HEARTBEAT_SECONDS", 0.2)
    log = logging.getLogger("lsadyn.test_heartbeat")
    handler = logging.FileHandler(tmp_path / "job.log")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    stop = io._start_heartbeat(log, time.monotonic())
    try:
        time.sleep(1.0)
    finally:
        stop.set()
        log.removeHandler(handler)
    assert "still running" in (tmp_path / "job.log").read_text()



def _bench_pipeline():
    """benchmarks/bench_pipeline.py as a module (benchmarks/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_pipeline", ROOT / "benchmarks/bench_pipeline.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_job_log_last_line_counts_the_whole_process_cpu(tmp_path):
    """The job's last log line carries its whole process's CPU (benchmarks/bench_pipeline.py sums these; the
    `benchmark:` cpu_time column is sampled and stops short): a job that burns ~0.5 core-s logs at least that."""
    import re

    log = tmp_path / "logs/job.log"
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(f"""
        import time
        t = time.process_time()
        while time.process_time() - t < 0.3:  # stands in for the script's imports
            pass
        from lsadyn_workflow.io import setup_log
        setup_log({str(log)!r})
        t = time.process_time()
        while time.process_time() - t < 0.5:
            pass
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = log.read_text().splitlines()
    first, last = lines[0], lines[-1]
    bench = _bench_pipeline()
    found = bench.CPU_LINE.findall(last)
    assert len(found) == 1, last
    assert 0.8 <= float(found[0]) < 30, last
    assert re.search(r"finished in [0-9.]+ s", last)
    before = bench.IMPORT_LINE.findall(first)  # the CPU paid before the log opened: what bench_pipeline calls imports
    # os.times() ticks in 10 ms and both lines round to 0.01 core-s: the gap may read up to 0.03 short of the 0.5 burnt
    assert len(before) == 1 and 0.3 <= float(before[0]) <= float(found[0]) - 0.5 + 0.03, (first, last)


def test_regrouped_bound_merges_each_rules_jobs_paying_at_most_its_cheapest_job_once():
    """bench_pipeline.regrouped_bound: a rule of k jobs costs at least their sum minus k − 1 times the cheapest."""
    bench = _bench_pipeline()
    cpu = {"sim_a": 3.0, "sim_b": 5.0, "sim_c": 2.0, "fig_x": 1.5, "fig_y": 1.0}
    rules = {"sim_a": "sim", "sim_b": "sim", "sim_c": "sim", "fig_x": "fig_x", "fig_y": "fig_y"}
    b = bench.regrouped_bound(cpu, rules, 2)
    assert b["rules"] == 3
    assert b["one_job_per_rule_cpu_seconds"] == pytest.approx(10.0 - 2 * 2.0 + 1.5 + 1.0)
    assert b["one_job_per_rule_floor_seconds"] == pytest.approx(b["one_job_per_rule_cpu_seconds"] / 2)


# "A nan in a numeric cell of an intermediate passes the validating loaders (results/sim/case3.csv rate_oa of a
# rotating point; results/tables/highdim.csv r_final)": a decided run's rate / |R2| must be finite
@pytest.mark.parametrize("make,kind,col,label,rows", [
    (_sim, "sim", "rate_oa", "regime_oa", None),
    (_sim, "sim", "abs_R2_particles", "regime_particles", None),
    (_highdim_run, "highdim_run", "r_final", "regime", 2),
    (_highdim_run, "highdim_run", "r_final_check", "regime_check", 2),
    (_stability_run, "stability_run", "rate_oa", "regime_oa", 2),
])
def test_nan_in_a_decided_runs_value_is_one_line_naming_file_column_and_row(tmp_path, make, kind, col, label, rows):
    path = make(tmp_path, _params(tmp_path)[0]) if make is _sim else make(tmp_path)
    df = pd.read_csv(path)
    df.loc[1, label] = "cluster_rotate"
    df.loc[1, col] = np.nan
    df.to_csv(path, index=False)
    with pytest.raises(ResultFileError) as err:
        load_table(path, kind, rows=rows)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg
    assert f"column {col} has NaN or inf in 1 row(s)" in msg and "first: row 2" in msg and "cluster_rotate" in msg
    # an undetermined run may have no value, and a period is NaN for a run that does not oscillate
    df.loc[1, label] = "undetermined"
    flag = TABLES[kind].certified and dict(TABLES[kind].certified)[label]
    df.loc[1, flag] = False  # and has no certificate
    df.to_csv(path, index=False)
    assert len(load_table(path, kind, rows=rows)) == len(df)


# the certified-labels issue, "no table pairs a label with an uncertified run": every table of labelled runs carries
# a certified flag beside each label, and the loader refuses a label without a certificate, or a certificate on an
# undetermined run, in one line naming the file, the row and both columns
@pytest.mark.parametrize("make,kind,label", [
    (_sim, "sim", "regime_ws"),
    (_highdim_run, "highdim_run", "regime"),
    (_highdim_run, "highdim_run", "regime_check"),
    (_stability_run, "stability_run", "regime_tokens"),
])
def test_a_label_without_its_certificate_is_one_line(tmp_path, make, kind, label):
    path = make(tmp_path, _params(tmp_path)[0]) if make is _sim else make(tmp_path)
    flag = dict(TABLES[kind].certified)[label]
    good = pd.read_csv(path)
    for regime, certified in (("cluster_rotate", False), ("undetermined", True)):
        df = good.copy()
        df.loc[1, label] = regime
        df.loc[1, flag] = certified
        df.to_csv(path, index=False)
        with pytest.raises(ResultFileError) as err:
            load_table(path, kind)
        msg = str(err.value)
        assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg
        assert f"row 2: {label} is {regime!r} but {flag} is {str(certified).lower()}" in msg


def test_every_table_of_labels_carries_its_certificate_flag():
    """Each run-level table whose rows hold regime labels from a decision procedure names a certified flag for
    each label column (the summaries derived from them, and the OA attractors' analytic table, do not)."""
    derived = {"atlas", "regimes"}  # counts over labelled runs; the OA attractors of the sims
    for kind, spec in TABLES.items():
        if spec.labels and kind not in derived:
            flagged = {label for label, _ in spec.certified}
            assert set(spec.labels) - {"regime_oa_token_start"} <= flagged, kind


def test_nan_in_a_json_record_is_one_line(tmp_path):
    from lsadyn_workflow.io import load_json_record

    path = tmp_path / "stages.json"
    path.write_text('{"part": "stages", "seconds": NaN}')
    with pytest.raises(ResultFileError) as err:
        load_json_record(path, ("part", "seconds"))
    assert str(err.value).startswith(f"{path}: key seconds is nan (must be finite); delete it and rerun")


def _damage_member(path, member):
    """Overwrite bytes inside one member's compressed data, leaving the zip directory intact."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    raw = bytearray(Path(path).read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start + 2: start + info.compress_size - 2] = os.urandom(info.compress_size - 4)
    Path(path).write_bytes(bytes(raw))


# "A .npz whose member data is damaged (zip directory intact) ends in zlib.error from load_arrays"
@pytest.mark.parametrize("make,kind,member", [(_traj, "traj", "theta.npy"), (_highdim_npz, "highdim", "usa_r.npy")])
def test_damaged_npz_member_is_one_line_naming_file_and_member(tmp_path, make, kind, member):
    path = make(tmp_path)
    _damage_member(path, member)
    with pytest.raises(ResultFileError) as err:
        load_arrays(path, kind)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{path}: member {member[:-4]} is damaged (") and "delete it and rerun" in msg


# ------------------------------------------------------------------ 2. budget: cost before work


# Why, bullet 2: "--n 100000000: MemoryError traceback after 39 s (exit 1, not 2)"; "--horizon 1e12:
# silent until killed"; "d = 1000, n = 5000, USA: > 300 s at 2.9 GB".
def test_check_budget_refuses_naming_the_argument_and_the_override():
    with pytest.raises(ValueError, match=r"^n: .*memory.*max_bytes="):
        budget.check_budget(100_000_000, 2, "lsa", 400, 4000)
    with pytest.raises(ValueError, match=r"^horizon: .*max_seconds="):
        budget.check_budget(500, 2, "lsa", 1e12, 4000)
    with pytest.raises(ValueError, match=r"^horizon: "):
        budget.check_budget(5000, 1000, "usa", 400, 4000)
    with pytest.raises(ValueError, match="^model: "):
        budget.check_budget(10, 2, "gpt", 1, 100)
    b = budget.check_budget(100_000_000, 2, "lsa", 1, 100, max_bytes=math.inf, max_seconds=math.inf)
    assert b.bytes > 1e9  # the override lets it through, the estimate is unchanged


def test_long_runs_warn_and_small_ones_do_not():
    # Why, bullet 2: "simulate_regime(A, V, n=1000, model='usa'): 497 s" with no warning
    with pytest.warns(budget.LongRunWarning, match="long run"):
        budget.check_budget(1000, 2, "usa", 400, 4000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        budget.check_budget(200, 2, "lsa", 50, 1000)


def test_progress_logs_fraction_and_elapsed_and_is_silent_by_default(caplog):
    import logging

    p = budget.Progress(desc="sim", mode="log", interval=0.0)
    with caplog.at_level(logging.INFO, logger="lsadyn"):
        for f in (0.25, 0.5, 1.0):
            p(f)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("sim: 25% done,") and "s elapsed" in lines[0] and "left" in lines[0]
    assert lines[-1].startswith("sim: 100% done")
    assert budget.Progress(mode="auto").mode == "silent"  # tests: no terminal, no job log


# `cli` runs `python -m lsadyn.cli` in its own process (for memory limits and runaway runs that must not take the
# test process with them); the `lsadyn_cli` fixture (conftest.py) runs the same main() in process.
def cli(*args, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "lsadyn.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV, check=False, **kw)


@pytest.mark.parametrize("args,flag,words", [
    (["--method", "particles", "--n", "100000000"], "--n", "memory"),  # Why 2: MemoryError traceback, exit 1
    (["--horizon", "1e12"], "--horizon", "--max-seconds"),  # Why 2: silent until killed
    (["--method", "particles", "--model", "usa", "--n", "5000", "--horizon", "1e5"], "--horizon", "limit"),
])
def test_cli_refuses_runaway_runs_up_front(args, flag, words):
    t0 = time.monotonic()
    r = cli("regime", "--A", I2, "--V", I2, *args)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert line.startswith(f"lsadyn: error: {flag}:") and words in line
    assert time.monotonic() - t0 < 30


def test_cli_memory_error_exits_2_with_one_line():
    # Why, bullet 2: "MemoryError traceback (exit 1, not 2)": a real MemoryError under a 1.5 GB
    # address-space limit, with the budget check disabled.
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    r = cli("regime", "--A", I2, "--V", I2, "--method", "particles", "--n", "400000000", "--max-memory", "1e6",
            "--max-seconds", "inf", preexec_fn=limit)
    assert r.returncode == 2, r.stderr
    line = one_line(r.stderr)
    assert "out of memory" in line and "--n" in line


def test_cli_long_run_is_announced_at_once_and_ctrl_c_exits_130_with_one_line():
    # Why, bullet 2: "CLI --horizon 1e5: > 100 s silent" (OA is compiled now and settles early: a
    # long token run instead) and "Ctrl-C prints a KeyboardInterrupt traceback". One run for both (they
    # were two tests starting the same long token run): the announced run, interrupted while it integrates.
    # Ctrl-C as in a Python of its own (xdist workers ignore SIGINT, and their children inherit that)
    # d = 2 USA runs by moments (lsadyn.fields.kuramoto_daido): n = 2000 is no longer long, n = 200000 is (~17 min)
    args = ["regime", "--A", I2, "--V", "[[1,-1],[1,1]]", "--method", "particles", "--model", "usa", "--n", "200000"]
    start = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             f"sys.argv = ['lsadyn.cli', *{args!r}]; runpy.run_module('lsadyn.cli', run_name='__main__')")
    p = subprocess.Popen([sys.executable, "-c", start], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        first = p.stderr.readline()  # the note comes just before the integration: be inside it
        time.sleep(1.0)
    finally:
        p.send_signal(signal.SIGINT)
        try:
            _, rest = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()  # do not leave a long token run behind
            p.communicate()
            raise AssertionError("SIGINT did not stop the CLI within 60 s") from None
    assert first.startswith("lsadyn: note: long run, estimated") and "min" in first
    assert p.returncode == 130, rest
    assert "interrupted" in one_line(rest) and "Traceback" not in rest


@pytest.mark.parametrize("ext", ["npy", "txt", "csv"])
def test_cli_reads_matrices_from_files_of_any_d(tmp_path, lsadyn_cli, ext):
    # Why, bullet 2: "A d = 1000 matrix cannot be given to the CLI at all (Argument list too long)"
    d = 60 if ext == "npy" else 30
    rng = np.random.default_rng(0)
    A = np.eye(d) + 0.01 * rng.standard_normal((d, d))
    path = tmp_path / f"A.{ext}"
    if ext == "npy":
        np.save(path, A)
    else:
        np.savetxt(path, A, delimiter="," if ext == "csv" else " ")
    r = lsadyn_cli("regime", "--A", f"@{path}", "--V", f"@{path}", "--method", "particles", "--n", "8", "--horizon",
                   "0.5", "--n-samples", "64", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["model"] == "lsa"


def test_cli_reads_a_d_1000_matrix_and_budgets_it(tmp_path):
    path = tmp_path / "A.npy"
    np.save(path, np.eye(1000))
    r = cli("regime", "--A", f"@{path}", "--V", f"@{path}", "--method", "particles", "--model", "usa", "--n", "5000")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert line.startswith("lsadyn: error: --horizon:") and "d=1000" in line and "--max-seconds" in line


def test_cli_bad_matrix_file_names_the_flag(tmp_path, lsadyn_cli):
    bad = tmp_path / "A.txt"
    bad.write_text("1 2\n3\n")
    for arg, flag in ((f"@{bad}", "--A"), (f"@{tmp_path / 'missing.npy'}", "--A")):
        r = lsadyn_cli("regime", "--A", arg, "--V", I2)
        assert r.returncode == 2 and one_line(r.stderr).startswith(f"lsadyn: error: {flag}:")


def test_cli_tokens_file(tmp_path, lsadyn_cli):
    import inspect

    from lsadyn.api import simulate_regime

    X = np.random.default_rng(1).standard_normal((50, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    path = tmp_path / "X0.npy"
    np.save(path, X)
    r = lsadyn_cli("regime", "--A", "[[1,0,0],[0,1,0],[0,0,1]]", "--V", "[[1,0,0],[0,1,0],[0,0,1]]", "--method",
                   "particles", "--tokens", f"@{path}", "--horizon", "20", "--json")
    if "X0" in inspect.signature(simulate_regime).parameters:
        assert r.returncode == 0, r.stderr
    else:  # the API argument is engine's: until it lands the CLI says so in one line
        assert r.returncode == 2 and "--tokens" in one_line(r.stderr)
    r = lsadyn_cli("regime", "--A", I2, "--V", I2, "--method", "particles", "--tokens", f"@{path}")
    assert r.returncode == 2 and one_line(r.stderr).startswith("lsadyn: error: --tokens:")
    r = lsadyn_cli("regime", "--A", I2, "--V", I2, "--tokens", f"@{path}")  # oa: does not apply
    assert r.returncode == 2 and "--tokens: applies to --method particles only" in one_line(r.stderr)


# ------------------------------------------------------------------ 3. config


def _cfg():
    return pconfig.load_config_file(ROOT / "workflow/config/config.yaml")


# Why, bullet 3: "Deleting the highdim: or stability: section gives KeyError ... 'scenarios'"
@pytest.mark.parametrize("section", ["highdim", "stability"])
def test_missing_section_is_one_line(section):
    cfg = _cfg()
    del cfg[section]
    with pytest.raises(ValueError, match=rf"^config key {section}: missing section"):
        pconfig.check_config(cfg, SCHEMA)
    cfg = _cfg()
    del cfg[section]["scenarios" if section == "highdim" else "regimes"]
    with pytest.raises(ValueError, match=rf"^config key {section}\.(scenarios|regimes): missing"):
        pconfig.check_config(cfg, SCHEMA)


# Why, bullet 3: "a YAML syntax error has no line number"
def test_yaml_syntax_error_has_line_and_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("oa:\n  horizon: 300\n  n_samples: [3000\ncase1:\n  n_random: 4\n")
    with pytest.raises(ValueError, match=r"bad\.yaml, line \d+, column \d+: YAML syntax error"):
        pconfig.load_config_file(bad)
    bad.write_text("oa:\n\thorizon: 3\n")
    with pytest.raises(ValueError, match=r"line 2, column 1: YAML syntax error"):
        pconfig.load_config_file(bad)


# Why, bullet 3: "case4.orbit_v11: 3.0 is accepted although the oscillating example does not oscillate"
def test_case4_examples_must_produce_their_regime():
    cfg = _cfg()
    cfg["case4"]["orbit_v11"] = 3.0
    with pytest.raises(ValueError, match=r"^config key case4.orbit_v11: .*\|orbit_v11\| < \|orbit_v12\|"):
        pconfig.check_config(cfg, SCHEMA)
    cfg = _cfg()
    cfg["case4"]["converge_v12"] = 2.0
    with pytest.raises(ValueError, match=r"^config key case4.converge_v11: "):
        pconfig.check_config(cfg, SCHEMA)
    pconfig.check_config(_cfg(), SCHEMA)


def test_settle_horizon_shorter_than_the_horizon_is_one_line():
    """settle_horizon lengthens one model's run; a shorter value would silently shorten it (new-user trial)."""
    cfg = _cfg()
    cfg["highdim"]["scenarios"]["oscillation"]["settle_horizon"] = {"usa": 10.0}
    with pytest.raises(ValueError, match=r"^config key highdim\.scenarios\.oscillation\.settle_horizon\.usa: must "
                                         r"be >= highdim\.scenarios\.oscillation\.horizon \(10\.0 < 300\.0\)"):
        pconfig.check_config(cfg, SCHEMA)


@pytest.mark.parametrize("study, entry, key", [
    ("beta_sweep", {"scenario": "rotation", "horizon": 100.0}, r"beta_sweep\.settle_horizon\.0\.horizon: must be >"),
    ("beta_sweep", {"scenario": "identity", "horizon": 900.0}, r"beta_sweep\.settle_horizon\.0\.scenario: "),
    ("dimension", {"scenario": "oscillation", "d": [3], "horizon": 10.0},
     r"dimension\.settle_horizon\.0\.horizon: must be >")])
def test_persistence_settle_horizon_mistakes_are_config_errors(study, entry, key):
    """Caught by check_config (the Snakefile's one line), not when the persistence rules plan their chunks, where
    they came out as a traceback through persistence.smk (new-user trial)."""
    cfg = _cfg()
    cfg["persistence"][study]["settle_horizon"] = [entry]
    with pytest.raises(ValueError, match=r"^config key persistence\." + key):
        pconfig.check_config(cfg, SCHEMA)
    cfg["persistence"][study]["scenarios"] = ["nope"]
    cfg["persistence"][study]["settle_horizon"] = []
    with pytest.raises(ValueError, match=rf"^config key persistence\.{study}\.scenarios\.0: 'nope' is not a scenario"):
        pconfig.check_config(cfg, SCHEMA)


def test_case4_oscillation_condition_matches_the_oa_flow():
    """The semantic check's condition is the flow's: the default oscillating example oscillates
    and orbit_v11 = 3 (rejected) converges, by the OA ODE."""
    from lsadyn.api import predict_regime

    cfg = _cfg()["case4"]
    V = lambda a, b: [[a, b], [-b, -a]]  # noqa: E731
    assert predict_regime(np.eye(2), V(cfg["orbit_v11"], cfg["orbit_v12"]), horizon=100).regime == "oscillate"
    assert predict_regime(np.eye(2), V(3.0, cfg["orbit_v12"]), horizon=100).regime != "oscillate"


# Why, bullet 3: "--config 'figures={dpi: 200}' is rejected as '200' is not of type 'integer'"
def test_command_line_overrides_are_coerced():
    cfg = _cfg()
    cfg["figures"] = {"dpi": "200"}
    cfg["oa"]["horizon"] = "300.5"
    cfg["seed"] = "7"
    pconfig.check_config(cfg, SCHEMA)
    assert cfg["figures"]["dpi"] == 200 and cfg["oa"]["horizon"] == 300.5 and cfg["seed"] == 7
    cfg["figures"] = {"dpi": "2x"}
    with pytest.raises(ValueError, match="^config key figures.dpi: "):
        pconfig.check_config(cfg, SCHEMA)


@pytest.mark.parametrize("key,value,name", [("figures", {"dpi": 20}, "figures.dpi"),
                                            ("classifier", {"window": 2}, "classifier.window"),
                                            ("oa", {"horizn": 3}, "oa.horizn")])
def test_out_of_range_and_unknown_keys(key, value, name):
    cfg = _cfg()
    cfg[key].update(value)
    with pytest.raises(ValueError, match=rf"^config key {name}: "):
        pconfig.check_config(cfg, SCHEMA)


def test_snakemake_config_errors_before_any_job(repo, tmp_path):
    # each case: one line, before any job (dry runs)
    r = smk(repo, "-n", "--configfile", "workflow/config/quick.yaml", "--config", "figures={dpi: 200}")
    assert r.returncode == 0, r.stderr[-2000:]
    conf = repo / "workflow/config/config.yaml"
    original = conf.read_text()
    try:
        conf.write_text(original.replace("figures:\n  dpi: 200", "figures:\n  dpi: [200"))
        r = smk(repo, "-n")
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("lsadyn: invalid configuration")]
        assert r.returncode != 0 and len(lines) == 1 and "line" in lines[0] and "column" in lines[0], r.stderr
        start, end = original.index("\nhighdim:"), original.index("\nstability:")
        conf.write_text(original[:start] + original[end:])
        r = smk(repo, "-n")
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("lsadyn: invalid configuration")]
        assert r.returncode != 0 and len(lines) == 1 and "config key highdim: missing section" in lines[0], r.stderr
        assert "KeyError" not in r.stderr
    finally:
        conf.write_text(original)
    assert not (repo / "results").exists()


def test_config_checker_command_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("case4:\n  orbit_v11: 3.0\n")
    r = subprocess.run([sys.executable, "-m", "lsadyn_workflow.config", str(bad)], cwd=ROOT, env=ENV,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 1 and "config key case4.orbit_v11" in one_line(r.stderr)


# ------------------------------------------------------------------ 4. API and CLI edges


# Why, bullet 4: "--model usa is silently ignored with --method oa"
@pytest.mark.parametrize("args,flag", [(["--model", "usa"], "--model"), (["--n", "50"], "--n"),
                                       (["--seed", "3"], "--seed"), (["--method", "ws", "--model", "sa"], "--model")])
def test_cli_rejects_options_that_do_not_apply(lsadyn_cli, args, flag):
    r = lsadyn_cli("regime", "--A", I2, "--V", I2, *args)
    assert r.returncode == 2 and one_line(r.stderr).startswith(f"lsadyn: error: {flag}: applies to")


# Why, bullet 4: "A = 1e308 returns arg_R2_rate = -3.6e+291 for cluster_converge"
def test_overflowing_scale_is_an_error_not_a_rate(lsadyn_cli):
    from lsadyn.api import predict_regime

    with pytest.raises(ValueError, match=r"^A: \|A\|_2 = 1e\+308"):
        predict_regime([[1e308, 0], [0, 1e308]], np.eye(2))
    with pytest.raises(ValueError, match=r"^beta: "):
        predict_regime(np.eye(2), np.eye(2), beta=1e200)
    r = lsadyn_cli("regime", "--A", "[[1e308,0],[0,1e308]]", "--V", I2, "--json")
    assert r.returncode == 2 and one_line(r.stderr).startswith("lsadyn: error: --A:")


# Why, bullet 4: "the API's seed=-1 error does not name the parameter"; "dt=-1 is accepted under DOP853"
@pytest.mark.parametrize("kw,name", [({"seed": -1}, "seed"), ({"dt": -1.0}, "dt"), ({"dt": 0.0}, "dt"),
                                     ({"n": 1}, "n"), ({"horizon": -1}, "horizon"), ({"model": "gpt"}, "model")])
def test_api_errors_name_the_argument(kw, name):
    from lsadyn.api import simulate_regime

    args = {"n": 20, "horizon": 5, "n_samples": 100, **kw}
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        simulate_regime(np.eye(2), np.eye(2), **args)


def test_api_checks_the_budget_before_integrating():
    # Why, bullet 2: "simulate_regime(A, V, n=1000, model='usa') with the README's A, V: 497 s", no warning;
    # "d = 1000, n = 5000, USA: > 300 s at 2.9 GB"
    from lsadyn.api import simulate_regime

    A, V = [[1, 0], [0, 1]], [[1, -1], [1, 1]]
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"^n: .*memory.*max_bytes="):
        simulate_regime(A, V, n=100_000_000)
    with pytest.raises(ValueError, match=r"^horizon: .*max_seconds="):
        simulate_regime(A, V, n=1000, model="usa", direct=True, max_seconds=60)  # the n×n kernel (moments: ~15 s)
    with pytest.raises(ValueError, match=r"^horizon: "):
        simulate_regime(np.eye(1000), np.eye(1000), n=5000, model="usa")
    assert time.monotonic() - t0 < 10  # refused up front, nothing integrated


# issue 45, case 3: "ws_regime(np.eye(2), V, n=10**9) takes 19-24 s and peaks at 7.95 GB before it raises 'the run
# needs 640 GB'". Every public entry point that draws or takes n tokens refuses before allocating them.
@pytest.mark.parametrize("entry", ["ws_regime", "ws_regime_batch", "particles_regime_batch", "simulate_regime"])
def test_a_too_big_run_is_refused_before_any_allocation(entry):
    import tracemalloc

    import lsadyn

    f = getattr(lsadyn, entry)  # the lazy import is not the refusal's cost
    V = np.array([[0.5, 1], [-1, -0.48]])
    args = (np.eye(2)[None], V[None]) if entry.endswith("_batch") else (np.eye(2), V)
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(ValueError, match=r"^n: the run needs 640 GB of memory"):
            f(*args, n=10**9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 1.0 and peak < 100e6


def test_api_progress_callback_reaches_one():
    from lsadyn.api import simulate_regime

    seen = []
    simulate_regime([[1, 0], [0, 1]], [[1, 0], [0, 1]], n=50, horizon=20, n_samples=200, progress=seen.append)
    assert seen and seen[-1] == pytest.approx(1.0) and all(0 <= f <= 1 for f in seen)


def test_ws_and_particles_batches_name_seed():
    from lsadyn.api import ws_regime

    with pytest.raises(ValueError, match=r"^seed\b"):
        ws_regime(np.eye(2), np.eye(2), n=20, seed=-1, horizon=5, n_samples=100)


# Why, bullet 4: "--method has no help text, defaults are not shown, the regime labels are not listed"
def test_help_lists_methods_models_defaults_and_labels(lsadyn_cli):
    from lsadyn.regimes.classify import LABELS

    r = lsadyn_cli("regime", "--help")
    assert r.returncode == 0
    for word in ["oa", "ws", "particles", "lsa", "usa", "sa", "default oa", "default 400", "default 500",
                 "default lsa", "@file", *LABELS]:
        assert word in r.stdout, word


# "A complex A or V (API, or --A @complex.npy) is cast to its real part with only numpy's ComplexWarning"
@pytest.mark.parametrize("kw,name,words", [
    ({"A": np.eye(2) * (1 + 1j)}, "A", "complex values"),
    ({"V": np.eye(2).astype(complex)}, "V", "complex values"),
    ({"A": np.array([[1, 0], [0, None]], dtype=object)}, "A", "not a numeric matrix (dtype object)"),
])
def test_api_rejects_complex_and_object_arrays(kw, name, words):
    from lsadyn.api import predict_regime

    args = {"A": np.eye(2), "V": np.eye(2), **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning either
        with pytest.raises(ValueError) as err:
            predict_regime(args["A"], args["V"], 1.0)
    assert str(err.value).startswith(f"{name}: {words}") and "\n" not in str(err.value)


def test_cli_rejects_complex_matrix_and_tokens_files(tmp_path, lsadyn_cli):
    np.save(tmp_path / "c.npy", np.eye(2) * (1 + 1j))
    np.save(tmp_path / "x.npy", np.exp(1j * np.linspace(0, 3, 8)))
    r = lsadyn_cli("regime", "--A", f"@{tmp_path / 'c.npy'}", "--V", I2)
    assert r.returncode == 2 and one_line(r.stderr).startswith("lsadyn: error: --A: complex values")
    r = lsadyn_cli("regime", "--A", I2, "--V", I2, "--method", "particles", "--tokens", f"@{tmp_path / 'x.npy'}")
    assert r.returncode == 2 and one_line(r.stderr).startswith("lsadyn: error: --tokens: complex values")


# "A = 0 is accepted (period nan) while ||A|| = 1e-120 is refused": both refused, naming the argument
@pytest.mark.parametrize("A,V,name", [([[0, 0], [0, 0]], I2, "A"), ([[1e-120, 0], [0, 1e-120]], I2, "A"),
                                      (I2, [[0, 0], [0, 0]], "V")])
def test_zero_and_tiny_matrices_are_refused_alike(lsadyn_cli, A, V, name):
    from lsadyn.api import predict_regime

    with pytest.raises(ValueError, match=rf"^{name}: .*outside the supported range"):
        predict_regime(json.loads(json.dumps(A)) if isinstance(A, list) else json.loads(A),
                       json.loads(json.dumps(V)) if isinstance(V, list) else json.loads(V), 1.0)
    r = lsadyn_cli("regime", "--A", json.dumps(A) if isinstance(A, list) else A,
                   "--V", json.dumps(V) if isinstance(V, list) else V)
    assert r.returncode == 2 and one_line(r.stderr).startswith(f"lsadyn: error: --{name}: ")
    assert "outside the supported range" in r.stderr


# "lsadyn regime ... | head -1 ends in a BrokenPipeError traceback (2 runs in 3)"
def test_cli_closed_pipe_exits_quietly():
    for _ in range(3):
        p = subprocess.Popen([sys.executable, "-m", "lsadyn", "regime", "--A", I2, "--V", I2],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        p.stdout.close()  # the reader went away before the output
        err = p.stderr.read().decode()
        assert p.wait(timeout=60) in (0, 141) and err == ""
    r = subprocess.run(f"'{sys.executable}' -m lsadyn regime --A '{I2}' --V '{I2}' | head -1", shell=True, check=False,
                       capture_output=True, text=True, env=ENV, timeout=60)
    assert r.stdout == "regime: cluster_converge\n" and r.stderr == ""


def test_cli_version_and_python_dash_m(lsadyn_cli):
    import lsadyn

    r = subprocess.run([sys.executable, "-m", "lsadyn", "--version"], check=False, capture_output=True, text=True, env=ENV,
                       timeout=60)
    assert r.returncode == 0 and r.stdout == f"lsadyn {lsadyn.__version__}\n"
    r = subprocess.run([sys.executable, "-m", "lsadyn", "regime", "--A", I2, "--V", I2, "--json"],
                       check=False, capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout)["regime"] == "cluster_converge"


def test_cli_says_what_r2_means_in_d3(lsadyn_cli):
    I3 = "[[1,0,0],[0,1,0],[0,0,1]]"
    r = lsadyn_cli("regime", "--A", I3, "--V", I3, "--method", "particles", "--n", "16", "--horizon", "10")
    assert r.returncode == 0
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("|R2|"))
    assert line.startswith("|R2| (d = 3: R2 = r e^(2i phi), r = (d lambda_max(M) - 1)/(d - 1), phi the angle swept")
    r = lsadyn_cli("regime", "--A", I2, "--V", I2)
    assert "\n|R2|: " in r.stdout


# issue 45, case 9: "--beta 1e6 --model usa prints 'beta: USA logit...', not naming --beta"; "--A @garbage.npy prints
# a message cut mid-sentence ('...load it unsafely using the `')"
def test_cli_names_beta_for_the_usa_overflow_and_ends_a_file_error_on_a_whole_sentence(tmp_path, lsadyn_cli):
    r = lsadyn_cli("regime", "--A", I2, "--V", "[[1,-1],[1,1]]", "--beta", "1e6", "--model", "usa", "--method",
                   "particles", "--n", "20", "--horizon", "5")
    assert r.returncode == 2 and one_line(r.stderr).startswith("lsadyn: error: --beta: USA logit")
    bad = tmp_path / "garbage.npy"
    bad.write_bytes(np.random.default_rng(0).bytes(200))
    r = lsadyn_cli("regime", "--A", f"@{bad}", "--V", I2)
    line = one_line(r.stderr)
    assert r.returncode == 2 and line.startswith("lsadyn: error: --A: cannot read") and line.endswith(
        "expected a numeric .npy, .npz, .csv or whitespace-separated text file)") and "`" not in line


# ------------------------------------------------------------------ 5. interrupts and concurrent builds


TINY = textwrap.dedent("""
    rule all:
        input:
            expand("out/{i}.txt", i=range(4)),


    rule slow:
        output:
            "out/{i}.txt",
        log:
            "logs/{i}.log",
        script:
            "job.py"
""")
# a job runs until the test creates the file `release` in the workflow folder, or for SLEEP seconds at most
JOB = textwrap.dedent("""
    import os, time
    from pathlib import Path
    from lsadyn_workflow.io import setup_log, write_csv
    log = setup_log(snakemake.log[0])
    end = time.monotonic() + float(os.environ.get("SLEEP", "3"))
    while time.monotonic() < end and not Path("release").exists():
        time.sleep(0.05)
    import pandas as pd  # here, not above: only jobs that write import it (the signal tests wait for the jobs' start)
    write_csv(pd.DataFrame({"x": [1]}), snakemake.output[0])
""")


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "Snakefile").write_text(TINY)
    (tmp_path / "job.py").write_text(JOB)
    return tmp_path


def _start(tiny, sleep, new_session=False):
    """``snakemake --cores 2`` in ``tiny`` (its jobs run for ``sleep`` s at most); returns it and its two jobs."""
    p = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=tiny,
                         env={**ENV, "SLEEP": str(sleep)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=new_session)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(child_pids(p.pid)) < 2:
        time.sleep(0.05)
    kids = child_pids(p.pid)
    assert len(kids) == 2, "jobs did not start"
    _wait_started(tiny)
    return p, kids


def _wait_started(tiny, jobs=2):
    """Wait until ``jobs`` job scripts are past setup_log (their signal handlers are installed: a
    signal during Python's own start-up, before any job code runs, is out of the workflow's reach)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        logs = [f.read_text() for f in (tiny / "logs").glob("*.log")] if (tiny / "logs").is_dir() else []
        if sum("started" in text for text in logs) >= jobs:
            return
        time.sleep(0.05)
    raise AssertionError("job scripts did not start")


# Snakemake's own SIGTERM handling (the workflow adds none; README, Troubleshooting): no new job starts, running
# jobs finish and keep their outputs, the build exits non-zero, and the same command resumes.
def test_sigterm_drains_running_jobs_and_the_same_command_resumes(tiny):
    p, _ = _start(tiny, 60)
    p.send_signal(signal.SIGTERM)
    time.sleep(2)  # the scheduler is in graceful mode before the jobs end
    (tiny / "release").touch()
    out, _ = p.communicate(timeout=120)
    assert p.returncode != 0, out
    assert "Will exit after finishing currently running jobs" in out, out
    assert len(list((tiny / "out").glob("*.txt"))) == 2  # the two running jobs drained, none started
    r = smk(tiny, "--cores", "2")  # `release` is there: the two other jobs finish at once
    assert r.returncode == 0, r.stderr
    assert len(list((tiny / "out").glob("*.txt"))) == 4


# Ctrl-C on a terminal (SIGINT to the process group): the jobs stop at once with one line in their logs
# (lsadyn_workflow.io.setup_log), Snakemake removes their outputs and exits non-zero.
def test_sigint_to_the_group_stops_jobs_at_once(tiny):
    p, _ = _start(tiny, 60, new_session=True)
    t0 = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert time.monotonic() - t0 < 30  # jobs stopped at once, not after their 60 s
    assert p.returncode != 0, out
    assert not list((tiny / "out").glob("*.txt"))
    logs = " ".join(p.read_text() for p in (tiny / "logs").glob("*.log"))
    assert "job interrupted (SIGINT)" in logs


# Why, bullet 5: "after SIGKILL, job processes live on as orphans"
def test_sigkill_of_snakemake_leaves_no_orphaned_jobs(tiny):
    p, kids = _start(tiny, 60)
    p.kill()
    p.communicate(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(pid_alive(k) for k in kids):
        time.sleep(0.05)
    assert not any(pid_alive(k) for k in kids)
    assert not list((tiny / "out").glob("*.txt")) and not list((tiny / "out").glob(".*"))  # no temp files


@pytest.mark.parametrize("content,expect", [
    (None, "missing"),
    ('{"part": "stages", "seconds": 1.0', "not a readable JSON file"),
    ("[1, 2]", "not a JSON object"),
    ('{"part": "stages"}', "missing key(s) ['seconds']"),
    (b"\xff\xfe", "not a readable JSON file"),
])
def test_corrupted_json_record_is_one_line_naming_the_file(tmp_path, content, expect):
    from lsadyn_workflow.io import load_json_record

    path = tmp_path / "stages.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(ResultFileError) as err:
        load_json_record(path, ("part", "seconds"))
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg and expect in msg


@pytest.mark.parametrize("how", ["text", "missing"])
def test_a_corrupted_bifurcation_fit_is_a_one_line_error_naming_file_and_column(tmp_path, how):
    # the C5b note reads its exact-law and fit-window columns: text in one, or one missing, stops with one line
    from lsadyn.paper.cases2d.summary import bifurcation_summary

    s = 0.5
    mu = np.concatenate([[0.3, 0.4], s + np.geomspace(1e-3, 1e-1, 6)])
    period = np.where(mu > s, np.pi / np.sqrt(np.maximum(mu**2 - s**2, 1e-300)), np.nan)
    sim = pd.DataFrame({"x": mu, "regime_oa": np.where(mu > s, "cluster_rotate", "cluster_converge"),
                        "kind": "near_threshold", "period_oa": period, "period_theory": period})
    path = tmp_path / "results/tables/bifurcation_fit.csv"
    write_csv(bifurcation_summary(sim, s, 1.0), path)
    assert load_table(path, "bifurcation_fit").n_fit.iloc[0] == 6
    df = pd.read_csv(path)
    df = df.assign(exact_law_fit_prefactor=["abc"]) if how == "text" else df.drop(columns=["fit_dmu_max"])
    df.to_csv(path, index=False)
    with pytest.raises(ResultFileError) as err:
        load_table(path, "bifurcation_fit")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(path)) and "delete it and rerun" in msg
    assert ("exact_law_fit_prefactor" if how == "text" else "fit_dmu_max") in msg


# issue 45, case 7: a second build while one runs is refused by Snakemake's lock (its own message, which
# troubleshooting shows with what to do: wait, never --unlock or --rerun-incomplete meanwhile)
@pytest.mark.slow
def test_a_second_build_meanwhile_is_refused_by_snakemakes_lock(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    target = ("results/tables/persistence.csv", "--cores", "1", "--configfile", "workflow/config/quick.yaml")
    log = open(tmp_path / "first.txt", "w")
    first = subprocess.Popen([sys.executable, "-m", "snakemake", *target], cwd=repo, env=checkout_env(repo, ENV),
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while "rule persistence_chunk" not in (tmp_path / "first.txt").read_text():
            assert first.poll() is None and time.monotonic() < deadline, (tmp_path / "first.txt").read_text()[-2000:]
            time.sleep(0.5)
        r = smk(repo, *target)
        assert r.returncode != 0
        assert "LockException" in r.stderr + r.stdout or "IncompleteFilesException" in r.stderr + r.stdout
        page = (ROOT / "docs/troubleshooting.md").read_text()
        assert "Two builds at once" in page and "Directory cannot be locked" in page
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGINT)
        first.wait(timeout=120)
        log.close()


# ------------------------------------------------------------------ 6. filesystem: full disk, unwritable


def _copy_repo(dest: Path) -> Path:
    skip = {"results", "paper_figures", "logs", ".snakemake", ".git", ".venv", ".hypothesis", ".pytest_cache",
            "benchmarks"}
    shutil.copytree(ROOT, dest, ignore=lambda d, names: [n for n in names if n in skip or n == "__pycache__"
                                                         or n.endswith(".egg-info")])
    return dest


def smk(cwd, *args, timeout=300, env=None):
    return conftest_smk(cwd, *args, check=False, timeout=timeout, env=env or ENV)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return _copy_repo(tmp_path_factory.mktemp("faults") / "repo")


# issue 45, case 4, end to end: a results/ the build cannot write stops it at the start with one line naming the file
# and what to do, not a traceback from the Snakefile, and no job runs (root ignores permissions: a directory stands in
# for the file; tests/test_provenance.py covers the error handler's pages)
def test_unwritable_results_stop_the_build_with_one_line(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    (repo / "results/provenance.json").mkdir(parents=True)
    r = smk(repo, "results/params/case1.csv", "--cores", "1", "--configfile", "workflow/config/quick.yaml")
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "Traceback" not in out
    ours = [ln for ln in out.splitlines() if ln.startswith("lsadyn: error:")]
    assert len(ours) == 1 and ours[0].startswith("lsadyn: error: results/provenance.json: cannot write it (")
    assert sorted(p.name for p in (repo / "results").iterdir()) == ["provenance.json"]


# issue 45, case 8: an unwritable HOME makes Snakemake fail creating its source cache, before it reads the workflow
# (its own traceback; troubleshooting says so and what to do); with XDG_CACHE_HOME set the same build plans
def test_unwritable_home_is_snakemakes_message_and_xdg_cache_home_mends_it(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.write_text("")  # a file: under root, a path no one can make a directory in
    r = smk(repo, "-n", "--configfile", "workflow/config/quick.yaml", env={**ENV, "HOME": str(home)})
    last = [ln for ln in (r.stderr + r.stdout).splitlines() if ln.strip()][-1]  # Snakemake prints it on stdout
    assert r.returncode != 0 and re.match(r"(NotADirectoryError|PermissionError|FileNotFoundError): ", last), last
    assert str(home) in last
    page = (ROOT / "docs/troubleshooting.md").read_text()
    assert "An unwritable HOME" in page and "XDG_CACHE_HOME=" in page
    r = smk(repo, "-n", "--configfile", "workflow/config/quick.yaml",
            env={**ENV, "HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert r.returncode == 0, r.stderr[-2000:]


def _enospc(*args, **kwargs):
    raise OSError(28, "No space left on device")


def _half_then_enospc(target):
    def write(*args, **kwargs):
        dest = next(a for a in args if isinstance(a, (str, os.PathLike)) or isinstance(getattr(a, "name", None), str))
        Path(getattr(dest, "name", dest)).write_bytes(b"half")  # something written before the disk filled
        raise OSError(28, "No space left on device")
    return write


# "a full disk ends in OSError: [Errno 28] tracebacks from PIL and numpy"
@pytest.mark.parametrize("what", ["csv", "npz", "figure", "gif"])
def test_full_disk_is_one_line_naming_the_file_and_leaves_nothing(tmp_path, monkeypatch, what):
    import matplotlib.figure
    import matplotlib.pyplot as plt
    from PIL import Image

    from lsadyn_workflow.io import OutputWriteError

    out = tmp_path / "out"
    if what == "csv":
        monkeypatch.setattr(pd.DataFrame, "to_csv", _half_then_enospc("csv"))
        target, write = out / "t.csv", lambda: write_csv(pd.DataFrame({"a": [1.0]}), out / "t.csv")
    elif what == "npz":
        monkeypatch.setattr(np, "savez_compressed", _half_then_enospc("npz"))
        target, write = out / "a.npz", lambda: write_npz(out / "a.npz", x=np.zeros(3))
    elif what == "figure":
        from lsadyn.paper.plotting import save_figure
        from lsadyn_workflow.io import atomic_path

        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", _half_then_enospc("fig"))
        fig, _ = plt.subplots()
        target, write = out / "f.png", lambda: save_figure(fig, out / "f.pdf", out / "f.png", 50, atomic=atomic_path)
    else:
        from lsadyn_workflow.io import atomic_path
        from lsadyn.paper.movies.frames import BlittedPillowWriter

        monkeypatch.setattr(Image.Image, "save", _half_then_enospc("gif"))
        fig, _ = plt.subplots()

        def write():
            out.mkdir(exist_ok=True)
            with atomic_path(out / "m.gif") as tmp, BlittedPillowWriter(fps=5).saving(fig, tmp, 40) as w:
                for _ in range(2):
                    fig.canvas.draw()
                    w.grab_frame()
        target = out / "m.gif"
    with pytest.raises(OutputWriteError) as err:
        write()
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{target}: cannot write it (no space left on the device")
    assert "[Errno 28]" in msg and "nothing was written" in msg
    assert not out.exists() or list(out.iterdir()) == []  # no temp file, no half-written output
    plt.close("all")


def test_a_job_on_a_full_disk_ends_with_one_line(tmp_path):
    # through setup_log's handler, as a pipeline job: exit 1, the line on stderr, no traceback
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np
        from lsadyn_workflow.io import setup_log, write_npz
        setup_log({str(tmp_path / 'job.log')!r})
        def full(*a, **k):
            raise OSError(28, "No space left on device")
        np.savez_compressed = full
        write_npz({str(tmp_path / 'r/a.npz')!r}, x=np.zeros(2))
    """))
    r = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 1
    assert one_line(r.stderr) == (f"lsadyn: error: {tmp_path / 'r/a.npz'}: cannot write it (no space left on the "
                                  "device: free some and rerun; [Errno 28]); nothing was written")
    assert list((tmp_path / "r").iterdir()) == []


# ------------------------------------------------------------------ 7. what a build prints


# "a --configfile path that does not exist gives Snakemake's 26-line traceback": Snakemake reads configfiles
# before the Snakefile, so the workflow cannot catch it; the troubleshooting page quotes the last line, checked here
def test_missing_configfile_message_is_the_documented_one(tmp_path):
    r = subprocess.run(["snakemake", "-n", "--configfile", "no/such.yaml"], cwd=ROOT, check=False, capture_output=True,
                       text=True, env=ENV, timeout=120)
    last = (r.stdout + r.stderr).strip().splitlines()[-1]  # Snakemake prints its traceback on stdout
    assert r.returncode == 1 and last == "FileNotFoundError: [Errno 2] No such file or directory: 'no/such.yaml'"
    page = (ROOT / "docs/troubleshooting.md").read_text()
    assert "FileNotFoundError: [Errno 2] No such file or directory: 'my.yaml'" in page


# "the end-of-build summary warns that claims may be out of date (regimes_table finishes after claims_table)"
def test_summary_staleness_compares_only_what_the_claims_read(tmp_path):
    from lsadyn.paper.findings import build_summary

    tables = tmp_path / "results/tables"
    tables.mkdir(parents=True)
    claims = pd.DataFrame({"id": ["C1a-oa"], "claim": ["C1"], "statement": ["s"], "method": ["oa"], "n_tested": [1],
                           "n_agree": [1], "pass": [True], "informational": [False], "evidence": [""], "note": [""]})
    for name in ("highdim", "claims", "regimes"):  # in this order: regimes.csv is newer than claims.csv
        (claims if name == "claims" else pd.DataFrame({"a": [1]})).to_csv(tables / f"{name}.csv", index=False)
        os.utime(tables / f"{name}.csv", (time.time() + 10 * ("hrc".index(name[0])),) * 2)
    inputs = ["results/tables/highdim.csv"]
    assert "out of date" not in build_summary(root=tmp_path, inputs=inputs)
    os.utime(tables / "highdim.csv", (time.time() + 60,) * 2)
    text = build_summary(root=tmp_path, inputs=inputs)
    assert "that table may be out of date: results/tables/highdim.csv newer than it" in text


# "A build error is one good line buried in ~80 lines of Snakemake text with nothing at the end to say what failed"
def test_failed_build_repeats_the_projects_lines_at_the_end(tmp_path):
    from lsadyn.paper.findings import error_summary

    (tmp_path / "logs").mkdir()
    line = "lsadyn: error: results/sim/case2.csv: truncated (the last line is incomplete); delete it and rerun"
    (tmp_path / "logs/claims_table.log").write_text(f"2026-01-01 INFO started\n2026-01-01 ERROR {line}\n")
    log = tmp_path / "snakemake.log"
    log.write_text("Building DAG of jobs...\n[Tue] Error in rule claims_table:\n    jobid: 3\n"
                   "    log: logs/claims_table.log, logs/missing.log (check log file(s) for error details)\n"
                   f"{line}\nShutting down, this might take some time.\n")
    assert error_summary(log, root=tmp_path) == f"\nlsadyn: the build failed:\n  {line}"
    assert error_summary([str(log)], root=tmp_path) == f"\nlsadyn: the build failed:\n  {line}"  # Snakemake 9
    log.write_text("Building DAG of jobs...\nMissingInputException\n")
    assert error_summary(log, root=tmp_path) == ""
    assert error_summary(None, root=tmp_path) == ""


# "the claims page is titled C1-C7 but holds C8-C10, and its note column is squeezed to ~90 px"; "the report's movie
# links download the GIF instead of showing it"
def test_claims_page_title_and_note_width_and_movie_pages(tmp_path):
    from lsadyn.paper.findings import CSS, claims_title
    from lsadyn.paper.movies.frames import gif_html_page

    claims = pd.DataFrame({"claim": ["C1", "C7", "C10", "C8"]})
    assert claims_title(claims) == "Claims C1–C10"
    assert "td.note{font-size:12px;color:#333;min-width:22em" in CSS
    gif = tmp_path / "m.gif"
    gif.write_bytes(b"GIF89a" + bytes(10))
    page = gif_html_page(gif, "clusters <rotate>, d = 2")
    assert "src='data:image/gif;base64,R0lGODlh" in page and "<title>clusters &lt;rotate&gt;, d = 2</title>" in page
    smk = (ROOT / "workflow/rules/movies.smk").read_text()
    assert 'report(\n            "results/report/movies/{movie}_d2.html"' in smk and 'report(\n            "paper_' not in smk
