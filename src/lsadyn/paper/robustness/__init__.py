r"""Robustness of the long-time regime to perturbed and quantised weights (claim C8, beyond the paper): perturbed
:math:`A' = A + \delta\,\|A\|_F\,G_A/\|G_A\|_F` (likewise V) and b-bit quantised
:math:`Q_b(M) = s\,\mathrm{sgn}(M)\lfloor |M|/s + 1/2\rfloor` weights against the unperturbed (A, V) of each embedded
scenario, d and model, with the derived prediction for clustered states.

* :mod:`~lsadyn.paper.robustness.plan`: the runs, their batches and the pipeline's chunks (numpy and pandas only:
  read while Snakemake parses the workflow);
* :mod:`~lsadyn.paper.robustness.runs`: weight transformations, the clustered-state prediction, one chunk's runs;
* :mod:`~lsadyn.paper.robustness.summary`: kept fractions, thresholds, claims rows and findings text from the table.
"""
