r"""High dimension (claim C7): d = 2 matrices embedded in d dimensions,
:math:`A = \mathrm{diag}(A_2, a_\perp I_{d-2}) + \tfrac{\nu}{\sqrt d} G_A` and likewise V, n tokens uniform on
:math:`S^{d-1}`, LSA and USA with the same seeds; observed through r(t) = (d λ_max(M) − 1)/(d − 1).

* :mod:`~lsadyn.paper.highdim.plan`: the embedding, run horizons and output times (numpy only);
* :mod:`~lsadyn.paper.highdim.runs`: the DOP853 sphere runs, each with its convergence check;
* :mod:`~lsadyn.paper.highdim.transverse`: the linearisation transverse to the embedded plane and its exponent
  (does the plane attract tokens near it?).

Its claims rows are computed from the results table by :mod:`lsadyn.paper.claims`.
"""
