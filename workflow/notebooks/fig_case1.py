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
# # Case 1: V = I, A arbitrary (claim C1)
# Regime atlas of the sampled A in the (tr A, det A) plane from the OA ODE, with the claim's
# regions; |R₂(t)| and token angles of one representative per regime. Reads results files only.

# %%
import lsadyn.paper.handoff  # noqa: F401 (local builds: the job goes on in a pre-started process)

# isort: split
import numpy as np

from lsadyn.paper.io import load_arrays, load_table
from lsadyn.paper.plotting import atlas_with_representatives, legend_above, save_figure, style

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi
except NameError:  # opened in Jupyter: read the default build
    SIM, TRAJ = "results/sim/case1.csv", "results/sim/case1_traj.npz"
    PDF, PNG, DPI = "paper_figures/fig_case1.pdf", "paper_figures/fig_case1.png", 200

style()
sim = load_table(SIM, "sim")
traj = load_arrays(TRAJ, "traj")

# %%
fig, ax = atlas_with_representatives(
    sim, traj, "C1 ($V = I$), claim: clustering if $\\mathrm{tr}\\,A > 0$ or $\\det A \\leq 0$;\n"
    f"OA regimes of {len(sim)} sampled $A$ in the $(\\mathrm{{tr}}\\,A, \\det A)$ plane")
lim = np.nanmax(np.abs(sim[["x", "y"]].to_numpy())) * 1.05
ax.axvspan(0, lim, color="0.93", zorder=0)
ax.axhspan(-lim, 0, color="0.93", zorder=0, label="claim 1: clustering")
tt = np.linspace(-lim, 0, 100)
ax.plot(tt, tt**2 / 4, color="0.5", lw=0.6, ls="--", label=r"$\det A = (\mathrm{tr}A)^2/4$")
ax.set_xlim(-lim, lim)
ax.set_ylim(-lim, lim)
ax.set_xlabel(r"$\mathrm{tr}\,A$")
ax.set_ylabel(r"$\det A$")
legend_above(ax)
save_figure(fig, PDF, PNG, DPI)
