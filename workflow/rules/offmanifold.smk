rule offmanifold_run:
    """Tokens off the OA manifold about an OA interior fixed point: oscillation amplitude against the
    distance from the manifold, for a fixed density at several n and for i.i.d. starts.
    """
    input:
        kernels="results/sim/kernels_compiled.txt",  # compiled d = 2 token runs (lsadyn.api.token_r2_batch)
        lib=lib_inputs("workflow/scripts/offmanifold_run.py"),
    output:
        table="results/tables/offmanifold.csv",
        traces="results/offmanifold/traces.npz",
    log:
        "logs/offmanifold_run.log",
    benchmark:
        "benchmarks/pipeline/offmanifold_run.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        run=config["offmanifold"],
        classifier=config["classifier"],
        beta=config["beta"],
        seed=config["seed"] + 500,
    script:
        "../scripts/offmanifold_run.py"
