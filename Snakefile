# lsadyn: rebuild every result of the paper with `snakemake --cores N`.
# Wiring only: the science lives in src/lsadyn, the glue in workflow/scripts.
import os
import sys

from snakemake.utils import min_version, validate

# This checkout's lsadyn (src/) and lsadyn_workflow (workflow/lib/), for the Snakefile and (through PYTHONPATH) for
# every job, whichever copy pip installed: Snakemake decides what to rerun from these sources, so the code that runs
# must be the same.
_SRC = [os.path.join(workflow.basedir, "src"), os.path.join(workflow.basedir, "workflow", "lib")]
sys.path[:0] = _SRC
_PATH = os.environ.get("PYTHONPATH")
os.environ.update(PYTHONPATH=os.pathsep.join(_SRC + ([_PATH] if _PATH else [])))

from lsadyn_workflow.config import check_config, load_config_file
from lsadyn.paper.findings import build_summary
from lsadyn.paper.interrupts import finish as finish_interrupted
from lsadyn.paper.interrupts import install as install_interrupt_handlers
from lsadyn.paper import jobrunner

min_version("9.0")
# local builds: the job runner's server (onstart: below) starts now, its imports beside Snakemake's parse and DAG
jobrunner.prestart(workflow)

try:  # a YAML syntax error, with its line and column, before Snakemake's own less precise message
    load_config_file("workflow/config/config.yaml")
except ValueError as err:
    sys.exit(f"lsadyn: invalid configuration: {err}")


report: "workflow/report/workflow.rst"


configfile: "workflow/config/config.yaml"


try:  # one line naming the offending key, before any job runs
    check_config(config, "workflow/schemas/config.schema.yaml")
except ValueError as err:
    sys.exit(f"lsadyn: invalid configuration: {err}")
validate(config, "workflow/schemas/config.schema.yaml")  # fills in defaults


# SIGTERM/SIGINT: one message, running jobs drain, exit code 143/130 (lsadyn.paper.interrupts)
# local builds: jobs run in processes forked from one with the libraries imported (lsadyn.paper.jobrunner;
# LSADYN_JOB_RUNNER=0 switches it off; cluster jobs never use it)
onstart:
    install_interrupt_handlers(workflow)
    jobrunner.start(workflow)


onerror:
    finish_interrupted(log)
    jobrunner.stop()


include: "workflow/rules/common.smk"
include: "workflow/rules/kernels.smk"
include: "workflow/rules/simulate_2d.smk"
include: "workflow/rules/stability.smk"
include: "workflow/rules/highdim.smk"
include: "workflow/rules/offmanifold.smk"
include: "workflow/rules/robustness.smk"
include: "workflow/rules/persistence.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/findings.smk"
include: "workflow/rules/movies.smk"


rule all:
    default_target: True
    input:
        "results/tables/regimes.csv",
        "results/tables/agreement.csv",
        "results/tables/claims.csv",
        "results/tables/stability.csv",
        "results/tables/highdim.csv",
        "results/FINDINGS.md",
        "results/tables/offmanifold.csv",
        "results/tables/robustness.csv",
        "results/tables/persistence.csv",
        expand("paper_figures/{fig}.{ext}", fig=FIGURES, ext=["pdf", "png"]),
        expand("paper_figures/movies/{movie}_d{dim}.gif", movie=MOVIES, dim=MOVIE_DIMS),


onsuccess:
    jobrunner.stop()
    print(build_summary(configfiles=workflow.configfiles))
