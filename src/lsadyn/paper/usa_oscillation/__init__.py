"""Stage C7 (the USA oscillation's fate, issue 28 part 3): the case-4 centre (A = I, V = [[0.5, 1], [−1, −0.5]]) run
with USA in d = 2 for long times, from i.i.d. uniform starts of n tokens and from the antipodally symmetric start.

``plan`` (pure): the runs and the linearisation points of the config, split into jobs; ``runs``: the compiled
phase-form runs (:mod:`lsadyn.solvers.usa_phase`), the exit-time detector, the first-harmonic growth rate of the
symmetric orbit (its tangent flow) and the rows of results/tables/usa_oscillation.csv and usa_oscillation_growth.csv;
``summary``: informational C7 claims rows.
"""
