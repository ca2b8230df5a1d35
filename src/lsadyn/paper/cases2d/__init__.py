r"""The d = 2 study (claims C1–C5): cases 1–4 and the saddle-node family, each point classified by the OA ODE
:math:`\dot R_2 = F(R_2; A, V, \beta)`, the Watanabe–Strogatz reduction and n tokens on the circle.

* :mod:`~lsadyn.paper.cases2d.plan`: the parameter families, a case's parameter frame, the closed-form predictions;
* :mod:`~lsadyn.paper.cases2d.runs`: the three classifications of every point, representative trajectories, case 4's
  orbits;
* :mod:`~lsadyn.paper.cases2d.summary`: agreement tables, disagreement reasons, the saddle-node threshold and period;
* :mod:`~lsadyn.paper.cases2d.known_cases`: parameter points whose regime follows in closed form (the test suite's
  and a benchmark's reference, not a pipeline stage).
"""
