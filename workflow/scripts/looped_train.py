"""Glue: train one (task, model) of the looped stage at every seed (lsadyn.paper.looped.runs.train_models), writing its
weight files and its training curves."""

from lsadyn_workflow.io import setup_log, write_csv

from lsadyn.looped.tasks import Task
from lsadyn.paper.looped.runs import train_models

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("looped_train", looped_job="regression-lsa")
sm = snakemake
log = setup_log(sm.log[0])
name, model = sm.wildcards.looped_job.split("-")
t = sm.params.task
task = Task(name, int(t["n_tokens"]), int(t["d"]), float(t.get("sigma", 1.0)))
curves = train_models(task, model, sm.params.seeds, sm.params.settings, list(sm.output.weights),
                      progress=lambda f: log.info("training %s: %3.0f %%", sm.wildcards.looped_job, 100 * f))
last = curves.drop_duplicates("seed", keep="last")
for s, a, b in zip(last.seed, last.test_loss, last.baseline_loss):
    log.info("seed %d: test loss %.4g, baseline %.4g", s, a, b)
write_csv(curves, sm.output.curves)
