"""Glue: parameter points of one d = 2 experiment → results/params/{case}.csv."""

from lsadyn.paper.io import setup_log, write_csv
from lsadyn.paper.study import build_case

log = setup_log(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
sm = snakemake  # noqa: F821
df = build_case(sm.wildcards.case, sm.params.case_config, sm.params.seed, sm.params.beta)
log.info("%s: %d parameter points", sm.wildcards.case, len(df))
write_csv(df, sm.output[0])
