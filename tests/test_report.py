"""Report captions are Jinja templates over the build's config: rendered with the quick config they
state the quick build's numbers (d, n, β, horizons), and every caption is valid reStructuredText."""

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "workflow/report"


def merged_config(*files):
    def merge(a, b):
        for k, v in b.items():
            a[k] = merge(a.get(k, {}), v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
        return a
    cfg = {}
    for f in files:
        merge(cfg, yaml.safe_load((ROOT / f).read_text()))
    return cfg


def render(name, config):
    import jinja2

    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    sm = SimpleNamespace(config=config, wildcards=SimpleNamespace(movie="cluster_rotate"),
                         params=SimpleNamespace(title="clusters rotate (A = I, V = I + J)"))
    text = env.from_string((REPORT / name).read_text()).render(snakemake=sm, categories={}, files=[])
    return " ".join(text.split())  # one line: numbers are searched across line breaks


CAPTIONS = sorted(p.name for p in REPORT.glob("*.rst"))


@pytest.mark.parametrize("name", CAPTIONS)
def test_caption_renders_as_valid_rst_with_either_config(name):
    from docutils.core import publish_parts

    for files in (["workflow/config/config.yaml"], ["workflow/config/config.yaml", "workflow/config/quick.yaml"]):
        text = render(name, merged_config(*files))  # (rst validity does not depend on line breaks here)
        assert "{{" not in text and "snakemake.config" not in text
        publish_parts(text, writer_name="html", settings_overrides={"halt_level": 2, "report_level": 5})


def test_captions_state_the_quick_build_after_a_quick_build():
    quick = merged_config("workflow/config/config.yaml", "workflow/config/quick.yaml")
    paper = merged_config("workflow/config/config.yaml")
    assert quick["highdim"]["d"] != paper["highdim"]["d"]
    hd = render("fig_highdim.rst", quick)
    assert f"d = {quick['highdim']['d']}" in hd and f"n = {quick['highdim']['n_tokens']}" in hd
    assert f"d = {paper['highdim']['d']}" not in hd
    assert f"{quick['stability']['n_tokens']} tokens" in render("fig_stability.rst", quick)
    assert f"over {quick['oa']['horizon']} τ" in render("fig_case1.rst", quick)
    assert f"{quick['trajectories']['n_tokens']} tokens" in render("fig_case2.rst", quick)
    assert f"d = {quick['highdim']['d']}" in render("workflow.rst", quick)


def test_no_caption_hard_codes_a_config_number():
    """Numbers that are config values appear in captions only through snakemake.config."""
    paper = merged_config("workflow/config/config.yaml")
    for name in CAPTIONS:
        raw = (REPORT / name).read_text()
        for bad in (f"d = {paper['highdim']['d']}", f"n = {paper['highdim']['n_tokens']}",
                    f"{paper['stability']['n_tokens']} tokens", f"seed {paper['seed']}"):
            assert bad not in raw, (name, bad)
