"""One BLAS thread per Snakemake job unless the rule declares more: Snakemake exports the rule's threads
to the job's environment and the scripts hold to it with threadpoolctl (lsadyn_workflow.jobs)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import numpy  # loads OpenBLAS with the pool size of the environment
from lsadyn_workflow.jobs import blas_threads, limit_threads
before = blas_threads()
print(before, limit_threads({threads}), blas_threads())
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_limit_threads_overrides_a_larger_environment(threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="4", OMP_NUM_THREADS="4", MKL_NUM_THREADS="4",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "workflow/lib")]))
    r = subprocess.run([sys.executable, "-c", PROBE.format(threads=threads)], env=env, capture_output=True,
                       text=True, check=True)
    before, limited, after = map(int, r.stdout.split())
    assert before == min(4, os.cpu_count())  # the environment is what OpenBLAS starts with (capped at the cores)
    assert limited == after == threads  # ... and the job's declared threads win


def test_limit_threads_rejects_nonsense():
    from lsadyn_workflow.jobs import limit_threads

    with pytest.raises(ValueError, match="^threads:"):
        limit_threads(0)
    with pytest.raises(ValueError, match="^threads:"):
        limit_threads("many")


def test_every_rule_declares_threads_and_the_simulation_scripts_limit_them():
    rules = "\n".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    bodies = re.split(r"\n *rule\b", "\n" + rules)[1:]
    assert bodies and all(re.search(r"\n +threads:", b) for b in bodies)
    assert "limit_threads(sm.threads)" in (ROOT / "workflow/scripts/highdim_run.py").read_text()


@pytest.mark.slow
def test_a_pipeline_job_runs_with_one_blas_thread(built):
    """A real job of the pipeline (quick config, one d > 2 scenario) under `--cores 2`: Snakemake's job
    environment already gives its BLAS one thread (so does every other rule's job: all declare threads: 1),
    and the script holds it. The job is the one of the shared quick build (conftest.built), run by
    `snakemake --cores 2` like the single-job build this test used to make."""
    log = (built / "logs/highdim/identity.log").read_text()
    assert "BLAS threads: 1 from the job environment, 1 in force (rule threads: 1)" in log, log


def test_batch_token_run_steps_and_observes_with_one_blas_thread(monkeypatch):
    """BatchTokenRun (the persistence runs' stacks) holds BLAS to one thread while it steps and observes, as
    integrate_sphere does for one system, whatever the process's pools were."""
    import numpy as np
    from threadpoolctl import threadpool_info

    import lsadyn.runs as runs
    from lsadyn.batch import BatchField
    from lsadyn.solvers.integrate import thread_pools

    seen = []
    real = runs.batch_axis_observer

    def observer(X):
        seen.append(max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"))
        return real(X)

    monkeypatch.setattr(runs, "batch_axis_observer", observer)
    rng = np.random.default_rng(0)
    d = 12
    X0 = rng.standard_normal((2, 16, d))
    X0 /= np.linalg.norm(X0, axis=-1, keepdims=True)
    A = np.stack([np.eye(d), np.eye(d) + 0.1 * rng.standard_normal((d, d))])
    with thread_pools().limit(limits=2, user_api="blas"):
        run = runs.BatchTokenRun(BatchField("lsa", A, A, np.ones(2), np.ones(2)), X0, 0.1)
        run.advance(np.arange(2), np.array([0.5, 1.0]))
        after = max(pl["num_threads"] for pl in threadpool_info() if pl["user_api"] == "blas")
    assert seen == [1, 1] and after == min(2, os.cpu_count())  # limited inside, restored after
