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
# regions; open markers: the points where claim 1 is silent (claims rows C1c), so that an interior point there is
# not read as one of C1b's (sym(A) negative definite); |R₂(t)| and token angles of one representative per regime.
# Reads results files only.

# %%
import numpy as np
from lsadyn_workflow.io import atomic_path, load_arrays, load_table
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from lsadyn.paper.plotting import atlas_with_representatives, legend_above, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_case1")
sm = snakemake
SIM, TRAJ, PDF, PNG, DPI = sm.input.sim, sm.input.traj, sm.output.pdf, sm.output.png, sm.params.dpi

style()
sim = load_table(SIM, "sim")
traj = load_arrays(TRAJ, "traj")

# %%
# the points claim 1 says nothing about (no prediction: tr A <= 0 < det A with sym(A) not negative definite; claims
# rows C1c, checked against the derived criterion) are drawn open: an interior point there shares C1b's colour
# (sym(A) negative definite) and would otherwise be read as one of the claim's own
silent = (sim.prediction.fillna("") == "").to_numpy()
# (a') zooms on the silent points that do not stay interior (clustering at small det A, the centres at tr A = 0;
# rows C1c): at the full range they sit a few pixels from the filled points of the claim's own region
crowd = silent & (sim.regime_oa != "interior_converge").to_numpy()
fig, ax, *zoom = atlas_with_representatives(
    sim, traj, "C1 ($V = I$), claim: clustering if $\\mathrm{tr}\\,A > 0$ or $\\det A \\leq 0$;\n"
    f"OA regimes of {len(sim)} sampled $A$ in the $(\\mathrm{{tr}}\\,A, \\det A)$ plane", hollow=silent,
    zoom=bool(crowd.any()))
lim = np.nanmax(np.abs(sim[["x", "y"]].to_numpy())) * 1.05
for a in [ax, *zoom]:
    a.axvspan(0, lim, color="0.93", zorder=0)
    a.axhspan(-lim, 0, color="0.93", zorder=0, label="claim 1: clustering" if a is ax else None)
    tt = np.linspace(-lim, 0, 400)
    a.plot(tt, tt**2 / 4, color="0.5", lw=0.6, ls="--", label=r"$\det A = (\mathrm{tr}A)^2/4$" if a is ax else None)
    a.set_xlabel(r"$\mathrm{tr}\,A$")
ax.set_xlim(-lim, lim)
ax.set_ylim(-lim, lim)
ax.set_ylabel(r"$\det A$")
if zoom:
    zx, zy = sim.x.to_numpy()[crowd], sim.y.to_numpy()[crowd]
    x0, x1, y0, y1 = min(zx.min(), 0.0), max(zx.max(), 0.0), min(zy.min(), 0.0), max(zy.max(), 0.0)
    px, py = 0.1 * (x1 - x0) + 0.02 * lim, 0.1 * (y1 - y0) + 0.02 * lim
    zoom[0].set_xlim(x0 - px, x1 + px)
    zoom[0].set_ylim(y0 - py, y1 + py)
    zoom[0].set_title("(a\u2032) zoom on the frame in (a)", fontsize=6)
    ax.add_patch(Rectangle((x0 - px, y0 - py), x1 - x0 + 2 * px, y1 - y0 + 2 * py, fill=False, ec="0.2", lw=0.6,
                           zorder=4))
handles, _ = ax.get_legend_handles_labels()
if silent.any():
    handles += [Line2D([], [], ls="", marker="o", color="0.45", ms=3, label="filled: claim 1 predicts (C1a, C1b)"),
                Line2D([], [], ls="", marker="o", mfc="none", mec="0.45", mew=0.8, ms=3.5,
                       label="open: claim 1 silent ($\\mathrm{tr}\\,A \\leq 0 < \\det A$,\n"
                             "sym$(A)$ not negative definite; rows C1c)")]
if zoom:  # below the figure (one above (a) alone would squeeze it; above the figure it met the title)
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=6, frameon=False, handlelength=1.5,
               columnspacing=1.0)
else:
    legend_above(ax, handles)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
