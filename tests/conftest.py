import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

# PATH as pytest found it: tests that talk to a real SLURM cluster (marker `slurm`) run with it.
REAL_PATH = os.environ.get("PATH", "")


def _slurmctld_running() -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "slurmctld":
                    return True
            except OSError:
                continue
    return False


def _stub_unreachable_scontrol():
    """Importing Snakemake loads the installed SLURM executor plugin, which runs `scontrol show
    config` at import time. With slurm-wlm installed but no controller running, scontrol retries
    for ~9 s before failing, so every `snakemake` subprocess of the suite (dry runs, lint, the
    fault tests' tiny workflows) would wait 9 s for a cluster it does not use. In that case put a
    stub `scontrol` that fails at once first on PATH (the plugin treats both failures the same: no
    MinJobAge). Tests marked `slurm` get the real PATH back (see `_real_path_for_slurm`); with a
    controller running (CI starts one before pytest) nothing is stubbed."""
    if os.environ.get("LSADYN_TESTS_SCONTROL_STUB") or not shutil.which("scontrol") or _slurmctld_running():
        return
    stub_dir = Path(tempfile.mkdtemp(prefix="lsadyn-tests-scontrol-"))
    stub = stub_dir / "scontrol"
    stub.write_text("#!/bin/sh\necho 'scontrol: no SLURM controller running (stub from tests/conftest.py)' >&2\n"
                    "exit 1\n")
    stub.chmod(0o755)
    os.environ["LSADYN_TESTS_SCONTROL_STUB"] = str(stub_dir)  # xdist workers inherit it: one stub
    os.environ["PATH"] = f"{stub_dir}{os.pathsep}{REAL_PATH}"


def pytest_configure(config):
    _stub_unreachable_scontrol()


def pytest_unconfigure(config):
    stub_dir = os.environ.get("LSADYN_TESTS_SCONTROL_STUB")
    if stub_dir and not hasattr(config, "workerinput"):  # the controller (or a plain run) cleans up
        shutil.rmtree(stub_dir, ignore_errors=True)


@pytest.fixture(autouse=True)
def _real_path_for_slurm(request, monkeypatch):
    if request.node.get_closest_marker("slurm"):
        stub_dir = os.environ.get("LSADYN_TESTS_SCONTROL_STUB")
        if stub_dir:
            path = [p for p in os.environ["PATH"].split(os.pathsep) if p != stub_dir]
            monkeypatch.setenv("PATH", os.pathsep.join(path))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_pair(rng, d, scale=1.0):
    """Random (A, V) with i.i.d. N(0, scale²) entries."""
    return scale * rng.standard_normal((d, d)), scale * rng.standard_normal((d, d))
