"""results/provenance.json (lsadyn_workflow.provenance): what it records, the git state, the config hash, and the
block it fills on the first page of FINDINGS.md and of the findings HTML page."""

import json
import os
import subprocess
from types import SimpleNamespace

import pytest

import lsadyn
from lsadyn_workflow import provenance


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git repository with one committed config file, as the working directory."""
    root = tmp_path / "repo"
    (root / "workflow/config").mkdir(parents=True)
    (root / "workflow/config/config.yaml").write_text("seed: 1\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    monkeypatch.chdir(root)
    return root


def test_config_hash_ignores_key_order_and_sees_every_value():
    a = {"seed": 1, "stage": {"n": 2, "beta": 1.0}}
    b = {"stage": {"beta": 1.0, "n": 2}, "seed": 1}
    assert provenance.config_hash(a) == provenance.config_hash(b)
    assert provenance.config_hash(a) != provenance.config_hash({"seed": 1, "stage": {"n": 3, "beta": 1.0}})


def test_git_state_clean_dirty_and_not_a_checkout(checkout, tmp_path):
    clean = provenance.git_state(checkout)
    assert len(clean["commit"]) == 40 and clean["dirty"] is False and clean["changed_files"] == 0
    (checkout / "workflow/config/config.yaml").write_text("seed: 2\n")
    (checkout / "new.py").write_text("")
    dirty = provenance.git_state(checkout)
    assert dirty["commit"] == clean["commit"] and dirty["dirty"] is True and dirty["changed_files"] == 2
    # a folder inside the repository is not the checkout's top: no commit claimed for it
    assert provenance.git_state(checkout / "workflow") == {"commit": None, "dirty": None, "changed_files": None}
    outside = tmp_path / "plain"
    outside.mkdir()
    assert provenance.git_state(outside)["commit"] is None


def test_record_writes_the_json_and_fills_the_findings_pages(checkout):
    (checkout / "results/report").mkdir(parents=True)
    md, page = checkout / "results/FINDINGS.md", checkout / "results/report/findings.html"
    md.write_text(f"# What this build found\n\n{provenance.BEGIN}\n{provenance.PLACEHOLDER}\n{provenance.END}\n\nrest\n")
    page.write_text(f"<html><body>{provenance.BEGIN}<p>x</p>{provenance.END}<h2>C1</h2></body></html>")
    (checkout / "results/tables").mkdir()
    (checkout / "results/tables/old.csv").write_text("a\n")
    (checkout / "quick.yaml").write_text("seed: 2\n")
    wf = SimpleNamespace(configfiles=["workflow/config/config.yaml", str(checkout / "quick.yaml")],
                         config={"seed": 2}, basedir=str(checkout))
    provenance._STARTED.clear()
    os.utime(checkout / "results/tables/old.csv", (0, 0))  # written long before this build
    running = provenance.record(wf, "running")
    assert running["build"]["status"] == "running" and running["build"]["end"] is None
    assert provenance.PLACEHOLDER in md.read_text()  # the pages are filled at the end only
    (checkout / "results/tables/new.csv").write_text("a\n")
    rec = provenance.record(wf, "complete")
    on_disk = json.loads((checkout / "results/provenance.json").read_text())
    assert on_disk == rec
    assert rec["build"]["start"] == running["build"]["start"] <= rec["build"]["end"]
    assert rec["build"]["tables_written"] == ["results/tables/new.csv"] and rec["build"]["tables_present"] == 2
    assert rec["lsadyn"]["version"] == lsadyn.__version__ and rec["lsadyn"]["dirty"] is True  # results/ untracked
    assert set(rec["packages"]) == {"numpy", "scipy", "numba", "pandas", "matplotlib", "snakemake"}
    assert all(rec["packages"].values()) and rec["platform"]["cpu_count"] >= 1
    assert [f["path"] for f in rec["config"]["files"]] == ["workflow/config/config.yaml", "quick.yaml"]
    assert rec["config"]["merged_sha256"] == provenance.config_hash({"seed": 2})
    text = md.read_text()
    assert provenance.PLACEHOLDER not in text and text.endswith("\n\nrest\n")
    assert f"commit {rec['lsadyn']['commit'][:12]}" in text and "it wrote 1 of the 2 tables" in text
    assert f"numba {rec['packages']['numba']}" in text and "quick.yaml" in text
    assert "<p>x</p>" not in page.read_text() and "<h2>C1</h2>" in page.read_text()
    assert "merged config sha256" in page.read_text()
    # a failed build says so on the same pages
    assert provenance.record(wf, "failed")["build"]["status"] == "failed"
    assert "- **build**: failed," in md.read_text()


def test_stamp_leaves_a_page_without_markers_alone(tmp_path):
    page = tmp_path / "FINDINGS.md"
    assert provenance.stamp(page, {}) is False  # no page (e.g. a build of one figure)
    page.write_text("# old page\n")
    assert provenance.stamp(page, {}) is False and page.read_text() == "# old page\n"



# issue 45, case 4: a read-only results/ (or results/report) gave a PermissionError traceback from the Snakefile's
# onstart, and from its error handler; the record now raises one line naming the file and what to do, and leaves no
# temporary file. (Under root, permissions are not enforced, so the unwritable file is a directory in its place.)
@pytest.mark.parametrize("blocked", ["results/provenance.json", "results/report/findings.html.tmp"])
def test_an_unwritable_results_file_is_one_line_and_leaves_nothing(checkout, blocked):
    (checkout / "results/report").mkdir(parents=True)
    page = checkout / "results/report/findings.html"
    page.write_text(f"<html><body>{provenance.BEGIN}<p>x</p>{provenance.END}</body></html>")
    (checkout / blocked).mkdir()
    wf = SimpleNamespace(configfiles=["workflow/config/config.yaml"], config={"seed": 1}, basedir=str(checkout))
    provenance._STARTED.clear()
    with pytest.raises(provenance.UnwritableResults) as err:
        provenance.record(wf, "failed")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{blocked.removesuffix('.tmp')}: cannot write it (")
    assert "make them writable" in msg
    assert not (checkout / "results/provenance.json.tmp").exists()
    assert "<p>x</p>" in page.read_text()  # the page is left as it was
