# Claim C11 (beyond the paper): bifurcation curves of the OA flow by continuation in the two-parameter planes of
# config continuation.planes (lsadyn.paper.continuation). One job: every plane takes a few seconds (the limit-cycle
# plane's shooting most of them; benchmarks/continuation.json).


rule continuation:
    """Equilibria, folds, Hopf points, circle transcritical points, rotating clusters, interior limit cycles and
    cycle folds of each plane, continued by lsadyn.continuation (results/tables/continuation.csv).
    """
    input:
        lib=lib_inputs("workflow/scripts/continuation_run.py"),
    output:
        report(
            "results/tables/continuation.csv",
            caption="../report/continuation.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/continuation.log",
    benchmark:
        "benchmarks/pipeline/continuation.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        planes=config["continuation"]["planes"],
        settings={k: v for k, v in config["continuation"].items() if k != "planes"},
        beta=config["beta"],
        a=config["bifurcation"]["a"],
    script:
        "../scripts/continuation_run.py"
