# Paper figures: one rule, instantiated once per row of FIGURE_TABLE. To add a figure, write
# workflow/notebooks/<figure>.py (reads snakemake.input/params, never simulates) and its caption
# workflow/report/<figure>.rst (a Jinja template over snakemake.config), then add one row:
#
#   figure: (inputs the notebook reads, report category, params besides dpi)
#
# The rule adds the lsadyn modules the notebook imports (lib_inputs) to its inputs, so editing a
# notebook, a module it imports, or a listed param reruns exactly that figure.
# fmt: off
FIGURE_TABLE = {
    "fig_case1": (dict(sim="results/sim/case1.csv", traj="results/sim/case1_traj.npz"), "d = 2 cases", {}),
    "fig_case2": (dict(sim="results/sim/case2.csv", traj="results/sim/case2_traj.npz"), "d = 2 cases", {}),
    "fig_case3": (dict(sim="results/sim/case3.csv", traj="results/sim/case3_traj.npz"), "d = 2 cases", {}),
    "fig_case4": (dict(sim="results/sim/case4.csv", traj="results/sim/case4_traj.npz", orbits="results/sim/case4_orbits.npz"), "d = 2 cases", {}),
    "fig_bifurcation": (dict(sim="results/sim/bifurcation.csv", fit="results/tables/bifurcation_fit.csv"), "d = 2 cases", {}),
    "fig_stability": (dict(table="results/tables/stability.csv"), "Beyond the OA manifold", dict(eps_small=config["stability"]["eps_small"])),
    "fig_offmanifold": (dict(table="results/tables/offmanifold.csv", traces="results/offmanifold/traces.npz"), "Beyond the OA manifold", {}),
    "fig_highdim": (dict(arrays=expand("results/highdim/{scenario}.npz", scenario=HIGHDIM), table="results/tables/highdim.csv"), "High dimension", dict(scenarios=HIGHDIM)),
    "fig_robustness": (dict(table="results/tables/robustness.csv"), "Beyond the paper", {}),
    "fig_persistence": (dict(table="results/tables/persistence.csv"), "High dimension", {}),
    "fig_exponents": (dict(table="results/tables/exponents.csv", floquet="results/tables/floquet.csv", basins="results/tables/basins.csv", highdim="results/tables/highdim.csv", persistence="results/tables/persistence.csv"), "Beyond the paper", {}),
    "fig_continuation": (dict(table="results/tables/continuation.csv", case3="results/sim/case3.csv", case4="results/sim/case4.csv", bifurcation="results/sim/bifurcation.csv"), "Beyond the paper", {}),
    "fig_usa_oscillation": (dict(table="results/tables/usa_oscillation.csv", growth="results/tables/usa_oscillation_growth.csv", series="results/usa_oscillation/series.csv"), "High dimension", {}),
    "fig_atlas": (dict(atlas="results/tables/atlas.csv", invariants="results/tables/atlas_invariants.csv", phase="results/tables/atlas_phase.csv"), "Beyond the paper", dict(r_threshold=config["atlas"]["phase"]["r_threshold"])),
    "fig_looped": (dict(table="results/tables/looped.csv", curves=expand("results/looped/train/{job}.csv", job=LOOPED_JOBS), arrays=expand("results/looped/compare/{job}.npz", job=LOOPED_JOBS)), "Beyond the paper", {}),
}
# fmt: on
FIGURES = list(FIGURE_TABLE)


for _fig, (_inputs, _category, _params) in FIGURE_TABLE.items():

    rule:
        name:
            _fig
        input:
            **_inputs,
            lib=lib_inputs(f"workflow/notebooks/{_fig}.py"),
        output:
            pdf=f"paper_figures/{_fig}.pdf",
            png=report(
                f"paper_figures/{_fig}.png",
                caption=f"../report/{_fig}.rst",
                category=_category,
            ),
        log:
            f"logs/figures/{_fig}.log",
        benchmark:
            f"benchmarks/pipeline/{_fig}.tsv"
        conda:
            "../../environment.yml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            **_params,
            dpi=config["figures"]["dpi"],
            notebook=_fig,  # bound now: the script path is formatted per job, after the loop has ended
        script:
            "../notebooks/{params.notebook}.py"
