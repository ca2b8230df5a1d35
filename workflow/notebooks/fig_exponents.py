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
# # Stability numbers (claim C13, beyond the paper)
# (a) The two largest Lyapunov exponents of the token runs of results/tables/exponents.csv against d, LSA and USA,
# with the OA flow's leading exponent of each scenario's 2 × 2 block (dashed); at d = 2 the tokens start on the OA
# manifold. (b) Rotating clusters: the normal Floquet exponent λ⊥ from the monodromy matrix against the closed form
# (results/tables/floquet.csv); points with the same pair lie on one another and carry their count (×n); the largest
# difference is read at the table's precision. (c) Basin fractions of the OA attractors at the multistable points
# (results/tables/basins.csv) with 95 % intervals. (d) Token runs that end in clusters (results/tables/highdim.csv and
# persistence.csv): the differential exponent measured from r(t) (half the slope of log(1 − r)) against the one
# predicted from the final cluster (lsadyn.exponents.cluster), where both are there; how many clustered rows carry
# both, one or neither is given. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from lsadyn_workflow.io import FLOAT_FORMAT, atomic_path, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, OKABE_ITO, REGIME_STYLE, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_exponents")
sm = snakemake
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
ex = load_table(sm.input.table, "exponents")
fl = load_table(sm.input.floquet, "floquet")
bs = load_table(sm.input.basins, "basins")
CONTRACTION = ["model", "d", "regime", "contraction_exponent", "contraction_exponent_theory"]
runs = pd.concat([load_table(sm.input.highdim, "highdim_run")[CONTRACTION],
                  load_table(sm.input.persistence, "persistence_run")[CONTRACTION]], ignore_index=True)
runs = runs[runs.regime.isin(["cluster_converge", "cluster_rotate"])]
MODEL_STYLE = {"lsa": {"ls": "-", "marker": "o"}, "usa": {"ls": "--", "marker": "s"}}

# %%
fig, axes = plt.subplots(1, 4, figsize=(2.55 * COLUMN_WIDTH, 2.9), gridspec_kw={"width_ratios": [1.4, 1, 1.2, 1]})
ax = axes[0]
colours = {}
for k, (scenario, g) in enumerate(ex.groupby("scenario", sort=False)):
    colour = colours[scenario] = REGIME_STYLE.get(g.expect.iloc[0], {}).get("color", OKABE_ITO[k % len(OKABE_ITO)])
    for model, h in g.groupby("model", sort=False):
        h = h.sort_values("d")
        st = MODEL_STYLE[model]
        ax.plot(h.d, h.lyap_1, color=colour, ls=st["ls"], marker=st["marker"], ms=3)
        ax.plot(h.d, h.lyap_2, color=colour, ls=st["ls"], marker=st["marker"], ms=3, mfc="none", lw=0.6)
    ax.axhline(g.oa_exponent.iloc[0], color=colour, ls=":", lw=0.9)
ax.axhline(0, color="0.6", lw=0.4)
ax.set_xscale("log")
dims = sorted(ex.d.unique())
ax.set_xticks(dims, [str(d) for d in dims])
ax.minorticks_off()
ax.set_xlabel("d")
ax.set_ylabel("Lyapunov exponent of the token run")
ax.set_title("token runs: $\\lambda_1$ filled, $\\lambda_2$ open;\nOA leading exponent dotted", fontsize=6.5)
handles = [plt.Line2D([], [], color=c, lw=1.2, label=s) for s, c in colours.items()]
handles += [plt.Line2D([], [], color="0.3", ls=st["ls"], marker=st["marker"], ms=3, label=m.upper())
            for m, st in MODEL_STYLE.items() if m in set(ex.model)]
ax.legend(handles=handles, fontsize=5, ncol=2, loc="lower right", frameon=False)
panel_letter(ax, "a", x=-0.2)

ax = axes[1]
# rotating points at the same λ⊥ (e.g. one per family at the same σ, μ) lie on one another: one marker per distinct
# point, labelled with how many it stands for
digits = int(FLOAT_FORMAT.strip("%g").lstrip("."))  # the table's significant digits (lsadyn_workflow.io)
pts = fl.groupby([fl.exponent.round(9), fl.exponent_numeric.round(9)]).size()
xs, ys = np.array([k[0] for k in pts.index]), np.array([k[1] for k in pts.index])
ax.plot(xs, ys, "o", ms=3.5, color=REGIME_STYLE["cluster_rotate"]["color"], zorder=3)
for x, y, n in zip(xs, ys, pts.to_numpy()):
    if n > 1:
        ax.annotate(f"×{n}", (x, y), xytext=(4, -2), textcoords="offset points", fontsize=5.5, va="top")
