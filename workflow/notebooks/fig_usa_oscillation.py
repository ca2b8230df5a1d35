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
# # The fate of the USA oscillation (claim C7)
# d = 2 USA, A = I, V the case-4 centre. (a) exit time (|Z₁| first reaching the threshold) against n for i.i.d.
# starts, one colour per β; open markers at t_max: runs that had not left by then. (b) |Z₁|(t) of the symmetric
# start at each β (round-off grows only where the symmetric orbit is unstable) and of one i.i.d. run per β at the
# largest n (dotted). (c) the linearised first-harmonic growth rate about the symmetric orbit against β, with the rate
# measured on the symmetric runs. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from lsadyn_workflow.io import atomic_path, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_usa_oscillation")
sm = snakemake
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
table = load_table(sm.input.table, "usa_oscillation_run")
growth = load_table(sm.input.growth, "usa_oscillation_growth")
series = load_table(sm.input.series, "usa_oscillation_series")
table["start"] = table["start"].astype(str)
betas = sorted(table.beta.unique())
colour = dict(zip(betas, plt.cm.viridis(np.linspace(0.0, 0.85, len(betas)))))
iid = table[table.start != "symmetric"]

# %%
fig, axes = plt.subplots(1, 3, figsize=(2 * COLUMN_WIDTH, 2.9))
ax = axes[0]
for i, b in enumerate(betas):
    g = iid[iid.beta == b]
    left = g[g.exit_time.notna()]
    stayed = g[g.exit_time.isna()]
    # each β just beside the others at the same n, and each run of a (β, n) beside the others (runs that stayed all
    # sit at t_max), so no marker hides another
    nudge = 10 ** (0.06 * (i - (len(betas) - 1) / 2))
    by_n = g.groupby("n")
    seed_nudge = 10 ** (0.018 * (by_n.cumcount() - (by_n.n.transform("size") - 1) / 2))
    ax.scatter(left.n * nudge * seed_nudge[left.index], left.exit_time, color=colour[b], s=14, label=f"β = {b:g}",
               zorder=3)
    ax.scatter(stayed.n * nudge * seed_nudge[stayed.index], stayed.t_max, facecolors="none", edgecolors=colour[b],
               s=14, zorder=3)
    med = g.assign(e=g.exit_time.fillna(np.inf)).groupby("n").e.median()
    ok = np.isfinite(med.to_numpy())
    if ok.sum() > 1:
        ax.plot(med.index[ok] * nudge, med.to_numpy()[ok], color=colour[b], lw=0.8)
ax.axhline(float(table.t_max.max()), color="0.6", lw=0.6, ls="--")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("tokens n")
ax.set_ylabel(r"exit time ($\tau$)")
ax.set_title(r"i.i.d. starts; open: not left by $t_{max}$", fontsize=7)
extra = [Line2D([], [], color="0.3", lw=0.8, label="median exit time"),
         Line2D([], [], color="0.6", lw=0.6, ls="--", label="$t_{max}$")]
# below the panels, for all of them: β is the colour in (a) and (b)
fig.legend(handles=ax.get_legend_handles_labels()[0] + extra, fontsize=6, loc="outside lower center",
           ncol=len(betas) + len(extra), frameon=False, title="β: colour in (a) and (b)", title_fontsize=6)
panel_letter(ax, "a", x=-0.25)

ax = axes[1]
for b in betas:
    sym = table[(table.beta == b) & (table.start == "symmetric")]
    for rid in sym.run_id:
        s = series[series.run_id == rid]
        ax.plot(s.t, np.maximum(s.abs_Z1, 1e-18), color=colour[b], lw=1.0)
    g = iid[(iid.beta == b)]
    if len(g):
        rid = g[g.n == g.n.max()].run_id.iloc[0]
        s = series[series.run_id == rid]
        ax.plot(s.t, s.abs_Z1, color=colour[b], lw=0.7, ls=":")
ax.set_yscale("log")
ax.set_ylim(1e-18, 2)
ax.set_xlabel(r"t ($\tau$)")
ax.set_ylabel(r"$|Z_1(t)|$")
ax.set_title("solid: symmetric; dotted: i.i.d.", fontsize=7)
panel_letter(ax, "b", x=-0.25)

ax = axes[2]
ax.plot(growth.beta, growth.growth_rate, "k.-", lw=0.8, ms=4, label="linearised")
m = growth[growth.measured_rate.notna()]
ax.plot(m.beta, m.measured_rate, "o", mfc="none", color="#D55E00", ms=6, label="measured")
ax.axhline(0.0, color="0.6", lw=0.6)
ax.set_xlabel(r"$\beta$")
ax.set_ylabel(r"growth rate of $Z_1$ (1/$\tau$)")
ax.set_title("about the symmetric orbit", fontsize=7)
ax.legend(fontsize=6, loc="upper right", frameon=False)
panel_letter(ax, "c", x=-0.25)
# the claim (row C7-usa-oscillation), counted from the tables drawn
unstable = growth[~growth.neutral.astype(bool)].beta
n_left = int(iid.exit_time.notna().sum())
fig.suptitle("C7-usa-oscillation (beyond the paper): how long the $d = 2$ USA oscillation (case 4's centre) lasts;\n"
             + (f"its symmetric orbit is unstable at β ∈ {{{', '.join(f'{b:g}' for b in unstable)}}}, "
                if len(unstable) else "its symmetric orbit is neutral at every β, ")
             + f"and {n_left} of {len(iid)} i.i.d. runs leave it by $t_{{max}}$", fontsize=8)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
