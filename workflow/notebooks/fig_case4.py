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
# # Case 4: hidden Hamiltonian (claim C4)
# A = I, V = [[v11, v12], [−v12, −v11]]. The OA flow conserves
# 𝓗 = (v12(1 + |R₂|²) + 2 v11 Im R₂)/(1 − |R₂|²)². Regime map with the claim's line v11 = v12
# and the derived boundary |v11| = |v12|; closed OA orbits in the unit disk and the drift of 𝓗
# along them; a converging example. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_arrays, load_table

from lsadyn.paper.plotting import (
    COLUMN_WIDTH,
    REGIME_STYLE,
    TOKEN_ANGLE_LABEL,
    legend_above,
    panel_letter,
    regime_scatter,
    save_figure,
    style,
    token_panel,
)

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_case4")
sm = snakemake
SIM, ORB, TRAJ = sm.input.sim, sm.input.orbits, sm.input.traj
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
sim = load_table(SIM, "sim")
orb = load_arrays(ORB, "orbits")
traj = load_arrays(TRAJ, "traj")
v11, v12, c11, c12 = orb["v"]

# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 6.2))
gs = fig.add_gridspec(3, 2, height_ratios=[1.3, 1.1, 0.8])
ax = fig.add_subplot(gs[0, :])
regime_scatter(ax, sim.x, sim.y, sim.regime_oa, size=10)
lim = np.abs(sim[["x", "y"]].to_numpy()).max()
s = np.linspace(-lim, lim, 3)
ax.plot(s, s, color="0.75", lw=3.0, zorder=0, solid_capstyle="butt",
        label="derived boundary $|v_{11}| = |v_{12}|$ (both diagonals)")
ax.plot(s, -s, color="0.75", lw=3.0, zorder=0, solid_capstyle="butt")
ax.plot(s, s, color="0.2", lw=0.8, ls="--", label="claim as worded: $v_{11} = v_{12}$")
ax.set_xlabel("$v_{11}$")
ax.set_ylabel("$v_{12}$")
panel_letter(ax, "a", x=-0.12, above=legend_above(ax))  # the legend is as wide as the panel: letter above it
fig.suptitle("C4 ($A = I$, $V = [[v_{11}, v_{12}], [-v_{12}, -v_{11}]]$): OA regimes on the grid,\n"
             "with the claim as worded and the derived boundary", fontsize=7)
circle = np.exp(1j * np.linspace(0, 2 * np.pi, 200))
for j, (R, title, key) in enumerate([(orb["R2"], f"$v_{{11}}={v11:g}, v_{{12}}={v12:g}$", "oscillate"),
                                     (orb["R2_converge"], f"$v_{{11}}={c11:g}, v_{{12}}={c12:g}$",
                                      "cluster_converge")]):
    a = fig.add_subplot(gs[1, j])
    a.plot(circle.real, circle.imag, color="0.6", lw=0.5)
    for r in R:
        a.plot(r.real, r.imag, color=REGIME_STYLE[key]["color"], lw=0.7)
        a.plot(r.real[0], r.imag[0], "k.", ms=2)
    a.set_aspect("equal")
    a.set_xlabel(r"$\mathrm{Re}\,R_2$")
    a.set_ylabel(r"$\mathrm{Im}\,R_2$")
    if key == "oscillate":
        title += f"\nclosed orbits\nmax $|\\Delta\\mathcal{{H}}/\\mathcal{{H}}|$ = {orb['H_rel_drift'].max():.1e}"
    else:
        title += "\nconvergence to clusters\n"
    a.set_title(title, fontsize=6)
    panel_letter(a, "bc"[j], x=-0.3)
regimes = list(traj["regime"])
for j, key in enumerate(["oscillate", "cluster_converge"]):
    if key in regimes:
        i = regimes.index(key)
        a = fig.add_subplot(gs[2, j])
        token_panel(a, traj["t"][i], traj["theta"][i], key)
        if j == 0:
            a.set_ylabel(TOKEN_ANGLE_LABEL)
        panel_letter(a, "de"[j], x=-0.25)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
