"""lsadyn_workflow.mock.mock_snakemake: a job's ``snakemake`` object without running Snakemake, also with config
files (the job's params then come from them, as in a build with ``--configfile``)."""

from pathlib import Path

import pytest
import yaml

from lsadyn_workflow.mock import mock_snakemake

ROOT = Path(__file__).resolve().parents[1]


def test_mock_snakemake_with_a_config_file_takes_its_values(monkeypatch):
    monkeypatch.chdir(ROOT)
    quick = yaml.safe_load((ROOT / "workflow/config/quick.yaml").read_text())
    sm = mock_snakemake("fig_case1", "workflow/config/quick.yaml", root=ROOT)
    assert sm.config["case1"]["n_random"] == quick["case1"]["n_random"]
    assert list(sm.input)[:1] == ["results/sim/case1.csv"]
    paper = mock_snakemake("fig_case1", root=ROOT)
    assert paper.config["case1"]["n_random"] != quick["case1"]["n_random"]


def test_mock_snakemake_names_an_unknown_rule(monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match="no rule 'fig_nothing'"):
        mock_snakemake("fig_nothing", root=ROOT)
