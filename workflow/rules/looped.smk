# Claim C14 (beyond the paper): looped attention layers trained on tasks, read back from the weight files they write,
# and looped past their training depth (lsadyn.paper.looped). One training job and one comparison job per
# (task, model); each holds every seed.
from lsadyn.paper.looped.plan import jobs as looped_jobs, seeds as looped_seeds

LOOPED_JOBS = looped_jobs(config["looped"])
LOOPED_SEEDS = looped_seeds(config["looped"], config["seed"] + 1400)
LOOPED_TRAIN_KEYS = ("h", "depth", "steps", "batch", "lr", "n_test")


wildcard_constraints:
    looped_job="|".join(LOOPED_JOBS),


rule looped_train:
    """Train one (task, model) at every seed (JAX, float64, deterministic): its weight files (safetensors, the keys
    lsadyn.weights reads) and its training curves with the test set's losses and baselines.
    """
    input:
        lib=lib_inputs("workflow/scripts/looped_train.py"),
    output:
        weights=expand(
            "results/looped/weights/{{looped_job}}-s{seed}.safetensors",
            seed=LOOPED_SEEDS,
        ),
        curves="results/looped/train/{looped_job}.csv",
    log:
        "logs/looped/train_{looped_job}.log",
    benchmark:
        "benchmarks/pipeline/looped_train_{looped_job}.tsv"
    priority: 5
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        task=lambda w: config["looped"]["tasks"][w.looped_job.split("-")[0]],
        settings={k: config["looped"][k] for k in LOOPED_TRAIN_KEYS},
        seeds=LOOPED_SEEDS,
    script:
        "../scripts/looped_train.py"


rule looped_compare:
    """Each trained model of one (task, model), read from its weight file: the flow's certified regime, the looped
    network's at loop_factor x its depth, and the quantised models' (rows), with the uniform start's iterates.
    """
    input:
        weights=rules.looped_train.output.weights,
        curves=rules.looped_train.output.curves,
        sphere_kernels="results/sim/sphere_kernels_compiled.txt",  # compiled d > 2 kernels (lsadyn.fields.kernels)
        lib=lib_inputs("workflow/scripts/looped_compare.py"),
    output:
        table="results/looped/compare/{looped_job}.csv",
        arrays="results/looped/compare/{looped_job}.npz",
    log:
        "logs/looped/compare_{looped_job}.log",
    benchmark:
        "benchmarks/pipeline/looped_compare_{looped_job}.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        task=lambda w: config["looped"]["tasks"][w.looped_job.split("-")[0]],
        settings={k: config["looped"][k] for k in ("loop_factor", "n_uniform", "bits")},
        seeds=LOOPED_SEEDS,
    script:
        "../scripts/looped_compare.py"


rule looped_table:
    """Every trained model's comparison in one table (results/tables/looped.csv)."""
    input:
        tables=expand("results/looped/compare/{job}.csv", job=LOOPED_JOBS),
        lib=lib_inputs("workflow/scripts/concat_tables.py"),
    output:
        "results/tables/looped.csv",
    log:
        "logs/looped_table.log",
    benchmark:
        "benchmarks/pipeline/looped_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        kind="looped",
        rows=2 * len(LOOPED_SEEDS),  # two starts per trained model
    script:
        "../scripts/concat_tables.py"


rule looped_movie:
    """The movie of one trained looped model (config looped.movie): its uniform start's tokens layer by layer."""
    input:
        arrays=f"results/looped/compare/{config['looped']['movie']['job']}.npz",
        lib=lib_inputs("workflow/scripts/looped_movie.py"),
    output:
        gif="paper_figures/movies/looped.gif",
        page=report(
            "results/report/movies/looped.html",
            caption="../report/movie.rst",
            category="Movies",
            subcategory="looped transformer",
        ),
    log:
        "logs/movies/looped.log",
    benchmark:
        "benchmarks/pipeline/movie_looped.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        job=config["looped"]["movie"]["job"],
        fps=config["looped"]["movie"]["fps"],
        n_frames=config["looped"]["movie"]["n_frames"],
        dpi=config["movies"]["dpi"],
    script:
        "../scripts/looped_movie.py"
