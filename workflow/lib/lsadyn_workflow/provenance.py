"""Provenance of a build: what ran, with what, on which configuration — results/provenance.json.

Every build that runs (not a dry run, not ``--report``) calls :func:`record` from the Snakefile's hooks:
``onstart:`` with ``status="running"``, then ``onsuccess:`` with ``"complete"`` or ``onerror:`` with ``"failed"``.
So the file is rewritten by every build, also one that finds nothing to do (Snakemake reruns a rule only when
its outputs are stale, so a rule could not promise that). The record holds

* lsadyn's version, the git commit of the checkout and whether its tree was dirty (``git status --porcelain``);
* Python and the versions of numpy, scipy, numba, pandas, matplotlib and snakemake; platform and CPU count;
* the config files used (path and SHA-256 of each) and the SHA-256 of the merged config (after defaults,
  JSON with sorted keys), so two builds with the same numbers in different files hash alike;
* start and end time (UTC, ISO 8601), the status, and which ``results/tables/*.csv`` this build wrote.

At the end (``complete`` or ``failed``) the same function fills the provenance block that
:mod:`lsadyn.paper.findings` leaves between :data:`BEGIN` and :data:`END` on the first page of
results/FINDINGS.md and of the report's findings page, so those pages name the build that last ran, while the
tables (which must be byte-identical between builds) carry nothing of it.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# the markers of the pages' provenance block belong to the study that writes the pages
from lsadyn.paper.findings import PROVENANCE_BEGIN as BEGIN
from lsadyn.paper.findings import PROVENANCE_END as END
from lsadyn.paper.findings import PROVENANCE_PLACEHOLDER as PLACEHOLDER  # noqa: F401  (the pages hold it until a build ends)

PACKAGES = ("numpy", "scipy", "numba", "pandas", "matplotlib", "snakemake")
PATH = "results/provenance.json"
PAGES = ("results/FINDINGS.md", "results/report/findings.html")
_STARTED: dict[str, str] = {}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def config_hash(config: dict) -> str:
    """SHA-256 of the merged config as JSON with sorted keys (independent of key order and of the files)."""
    return _sha256(json.dumps(config, sort_keys=True, default=str, separators=(",", ":")).encode())


def git_state(root: Path) -> dict:
    """``{"commit", "dirty", "changed_files"}`` of the git checkout whose top is ``root`` (all None if it is not one).
    Dirty: ``git status --porcelain`` lists something (tracked changes or untracked files not ignored)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout
    try:
        if Path(git("rev-parse", "--show-toplevel").strip()).resolve() != Path(root).resolve():
            raise OSError("root is inside another repository")  # e.g. a copy of the checkout in a repository
        commit = git("rev-parse", "HEAD").strip()
        changed = [line for line in git("--no-optional-locks", "status", "--porcelain").splitlines() if line.strip()]
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None, "changed_files": None}
    return {"commit": commit, "dirty": bool(changed), "changed_files": len(changed)}


