# lsadyn: rebuild every result of the paper with `snakemake --cores N`.
# Wiring only: the science lives in src/lsadyn, the glue in workflow/scripts.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "workflow/config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/params.smk"
include: "workflow/rules/simulate_2d.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"


rule all:
    input:
        "results/tables/regimes.csv",
        "results/tables/agreement.csv",
        "results/tables/claims.csv",
        expand("paper_figures/{fig}.{ext}", fig=FIGURES, ext=["pdf", "png"]),
    default_target: True
