rule highdim_run:
    """One d-dimensional scenario, every model, each run with its convergence check at tighter tolerances (claim C7)."""
    input:
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/highdim_run.py"),
    output:
        table="results/highdim/{scenario}.csv",
        arrays="results/highdim/{scenario}.npz",
    log:
        "logs/highdim/{scenario}.log",
    benchmark:
        "benchmarks/pipeline/highdim_{scenario}.tsv"
    priority: 15  # long (to a minute): after the persistence chunks, before the shorter stages
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        scenario=lambda w: config["highdim"]["scenarios"][w.scenario],
        run={k: v for k, v in config["highdim"].items() if k != "scenarios"},
        seed=config["seed"] + 300,
    script:
        "../scripts/highdim_run.py"


rule highdim_table:
    """All high-dimensional runs in one table."""
    input:
        tables=expand("results/highdim/{scenario}.csv", scenario=HIGHDIM),
        lib=lib_inputs("workflow/scripts/concat_tables.py"),
    output:
        "results/tables/highdim.csv",
    log:
        "logs/highdim_table.log",
    benchmark:
        "benchmarks/pipeline/highdim_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        kind="highdim_run",
        # one row per model in each scenario's table (the scenario's models, else highdim.models)
        rows=[
            len(
                config["highdim"]["scenarios"][s].get("models")
                or config["highdim"]["models"]
            )
            for s in HIGHDIM
        ],
    script:
        "../scripts/concat_tables.py"
