# Claim C13 (beyond the paper): stability numbers (lsadyn.paper.exponents). Two jobs, one core each: the token runs'
# Lyapunov exponents with the rotating clusters' Floquet exponents, and the basin fractions of the OA flow.


rule exponents:
    """Lyapunov exponents of token runs (Benettin, d = 2 ... 100, LSA and USA) beside the OA flow's, and Floquet
    exponents of rotating clusters against the closed form."""
    input:
        lib=lib_inputs("workflow/scripts/exponents_run.py"),
    output:
        exponents=report(
            "results/tables/exponents.csv",
            caption="../report/exponents.rst",
            category="Beyond the paper",
        ),
        floquet="results/tables/floquet.csv",
    log:
        "logs/exponents.log",
    benchmark:
        "benchmarks/pipeline/exponents.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
    params:
        exponents={k: v for k, v in config["exponents"].items() if k != "basins"},
        beta=config["beta"],
    script:
        "../scripts/exponents_run.py"


rule basins:
    """Basin fractions of the OA attractors over random R2(0) in the unit disc where the OA flow is multistable."""
    input:
        lib=lib_inputs("workflow/scripts/basins_run.py"),
    output:
        report(
            "results/tables/basins.csv",
            caption="../report/basins.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/basins.log",
    benchmark:
        "benchmarks/pipeline/basins.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        basins=config["exponents"]["basins"],
        beta=config["beta"],
    script:
        "../scripts/basins_run.py"
