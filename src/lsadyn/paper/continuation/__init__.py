"""Stage C11 (beyond the paper): bifurcation curves of the OA flow by continuation in two-parameter planes.

``plan`` (pure): the families and the planes of the config; ``runs``: continue each plane with
:mod:`lsadyn.continuation` into the rows of results/tables/continuation.csv; ``summary``: informational claims
rows — the continued curves against the closed forms of :mod:`lsadyn.paper.cases2d.plan`, and the OA labels of the
grid points of cases 3 and 4 (results/sim) against the side of the curves they lie on.
"""
