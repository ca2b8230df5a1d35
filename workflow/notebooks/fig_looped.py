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
# # Trained looped layers (claim C14, beyond the paper)
# (a) Training: the loss of each (task, model) against Adam steps, first seed dark, second light, with the task's
# baseline (dashed). (b) r of each model's first seed from uniform tokens, layer by layer (circles: the looped
# network at its own step h, against t = l·h) beside the flow of the same (A, V, β) (line). (c) Regimes per task and
# model: the flow's certified label (left bar) and the looped network's, certified on its own map, at loop_factor ×
# its training depth (right bar). (d) The network's turning rate against the flow's (dots) and its one-cluster map's
# (squares), one mark per model and seed where both turn (the two starts turn alike; grey ×: the network makes
# less than one turn in its read window, so its rate is not read). The title's counts are the
# claims rows' (lsadyn.paper.looped.summary). Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from lsadyn_workflow.io import atomic_path, load_arrays, load_table

from lsadyn.paper.looped.summary import claim_rows, whole_turns
from lsadyn.paper.plotting import COLUMN_WIDTH, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_looped")
sm = snakemake
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
table = load_table(sm.input.table, "looped")
curves = pd.concat([load_table(p, "looped_train") for p in sm.input.curves], ignore_index=True)
arrays = {p: load_arrays(p) for p in sm.input.arrays}
jobs = list(dict.fromkeys(zip(table.task, table.model)))
colour = dict(zip(jobs, ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]))
REGIMES = ["cluster_converge", "cluster_rotate", "interior_converge", "oscillate", "undetermined"]
SHADE = dict(zip(REGIMES, ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "0.75"]))

# %%
fig, axes = plt.subplots(2, 2, figsize=(2 * COLUMN_WIDTH, 5.6), layout="constrained")
ax = axes[0, 0]
for job in jobs:
    g = curves[(curves.task == job[0]) & (curves.model == job[1])]
    cannot = job == ("majority", "lsa")
    for k, (seed, s_) in enumerate(g.groupby("seed")):
        ax.plot(s_.step, s_.loss, color=colour[job], lw=1, alpha=0.95 if k == 0 else 0.45,
                label=(f"{job[0]} {job[1].upper()}" + (" (cannot learn it: at its baseline)" if cannot else ""))
                if k == 0 else None)
    ax.axhline(g.baseline_loss.iloc[0], color=colour[job], ls=(0, (5, 3)), lw=0.9, alpha=0.8)
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("training loss (dark: first seed, light: second;\ndashed: the task's baseline)")
ax.legend(fontsize=5.5, loc="lower left")
panel_letter(ax, "a")

ax = axes[0, 1]
for job in jobs:
    key = [p for p in arrays if p.endswith(f"{job[0]}-{job[1]}.npz")][0]
    a = arrays[key]
    seed = min(int(k.split("_")[0][1:]) for k in a if k.endswith("_uniform_t"))
    t, rl, rf = (a[f"s{seed}_uniform_{k}"] for k in ("t", "r_loop", "r_flow"))
    ax.plot(t, rf, color=colour[job], lw=1)
    ax.plot(t, rl, "o", ms=2.2, color=colour[job], mfc="none", mew=0.6, alpha=0.8)
ax.set_xscale("symlog", linthresh=1.0)
ax.set_xlabel("$t = l\\,h$ (layer $l$, step $h$)")
ax.set_ylabel("$r = (d\\lambda_{max}(M) - 1)/(d - 1)$")
ax.set_title("first seed, uniform tokens (colours of (a)); $M = \\sum_k x_k x_k^{\\top}/n$", fontsize=6.5)
ax.set_ylim(-0.05, 1.05)
ax.plot([], [], "k-", lw=1, label="flow")
ax.plot([], [], "ko", ms=2.6, mfc="none", label="looped network")
ax.legend(fontsize=6, loc="lower right")
panel_letter(ax, "b")

