"""lsadyn.paper: the study layer of the paper reproduction (not the reusable library).

One subpackage per stage of the study, each with what it has of

* ``plan``: what is run (parameter frames, scenarios, starts, the run plan and its chunks, closed-form
  predictions): pure, numpy and pandas only, so the Snakefile's rules may import it while Snakemake parses;
* ``runs``: what integrates, through the public API of :mod:`lsadyn` (fields, solvers, runs, decision);
* ``summary``: tables, claims rows and findings text computed from the stage's results frames.

Stages: :mod:`~lsadyn.paper.cases2d` (d = 2 cases 1–4 and the saddle-node family; claims C1–C5),
:mod:`~lsadyn.paper.stability` (C6), :mod:`~lsadyn.paper.offmanifold` (off the OA manifold),
:mod:`~lsadyn.paper.highdim` (C7), :mod:`~lsadyn.paper.persistence` (C7 measured, C9, C10),
:mod:`~lsadyn.paper.robustness` (C8). Beside them: :mod:`~lsadyn.paper.claims` (the claims table from every stage's
results), :mod:`~lsadyn.paper.findings` (FINDINGS.md and the report pages), :mod:`~lsadyn.paper.plotting` (one
figure style), :mod:`~lsadyn.paper.movies` (token movies); what a build ran with is recorded by the workflow (``lsadyn_workflow.provenance``).
Below them all: :mod:`~lsadyn.paper.rows` (a claims-table row, shared by the claims and the stages' summaries) and
:mod:`~lsadyn.paper.chunks` (a chunked stage's job entry). Dependencies run one way: rows/chunks ← plans ← runs and
summaries ← claims/findings; no stage imports the claims. The study takes and returns data (frames, arrays,
strings); the workflow's scripts read and write the files (``workflow/lib/lsadyn_workflow``). Everything here is
built on the library modules of :mod:`lsadyn`, which never import from this package.
"""
