rule fig_case1:
    input:
        sim="results/sim/case1.csv",
        traj="results/sim/case1_traj.npz",
        lib=lib_inputs("workflow/notebooks/fig_case1.py"),
    output:
        pdf="paper_figures/fig_case1.pdf",
        png=report(
            "paper_figures/fig_case1.png",
            caption="../report/fig_case1.rst",
            category="d = 2 cases",
        ),
    log:
        "logs/figures/fig_case1.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
    script:
        "../notebooks/fig_case1.py"


rule fig_case2:
    input:
        sim="results/sim/case2.csv",
        traj="results/sim/case2_traj.npz",
        lib=lib_inputs("workflow/notebooks/fig_case2.py"),
    output:
        pdf="paper_figures/fig_case2.pdf",
        png=report(
            "paper_figures/fig_case2.png",
            caption="../report/fig_case2.rst",
            category="d = 2 cases",
        ),
    log:
        "logs/figures/fig_case2.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
    script:
        "../notebooks/fig_case2.py"


rule fig_case3:
    input:
        sim="results/sim/case3.csv",
        traj="results/sim/case3_traj.npz",
        lib=lib_inputs("workflow/notebooks/fig_case3.py"),
    output:
        pdf="paper_figures/fig_case3.pdf",
        png=report(
            "paper_figures/fig_case3.png",
            caption="../report/fig_case3.rst",
            category="d = 2 cases",
        ),
    log:
        "logs/figures/fig_case3.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
    script:
        "../notebooks/fig_case3.py"


rule fig_case4:
    input:
        sim="results/sim/case4.csv",
        traj="results/sim/case4_traj.npz",
        orbits="results/sim/case4_orbits.npz",
        lib=lib_inputs("workflow/notebooks/fig_case4.py"),
    output:
        pdf="paper_figures/fig_case4.pdf",
        png=report(
            "paper_figures/fig_case4.png",
            caption="../report/fig_case4.rst",
            category="d = 2 cases",
        ),
    log:
        "logs/figures/fig_case4.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
    script:
        "../notebooks/fig_case4.py"


rule fig_bifurcation:
    input:
        sim="results/sim/bifurcation.csv",
        fit="results/tables/bifurcation_fit.csv",
        lib=lib_inputs("workflow/notebooks/fig_bifurcation.py"),
    output:
        pdf="paper_figures/fig_bifurcation.pdf",
        png=report(
            "paper_figures/fig_bifurcation.png",
            caption="../report/fig_bifurcation.rst",
            category="d = 2 cases",
        ),
    log:
        "logs/figures/fig_bifurcation.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
    script:
        "../notebooks/fig_bifurcation.py"


rule fig_highdim:
    input:
        arrays=expand("results/highdim/{scenario}.npz", scenario=HIGHDIM),
        table="results/tables/highdim.csv",
        lib=lib_inputs("workflow/notebooks/fig_highdim.py"),
    output:
        pdf="paper_figures/fig_highdim.pdf",
        png=report(
            "paper_figures/fig_highdim.png",
            caption="../report/fig_highdim.rst",
            category="High dimension",
        ),
    log:
        "logs/figures/fig_highdim.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
        scenarios=HIGHDIM,
    script:
        "../notebooks/fig_highdim.py"


rule fig_stability:
    input:
        table="results/tables/stability.csv",
        lib=lib_inputs("workflow/notebooks/fig_stability.py"),
    output:
        pdf="paper_figures/fig_stability.pdf",
        png=report(
            "paper_figures/fig_stability.png",
            caption="../report/fig_stability.rst",
            category="Beyond the OA manifold",
        ),
    log:
        "logs/figures/fig_stability.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dpi=config["figures"]["dpi"],
        eps_small=config["stability"]["eps_small"],
    script:
        "../notebooks/fig_stability.py"
