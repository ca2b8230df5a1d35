"""Sphinx configuration of the lsadyn docs (build: ``python3 -m sphinx -W -b html docs docs/_build/html``).

Pages are Markdown (myst-parser); the API reference is autosummary over the package ``lsadyn``; the gallery is
sphinx-gallery over ``docs/examples/``. Two pages are generated at every build: ``configuration.md`` from the
config schema (``docs/gen_config.py``) and ``_generated/rulegraph.dot`` from ``snakemake --rulegraph``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(DOCS))
os.environ.setdefault("MPLBACKEND", "Agg")

import gen_config

project = "lsadyn"
author = "The lsadyn developers"
copyright = "2026, The lsadyn developers"
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.graphviz",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "examples/README.txt", "**.ipynb_checkpoints"]
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

autosummary_generate = True
autosummary_imported_members = False
# each object is described once, on the page of the module that defines it (the packages' __all__ re-export)
autodoc_default_options = {"members": True, "show-inheritance": False, "ignore-module-all": True}
autodoc_typehints = "description"
autodoc_mock_imports = []
napoleon_numpy_docstring = True
napoleon_google_docstring = False

graphviz_output_format = "svg"

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "lsadyn"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}
html_static_path = ["_static"]
html_css_files = ["lsadyn.css"]


def _generate(app):
    gen_config.main([str(DOCS / "configuration.md")])
    out = DOCS / "_generated"
    out.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "workflow/lib"),
                                                   os.environ.get("PYTHONPATH", "")])}
    dot = subprocess.run([sys.executable, "-m", "snakemake", "--rulegraph", "--configfile",
                          "workflow/config/quick.yaml"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if dot.returncode != 0 or "digraph" not in dot.stdout:
        raise RuntimeError(f"snakemake --rulegraph failed: {dot.stderr.strip().splitlines()[-1:]}")
    text = dot.stdout[dot.stdout.index("digraph"):]
    if not (out / "rulegraph.dot").is_file() or (out / "rulegraph.dot").read_text() != text:
        (out / "rulegraph.dot").write_text(text)


_CODE = re.compile(r"(``.*?``|:\w+:`.*?`|`.*?`)")
_ROLE_AT_START = re.compile(r"^(\s*)(:\w+:`)")


def _plain_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for absolute values and norms, which reST reads as a substitution: escape every bar
    outside code and roles. A line continuing a paragraph with a role (``:data:`X` ...``) is not a field list."""
    for i, line in enumerate(lines):
        parts = _CODE.split(line)
        line = "".join(p if k % 2 else p.replace("|", "\\|") for k, p in enumerate(parts))
        if i and lines[i - 1].strip() and not lines[i - 1].lstrip().startswith(":"):
            line = _ROLE_AT_START.sub(r"\1\\ \2", line)
        lines[i] = line


def setup(app):
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-docstring", _plain_bars)
