rule findings:
    """results/FINDINGS.md (first one table, claim by claim: what the paper says, what this build found; then each
    claim's runs) and its report pages, from the tables."""
    input:
        claims="results/tables/claims.csv",
        agreement="results/tables/agreement.csv",
        disagreements="results/tables/disagreements.csv",
        bifurcation_fit="results/tables/bifurcation_fit.csv",
        stability="results/tables/stability.csv",
        highdim="results/tables/highdim.csv",
        robustness="results/tables/robustness.csv",
        persistence="results/tables/persistence.csv",
        offmanifold="results/tables/offmanifold.csv",
        legend="workflow/report/claims_legend.md",
        lib=lib_inputs("workflow/scripts/findings.py"),
    output:
        markdown="results/FINDINGS.md",
        html=report(
            "results/report/findings.html",
            caption="../report/findings.rst",
            category="Findings",
        ),
        claims_html=report(
            "results/report/claims.html",
            caption="../report/claims.rst",
            category="Claims",
        ),
    log:
        "logs/findings.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        settings=dict(
            seed=config["seed"],
            beta=config["beta"],
            n_tokens=config["agreement"]["n_tokens"],
            horizon=config["agreement"]["horizon"],
            highdim_d=config["highdim"]["d"],
            highdim_n=config["highdim"]["n_tokens"],
            stability_n=config["stability"]["n_tokens"],
            eps_small=config["stability"]["eps_small"],
        ),
    script:
        "../scripts/findings.py"
