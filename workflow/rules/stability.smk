rule stability_run:
    """Every perturbation family and strength for one (A, V) (claim C6)."""
    input:
        kernels="results/sim/kernels_compiled.txt",  # compiled d = 2 token runs (lsadyn.api.token_r2_batch)
        bl_kernels="results/stability/bl_kernels_compiled.txt",  # compiled d_BL (lsadyn.distances)
        lib=lib_inputs("workflow/scripts/stability_run.py"),
    output:
        "results/stability/{regime}.csv",
    log:
        "logs/stability/{regime}.log",
    benchmark:
        "benchmarks/pipeline/stability_{regime}.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        regime=lambda w: config["stability"]["regimes"][w.regime],
        run={k: v for k, v in config["stability"].items() if k != "regimes"},
        beta=config["beta"],
        seed=config["seed"] + 400,
    script:
        "../scripts/stability_run.py"


rule stability_table:
    """All structural-stability runs in one table."""
    input:
        tables=expand("results/stability/{regime}.csv", regime=STABILITY),
        lib=lib_inputs("workflow/scripts/concat_tables.py"),
    output:
        "results/tables/stability.csv",
    log:
        "logs/stability_table.log",
    benchmark:
        "benchmarks/pipeline/stability_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        kind="stability_run",
        rows=sum(len(v) for v in config["stability"]["strengths"].values()),  # one per family and strength
    script:
        "../scripts/concat_tables.py"
