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
    benchmark:
        "benchmarks/pipeline/regimes_table.tsv"
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
        usa_oscillation="results/tables/usa_oscillation.csv",
        usa_oscillation_growth="results/tables/usa_oscillation_growth.csv",
        atlas="results/tables/atlas.csv",
        atlas_invariants="results/tables/atlas_invariants.csv",
        atlas_phase="results/tables/atlas_phase.csv",
        atlas_d2=expand(
            "results/atlas/d2_{chunk}.csv", chunk=range(len(ATLAS_JOBS["d2"]))
        ),
        exponents="results/tables/exponents.csv",
        floquet="results/tables/floquet.csv",
        basins="results/tables/basins.csv",
        regimes="results/tables/regimes.csv",
        looped="results/tables/looped.csv",
        lib=lib_inputs("workflow/scripts/claims_table.py"),
    output:
        report(
            "results/tables/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
        ),
    log:
        "logs/claims_table.log",
    benchmark:
        "benchmarks/pipeline/claims_table.tsv"
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
        usa_exit_abs_z1=config["usa_oscillation"]["exit_abs_z1"],
        atlas_r_threshold=config["atlas"]["phase"]["r_threshold"],
    script:
        "../scripts/claims_table.py"
