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
import matplotlib.pyplot as plt
import numpy as np

from lsadyn.io import read_csv
from lsadyn.plotting import COLUMN_WIDTH, r2_panel, regime_scatter, save_figure, style, token_panel

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi
except NameError:  # opened in Jupyter: read the default build
    SIM, TRAJ = "results/sim/case2.csv", "results/sim/case2_traj.npz"
    PDF, PNG, DPI = "paper_figures/fig_case2.pdf", "paper_figures/fig_case2.png", 200

style()
sim = read_csv(SIM)
traj = np.load(TRAJ)
k = len(traj["regime"])

# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 4.6))
gs = fig.add_gridspec(3, max(k, 1), height_ratios=[1.5, 0.8, 0.8])
ax = fig.add_subplot(gs[0, :])
lo, hi = sim[["x", "y"]].min().min(), sim[["x", "y"]].max().max()
ax.axhspan(0, hi, color="0.93", zorder=0)
ax.axhline(0, color="0.4", lw=0.6, ls="--")
regime_scatter(ax, sim.x, sim.y, sim.regime_oa, size=7)
ax.set_xlabel(r"$\lambda_{\min}(V)$")
ax.set_ylabel(r"$\lambda_{\max}(V)$")
ax.legend(fontsize=5, loc="lower right")
ax.set_title(f"OA regimes, {len(sim)} sampled $V$ ($A = I$); shaded: claim 'clustering' ($\\lambda_{{\\max}}\\geq 0$)")
ax2 = fig.add_subplot(gs[1, :])
r2_panel(ax2, traj["t"], traj["R2_oa"], traj["regime"])
for tt_, rp in zip(traj["t"], traj["R2_particles"]):
    ax2.plot(tt_ / tt_[-1], np.abs(rp), color="k", lw=0.5, ls=":")
ax2.set_title("OA (colour) and $n$ tokens (dotted)")
for i in range(k):
    token_panel(fig.add_subplot(gs[2, i]), traj["t"][i], traj["theta"][i], traj["regime"][i])
save_figure(fig, PDF, PNG, DPI)
