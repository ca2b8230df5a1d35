"""A build runs the lsadyn of the checkout it builds (Snakemake decides what to rerun from that checkout's
src/lsadyn), even when another copy comes first on the path — e.g. pip's editable install of another clone."""

import os
import subprocess
import sys

import pytest
from conftest import copy_repo


@pytest.mark.slow
def test_build_imports_its_own_checkout(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    fake = tmp_path / "other" / "lsadyn"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("the build imported another copy of lsadyn")\n')
    env = {**os.environ, "PYTHONPATH": str(fake.parent), "MPLBACKEND": "Agg", "LSADYN_JOB_RUNNER": "0"}
    # a real job (its own Python process), not only the Snakefile: the kernels are in the machine's cache
    r = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "results/sim/kernels_compiled.txt"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "another copy of lsadyn" not in (repo / "logs" / "compile_kernels" / "driver.log").read_text()
    assert (repo / "results" / "sim" / "kernels_compiled.txt").is_file()
