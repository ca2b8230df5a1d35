rule params:
    """Parameter points of one d = 2 experiment (seeds derived from the config)."""
    input:
        lib=lib_inputs("workflow/scripts/make_params.py"),
    output:
        "results/params/{case}.csv",
    log:
        "logs/params/{case}.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        case_config=lambda w: config[w.case],
        seed=config["seed"],
        beta=config["beta"],
    script:
        "../scripts/make_params.py"
