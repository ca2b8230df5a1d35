"""The README works when pasted and states no result number that a test does not check: its library
example runs and prints what its comments say; the claims it says failed in the last builds are the
ones failing in `results/` (when a build is there); every other result number lives in
results/FINDINGS.md (the Speed table, in docs/performance.md, is generated and checked by
benchmarks/speed_table.py). It stays a front page (at most 150 lines) whose links to docs/ resolve."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
RESULTS_PAGE = (ROOT / "docs/results.md").read_text()


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, re.DOTALL)


def prose(text=README):
    """Text a reader takes as statements: no code or links."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def test_library_example_runs_as_pasted_and_prints_what_its_comments_say(tmp_path):
    (code,) = [b for b in blocks("python") if "import lsadyn" in b]
    # a program of its own, as a reader runs it
    (tmp_path / "readme_example.py").write_text(code)
    out = subprocess.run([sys.executable, "readme_example.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    expected = [line.split("#", 1)[1].split("  (")[0].split(" (")[0].strip()
                for line in code.splitlines() if line.startswith("print(")]
    printed = out.stdout.splitlines()
    assert len(printed) == len(expected)
    for got, want in zip(printed, expected):
        assert got.startswith(want), (got, want)


def test_building_one_figure_is_shown_with_the_configfile_after_the_target():
    bash = "\n".join(blocks("bash"))
    assert "snakemake --cores 2 paper_figures/fig_case3.png --configfile=workflow/config/quick.yaml\n" in bash  # the block is the quick build's
    for line in bash.splitlines():
        if "--configfile " in line:  # space-separated form: nothing may follow it but the file
            assert re.search(r"--configfile \S+$", line), line
    assert "--configfile=workflow/config/quick.yaml" in bash


def test_recovery_commands_carry_the_configfile():
    bash = "\n".join(blocks("bash"))
    for flag in ("--unlock", "--rerun-incomplete"):
        lines = [ln for ln in bash.splitlines() if flag in ln]
        assert lines and all("--configfile" in ln for ln in lines), flag


def failing_claims_stated(text=None):
    m = re.search(r"paper config: ([^;]*?)(?: \(.*?\))?; quick config: ([^.]*)\.", " ".join((text or README).split()))
    assert m, "README must say which claims failed in the paper and quick builds"
    return {"paper": set(re.findall(r"C\d+", m.group(1))), "quick": set(re.findall(r"C\d+", m.group(2)))}


def test_the_reproducing_page_states_the_readmes_failing_claims():
    """The two pages that say which claims failed say the same (the reproducing page went stale once)."""
    page = (ROOT / "docs/reproducing.md").read_text()
    assert failing_claims_stated(page) == failing_claims_stated()


def failing_claims_of_build(root: Path):
    """(config kind, set of failing claims) of the build in ``root``/results, or None if there is none or
    it is from another config (told apart by highdim.d, which differs between the two configs)."""
    claims, highdim = root / "results/tables/claims.csv", root / "results/tables/highdim.csv"
    if not (claims.is_file() and highdim.is_file()):
        return None
    import pandas as pd

    from lsadyn.paper.findings import tally

    quick_d = yaml.safe_load((ROOT / "workflow/config/quick.yaml").read_text())["highdim"]["d"]
    paper_d = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())["highdim"]["d"]
    d = int(pd.read_csv(highdim).d.iloc[0])
    if d not in (quick_d, paper_d):
        return None
    kind = "quick" if d == quick_d else "paper"
    return kind, set(tally(pd.read_csv(claims, keep_default_na=False)).claims_fail)


def test_failing_claims_stated_in_the_readme_match_the_build_in_results():
    found = failing_claims_of_build(ROOT)
    if found is None:
        pytest.skip("no build of the paper or quick config in results/")
    kind, failing = found
    stated = failing_claims_stated()
    assert failing == stated[kind], f"README says {kind} build fails {sorted(stated[kind])}, results/ fail {sorted(failing)}"


@pytest.mark.slow
def test_failing_claims_stated_for_the_quick_config_match_the_shared_quick_build(built):
    """The same check on the test session's own quick build (conftest.built), so that it runs in CI too."""
    kind, failing = failing_claims_of_build(built)
    assert kind == "quick"
    stated = failing_claims_stated()["quick"]
    assert failing == stated, f"README says the quick build fails {sorted(stated)}, the quick build fails {sorted(failing)}"


RESULT_LIKE = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)?|\d{3,}|\d+(?:\.\d+)?e[-+]?\d+|\d+\s*%|\d+ of \d+)(?![\w.])")
NOT_RESULTS = {"3.11", "2607.18584"}  # Python version, arXiv id


@pytest.mark.parametrize("name", ["README.md", "docs/results.md"])
def test_readme_and_results_page_state_no_result_number_outside_findings(name):
    """Counts, errors, exponents and timings belong in results/FINDINGS.md or the generated Speed
    table; the README's and the Results page's prose keep the story (small integers in formulas are fine)."""
    text = (ROOT / name).read_text()
    found = [m.group(0) for m in RESULT_LIKE.finditer(prose(text)) if m.group(0) not in NOT_RESULTS]
    assert not found, f"hand-typed result numbers in {name}: {found}"


def test_readme_links_findings_and_the_results_gallery_points_at_built_movies():
    assert "results/FINDINGS.md" in README
    movies = yaml.safe_load((ROOT / "workflow/config/config.yaml").read_text())["movies"]["scenarios"]
    for m in movies:
        assert f"paper_figures/movies/{m}_d2.gif" in RESULTS_PAGE


def test_readme_is_a_front_page_whose_docs_links_resolve_and_says_how_to_build_the_docs():
    assert len(README.splitlines()) <= 150
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    assert links and all((ROOT / link).is_file() for link in links), links
    assert "python3 -m sphinx -W -b html docs docs/_build/html" in "\n".join(blocks("bash"))
    assert "docs/_build/html/index.html" in README
    for figure in re.findall(r"`(paper_figures/fig_\w+)`", README):  # the claim <-> figure map
        assert (ROOT / "workflow/notebooks" / (figure.split("/")[1] + ".py")).is_file(), figure
