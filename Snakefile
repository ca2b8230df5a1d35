# lsadyn: rebuild every result of the paper with `snakemake --cores N`.
# Wiring only: the science lives in src/lsadyn, the glue in workflow/scripts.
import os
import sys
from importlib.util import find_spec
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")

# Snakemake decides what to rerun from this checkout's src/lsadyn and workflow/lib/lsadyn_workflow, so the jobs must
# import those
for _name, _dir in (
    ("lsadyn", Path(workflow.basedir, "src")),
    ("lsadyn_workflow", Path(workflow.basedir, "workflow/lib")),
):
    _SPEC = find_spec(_name)
    _FOUND = Path(_SPEC.origin).parent if _SPEC else None
    if _FOUND is None or _FOUND.resolve() != (_dir / _name).resolve():
        sys.exit(
            f"lsadyn: this build would import {_name} from {_FOUND}, not this checkout's {_dir.name}/; "
            f"run `python -m pip install -e {workflow.basedir}` (or set PYTHONPATH={Path(workflow.basedir, 'src')}"
            f"{os.pathsep}{Path(workflow.basedir, 'workflow/lib')})"
        )

from lsadyn_workflow.config import check_config, load_config_file  # noqa: E402
from lsadyn.paper.findings import build_summary, error_summary  # noqa: E402
from lsadyn_workflow import provenance  # noqa: E402

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


# results/provenance.json (lsadyn_workflow.provenance): written by every build, whatever it reruns
onstart:
    try:
        provenance.record(workflow, "running")
    except provenance.UnwritableResults as err:
        sys.exit(f"lsadyn: error: {err}")


onerror:
    try:
        provenance.record(workflow, "failed")
    except provenance.UnwritableResults as err:
        print(f"lsadyn: error: {err}", file=sys.stderr)
    # the project's one-line error(s) again, as the last lines
    print(error_summary(log), file=sys.stderr)


include: "workflow/rules/common.smk"
include: "workflow/rules/kernels.smk"
include: "workflow/rules/simulate_2d.smk"
include: "workflow/rules/stability.smk"
include: "workflow/rules/highdim.smk"
include: "workflow/rules/offmanifold.smk"
include: "workflow/rules/robustness.smk"
include: "workflow/rules/persistence.smk"
include: "workflow/rules/continuation.smk"
include: "workflow/rules/usa_oscillation.smk"
include: "workflow/rules/atlas.smk"
include: "workflow/rules/exponents.smk"
include: "workflow/rules/looped.smk"
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
        "results/tables/continuation.csv",
        "results/tables/usa_oscillation.csv",
        "results/tables/usa_oscillation_growth.csv",
        "results/tables/atlas.csv",
        "results/tables/exponents.csv",
        "results/tables/basins.csv",
        "results/tables/looped.csv",
        "paper_figures/movies/looped.gif",
        expand("paper_figures/{fig}.{ext}", fig=FIGURES, ext=["pdf", "png"]),
        expand("paper_figures/movies/{movie}_d{dim}.gif", movie=MOVIES, dim=MOVIE_DIMS),
        # the intermediates the claims and the case figures read: one deleted (or left missing by an interrupted
        # --forcerun) is rebuilt by a plain rerun, with everything that reads it
        rules.claims_table.input,
        expand("results/sim/{case}_traj.npz", case=CASES),


onsuccess:
    try:
        provenance.record(workflow, "complete")
    except provenance.UnwritableResults as err:
        sys.exit(f"lsadyn: error: {err}")
    # the staleness check compares only what the claims table reads
    print(
        build_summary(
            configfiles=workflow.configfiles, inputs=list(rules.claims_table.input)
        )
    )
