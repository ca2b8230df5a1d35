r"""Token movies, one per regime (d = 2 on the circle, d = 3 on S²): :mod:`~lsadyn.paper.movies.runs` simulates the
token trajectories (LSA field, :math:`\dot x_i = P_{x_i}(\text{attention field})`, an embedded d = 2 scenario) for
rule movie_tokens; :mod:`~lsadyn.paper.movies.frames` draws saved trajectories (no simulation) into GIFs for the
movie notebook.
"""
