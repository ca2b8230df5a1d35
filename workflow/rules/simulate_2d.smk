rule simulate_2d:
    """Parameter points of one experiment (seeds derived from the config; results/params/{case}.csv), their
    OA, WS and n-particle regimes (compiled, one thread), then one representative run per regime found (OA R2(t),
    token angles). One job: the points and the representatives are seconds of work, jobs of their own cost a
    process start and the study's imports each."""
    input:
        kernels="results/sim/kernels_compiled.txt",
        lib=lib_inputs("workflow/scripts/simulate_2d.py"),
    output:
        params="results/params/{case}.csv",
        sim="results/sim/{case}.csv",
        traj="results/sim/{case}_traj.npz",
    log:
        "logs/simulate_2d/{case}.log",
    benchmark:
        "benchmarks/pipeline/simulate_2d_{case}.tsv"
    priority: 12  # to 40 s (case3): before the robustness chunks and the short stages
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=40,
    params:
        case_config=lambda w: config[w.case],
        params_seed=config["seed"],
        beta=config["beta"],
        oa=config["oa"],
        agreement=config["agreement"],
        classifier=config["classifier"],
        seed=lambda w: config["seed"] + 100 + SEED_OFFSET[w.case],
        trajectories=config["trajectories"],
        traj_seed=lambda w: config["seed"] + 200 + SEED_OFFSET[w.case],
    script:
        "../scripts/simulate_2d.py"


rule case4_orbits:
    """OA orbits of the hidden-Hamiltonian family and the conserved quantity along them."""
    input:
        lib=lib_inputs("workflow/scripts/case4_orbits.py"),
    output:
        "results/sim/case4_orbits.npz",
    log:
        "logs/case4_orbits.log",
    benchmark:
        "benchmarks/pipeline/case4_orbits.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        case4=config["case4"],
    script:
        "../scripts/case4_orbits.py"


rule bifurcation_fit:
    """Saddle-node threshold bracket and square-root law from the mu sweep."""
    input:
        sim="results/sim/bifurcation.csv",
        lib=lib_inputs("workflow/scripts/bifurcation_fit.py"),
    output:
        "results/tables/bifurcation_fit.csv",
    log:
        "logs/bifurcation_fit.log",
    benchmark:
        "benchmarks/pipeline/bifurcation_fit.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        s=config["bifurcation"]["s"],
        beta=config["beta"],
    script:
        "../scripts/bifurcation_fit.py"
