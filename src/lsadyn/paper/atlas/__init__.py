"""Stage C12 (beyond the paper): a regime atlas — how common each regime is for random weights
(i.i.d. N(0, 1/d), GOE, Wigner: :mod:`lsadyn.ensembles`).

``plan`` (pure): the jobs of the config's three parts (d = 2 by OA, d > 2 by tokens, (β, t) phase diagrams of
clustering for USA and SA) and the Wilson interval; ``runs``: a job into run rows; ``summary``: the tables
results/tables/atlas.csv, atlas_invariants.csv, atlas_phase.csv and the informational claims rows.
"""
