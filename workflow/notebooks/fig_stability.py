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
# # Structural stability beyond the OA manifold (claim C6)
# Final-state discrepancy |R₂^tokens − R₂^OA| (mean over the classification window) against the
# initial distance ε = d_BL(μ₀, uniform), per perturbation family, one panel per (A, V). Filled
# markers: the tokens reach the OA regime; crosses: they do not. Dashed: ε_small of the claims
# table. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from lsadyn.paper.io import read_csv
from lsadyn.paper.plotting import COLUMN_WIDTH, save_figure, style

try:
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    TABLE, PDF, PNG, DPI = sm.input.table, sm.output.pdf, sm.output.png, sm.params.dpi
    EPS = sm.params.eps_small
except NameError:  # opened in Jupyter: read the default build
    TABLE, DPI = "results/tables/stability.csv", 200
    PDF, PNG = "paper_figures/fig_stability.pdf", "paper_figures/fig_stability.png"
    EPS = 0.05

style()
st = read_csv(TABLE)
regimes = list(dict.fromkeys(st.regime))
fam_style = {"harmonics": ("o", "#0072B2"), "von_mises": ("s", "#E69F00"), "clumps": ("^", "#009E73"),
             "random": ("D", "#CC79A7")}

# %%
ncol = 2
nrow = int(np.ceil(len(regimes) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(COLUMN_WIDTH, 1.6 * nrow + 0.4), sharex=True, sharey=True,
                         squeeze=False)
floor = 1e-6
for ax, reg in zip(axes.flat, regimes):
    g = st[st.regime == reg]
    for fam, (marker, color) in fam_style.items():
        f = g[g.family == fam]
        same = f.regime_tokens == f.regime_oa
        ax.scatter(f.eps[same], np.maximum(f.discrepancy[same], floor), marker=marker, color=color, s=10,
                   label=fam.replace("_", " "))
        ax.scatter(f.eps[~same], np.maximum(f.discrepancy[~same], floor), marker="x", color=color, s=12)
    ax.axvline(EPS, color="0.4", lw=0.6, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    tag = "theorem" if bool(g.hypothesis.iloc[0]) else "outside theorem"
    ax.set_title(f"{g.statement.iloc[0]}\n({tag})", fontsize=5.5)
for ax in axes[-1]:
    ax.set_xlabel(r"$\varepsilon = d_{BL}(\mu_0, \mathrm{unif})$")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$|R_2^{\rm tok} - R_2^{\rm OA}|$")
for ax in axes.flat[len(regimes):]:
    ax.set_visible(False)
axes[0, 0].legend(fontsize=4.5, loc="lower right")
save_figure(fig, PDF, PNG, DPI)
