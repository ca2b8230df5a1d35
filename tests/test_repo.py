"""The repository keeps its promises: CI runs the README's test command; the lock, pyproject.toml and
environment.yml agree."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import lsadyn

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    return re.findall(r"```bash\n(?:#[^\n]*\n)?([^\n]+)\n```", (ROOT / "README.md").read_text())


def test_readme_quick_start_is_two_commands_and_ci_runs_the_test_one():
    build, test = readme_commands()[:2]
    assert "snakemake --cores 2" in build and "pip install" in build
    assert "pytest" in test and "pip install" in test
    # both set up from the lock (exact versions, hashes), as CI does
    assert "-r requirements/lock.txt" in build and "-r requirements/lock.txt" in test
    ci = (ROOT / ".ci/run").read_text()
    assert test in ci
    assert '"$rc" -eq 5' in ci


LOCK = ROOT / "requirements/lock.txt"


def lock_pins() -> dict[str, str]:
    """{normalised name: version} of requirements/lock.txt; every entry is an exact pin with a hash."""
    text = LOCK.read_text()
    entries = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?: \\\n\s+--hash=sha256:[0-9a-f]{64})+)", text, re.MULTILINE)
    assert len(entries) == len(re.findall(r"^[A-Za-z0-9]", text, re.MULTILINE)), "every line of the lock is name==version"
    return {canonicalize_name(n): v for n, v, _ in entries}


def declared_requirements() -> list[Requirement]:
    """Every requirement the lock must satisfy: the dependencies, the workflow and test extras, the build
    backend and requirements/lock.in."""
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = py["project"]["optional-dependencies"]
    lines = py["project"]["dependencies"] + extras["workflow"] + extras["test"] + py["build-system"]["requires"]
    lines += [s for s in (ROOT / "requirements/lock.in").read_text().splitlines() if s and not s.startswith("#")]
    return [Requirement(s) for s in lines if not s.startswith("lsadyn")]


def test_lock_pins_every_declared_requirement_within_its_bounds():
    pins = lock_pins()
    for req in declared_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is declared but not in {LOCK.name}: regenerate it (docs/environment.md)"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {req}"
    for name in ("sphinx", "pydata-sphinx-theme", "myst-parser", "sphinx-gallery", "setuptools", "snakemake"):
        assert name in pins, name


def test_lock_regeneration_command_is_the_documented_one():
    command = re.search(r"^#    (uv pip compile .*)$", LOCK.read_text(), re.MULTILINE).group(1)
    assert "--generate-hashes" in command and "--python-version 3.11" in command
    assert command in (ROOT / "docs/environment.md").read_text()


def test_environment_yml_agrees_with_the_lock():
    pins = lock_pins()
    env = (ROOT / "environment.yml").read_text()
    pinned = re.findall(r"^\s*- ([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$", env, re.MULTILINE)
    assert len(pinned) > 20
    for name, version in pinned:
        assert pins.get(canonicalize_name(name)) == version, f"environment.yml {name}=={version}, lock {pins.get(name)}"
    assert re.search(r"^\s*- python=3\.11$", env, re.MULTILINE)


def test_environment_mirrors_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())
    env = (ROOT / "environment.yml").read_text()
    extras = py["project"]["optional-dependencies"]
    deps = py["project"]["dependencies"] + [
        d for key in ("looped", "workflow", "test") for d in extras[key] if not d.startswith("lsadyn")]
    for dep in deps:
        name = re.split(r"[<>=\[]", dep)[0].lower()
        assert re.search(rf"^\s*- {re.escape(name)}\b", env, re.MULTILINE), name


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
    assert cff["version"] == lsadyn.__version__ and cff["license"] == py["license"]
    (paper,) = [r for r in cff["references"] if "arXiv:2607.18584" in str(r.get("identifiers"))]
    assert paper["title"] == "On the Diverse Dynamical Behaviors Arising in Deep Linear Transformers"
    assert [a["family-names"] for a in paper["authors"]] == [
        "Li", "Maranzatto", "Peszek", "Teolis", "Akkoc", "Riedl", "Ulukus", "García Trillos"]
    for ref in cff["references"]:
        assert ref.get("type") and ref.get("title") and ref.get("authors"), ref


def test_the_version_has_one_source_and_the_changelog_names_it():
    """pyproject.toml reads the version from lsadyn.__version__; CHANGELOG.md's first release is that one."""
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in py["project"] and "version" in py["project"]["dynamic"]
    assert py["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "lsadyn.__version__"}
    first = re.search(r"^## \[?(\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert first and first.group(1) == lsadyn.__version__


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


#: the file name of the science notes outside the repository (spelled in two parts so this file does not cite it)
OUTSIDE_NOTES = "SCIENCE" + ".md"


def test_the_theory_the_code_cites_is_in_the_repository():
    """Docstrings and tests cite the derivations as docs/theory.md §N; every such N is a section of that page, and
    nothing cites the project's outside science notes (issue 43: 28 citations of a file no clone has)."""
    import re

    theory = (ROOT / "docs/theory.md").read_text()
    sections = set(re.findall(r"^## (\d+)\. ", theory, flags=re.M))
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "workflow").rglob("*.py"), *(ROOT / "tests").glob("*.py"),
             *(ROOT / "tests").glob("*.md"), *(ROOT / "docs").glob("*.md")]
    cited = set()
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert OUTSIDE_NOTES not in text, f
        cited |= set(re.findall(r"docs/theory\.md §(\d+)", text))
    assert cited and cited <= sections, sorted(cited - sections)
