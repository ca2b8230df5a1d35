r"""Trained looped transformers (claim C14, beyond the paper): one shared attention layer, trained on a task
(:mod:`lsadyn.looped.tasks`, :mod:`lsadyn.looped.train`), read back through :mod:`lsadyn.weights` as (A, V, β), and
looped far past its training depth; the flow's certified regime against the network's own.

* :mod:`~lsadyn.paper.looped.plan`: the training jobs from the config (numpy only: read while Snakemake parses);
* :mod:`~lsadyn.paper.looped.runs`: one job's training (its seeds) and one trained model's predicted, observed and
  quantised regimes;
* :mod:`~lsadyn.paper.looped.summary`: claims rows (C14) and the findings sentence from ``results/tables/looped.csv``.
"""
