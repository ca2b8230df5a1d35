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
# # Case 3: A and V not commuting — rotating clusters (claim C3)
# A = diag(1, σ), V = I + μJ. Regime map over (σ, μ) from the OA ODE; tokens of a rotating
# example in space-time; unwrapped arg R₂ against the predicted rate 2βμ√σ. Reads results only.

# %%
import matplotlib.pyplot as plt
import numpy as np

from lsadyn.paper.io import read_csv
from lsadyn.paper.plotting import COLUMN_WIDTH, REGIME_STYLE, regime_scatter, save_figure, style, token_panel

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi
except NameError:  # opened in Jupyter: read the default build
    SIM, TRAJ = "results/sim/case3.csv", "results/sim/case3_traj.npz"
    PDF, PNG, DPI = "paper_figures/fig_case3.pdf", "paper_figures/fig_case3.png", 200

style()
sim = read_csv(SIM)
traj = np.load(TRAJ)
regimes = list(traj["regime"])

# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 4.4))
gs = fig.add_gridspec(3, 2, height_ratios=[1.4, 0.9, 0.9])
ax = fig.add_subplot(gs[0, :])
regime_scatter(ax, sim.x, sim.y, sim.regime_oa, size=10)
ax.axvline(0, color="0.4", lw=0.6, ls="--")
ax.axvline(1, color="0.7", lw=0.6, ls=":")
ax.axhline(0, color="0.7", lw=0.6, ls=":")
ax.set_xlabel(r"$\sigma$  ($A = \mathrm{diag}(1,\sigma)$)")
ax.set_ylabel(r"$\mu$  ($V = I + \mu J$)")
ax.legend(fontsize=5, loc="upper left", bbox_to_anchor=(1.0, 1.0))
ax.set_title(r"OA regimes; dashed: $\sigma = 0$ (fixed points on $|R_2|=1$ iff $\sigma\leq0$); dotted: commuting")
if "cluster_rotate" in regimes:
    i = regimes.index("cluster_rotate")
    t = traj["t"][i]
    token_panel(fig.add_subplot(gs[1, :]), t, traj["theta"][i], "cluster_rotate")
    ax3 = fig.add_subplot(gs[2, :])
    phase = np.unwrap(np.angle(traj["R2_oa"][i]))
    part = np.unwrap(np.angle(traj["R2_particles"][i]))
    row = sim[sim.point_id == traj["point_id"][i]].iloc[0]
    ax3.plot(t, phase - phase[0], color=REGIME_STYLE["cluster_rotate"]["color"], label="OA")
    ax3.plot(t, part - part[0], color="k", lw=0.6, ls=":", label="$n$ tokens")
    ax3.plot(t, row.rate_theory * t, color="0.5", lw=0.6, ls="--",
             label=rf"$2\beta\mu\sqrt{{\sigma}}\,t$ ($\sigma$={row.x:.2g}, $\mu$={row.y:.2g})")
    ax3.set_xlabel("$t$")
    ax3.set_ylabel(r"unwrapped $\arg R_2$")
    ax3.legend(fontsize=5)
save_figure(fig, PDF, PNG, DPI)
