"""Workflow infrastructure of the lsadyn pipeline, apart from the library (lsadyn) and the study (lsadyn.paper).

The Snakefile, its rules and the job scripts and notebooks use it; no lsadyn module imports it.

* :mod:`.io`: validated loaders and atomic writers of the results files (table specs), job logs.
* :mod:`.config`: loading and checking config files against the schema (``python -m lsadyn_workflow.config``).
* :mod:`.jobs`: a job's threads and logging setup.
* :mod:`.job_params`: a chunk's runs as a rule parameter (plain values) and back.
* :mod:`.inputs`: ``lib_inputs``, the lsadyn and lsadyn_workflow sources a script imports, as rule inputs.
* :mod:`.mock`: ``mock_snakemake(rule, **wildcards)``, to run a job script or notebook on its own.

Installed with the project (``pip install -e .``: pyproject.toml finds packages under both ``src`` and
``workflow/lib``); the Snakefile also puts this checkout's copy first on the path of every job.
"""
