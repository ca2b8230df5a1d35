"""A checked release: `python -m build` makes a wheel and an sdist of the committed files that pass
`twine check --strict`; the wheel, installed WITHOUT extras into a fresh virtual environment (pip
resolves pyproject.toml's bounds: today's releases of the core dependencies), runs the README's library
example and `lsadyn regime --help`, away from the checkout."""

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import lsadyn

ROOT = Path(__file__).resolve().parents[1]


def readme_library_example() -> str:
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
                if "import lsadyn" in b]
    return block


def run(*cmd, cwd, env):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)


@pytest.mark.slow
def test_wheel_and_sdist_build_pass_twine_and_the_wheel_runs_without_extras(tmp_path):
    src = tmp_path / "src"  # the tracked files only, as a clean clone would have them
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", MPLBACKEND="Agg")
    dist = tmp_path / "dist"
    r = run(sys.executable, "-m", "build", "--outdir", dist, src, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    version = lsadyn.__version__
    wheel, sdist = dist / f"lsadyn-{version}-py3-none-any.whl", dist / f"lsadyn-{version}.tar.gz"
    assert sorted(dist.iterdir()) == sorted([wheel, sdist])
    r = run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist, cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.count("PASSED") == 2, r.stdout + r.stderr

    venv.create(tmp_path / "venv", with_pip=True)
    bindir = tmp_path / "venv" / "bin"
    r = run(bindir / "python", "-m", "pip", "install", "-q", wheel, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = run(bindir / "python", "-m", "pip", "list", "--format=freeze", cwd=tmp_path, env=env)
    installed = {line.split("==")[0].lower() for line in r.stdout.splitlines()}
    assert "lsadyn" in installed and not installed & {"snakemake", "pytest", "jupytext"}  # no extras came along

    work = tmp_path / "elsewhere"  # not the checkout: the installed wheel is what imports
    work.mkdir()
    (work / "example.py").write_text(readme_library_example())
    r = run(bindir / "python", "-c", "import lsadyn, sys; print(lsadyn.__version__, lsadyn.__file__)",
            cwd=work, env=env)
    assert r.returncode == 0 and r.stdout.split()[0] == version and str(tmp_path / "venv") in r.stdout, r.stderr
    r = run(bindir / "python", "example.py", cwd=work, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split("\n")[:3] == ["cluster_rotate 2.0", "cluster_rotate", "cluster_converge"], r.stdout
    r = run(bindir / "lsadyn", "regime", "--help", cwd=work, env=env)
    assert r.returncode == 0 and "usage: lsadyn regime" in r.stdout, r.stdout + r.stderr
