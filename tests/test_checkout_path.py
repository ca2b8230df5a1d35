"""A build runs the lsadyn of the checkout it builds (Snakemake decides what to rerun from that checkout's
src/lsadyn): when another copy comes first on the path — e.g. pip's editable install of another clone — the
Snakefile stops at parse time with one line saying which copy it found and the pip command, before any job."""

import os
import subprocess
import sys

from conftest import copy_repo


def test_build_refuses_another_copy_of_lsadyn(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    fake = tmp_path / "other" / "lsadyn"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("the build imported another copy of lsadyn")\n')
    env = {**os.environ, "PYTHONPATH": str(fake.parent), "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "results/sim/kernels_compiled.txt"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("lsadyn:")]
    assert len(lines) == 1, r.stderr
    assert str(fake) in lines[0] and f"pip install -e {repo}" in lines[0], lines[0]
    assert "another copy of lsadyn" not in r.stderr and "Traceback" not in r.stderr
    assert not (repo / "results").exists()


def test_build_runs_with_this_checkout_first(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    first = os.pathsep.join([str(repo / "src"), str(repo / "workflow/lib")])
    env = {**os.environ, "PYTHONPATH": first, "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1"], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
