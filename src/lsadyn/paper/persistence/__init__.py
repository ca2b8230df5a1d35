r"""Persistence of the d = 2 behaviours (claims C7 measured, C9 random weights, C10 β for softmax): embedded d = 2
scenarios over d, random weights A, V ~ N(0, 1/d), and β, each run one member of a batch of token systems
integrated together (vectorised RK4 on the sphere, :math:`\dot x_i = P_{x_i}(\text{attention field})`, the shared
decision procedure), with the derived rotation rate :math:`2\beta\sqrt{w^2 - q^2}` (LSA) as reference.

* :mod:`~lsadyn.paper.persistence.plan`: scenarios, the run plan, its chunks (the pipeline's jobs), the derived
  rotation rate (numpy and pandas only: read while Snakemake parses the workflow);
* :mod:`~lsadyn.paper.persistence.runs`: one chunk's runs, batch by batch;
* :mod:`~lsadyn.paper.persistence.summary`: summaries, claims rows and findings text from the results table.
"""
