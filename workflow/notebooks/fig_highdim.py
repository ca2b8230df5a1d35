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
# # High dimension (claim C7): d = 2 behaviours at d = 100, LSA and USA side by side
# r(t) = (d λ_max(M) − 1)/(d − 1), the angle swept by the leading axis of M, and histograms of
# pairwise inner products ⟨x_i, x_j⟩ at the last time. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np

from lsadyn.paper.io import read_csv
from lsadyn.paper.plotting import COLUMN_WIDTH, REGIME_STYLE, save_figure, style

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    ARRAYS, TABLE, SCEN = list(sm.input.arrays), sm.input.table, list(sm.params.scenarios)
    PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi
except NameError:  # opened in Jupyter: read the default build
    TABLE = "results/tables/highdim.csv"
    SCEN = sorted(read_csv(TABLE).scenario.unique())
    ARRAYS = [f"results/highdim/{s}.npz" for s in SCEN]
    PDF, PNG, DPI = "paper_figures/fig_highdim.pdf", "paper_figures/fig_highdim.png", 200

style()
table = read_csv(TABLE)
data = {s: np.load(p) for s, p in zip(SCEN, ARRAYS)}
models = list(dict.fromkeys(table.model))
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"]

# %%
fig, axes = plt.subplots(3, len(models), figsize=(COLUMN_WIDTH, 5.6), sharey="row", squeeze=False,
                         gridspec_kw={"height_ratios": [1.4, 1, 1]})
for j, model in enumerate(models):
    for k, s in enumerate(SCEN):
        a = data[s]
        row = table[(table.scenario == s) & (table.model == model)].iloc[0]
        t = a[f"{model}_t"]
        lab = f"{s}: {REGIME_STYLE[row.regime]['label']}".replace("_", " ")
        axes[0, j].plot(t / t[-1], a[f"{model}_r"], color=colors[k % 7], label=lab)
        axes[1, j].plot(t / t[-1], a[f"{model}_swept_angle"], color=colors[k % 7])
        edges = a[f"{model}_bin_edges"]
        centres = (edges[1:] + edges[:-1]) / 2
        axes[2, j].plot(centres, a[f"{model}_histograms"][-1], color=colors[k % 7], drawstyle="steps-mid")
    d = int(table.d.iloc[0])
    axes[0, j].set_title(f"{model.upper()}, d = {d}, n = {int(table.n_tokens.iloc[0])}")
    axes[0, j].set_xlabel(r"$t/t_{\max}$")
    axes[1, j].set_xlabel(r"$t/t_{\max}$")
    axes[2, j].set_xlabel(r"$\langle x_i, x_j\rangle$ at $t_{\max}$")
    axes[0, j].legend(fontsize=4, loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)
axes[0, 0].set_ylabel(r"$r(t)$")
axes[1, 0].set_ylabel("axis angle swept")
axes[2, 0].set_ylabel("density")
save_figure(fig, PDF, PNG, DPI)
