# Movies of the tokens, one per regime: the trajectories are saved by one small job per scenario
# (d = 2 and d = 3), and the movie notebook only draws them.
MOVIES = sorted(config["movies"]["scenarios"])
MOVIE_DIMS = [2, 3]


wildcard_constraints:
    movie="|".join(MOVIES),
    dim="2|3",


rule movie_tokens:
    """Token trajectories X(t) of one movie scenario in d = 2 and d = 3 (LSA, seeded)."""
    input:
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/movie_tokens.py"),
    output:
        "results/movies/{movie}.npz",
    log:
        "logs/movies/{movie}_tokens.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        scenario=lambda w: config["movies"]["scenarios"][w.movie],
        run={
            k: v
            for k, v in config["movies"].items()
            if k in ("n_tokens", "horizon", "n_frames")
        },
        beta=config["beta"],
        seed=config["seed"] + 600,
        dims=MOVIE_DIMS,
    script:
        "../scripts/movie_tokens.py"


rule movie:
    """GIFs of one scenario: tokens on the circle (with R2) and on the sphere S^2."""
    input:
        tokens="results/movies/{movie}.npz",
        lib=lib_inputs("workflow/notebooks/movie.py"),
    output:
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
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        title=lambda w: config["movies"]["scenarios"][w.movie]["title"],
        rest=lambda w: [
            config["movies"]["scenarios"][w.movie][k] for k in ("rest_A", "rest_V")
        ],
        fps=config["movies"]["fps"],
        dpi=config["movies"]["dpi"],
    script:
        "../notebooks/movie.py"
