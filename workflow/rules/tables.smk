rule regimes_table:
    """All classified points, the per-case agreement of OA / WS / particles, and every disagreement."""
    input:
        sims=expand("results/sim/{case}.csv", case=CASES),
        params=expand("results/params/{case}.csv", case=CASES),  # row counts checked against these
        lib=lib_inputs("workflow/scripts/regimes_table.py"),
    output:
        regimes="results/tables/regimes.csv",
        agreement="results/tables/agreement.csv",
        disagreements="results/tables/disagreements.csv",
    log:
        "logs/regimes_table.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        n_tokens=config["agreement"]["n_tokens"],
    script:
        "../scripts/regimes_table.py"


rule claims_table:
    """One or more rows per claim of the paper, computed from the results tables."""
    input:
        sims=expand("results/sim/{case}.csv", case=CASES),
        params=expand("results/params/{case}.csv", case=CASES),  # row counts checked against these
        bifurcation="results/tables/bifurcation_fit.csv",
        orbits="results/sim/case4_orbits.npz",
        highdim="results/tables/highdim.csv",
        stability="results/tables/stability.csv",
        offmanifold="results/tables/offmanifold.csv",
        robustness="results/tables/robustness.csv",
        persistence="results/tables/persistence.csv",
        continuation="results/tables/continuation.csv",
        exponents="results/tables/exponents.csv",
        floquet="results/tables/floquet.csv",
        basins="results/tables/basins.csv",
        regimes="results/tables/regimes.csv",
        lib=lib_inputs("workflow/scripts/claims_table.py"),
    output:
        report(
            "results/tables/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
        ),
    log:
        "logs/claims_table.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        max_undetermined=config["claims"]["max_undetermined"],
        n_tokens=config["agreement"]["n_tokens"],
        eps_small=config["stability"]["eps_small"],
        continuation=config["continuation"],
        exponents_tol=config["exponents"]["tol"],
        beta=config["beta"],
    script:
        "../scripts/claims_table.py"
