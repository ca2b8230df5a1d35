"""Glue: classify every parameter point of one experiment by OA, WS and particles."""

from lsadyn.paper.io import load_table, setup_log, write_csv
from lsadyn.paper.jobs import limit_threads
from lsadyn.paper.study import classify_points

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = setup_log(sm.log[0])
# the d = 2 kernels are single-threaded numba; this keeps numpy/BLAS to the rule's threads as well
log.info("BLAS threads: %d (rule threads: %d)", limit_threads(sm.threads), sm.threads)
df = load_table(sm.input.params, "params")
out = classify_points(df, sm.params.oa, sm.params.agreement, sm.params.classifier, sm.params.seed)
log.info("regimes (OA): %s", out.regime_oa.value_counts().to_dict())
write_csv(out, sm.output[0])
