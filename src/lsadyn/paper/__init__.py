"""lsadyn.paper: the study layer of the paper reproduction (not the reusable library).

Cases and their closed-form predictions (`cases`), the per-point study and tables (`study`), the claims
table (`claims`), structural-stability families (`stability`), the high-dimensional scenarios
(`highdim`), figure helpers (`plotting`), the findings report and build summary (`findings`), token movies
(`movies` saves trajectories, `movie_frames` draws them), pipeline file I/O (`io`) and config checking (`config`).
Everything here is built on the library modules of :mod:`lsadyn` (fields, integrators, reductions,
classifier, d_BL), which never import from this package.
"""
