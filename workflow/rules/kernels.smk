# numba kernels compiled once per machine (into the shared cache of lsadyn._kernel_cache) before the jobs that use
# them run in parallel; first in line (priority), since most jobs wait for them.

# parts of lsadyn.solvers.phase_points.warm_up compiled by each compile_kernel_part job: two jobs of ~5-9 s of CPU that run in
# parallel (the stage passes; the other callees of the driver with the OA/WS kernels), then compile_kernels
KERNEL_JOBS = {"stages": ["stages"], "dense_small": ["dense", "small"]}


rule compile_kernel_part:
    """Independent parts of the d = 2 kernels (lsadyn.solvers.phase_points.WARM_UP_PARTS), compiled in parallel jobs; then
    compile_kernels links them into the driver."""
    input:
        lib=lib_inputs("workflow/scripts/compile_kernels.py"),
    output:
        "results/sim/kernels/{part}.json",
    log:
        "logs/compile_kernels/{part}.log",
    benchmark:
        "benchmarks/pipeline/compile_kernel_part_{part}.tsv"
    wildcard_constraints:
        part="|".join(KERNEL_JOBS),
    priority: 50
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        parts=lambda w: KERNEL_JOBS[w.part],
    script:
        "../scripts/compile_kernels.py"


rule compile_kernels:
    """The d = 2 token driver (linking the parts' cached code); its output, which every d = 2 job takes as input,
    says whether the kernels were compiled in this build or loaded from the machine's cache.
    """
    input:
        lib=lib_inputs("workflow/scripts/compile_kernels.py"),
        parts=expand("results/sim/kernels/{part}.json", part=KERNEL_JOBS),
    output:
        "results/sim/kernels_compiled.txt",
    log:
        "logs/compile_kernels/driver.log",
    benchmark:
        "benchmarks/pipeline/compile_kernels.tsv"
    priority: 50
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        parts=["driver"],
    script:
        "../scripts/compile_kernels.py"


rule compile_bl_kernels:
    """The d_BL kernels (lsadyn.distances), compiled once before the stability jobs that use them (each would compile them
    otherwise); after the d = 2 parts (priority), which the stability jobs wait for too.
    """
    input:
        lib=lib_inputs("workflow/scripts/compile_bl_kernels.py"),
    output:
        "results/stability/bl_kernels_compiled.txt",
    log:
        "logs/compile_kernels/bl.log",
    benchmark:
        "benchmarks/pipeline/compile_bl_kernels.tsv"
    priority: 20
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/compile_bl_kernels.py"


rule compile_sphere_kernels:
    """The d > 2 integrators' kernels (lsadyn.fields.kernels), compiled once before the highdim, persistence,
    robustness and movie jobs that use them (each would compile them otherwise); after the d = 2 parts (priority).
    """
    input:
        lib=lib_inputs("workflow/scripts/compile_sphere_kernels.py"),
    output:
        "results/sim/sphere_kernels_compiled.txt",
    log:
        "logs/compile_kernels/sphere.log",
    benchmark:
        "benchmarks/pipeline/compile_sphere_kernels.tsv"
    priority: 20
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/compile_sphere_kernels.py"