def package_versions(names=PACKAGES) -> dict[str, str | None]:
    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def collect(configfiles, config: dict, root=".", status="running", start=None, end=None) -> dict:
    """The provenance record (a JSON-able dict) of a build of the checkout at ``root``."""
    import lsadyn  # the copy that runs: the Snakefile puts the checkout's src first

    root = Path(root)
    files = []
    for f in configfiles:
        p = Path(f)
        try:  # relative to the working directory where inside it (Snakemake makes --configfile paths absolute)
            shown = str(p.resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            shown = str(p)
        files.append({"path": shown, "sha256": _sha256(p.read_bytes()) if p.is_file() else None})
    tables = sorted(Path("results/tables").glob("*.csv"))
    since = datetime.fromisoformat(start).timestamp() if start else None
    written = [str(p) for p in tables if since is not None and p.stat().st_mtime >= since]
    return {
        "lsadyn": {"version": lsadyn.__version__, **git_state(root)},
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "packages": package_versions(),
        "platform": {"system": platform.platform(), "machine": platform.machine(), "cpu_count": os.cpu_count()},
        "config": {"files": files, "merged_sha256": config_hash(config)},
        "build": {"status": status, "start": start, "end": end,
                  "tables_written": written, "tables_present": len(tables)},
    }


def record(workflow, status: str) -> dict:
    """Write results/provenance.json for this build (call from the Snakefile's onstart/onsuccess/onerror with
    ``"running"``, ``"complete"``, ``"failed"``); at the end also fill the provenance block of the findings pages.
    """
    if status == "running" or "start" not in _STARTED:
        _STARTED["start"] = _now()
    end = None if status == "running" else _now()
    rec = collect(workflow.configfiles, dict(workflow.config), root=workflow.basedir, status=status,
                  start=_STARTED["start"], end=end)
    try:
        write_json(PATH, rec)
        if end is not None:
            for page in PAGES:
                stamp(page, rec)
    except OSError as err:  # a read-only results/ (or a full disk): one line, not a traceback from the Snakefile
        raise UnwritableResults(err) from None
    return rec


class UnwritableResults(RuntimeError):
    """results/ cannot be written: the message is one line naming the file, the reason and what to do."""

    def __init__(self, err: OSError):
        where = err.filename or PATH
        for suffix in (".tmp",):
            where = str(where).removesuffix(suffix)
        super().__init__(f"{where}: cannot write it ({err.strerror or type(err).__name__}); the build writes "
                         "everything under results/ and paper_figures/: make them writable (chmod -R u+w results "
                         "paper_figures), or build in a writable copy of the checkout")


def write_json(path, rec: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace(path, json.dumps(rec, indent=2) + "\n")


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it; on failure no temporary file is left."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # e.g. the temporary name is taken by a directory: nothing of ours to remove
            pass
        raise


def summary_lines(rec: dict) -> list[tuple[str, str]]:
    """(label, text) pairs for the findings pages."""
    lib, b, cfg = rec["lsadyn"], rec["build"], rec["config"]
    if lib["commit"] is None:
        where = "not a git checkout"
    else:
        where = f"commit {lib['commit'][:12]}" + (f", tree dirty ({lib['changed_files']} changed files)"
                                                   if lib["dirty"] else ", clean tree")
    pk = ", ".join(f"{k} {v}" for k, v in rec["packages"].items())
    n = len(b["tables_written"])
    return [
        ("lsadyn", f"{lib['version']}, {where}"),
        ("build", f"{b['status']}, {b['start']} to {b['end']}; it wrote {n} of the {b['tables_present']} "
                  "tables in results/tables" + (" (the others were up to date)" if n < b["tables_present"] else "")),
        ("config", ", ".join(f["path"] for f in cfg["files"]) + f"; merged config sha256 {cfg['merged_sha256'][:16]}"),
        ("software", f"Python {rec['python']['version']} ({rec['python']['implementation']}); {pk}"),
        ("machine", f"{rec['platform']['system']}, {rec['platform']['cpu_count']} CPUs"),
    ]


def markdown_block(rec: dict) -> str:
    items = "\n".join(f"- **{k}**: {v}" for k, v in summary_lines(rec))
    return (f"Provenance of the last build (full record: `{PATH}`):\n\n{items}")


def html_block(rec: dict) -> str:
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in summary_lines(rec))
    return f"<p>Provenance of the last build (full record: <code>{PATH}</code>):</p><table>{rows}</table>"


def stamp(page, rec: dict) -> bool:
    """Replace the text between BEGIN and END in ``page`` (FINDINGS.md or its HTML page) by the provenance
    block; False if the page or its markers are missing (e.g. a build of one figure, before any findings)."""
    page = Path(page)
    try:
        text = page.read_text(encoding="utf-8")
    except OSError:
        return False
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        return False
    block = html_block(rec) if page.suffix == ".html" else markdown_block(rec)
    _replace(page, text[: i + len(BEGIN)] + "\n" + block + "\n" + text[j:])
    return True
