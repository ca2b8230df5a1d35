# Claim C7, the fate of the USA oscillation (issue 28 part 3; lsadyn.paper.usa_oscillation): the case-4 centre run
# with USA in d = 2 for 1e4 tau from i.i.d. and symmetric starts, dealt to usa_oscillation.n_jobs jobs; the
# linearised first-harmonic growth rate about the symmetric orbit in a job of its own.
from lsadyn.paper.usa_oscillation.plan import jobs as usa_osc_jobs

USA_OSC_JOBS = usa_osc_jobs(config, config["seed"])
# each job's runs and the settings they read are its params: a config edit reruns exactly the jobs it changes
USA_OSC_SETTINGS = {
    k: v for k, v in config["usa_oscillation"].items() if k not in ("n_jobs", "growth")
}


wildcard_constraints:
    usa_job=r"\d+",


rule usa_oscillation_runs:
    """One job of USA-oscillation runs: a row per run and its |Z1|(t), |R2|(t) series."""
    input:
        lib=lib_inputs("workflow/scripts/usa_oscillation_runs.py"),
    output:
        rows="results/usa_oscillation/job_{usa_job}.csv",
        series="results/usa_oscillation/series_{usa_job}.csv",
    log:
        "logs/usa_oscillation/job_{usa_job}.log",
    benchmark:
        "benchmarks/pipeline/usa_oscillation_job_{usa_job}.tsv"
    priority: 16  # among the longest jobs: start them first
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=60,
    params:
        runs=lambda w: chunk_job(USA_OSC_JOBS, w.usa_job, "usa_oscillation.n_jobs"),
        settings=USA_OSC_SETTINGS,
    script:
        "../scripts/usa_oscillation_runs.py"


rule usa_oscillation_growth:
    """The linearised growth rate of the first harmonic about the symmetric orbit, at each beta of
    usa_oscillation.growth.betas."""
    input:
        lib=lib_inputs("workflow/scripts/usa_oscillation_growth.py"),
    output:
        "results/usa_oscillation/growth.csv",
    log:
        "logs/usa_oscillation/growth.log",
    benchmark:
        "benchmarks/pipeline/usa_oscillation_growth.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
    params:
        V=config["usa_oscillation"]["V"],
        dt=config["usa_oscillation"]["dt"],
        sample_every=config["usa_oscillation"]["sample_every"],
        growth=config["usa_oscillation"]["growth"],
    script:
        "../scripts/usa_oscillation_growth.py"


rule usa_oscillation_table:
    """The runs in results/tables/usa_oscillation.csv, the growth rates beside the symmetric runs' measured ones in
    results/tables/usa_oscillation_growth.csv, and every run's series in results/usa_oscillation/series.csv.
    """
    input:
        rows=expand(
            "results/usa_oscillation/job_{usa_job}.csv",
            usa_job=range(len(USA_OSC_JOBS)),
        ),
        series=expand(
            "results/usa_oscillation/series_{usa_job}.csv",
            usa_job=range(len(USA_OSC_JOBS)),
        ),
        growth="results/usa_oscillation/growth.csv",
        lib=lib_inputs("workflow/scripts/usa_oscillation_table.py"),
    output:
        table=report(
            "results/tables/usa_oscillation.csv",
            caption="../report/usa_oscillation.rst",
            category="High dimension",
        ),
        growth="results/tables/usa_oscillation_growth.csv",
        series="results/usa_oscillation/series.csv",
    log:
        "logs/usa_oscillation_table.log",
    benchmark:
        "benchmarks/pipeline/usa_oscillation_table.tsv"
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        n_runs=sum(len(j) for j in USA_OSC_JOBS),
    script:
        "../scripts/usa_oscillation_table.py"
