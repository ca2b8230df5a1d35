"""Glue: the movies of one scenario in one job: its token trajectories in d = 2 and d = 3 (LSA, seeded;
lsadyn.paper.movies.runs), saved to results/movies/<scenario>.npz, then drawn as GIFs with their HTML pages
(lsadyn.paper.movies.frames). One job: the runs take about a second, a job of their own cost a process start
and the simulation's imports."""

from lsadyn_workflow.io import atomic_path, setup_log, write_npz

from lsadyn.paper.movies.frames import write_token_movie
from lsadyn.paper.movies.runs import token_movie_run
from lsadyn.paper.plotting import style

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("movie", movie="cluster_rotate")
sm = snakemake
log = setup_log(sm.log[0])
sc, run = sm.params.scenario, sm.params.run
runs = {}
for d in sm.params.dims:
    runs[d] = token_movie_run(sc["A"], sc["V"], d, sc["rest_A"], sc["rest_V"], sm.params.beta, run["n_tokens"],
                              sm.params.seed, run["horizon"], run["n_frames"])
    log.info("%s d = %d: r from %.3f to %.3f", sm.wildcards.movie, d, runs[d]["r"][0], runs[d]["r"][-1])
write_npz(sm.output.tokens, **{f"d{d}_{k}": v for d, res in runs.items() for k, v in res.items()})
style()
for d in sm.params.dims:
    write_token_movie(sm.output[f"d{d}"], sm.output[f"page_d{d}"], runs[d], d, sm.params.title,
                      (sc["rest_A"], sc["rest_V"]), sm.params.fps, sm.params.dpi, atomic=atomic_path)
