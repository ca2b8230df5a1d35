# Issue 12: persistence of the d = 2 behaviours across d, random weights and beta (lsadyn.paper.persistence).
# One job per chunk of the run plan; the runs of one size inside a chunk are integrated together.
from lsadyn.paper.persistence.plan import chunk_jobs, scenario_set
from lsadyn_workflow.job_params import chunk_params

PERSIST_SCENARIOS = scenario_set(
    config["highdim"]["scenarios"],
    config["bifurcation"],
    config["persistence"]["saddle_node"],
)
# what each chunk reads (its runs, their scenarios, the run settings): its params, so that a config edit reruns
# exactly the chunks whose runs change
PERSIST_JOBS = [
    chunk_params(c)
    for c in chunk_jobs(config["persistence"], PERSIST_SCENARIOS, config["seed"])
]
PERSIST_CHUNKS = list(range(len(PERSIST_JOBS)))


wildcard_constraints:
    chunk=r"\d+",


rule persistence_chunk:
    """One chunk of the persistence runs (dimension sweep, random weights, beta sweep)."""
    input:
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/persistence_chunk.py"),
    output:
        "results/persistence/chunk_{chunk}.csv",
    log:
        "logs/persistence/chunk_{chunk}.log",
    benchmark:
        "benchmarks/pipeline/persistence_chunk_{chunk}.tsv"
    priority: 16  # the longest jobs (to two minutes) first: none of them may start last on two cores
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        job=lambda w: chunk_job(PERSIST_JOBS, w.chunk, "this config"),
    script:
        "../scripts/persistence_chunk.py"


rule persistence_table:
    """All persistence runs in one table (column study: dimension, random, beta)."""
    input:
        chunks=expand("results/persistence/chunk_{chunk}.csv", chunk=PERSIST_CHUNKS),
        lib=lib_inputs("workflow/scripts/persistence_table.py"),
    output:
        "results/tables/persistence.csv",
    log:
        "logs/persistence_table.log",
    benchmark:
        "benchmarks/pipeline/persistence_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        persistence=config["persistence"],
        scenarios=PERSIST_SCENARIOS,
        seed=config["seed"],
    script:
        "../scripts/persistence_table.py"
