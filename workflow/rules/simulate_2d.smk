rule simulate_2d:
    """Parameter points of one experiment (seeds derived from the config; results/params/{case}.csv), then their
    OA, WS and n-particle regimes (compiled, one thread). One job: the points are a few milliseconds of work,
    a job of their own cost a process start and the study's imports."""
    input:
        kernels="results/sim/kernels_compiled.txt",
        lib=lib_inputs("workflow/scripts/simulate_2d.py"),
    output:
        params="results/params/{case}.csv",
        sim="results/sim/{case}.csv",
    log:
        "logs/simulate_2d/{case}.log",
    benchmark:
        "benchmarks/pipeline/simulate_2d_{case}.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        case_config=lambda w: config[w.case],
        params_seed=config["seed"],
        beta=config["beta"],
        oa=config["oa"],
        agreement=config["agreement"],
        classifier=config["classifier"],
        seed=lambda w: config["seed"] + 100 + SEED_OFFSET[w.case],
    script:
        "../scripts/simulate_2d.py"


rule trajectories_2d:
    """One representative run per regime of an experiment (OA R2(t), token angles)."""
    input:
        sim="results/sim/{case}.csv",
        lib=lib_inputs("workflow/scripts/trajectories_2d.py"),
    output:
        "results/sim/{case}_traj.npz",
    log:
        "logs/trajectories_2d/{case}.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        trajectories=config["trajectories"],
        seed=lambda w: config["seed"] + 200 + SEED_OFFSET[w.case],
    script:
        "../scripts/trajectories_2d.py"


rule case4_orbits:
    """OA orbits of the hidden-Hamiltonian family and the conserved quantity along them."""
    input:
        lib=lib_inputs("workflow/scripts/case4_orbits.py"),
    output:
        "results/sim/case4_orbits.npz",
    log:
        "logs/case4_orbits.log",
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
