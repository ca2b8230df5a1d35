"""The repository keeps its promises: CI runs the README's test command; dependencies agree."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    return re.findall(r"```bash\n(?:#[^\n]*\n)?([^\n]+)\n```", (ROOT / "README.md").read_text())


def test_readme_quick_start_is_two_commands_and_ci_runs_the_test_one():
    build, test = readme_commands()[:2]
    assert "snakemake --cores 2" in build and "pip install" in build
    assert "pytest" in test and "pip install" in test
    ci = (ROOT / ".ci/run").read_text()
    assert test in ci
    assert '"$rc" -eq 5' in ci


def test_environment_mirrors_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())
    env = (ROOT / "environment.yml").read_text()
    deps = py["project"]["dependencies"] + py["project"]["optional-dependencies"]["workflow"] + [
        d for d in py["project"]["optional-dependencies"]["test"] if not d.startswith("lsadyn")]
    for dep in deps:
        name = re.split(r"[<>=\[]", dep)[0].lower()
        assert re.search(rf"^\s*- {re.escape(name)}\b", env, re.M), name
