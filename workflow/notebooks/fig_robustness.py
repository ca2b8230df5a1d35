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
# # Robustness (claim C8, beyond the paper): regimes under perturbed and quantised weights
# Fraction of runs keeping the regime of the unperturbed (A, V), against the relative perturbation size
# δ = ‖A′ − A‖_F/‖A‖_F = ‖V′ − V‖_F/‖V‖_F and against the bit width b of the quantiser, per scenario
# (rows) and model (LSA solid circles, USA dashed squares), at each dimension of the config.
# Open markers: some runs at that point stayed `undetermined` (counted as not kept). Crosses (clustered
# scenarios): the fraction the eigenvalue criterion predicts to keep the regime. Vertical lines
# (clustered scenarios): δ_min = |m₀|/‖V‖_F below which the rotation margin m₀ cannot change sign, and
# δ_typ = d·δ_min. Reads results/tables/robustness.csv only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from lsadyn.paper.io import load_table
from lsadyn.paper.plotting import OKABE_ITO, REGIME_STYLE, save_figure, style
from lsadyn.paper.robustness import kept_fractions, thresholds

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    TABLE, PDF, PNG, DPI = sm.input.table, sm.output.pdf, sm.output.png, sm.params.dpi
except NameError:  # opened in Jupyter: read the default build
    TABLE = "results/tables/robustness.csv"
    PDF, PNG, DPI = "paper_figures/fig_robustness.pdf", "paper_figures/fig_robustness.png", 200

style()
table = load_table(TABLE, "robustness_run")
fr = kept_fractions(table)
th = thresholds(table)
scenarios = list(dict.fromkeys(table.scenario))
dims = sorted(table.d.unique())
models = list(dict.fromkeys(table.model))
MODEL_STYLE = {"lsa": dict(color=OKABE_ITO[0], ls="-", marker="o", ms=3.5),
               "usa": dict(color=OKABE_ITO[3], ls="--", marker="s", ms=4.5)}

# %%
cols = [("perturb", d) for d in dims] + [("quantise", d) for d in dims]
fig, axes = plt.subplots(len(scenarios), len(cols), figsize=(1.75 * len(cols) + 0.9, 1.2 * len(scenarios) + 1.3),
                         sharey=True, sharex="col", squeeze=False)
for i, sc in enumerate(scenarios):
    for j, (kind, d) in enumerate(cols):
        ax = axes[i, j]
        for model in models:
            g = fr[(fr.scenario == sc) & (fr.d == d) & (fr.model == model) & (fr.kind == kind)].sort_values("level")
            if not len(g):
                continue
            st = MODEL_STYLE.get(model, dict(color="k", ls=":", marker="^", ms=4))
            ax.plot(g.level, g.fraction_kept, color=st["color"], ls=st["ls"], lw=0.9)
            for x, y, u in zip(g.level, g.fraction_kept, g.undetermined):
                ax.plot([x], [y], marker=st["marker"], ms=st["ms"], color=st["color"],
                        mfc="white" if u else st["color"], mew=0.8, ls="", clip_on=False, zorder=4)
            ok = np.isfinite(g.fraction_predicted)
            ax.plot(g.level[ok], g.fraction_predicted[ok], marker="x", ms=5 if model == "lsa" else 3.5, mew=0.9,
                    color="k" if model == "lsa" else "0.5", ls="", clip_on=False, zorder=5)
        t = th[(th.scenario == sc) & (th.d == d)]
        if kind == "perturb":
            ax.set_xscale("log")
            if len(t) and t.delta_min.iloc[0] <= 1.5 * table[(table.d == d)].delta.max():
                ax.axvline(t.delta_min.iloc[0], color="0.35", lw=0.8, ls=(0, (4, 2)), zorder=1)
                if t.delta_typ.iloc[0] <= 1.5 * table[(table.d == d)].delta.max():
                    ax.axvline(t.delta_typ.iloc[0], color="0.35", lw=0.8, ls=":", zorder=1)
        else:
            bits = sorted(table[(table.d == d) & (table.kind == "quantise")].bits.unique())
            ax.set_xticks(bits)
            ax.set_xlim(min(bits) - 0.7, max(bits) + 0.7)
            q = table[(table.scenario == sc) & (table.d == d) & (table.kind == "quantise")]
            if len(q) and q.rel_change_V.max() == 0 and q.rel_change_A.max() == 0:
                ax.text(0.5, 0.45, "A, V on the grid:\nquantisation exact", transform=ax.transAxes, ha="center",
                        va="center", fontsize=6, color="0.35")
        ax.set_ylim(-0.06, 1.08)
        ax.grid(True, lw=0.3, alpha=0.5)
        ref = table[(table.scenario == sc) & (table.d == d) & (table.kind == "none")]
        refs = "/".join(REGIME_STYLE[r]["short"] if r in REGIME_STYLE else r for r in ref.regime)
        ax.text(0.0, 1.02, f"unperturbed: {refs}", transform=ax.transAxes, fontsize=5.5, color="0.3", va="bottom")
        if i == 0:
            what = "perturbation δ" if kind == "perturb" else "quantisation b"
            ax.set_title(rf"$\bf{{({'abcdefgh'[j]})}}$ {what}, $d = {d}$" + "\n", fontsize=8)
        if i == len(scenarios) - 1:
            ax.set_xlabel(r"relative size $\delta$" if kind == "perturb" else "bits $b$")
    axes[i, 0].set_ylabel(sc.replace("_", " ") + "\nfraction kept", fontsize=7)
handles = [Line2D([], [], color=MODEL_STYLE[m]["color"], ls=MODEL_STYLE[m]["ls"], marker=MODEL_STYLE[m]["marker"],
                  ms=MODEL_STYLE[m]["ms"], lw=0.9, label=m.upper()) for m in models if m in MODEL_STYLE]
handles += [Line2D([], [], color="k", marker="o", mfc="white", ls="", ms=4, label="some runs undetermined"),
            Line2D([], [], color="k", marker="x", ls="", ms=5, label="predicted kept (eigenvalue criterion; LSA black, USA grey)"),
            Line2D([], [], color="0.35", ls=(0, (4, 2)), lw=0.8, label=r"$\delta_{min} = |m_0|/\|V\|_F$"),
            Line2D([], [], color="0.35", ls=":", lw=0.8, label=r"$\delta_{typ} = d\,\delta_{min}$")]
fig.legend(handles=handles, loc="outside lower center", ncol=4, frameon=False, fontsize=7)
fig.suptitle("C8 (beyond the paper): fraction of runs keeping the unperturbed regime under weight perturbation "
             r"$A + \delta\|A\|_F G/\|G\|_F$ and $b$-bit quantisation", fontsize=8.5)
save_figure(fig, PDF, PNG, DPI)
