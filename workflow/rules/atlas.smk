# Claim C12 (beyond the paper): a regime atlas for random weights (lsadyn.paper.atlas). Three parts, each split
# into the jobs of lsadyn.paper.atlas.plan.chunk_jobs (a job's runs are its params: a config edit reruns the jobs
# whose runs it changes): d = 2 by OA, d > 2 by tokens, (beta, t) phase diagrams of clustering (USA, SA).
from lsadyn.paper.atlas.plan import chunk_jobs as atlas_chunk_jobs

ATLAS_JOBS = atlas_chunk_jobs(config["atlas"], config["seed"])
ATLAS_INPUTS = {  # part -> the compiled kernels its runs use (built once, before the parallel jobs)
    "d2": "results/sim/kernels_compiled.txt",
    "tokens": "results/sim/sphere_kernels_compiled.txt",
    "phase": [],
}


rule atlas_part:
    """One job of one part of the atlas: its runs, one row each (results/atlas/<part>_<chunk>.csv)."""
    input:
        kernels=lambda w: ATLAS_INPUTS[w.part],
        lib=lib_inputs("workflow/scripts/atlas_part.py"),
    output:
        "results/atlas/{part}_{chunk}.csv",
    log:
        "logs/atlas/{part}_{chunk}.log",
    benchmark:
        "benchmarks/pipeline/atlas_{part}_{chunk}.tsv"
    wildcard_constraints:
        part="d2|tokens|phase",
        chunk=r"\d+",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        job=lambda w: chunk_job(ATLAS_JOBS[w.part], w.chunk, f"atlas.{w.part}"),
    script:
        "../scripts/atlas_part.py"


rule atlas_table:
    """The atlas tables: regime fractions (atlas.csv), where the d = 2 limit cycles live (atlas_invariants.csv) and
    the phase diagrams (atlas_phase.csv), with 95 % Wilson intervals."""
    input:
        d2=expand("results/atlas/d2_{chunk}.csv", chunk=range(len(ATLAS_JOBS["d2"]))),
        tokens=expand(
            "results/atlas/tokens_{chunk}.csv", chunk=range(len(ATLAS_JOBS["tokens"]))
        ),
        phase=expand(
            "results/atlas/phase_{chunk}.csv", chunk=range(len(ATLAS_JOBS["phase"]))
        ),
        lib=lib_inputs("workflow/scripts/atlas_table.py"),
    output:
        atlas=report(
            "results/tables/atlas.csv",
            caption="../report/atlas.rst",
            category="Beyond the paper",
        ),
        invariants="results/tables/atlas_invariants.csv",
        phase="results/tables/atlas_phase.csv",
    log:
        "logs/atlas_table.log",
    benchmark:
        "benchmarks/pipeline/atlas_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=config["atlas"]["beta"],
        bins=config["atlas"]["d2"]["bins"],
        r_threshold=config["atlas"]["phase"]["r_threshold"],
    script:
        "../scripts/atlas_table.py"
