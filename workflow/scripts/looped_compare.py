"""Glue: each trained model of one (task, model), read from its weight file: the flow's regime against the looped
network's and the quantised models' (lsadyn.paper.looped.runs.compare), with the uniform start's iterates."""

import pandas as pd
from lsadyn_workflow.io import load_table, setup_log, write_csv, write_npz

from lsadyn.looped.tasks import Task
from lsadyn.paper.looped.runs import compare

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("looped_compare", looped_job="regression-lsa")
sm = snakemake
log = setup_log(sm.log[0])
name = sm.wildcards.looped_job.split("-")[0]
t = sm.params.task
task = Task(name, int(t["n_tokens"]), int(t["d"]), float(t.get("sigma", 1.0)))
curves = load_table(sm.input.curves, "looped_train")
test = curves.drop_duplicates("seed", keep="last").set_index("seed")
rows, arrays = [], {}
for seed, path in zip(sm.params.seeds, sm.input.weights):
    r, arr = compare(path, task, sm.params.settings, int(seed))
    for row in r:
        for col in ("test_loss", "baseline_loss", "reference_loss", "accuracy", "baseline_accuracy"):
            row["task_loss" if col == "test_loss" else col] = float(test.loc[seed, col])
        log.info("seed %d %s: flow %s, looped %s", seed, row["start"], row["predicted_regime"], row["observed_regime"])
    rows += r
    for start, a in arr.items():
        arrays.update({f"s{seed}_{start}_{k}": v for k, v in a.items()})
write_csv(pd.DataFrame(rows), sm.output.table)
write_npz(sm.output.arrays, **arrays)