ax = axes[1, 0]
x = np.arange(len(jobs))
for side, (col, off) in enumerate((("predicted_regime", -0.2), ("observed_regime", 0.2))):
    bottom = np.zeros(len(jobs))
    for reg in REGIMES:
        cnt = np.array([int(((table.task == j[0]) & (table.model == j[1]) & (table[col] == reg)).sum()) for j in jobs])
        ax.bar(x + off, cnt, 0.36, bottom=bottom, color=SHADE[reg], edgecolor="white", lw=0.5,
               label=reg.replace("_", " ") if side == 0 else None)
        bottom += cnt
    for xi, top in zip(x + off, bottom):
        ax.text(xi, top + 0.05, "flow" if side == 0 else "net", ha="center", va="bottom", fontsize=5.5)
ax.set_xticks(x, [f"{j[0]}\n{j[1].upper()}" for j in jobs], fontsize=7)
ax.set_ylabel("runs")
ax.set_ylim(0, 1.6 * max(1, table.groupby(["task", "model"]).size().max()))
ax.legend(fontsize=5.5, loc="upper center", ncol=3)
panel_letter(ax, "c")

ax = axes[1, 1]
rot = table[(table.predicted_regime == "cluster_rotate") & (table.observed_regime == "cluster_rotate")]
rot = rot.assign(read=whole_turns(rot) >= 1).drop_duplicates(["task", "model", "seed"])  # the two starts turn alike
if len(rot):
    for job in jobs:
        g = rot[(rot.task == job[0]) & (rot.model == job[1])]
        if not len(g):
            continue
        r = g[g.read]
        ax.scatter(r.predicted_rate, r.observed_rate, s=18, color=colour[job], label=f"{job[0]} {job[1].upper()}: flow")
        ax.scatter(r.map_rate, r.observed_rate, s=40, facecolors="none", edgecolors=colour[job], marker="s",
                   label=f"{job[0]} {job[1].upper()}: one-cluster map at h")
        n = g[~g.read]
        if len(n):
            ax.scatter(n.predicted_rate, n.observed_rate, s=22, color="0.55", marker="x",
                       label=f"{job[0]} {job[1].upper()}: flow, network < 1 turn (not read)")
    rates = np.abs(np.r_[rot.predicted_rate, rot.observed_rate, rot.map_rate])
    rates = rates[np.isfinite(rates) & (rates > 0)]
    lo, hi = rates.min() / 1.6, rates.max() * 1.6
    ax.plot([lo, hi], [lo, hi], color="0.6", lw=0.8, ls=":", label="equal rates")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.legend(fontsize=5.5, loc="upper left")
else:
    ax.text(0.5, 0.5, "no trained model turns on both sides", ha="center", va="center", transform=ax.transAxes,
            fontsize=7)
ax.set_xlabel("predicted rate of arg $R_2$ (per unit $t$; $d > 2$: twice the axis's turn)")
ax.set_ylabel("looped network's rate (per unit $t$)")
panel_letter(ax, "d")

rows = pd.DataFrame(claim_rows(table))


def tally(prefix):
    g = rows[rows.id.str.startswith(prefix)]
    return int(g.n_agree.sum()), int(g.n_tested.sum()), int(g.n_undetermined.sum())


a_ok, a_n, _ = tally("C14a")
b_ok, b_n, b_und = tally("C14b")
c_ok, c_n, c_und = tally("C14c")
c_n -= c_und
lf = int(table.L_observed.iloc[0] // table.L.iloc[0])
d_ok, d_n, _ = tally("C14d")
fig.suptitle(f"C14 (beyond the paper): {a_ok} of {a_n} trained layers meet their loss statement (C14a);\n"
             f"the network's regime (certified on its own map within {lf}× its depth) is the flow's in {b_ok} of "
             f"{b_n - b_und} runs certified on both sides (C14b; {b_und} undetermined);\n"
             f"it turns at its one-cluster map's rate in {c_ok} of {c_n} runs with a whole turn to read (C14c); "
             f"quantised weights keep the flow's regime in {d_ok} of {d_n} (C14d)", fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
