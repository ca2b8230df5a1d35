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
from lsadyn_workflow.io import atomic_path, load_arrays, load_table

from lsadyn.paper.plotting import (
    COLUMN_WIDTH,
    REGIME_STYLE,
    panel_letter,
    regime_scatter,
    save_figure,
    style,
    token_panel,
)

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_case3")
sm = snakemake
SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi

style()
sim = load_table(SIM, "sim")
traj = load_arrays(TRAJ, "traj")
regimes = list(traj["regime"])

# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 5.6))
gs = fig.add_gridspec(3, 1, height_ratios=[1.5, 0.9, 0.9])
ax = fig.add_subplot(gs[0])
# no marker edge and a smaller marker: the paper grid's σ = 0.95 and the commuting column σ = 1 added to it are
# 0.05 apart (~2.8 pt), and at size 10 with the usual edge (3.7 pt across) their columns ran into one bar
handles = regime_scatter(ax, sim.x, sim.y, sim.regime_oa, size=5, edge=0)
# the reference lines behind the markers (zorder 0.5): the commuting column σ = 1 and row μ = 0 lie on them
handles.append(ax.axvline(0, color="0.4", lw=0.6, ls="--", zorder=0.5,
                          label=r"$\sigma = 0$: fixed points on $|R_2| = 1$ iff $\sigma \leq 0$ or $\mu = 0$"))
# the commuting column sigma = 1 (A = I) is part of the same grid but outside the claim's hypothesis: shaded, and
# its legend entry counts what it shows (row C3a-commuting), so that its rotating points are not read as the claim's
comm = sim[(sim.x == 1) & (sim.y != 0)]
n_rot = int((comm.regime_oa == "cluster_rotate").sum())
handles.append(ax.axvspan(0.975, 1.025, color="0.85", lw=0, zorder=0.4,
                          label=rf"$\sigma = 1$ ($A = I$ commutes with $V$): {n_rot} of {len(comm)} rotate"))
handles.append(ax.axhline(0, color="0.6", lw=0.6, ls=":", zorder=0.5, label=r"$\mu = 0$ ($V = I$ commutes with $A$)"))
ax.set_xlabel(r"$\sigma$  ($A = \mathrm{diag}(1,\sigma)$)")
ax.set_ylabel(r"$\mu$  ($V = I + \mu J$)")
# one line per entry, one column, below the panel: two-line entries above it ran into its letter and title
ax.legend(handles=handles, fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.27), ncol=1, frameon=False,
          handlelength=1.8)
# what is plotted, not the claim as a result; the shaded commuting column is told apart in the legend
ax.set_title(r"C3: OA regimes of $A = \mathrm{diag}(1, \sigma)$, $V = I + \mu J$; the claim is about" "\n"
             r"non-commuting $A$, $V$: $\sigma \neq 1$, $\mu \neq 0$ (the commuting column $\sigma = 1$ shaded)",
             fontsize=6.5)
panel_letter(ax, "a", left_of_ylabel=True)
if "cluster_rotate" in regimes:
    i = regimes.index("cluster_rotate")
    t = traj["t"][i]
    ax2 = fig.add_subplot(gs[1])
    token_panel(ax2, t, traj["theta"][i], "cluster_rotate")
    row = sim[sim.point_id == traj["point_id"][i]].iloc[0]
    ax2.set_title(rf"tokens $\theta_k(t)$, $\sigma = {row.x:.2g}$, $\mu = {row.y:.2g}$")
    ax2.set_ylabel(r"$\theta_k$ mod $2\pi$")
    panel_letter(ax2, "b", left_of_ylabel=True)
    ax3 = fig.add_subplot(gs[2], sharex=ax2)
    R2 = traj["R2_oa"][i]
    phase = np.unwrap(np.angle(R2))
    part = np.unwrap(np.angle(traj["R2_particles"][i]))
    ax3.plot(t, phase - phase[0], color=REGIME_STYLE["cluster_rotate"]["color"], label=r"OA, $\arg R_2$")
    # the rate 2βμ√σ is derived on |R2| = 1: anchor the line where the OA solution reaches it
    on = np.flatnonzero(1 - np.abs(R2) <= 1e-2)
    # the tokens' arg R2 before the clusters form is that of a small, nearly random R2 (|R2(0)| ~ 1/sqrt(n)): its
    # early turns shift the whole curve; drawn through the OA curve at t1, so the rates after t1 compare directly
    shift = (phase[on[0]] - phase[0]) - (part[on[0]] - part[0]) if on.size else 0.0
    ax3.plot(t, part - part[0] + shift, color="k", lw=0.6, ls=":",
             label="$n$ tokens" + (r" (shifted to meet OA at $t_1$)" if on.size else ""))
    if on.size:
        k = on[0]
        tt = t[k:]
        ax3.plot(tt, phase[k] - phase[0] + row.rate_theory * (tt - t[k]), color="0.35", lw=0.8, ls="--",
                 label=r"theory $2\beta\mu\sqrt{\sigma}\,(t - t_1)$, from $t_1$: $|R_2| \geq 0.99$")
        ax3.axvline(t[k], color="0.7", lw=0.5, ls=":")
    ax3.set_xlabel("$t$")
    ax3.set_ylabel(r"$\arg R_2(t) - \arg R_2(0)$" "\n(unwrapped)")
    # below the axes: inside, the long theory label ran over the curves (the trial's t = 8-11)
    # one column: side by side, the two long labels were wider than the figure and shrank every panel
    ax3.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.42), ncol=1, frameon=False,
               columnspacing=1.0, handlelength=1.8)
    panel_letter(ax3, "c", left_of_ylabel=True)
# letters left of the y labels, lined up: (c)'s two-line label is taller than its panel and reaches above it, and
# a letter at a fixed axes fraction ran into the label when wider tick labels pushed it left
fig.align_ylabels()
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
