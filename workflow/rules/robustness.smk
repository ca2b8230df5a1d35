# Claim C8 (beyond the paper): the regimes of the embedded highdim scenarios under random weight
# perturbations and b-bit quantisation (lsadyn.paper.robustness). One job per chunk of runs.
from lsadyn.paper.persistence.plan import saddle_node_pair
from lsadyn.paper.robustness.plan import chunk_jobs as robustness_chunk_jobs
from lsadyn_workflow.job_params import chunk_params

ROBUSTNESS_CHUNKS = list(range(config["robustness"]["chunks"]))
# Scenarios by name: highdim.scenarios, plus the saddle-node pair once config persistence.saddle_node exists.
ROBUSTNESS_SCENARIOS = dict(config["highdim"]["scenarios"])
if "saddle_node" in config.get("persistence", {}):
    _sn = config["persistence"]["saddle_node"]
    ROBUSTNESS_SCENARIOS.update(
        saddle_node_pair(
            config["bifurcation"]["a"],
            config["bifurcation"]["s"],
            _sn["delta"],
            _sn["rest_A"],
            _sn["rest_V"],
            _sn["horizon"],
        )
    )
# what each chunk reads (its runs, their scenarios, the run settings): its params, so that a config edit reruns
# exactly the chunks whose runs change
ROBUSTNESS_JOBS = [
    chunk_params(c)
    for c in robustness_chunk_jobs(
        config["robustness"], ROBUSTNESS_SCENARIOS, config["robustness"]["chunks"]
    )
]


rule robustness_chunk:
    """Whole batches of the plan (scenario x d x model x {none, delta x seed, b}; batch_runs runs of
    one (scenario, d, model) each), dealt to the chunks by estimated cost, decided by the decision
    procedure. Started early (priority, after the persistence, highdim and d = 2 case jobs, which run
    longer): their chain (table, figure, claims) ended the build when they ran last.
    """
    input:
        kernels="results/sim/kernels_compiled.txt",
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/robustness_chunk.py"),
    output:
        "results/robustness/chunk_{chunk}.csv",
    log:
        "logs/robustness/chunk_{chunk}.log",
    benchmark:
        "benchmarks/pipeline/robustness_chunk_{chunk}.tsv"
    priority: 10
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        job=lambda w: chunk_job(ROBUSTNESS_JOBS, w.chunk, "robustness.chunks"),
        classifier=config["classifier"],
        seed=config["seed"] + 700,
    script:
        "../scripts/robustness_chunk.py"


rule robustness_table:
    """All robustness runs in one table (results/tables/robustness.csv)."""
    input:
        tables=expand("results/robustness/chunk_{chunk}.csv", chunk=ROBUSTNESS_CHUNKS),
        lib=lib_inputs("workflow/scripts/robustness_table.py"),
    output:
        "results/tables/robustness.csv",
    log:
        "logs/robustness_table.log",
    benchmark:
        "benchmarks/pipeline/robustness_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        run=config["robustness"],
    script:
        "../scripts/robustness_table.py"
