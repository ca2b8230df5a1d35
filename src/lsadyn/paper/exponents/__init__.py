"""Stage C13 (beyond the paper): stability numbers — Floquet exponents of rotating clusters, Lyapunov exponents of
token runs beside the OA flow's, basin fractions where the OA flow is multistable.

``plan`` (pure): the scenarios, runs, Floquet points and basin points of the config; ``runs``: the rows of
results/tables/exponents.csv, floquet.csv and basins.csv through :mod:`lsadyn.exponents`; ``summary``: the
informational claims rows (numerical Floquet exponents against the closed form, d = 2 token spectra against the OA
prediction, basins, the leading exponents of the regimes table's rows).
"""
