# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Case 2: A = I, V symmetric (claim C2)
# Regimes over the eigenvalues (λ_min, λ_max) of V from the OA ODE; claim: clustering iff
# λ_max ≥ 0. Representative |R₂(t)| and token angles. Reads results files only.

# %%
import numpy as np
from lsadyn_workflow.io import atomic_path, load_arrays, load_table

from lsadyn.paper.plotting import atlas_with_representatives, legend_above, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_case2")
sm = snakemake
SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi

style()
sim = load_table(SIM, "sim")
traj = load_arrays(TRAJ, "traj")

# %%
title = ("C2 ($A = I$, $V$ symmetric), claim: clustering iff $\\lambda_{\\max}(V) \\geq 0$;\n"
         f"OA regimes of {len(sim)} sampled $V$")
fig, ax = atlas_with_representatives(sim, traj, title)
ax.axhspan(0, sim[["x", "y"]].max().max(), color="0.93", zorder=0, label="claim 2: clustering")
ax.axhline(0, color="0.4", lw=0.6, ls="--")
ax.set_xlabel(r"$\lambda_{\min}(V)$")
ax.set_ylabel(r"$\lambda_{\max}(V)$")
legend_above(ax)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
