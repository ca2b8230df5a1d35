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
# # Bifurcation curves by continuation (claim C11, beyond the paper)
# One panel per plane of results/tables/continuation.csv: the continued circle folds (two clustered states
# merge: the rotation boundary), circle transcritical points (an interior equilibrium meets |R₂| = 1), interior
# folds and Hopf points, the rotating clusters (circle cycle rows, coloured by log period), and the interior limit
# cycles continued from Hopf points by shooting (filled: attracting, multiplier < 1; open: repelling) with their
# cycle folds. Where the plane is the case-3 or case-4 grid or holds the saddle-node sweep, their OA labels
# (results/sim) are drawn over it (the periodic-orbit markers small and behind them); the limit-cycle plane marks its
# base weights (the known attracting cycle; its period in the legend is that of the continued cycle nearest to them). Reads
# results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, panel_letter, regime_scatter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_continuation")
sm = snakemake
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
table = load_table(sm.input.table, "continuation")
grids = {"case3": load_table(sm.input.case3, "sim"), "case4": load_table(sm.input.case4, "sim")}
sweep = load_table(sm.input.bifurcation, "sim")  # the saddle-node sweep: s = (v11 - v22)/2, mu = v21
grids["saddle_node"] = sweep.assign(x=(sweep.v11 - sweep.v22) / 2, y=sweep.v21)
AXIS = {"sigma": r"$\sigma$", "mu": r"$\mu$", "s": r"$s$", "v11": r"$v_{11}$", "v12": r"$v_{12}$",
        "lambda1": r"$\lambda_1$", "lambda2": r"$\lambda_2$", "trA": r"tr $A$", "detA": r"det $A$",
        "dv": r"$\delta v$ ($V = V_0 + \delta v\,I$)", "da": r"$\delta a$ ($A = A_0 + \delta a\,I$)"}
CURVES = [  # (kind, location, style, label)
    ("fold", "circle", {"color": "k", "lw": 1.4}, "circle fold"),
    ("transcritical", "circle", {"color": "#D55E00", "lw": 1.0, "ls": "--"}, "circle transcritical"),
    ("fold", "interior", {"color": "#0072B2", "lw": 1.0, "ls": "-."}, "interior fold"),
    ("hopf", "interior", {"color": "#009E73", "lw": 1.2, "ls": ":"}, "Hopf"),
    ("cycle_fold", "interior", {"color": "#CC79A7", "lw": 1.4}, "cycle fold (saddle-node of limit cycles)"),
]

TITLES = {"case3": "case 3: A, V not commuting", "saddle_node": "saddle-node family", "case4": "case 4: hidden Hamiltonian",
          "limit_cycle": "around a known limit cycle"}

# %%
planes = list(dict.fromkeys(table.plane))
ncol = min(len(planes), 2)
nrow = -(-len(planes) // ncol)
height = 2.3 * nrow + 0.8
fig, axes = plt.subplots(nrow, ncol, figsize=(2 * COLUMN_WIDTH, height), squeeze=False,
                         layout="none")  # laid out by tight_layout below (the style sets constrained layout)
for ax in axes.flat[len(planes):]:
    ax.set_visible(False)
handles = {}
for k, (ax, name) in enumerate(zip(axes.flat, planes)):
    t = table[table.plane == name]
    cyc = t[(t.kind == "cycle") & (t.location == "circle")]
    if len(cyc):
        # small and behind: where a grid is drawn over the plane, its labels (zorder 2) stay readable on top
        ax.scatter(cyc.x, cyc.y, c=np.log10(cyc.period), cmap="Greys", s=3, marker="s", linewidths=0, alpha=0.8,
                   vmin=np.log10(cyc.period.min()) - 0.3, vmax=np.log10(cyc.period.max()), zorder=0.8)
        handles["cycle"] = ax.scatter([], [], c="0.6", s=3, marker="s",
                                      label="the circle |R₂| = 1 as a periodic orbit (grey: log period)")
    for kind, where, st, label in CURVES:
        for _, g in t[(t.kind == kind) & (t.location == where)].groupby("branch"):
            (line,) = ax.plot(g.x, g.y, zorder=4, **st, label=label)
            handles.setdefault(label, line)
    lc = t[(t.kind == "cycle") & (t.location == "interior")]
    # open markers larger and opaque: at the filled markers' size a ring reads as a faint dot
    for stab, face, edge, size, lw, alpha in (("stable", "#0072B2", "#0072B2", 4, 0.5, 0.7),
                                              ("unstable", "none", "#D55E00", 10, 0.8, 1.0)):
        c = lc[lc.stability == stab]
        if len(c):
            h = ax.scatter(c.x, c.y, s=size, facecolors=face, edgecolors=edge, linewidths=lw, zorder=3, alpha=alpha,
                           label=f"interior limit cycle, {'attracting' if stab == 'stable' else 'repelling'}")
            handles.setdefault(h.get_label(), h)
    if t.x_name.iloc[0] == "dv":
        # on top of every curve and cycle marker, large, with a white edge: the branches start at it; its period is
        # that of the continued cycle nearest to it (read from the table, not typed in)
        near = lc.iloc[np.argsort(np.hypot(lc.x, lc.y))[:1]] if len(lc) else lc
        per = f"\n(attracting cycle, period {near.period.iloc[0]:.1f} in t)" if len(near) else ""
        (h,) = ax.plot([0], [0], marker="*", color="k", mec="white", mew=0.7, ms=11, ls="", zorder=6,
                       label=f"base weights A₀, V₀{per}")
        handles.setdefault(h.get_label(), h)
    fam = name if name in grids else None
    if fam:
        g = grids[fam]
        for h in regime_scatter(ax, g.x, g.y, g.regime_oa, size=9, edge=0):
            h.set_zorder(max(h.get_zorder(), 2))  # the grid's labels over the periodic-orbit markers
            handles.setdefault(h.get_label(), h)
    ax.set_xlabel(AXIS.get(t.x_name.iloc[0], t.x_name.iloc[0]))
    ax.set_ylabel(AXIS.get(t.y_name.iloc[0], t.y_name.iloc[0]))
    ax.set_title(TITLES.get(name, name.replace("_", "-")), fontsize=7)
    panel_letter(ax, "abcdefgh"[k], x=-0.18)
fig.tight_layout(rect=(0, 0, 1, 1 - 0.62 / height), h_pad=0.6)
leg = fig.legend(handles=list(handles.values()), loc="upper center", ncol=4, fontsize=5.5, frameon=False,
                 bbox_to_anchor=(0.5, 1 - 0.13 / height), handletextpad=0.4, columnspacing=1.2)
fig.suptitle("C11 (beyond the paper): bifurcation curves of the OA flow, continued; markers: the grid points' OA labels",
             fontsize=7, y=0.995)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
