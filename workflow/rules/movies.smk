# Movies of the tokens, one per regime: one job per scenario runs its tokens (d = 2 and d = 3), saves them and draws
# the GIFs (a job of its own for the runs, about a second, would cost a process start and the simulation's imports).
MOVIES = sorted(config["movies"]["scenarios"])
MOVIE_DIMS = [2, 3]


wildcard_constraints:
    movie="|".join(MOVIES),
    dim="2|3",


rule movie:
    """One scenario's token trajectories X(t) in d = 2 and d = 3 (LSA, seeded) and their GIFs: tokens on the circle
    (with R2) and on the sphere S^2. One job: the runs take about a second."""
    input:
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/movie.py"),
    output:
        tokens="results/movies/{movie}.npz",
        d2="paper_figures/movies/{movie}_d2.gif",
        d3="paper_figures/movies/{movie}_d3.gif",
        # the report offers a GIF only as a download: it lists these pages, which show the GIF
        page_d2=report(
            "results/report/movies/{movie}_d2.html",
            caption="../report/movie.rst",
            category="Movies",
            subcategory="d = 2 (circle)",
        ),
        page_d3=report(
            "results/report/movies/{movie}_d3.html",
            caption="../report/movie.rst",
            category="Movies",
            subcategory="d = 3 (sphere)",
        ),
    log:
        "logs/movies/{movie}.log",
    benchmark:
        "benchmarks/pipeline/movie_{movie}.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        scenario=lambda w: config["movies"]["scenarios"][w.movie],
        title=lambda w: config["movies"]["scenarios"][w.movie]["title"],  # the report's caption names it
        run={
            k: v
            for k, v in config["movies"].items()
            if k in ("n_tokens", "horizon", "n_frames")
        },
        beta=config["beta"],
        seed=config["seed"] + 600,
        dims=MOVIE_DIMS,
        fps=config["movies"]["fps"],
        dpi=config["movies"]["dpi"],
    script:
        "../scripts/movie.py"
