"""Glue: token trajectories of one movie scenario in d = 2 and d = 3 (saved for the movie notebook)."""

from lsadyn_workflow.io import setup_log, write_npz
from lsadyn.paper.movies.runs import token_movie_run

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("movie_tokens", movie="cluster_rotate")
sm = snakemake
log = setup_log(sm.log[0])
sc, run = sm.params.scenario, sm.params.run
arrays = {}
for d in sm.params.dims:
    res = token_movie_run(sc["A"], sc["V"], d, sc["rest_A"], sc["rest_V"], sm.params.beta, run["n_tokens"],
                          sm.params.seed, run["horizon"], run["n_frames"])
    log.info("%s d = %d: r from %.3f to %.3f", sm.wildcards.movie, d, res["r"][0], res["r"][-1])
    arrays.update({f"d{d}_{k}": v for k, v in res.items()})
write_npz(sm.output[0], **arrays)
