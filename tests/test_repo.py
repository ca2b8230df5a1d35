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


def test_citation_cff_is_valid_cff_1_2_and_cites_the_paper():
    """CITATION.cff parses as YAML with the keys CFF 1.2.0 requires (cff-version, message, title,
    authors), agrees with pyproject.toml, and lists the reproduced paper (validated once with
    `cffconvert --validate`, which CI does not need to install)."""
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors"):
        assert cff.get(key), key
    assert cff["cff-version"] == "1.2.0"
    assert all(isinstance(a, dict) and (a.get("name") or a.get("family-names")) for a in cff["authors"])
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["version"] == py["version"] and cff["license"] == py["license"]
    (paper,) = [r for r in cff["references"] if "arXiv:2607.18584" in str(r.get("identifiers"))]
    assert paper["title"] == "On the Diverse Dynamical Behaviors Arising in Deep Linear Transformers"
    assert [a["family-names"] for a in paper["authors"]] == [
        "Li", "Maranzatto", "Peszek", "Teolis", "Akkoc", "Riedl", "Ulukus", "García Trillos"]
    for ref in cff["references"]:
        assert ref.get("type") and ref.get("title") and ref.get("authors"), ref


def test_license_file_matches_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert py["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_readme_cites_the_paper_and_the_software():
    readme = (ROOT / "README.md").read_text()
    assert "On the Diverse Dynamical Behaviors Arising in Deep Linear Transformers" in readme
    assert "arXiv:2607.18584" in readme and "García Trillos" in readme
    assert "CITATION.cff" in readme
