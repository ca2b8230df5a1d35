r"""Token movies, one per regime (d = 2 on the circle, d = 3 on S²): :mod:`~lsadyn.paper.movies.runs` simulates the
token trajectories (LSA field, :math:`\dot x_i = P_{x_i}(\text{attention field})`, an embedded d = 2 scenario);
:mod:`~lsadyn.paper.movies.frames` draws them (no simulation) into GIFs and their HTML pages
(:func:`~lsadyn.paper.movies.frames.write_token_movie`). The movie rule's script calls both, in one job.
"""
