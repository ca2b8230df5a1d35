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
# # Off the OA manifold: tokens keep oscillating about the OA interior point
# (a) Peak-to-peak amplitude of |R₂| in the final window against the distance D of the token population
# from the OA manifold (conserved by the flow), for a fixed density 1 + s cos 4θ at several n and for
# i.i.d. starts. (b) |R₂(t)| at the largest s for the smallest and largest n, and OA. Reads results only.
# s is the density's amplitude (config offmanifold.eps, column eps); ε is kept for the bounded-Lipschitz
# distance of fig_stability and claim C6.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_arrays, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_offmanifold")
sm = snakemake
TABLE, TRACES, PDF, PNG, DPI = sm.input.table, sm.input.traces, sm.output.pdf, sm.output.png, sm.params.dpi

style()
df = load_table(TABLE)
tr = load_arrays(TRACES)
ns = sorted(df.n.unique())
colors = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9"]
col = {n: colors[i % len(colors)] for i, n in enumerate(ns)}

# %%
fig, (ax, bx) = plt.subplots(1, 2, figsize=(COLUMN_WIDTH * 2, 2.9), gridspec_kw={"width_ratios": [1, 1.3]})
dens, iid = df[df.start == "density"], df[df.start == "iid"]
# the density runs of every n sit at the same D with (nearly) the same amplitude: concentric rings, largest for the
# smallest n, the largest n a filled dot, so every n stays visible without moving a point off its D
ring = dict(zip(ns, np.linspace(70, 8, len(ns)) if len(ns) > 1 else [20]))
h_dens, h_iid = [], []
for n in ns:
    d = dens[dens.n == n]
    last = n == ns[-1]
    h_dens.append(ax.scatter(d.oa_distance, d.amplitude, s=ring[n], marker="o", facecolors=col[n] if last else "none",
                             edgecolors=col[n], linewidths=0.9, zorder=3, label=f"density, $n = {n}$"))
    i = iid[iid.n == n]
    h_iid.append(ax.scatter(i.oa_distance, i.amplitude, s=14, facecolors="none", edgecolors=col[n], marker="s",
                            label=f"i.i.d., $n = {n}$"))
# runs the decision procedure left undetermined (their amplitude is that of their last window): a cross on the marker
und = df[df.regime_tokens != "oscillate"]
h_und = []
if len(und):
    h_und.append(ax.scatter(und.oa_distance, und.amplitude, marker="x", color="0.2", s=16, linewidths=0.8, zorder=4,
                            label=f"{', '.join(sorted(set(und.regime_tokens)))} run (its last window)"))
k = float(np.dot(df.oa_distance, df.amplitude) / np.dot(df.oa_distance, df.oa_distance))
x = np.array([0, df.oa_distance.max() * 1.1])
(h_fit,) = ax.plot(x, k * x, color="0.3", lw=0.7, ls="--", label=f"amplitude $= {k:.2f}\\,D$")
ax.set_xlim(0, x[-1])
ax.set_ylim(0, None)
ax.set_xlabel(r"distance from the OA manifold $D$")
ax.set_ylabel(r"peak-to-peak of $|R_2|$ (final window)")
ax.set_title(r"(a) oscillation amplitude against $D$")
# below the axes: the fitted line runs from the origin to the top right, through any corner legend. Two columns
# filled top to bottom (density | i.i.d.), so each row reads as plotted: density n, then i.i.d. n, n ascending,
# the fit last; the markers are open so that the runs of every n at one D stay visible (the largest n filled)
ax.legend(handles=[*h_dens, h_fit, *h_iid, *h_und], fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2,
          frameon=False, columnspacing=1.5, handletextpad=0.3,
          title="density: one ring per $n$ at the same $D$ (largest $n$ filled)", title_fontsize=6)

top = dens.eps.max() if len(dens) else np.nan
styles = {ns[0]: dict(lw=2.2, alpha=0.45), ns[-1]: dict(lw=0.9, ls=(0, (3, 2)), zorder=3)}
for n in (ns[0], ns[-1]):
    key = f"density_n{n}"
    if f"{key}_t" in tr:
        bx.plot(tr[f"{key}_t"], tr[f"{key}_abs_R2"], color=col[n], label=f"tokens, $n = {n}$", **styles[n])
if f"density_n{ns[0]}_abs_R2_oa" in tr:
    bx.plot(tr["oa_t"], tr[f"density_n{ns[0]}_abs_R2_oa"], color="k", lw=0.7, label="OA, same $R_2(0)$")
lim = df[(df.start == "density") & (df.eps == top)]
if len(lim):  # zoom on the oscillation about the OA limit (the rise from |R2(0)| ~ 0 is cut)
    r_star, amp = float(lim.abs_R2_oa.iloc[0]), float(lim.amplitude.max())
    bx.set_ylim(r_star - 1.5 * amp, r_star + 1.2 * amp)
bx.set_xlabel(r"$t$ ($\beta = 1$)")
bx.set_ylabel(r"$|R_2(t)|$")
bx.set_title(rf"(b) density $1 + s\cos 4\theta$, $s = {top:g}$ ($D = s/4 = {top / 4:g}$)")
bx.legend(fontsize=6, loc="lower right", frameon=False)
fig.suptitle(r"C1b beyond the OA manifold ($V = I$, sym$(A) \prec 0$): $|R_2|$ of tokens off the manifold "
             r"and the OA interior point",
             fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