lim = [fl.exponent.min() * 1.1, 0]
ax.plot(lim, lim, color="0.5", lw=0.6, zorder=0)
# |numeric - closed form|; both columns are written with the table's significant digits, so a difference below
# that precision reads as 0 there: said so, rather than '0.0e+00'
err = float(np.abs(fl.exponent_numeric - fl.exponent).max())
scale = float(np.abs(fl.exponent).max())
err_text = f"< {scale * 10.0 ** (1 - digits):.0e} (table's\n{digits} digits: equal)" if err == 0 else f"{err:.2g}"
ax.text(0.04, 0.96, f"×n: n points overlap\nmax |numeric − closed|\n{err_text}", transform=ax.transAxes, va="top",
        fontsize=5.5)
ax.set_xlabel("λ⊥, closed form on the circle |R₂| = 1")
ax.set_ylabel("λ⊥ from the monodromy matrix")
ax.set_title(f"Floquet exponent of rotating\nclusters: {len(fl)} points, {len(pts)} distinct", fontsize=6.5)
panel_letter(ax, "b", x=-0.3)

ax = axes[2]
labels, ticks, y = [], [], 0.0
for point, g in bs.groupby("point", sort=False):
    for r in g[g.attractor >= 0].itertuples():
        colour = REGIME_STYLE[r.regime]["color"]
        ax.barh(y, r.fraction, xerr=[[r.fraction - r.ci_low], [r.ci_high - r.fraction]], color=colour, height=0.7,
                error_kw={"lw": 0.6, "capsize": 1.5})
        labels.append(f"{point.replace('_', ' ')}\n{REGIME_STYLE[r.regime]['short']} (λ = {r.exponent:.2f})")
        ticks.append(y)
        y += 1
    y += 0.5
ax.set_yticks(ticks, labels, fontsize=4.5)
ax.invert_yaxis()
ax.set_xlim(0, 1)
ax.set_xlabel(f"basin fraction ({int(bs.n_samples.iloc[0])} starts in the disc)")
ax.set_title("OA multistable points:\nbasins, 95 % intervals", fontsize=6.5)
panel_letter(ax, "c", x=-0.6)

ax = axes[3]
both = runs.dropna(subset=["contraction_exponent", "contraction_exponent_theory"])
for (model, regime), g in both.groupby(["model", "regime"], sort=True):
    ax.plot(g.contraction_exponent_theory, g.contraction_exponent, MODEL_STYLE[model]["marker"], ms=3, mfc="none",
            color=REGIME_STYLE[regime]["color"], label=f"{model.upper()}, {REGIME_STYLE[regime]['short']}")
if len(both):
    lo = float(min(both.contraction_exponent.min(), both.contraction_exponent_theory.min())) * 1.1
    ax.plot([lo, 0], [lo, 0], color="0.5", lw=0.6, zorder=0)
    ax.legend(fontsize=5, loc="lower right", frameon=False)  # below the diagonal: empty
measured, predicted = runs.contraction_exponent.notna(), runs.contraction_exponent_theory.notna()
counts = {"both (shown)": len(both), "measured only": int((measured & ~predicted).sum()),
          "predicted only": int((~measured & predicted).sum()), "neither": int((~measured & ~predicted).sum())}
ax.text(0.04, 0.96, f"{len(runs)} clustered runs:\n" + "\n".join(f"{v} {k}" for k, v in counts.items()), fontsize=5.5,
        transform=ax.transAxes, ha="left", va="top")  # above the diagonal: empty
ax.set_xlabel("predicted from the final cluster")
ax.set_ylabel("measured: ½ slope of log(1 − r)")
ax.set_title("clustered token runs: how fast\nthe cluster tightens (1 / t)", fontsize=6.5)
panel_letter(ax, "d", x=-0.3)
fig.suptitle("C13 (beyond the paper): stability numbers — Lyapunov, Floquet, basins, cluster contraction",
             fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
