r"""Structural stability beyond the OA manifold (claim C6): near-uniform token starts off the OA manifold, integrated
as n tokens and compared with the OA ODE started from the same R₂(0); distance to uniform ε = d_BL(μ₀, uniform),
final-state discrepancy mean |R₂^tokens(t) − R₂^OA(t)| over the classification window.

* :mod:`~lsadyn.paper.stability.plan`: the families of perturbed starts (numpy only);
* :mod:`~lsadyn.paper.stability.runs`: the token and OA runs of every family × strength.

Its claims rows are computed from the results table by :mod:`lsadyn.paper.claims`.
"""
