r"""Off the OA manifold (docs/theory.md §5; claims row C1b-offmanifold): the doubled phases :math:`z_k = e^{2i\theta_k}`
move by Möbius maps only, so a population's distance D from the OA manifold is conserved and, where the OA ODE
converges to an interior point, |R₂| keeps oscillating with a peak-to-peak amplitude ∝ D.

* :mod:`~lsadyn.paper.offmanifold.plan`: starts at a fixed off-manifold density;
* :mod:`~lsadyn.paper.offmanifold.runs`: tokens and the OA ODE from each start;
* :mod:`~lsadyn.paper.offmanifold.summary`: amplitude per unit distance.
"""
