"""``mock_snakemake(rule, **wildcards)``: the ``snakemake`` object a job script or figure notebook receives, for
running it on its own (python, Jupyter) against a built tree, as PyPSA-Eur's scripts do::

    if "snakemake" not in globals():
        from lsadyn_workflow.mock import mock_snakemake
        snakemake = mock_snakemake("fig_case1")

It parses the checkout's Snakefile with the given config files (the default config if none) through
:class:`snakemake.api.SnakemakeApi`, builds the rule's job for ``wildcards`` and returns a
:class:`snakemake.script.Snakemake` with its input, output, params, wildcards, threads, resources, log and config,
paths relative to the checkout (the working directory is changed to it). Nothing is run or written.
Snakemake's API offers no public call for one job's values, so this reads them from the parsed workflow
(``WorkflowApi._workflow``, as PyPSA-Eur does): a Snakemake upgrade may need it adapted.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the checkout: workflow/lib/lsadyn_workflow/mock.py -> three levels up
ROOT = Path(__file__).resolve().parents[3]


def mock_snakemake(rule: str, *configfiles, root: str | Path = ROOT, **wildcards):
    """The ``snakemake`` object of rule ``rule``'s job for ``wildcards`` (see the module docstring); a ValueError
    naming the rule if the workflow has none of that name."""
    from snakemake.api import SnakemakeApi
    from snakemake.dag import DAG
    from snakemake.jobs import Job
    from snakemake.script import Snakemake
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, StorageSettings

    root = Path(root).resolve()
    os.chdir(root)
    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        wf_api = api.workflow(resource_settings=ResourceSettings(cores=1),
                              config_settings=ConfigSettings(configfiles=[Path(f).resolve() for f in configfiles]),
                              storage_settings=StorageSettings(), snakefile=root / "Snakefile", workdir=root)
        wf_api.dag(dag_settings=DAGSettings())  # parses the Snakefile
        workflow = wf_api._workflow
        workflow.global_resources = {}
        if not workflow.is_rule(rule):
            raise ValueError(f"mock_snakemake: the workflow has no rule {rule!r}")
        r = workflow.get_rule(rule)
        dag = DAG(workflow, rules=[r])
        job = Job(r, dag, wildcards_dict=wildcards)
        return Snakemake(job.input, job.output, job.params, job.wildcards, job.threads, job.resources, job.log,
                         workflow.config, job.rule.name, None)
