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
# # Saddle-node bifurcation (claim C5)
# A = I, V = [[a + s, −μ], [μ, a − s]]: on |R₂| = 1, dφ/dt = 2β(μ − s sin φ) (Adler), threshold
# μ_c = s. Rotation period against μ (OA sweep) with π/(β√(μ² − s²)), and the fitted power law
# near μ_c against the exponent −1/2. Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, panel_letter, regime_scatter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_bifurcation")
sm = snakemake
SIM, FIT, PDF, PNG, DPI = sm.input.sim, sm.input.fit, sm.output.pdf, sm.output.png, sm.params.dpi

style()
sim = load_table(SIM, "sim")
fit = load_table(FIT, "bifurcation_fit").iloc[0]
mu_c = fit.mu_c_theory
beta = float(sim.beta.iloc[0])  # the β of the sweep (one value per experiment)

# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 4.5))
gs = fig.add_gridspec(3, 1, height_ratios=[1, 0.16, 1.05])
ax = fig.add_subplot(gs[0])
strip = fig.add_subplot(gs[1], sharex=ax)  # the regime of every run; only rotating runs have a period above
ax2 = fig.add_subplot(gs[2])
rot = sim[sim.regime_oa == "cluster_rotate"]
mu = np.linspace(mu_c * 1.0005, sim.x.max(), 400)
ax.plot(mu, np.pi / (beta * np.sqrt(mu**2 - mu_c**2)), color="0.4", lw=0.8, ls="--",
        label=rf"theory $\pi/(\beta\sqrt{{\mu^2-s^2}})$, $\beta = {beta:g}$")
ax.plot(rot.x, rot.period_oa, "o", ms=2.5, color="k", label="OA sweep: period")
handles = regime_scatter(strip, sim.x, np.zeros(len(sim)), sim.regime_oa, size=6, edge=0)  # no edge: runs apart
for a in (ax, strip):
    a.axvline(mu_c, color="0.3", lw=0.6, ls=":")
ax.set_ylim(0, np.nanmax(rot.period_oa) * 1.1 if rot.period_oa.notna().any() else 1)
ax.tick_params(labelbottom=False)
ax.set_ylabel("period of $R_2$ (units of $t$)")
# the regimes of every run are in the strip below (one marker each): converging runs have no period
for h in handles:
    h.set_label(f"strip: {h.get_label()}")
ax.legend(handles=[*ax.get_legend_handles_labels()[0], *handles], fontsize=6, loc="upper right", frameon=False)
ax.set_title(f"threshold $\\mu_c = s = {mu_c:g}$; sweep bracket [{fit.mu_converge_max:.3g}, {fit.mu_rotate_min:.3g}]\n"
             "strip: OA regime of every run (a converging run has no period)", fontsize=6)
strip.set_ylim(-1, 1)
strip.set_yticks([])
strip.set_ylabel("OA\nregime", rotation=0, ha="right", va="center", fontsize=6)
strip.set_xlabel(r"$\mu$")
panel_letter(ax, "a", x=-0.1)
near = rot[rot.x > mu_c]
ax2.loglog(near.x - mu_c, near.period_oa, "o", ms=2.5, color="k", label="OA sweep")
close = near[near.kind == "near_threshold"] if (near.kind == "near_threshold").sum() >= 2 else near.nsmallest(5, "x")
if len(near):
    dd = np.geomspace((near.x - mu_c).min(), (near.x - mu_c).max(), 100)
    ax2.loglog(dd, np.pi / (beta * np.sqrt((mu_c + dd) ** 2 - mu_c**2)), color="0.4", lw=0.8, ls="--",
               label=r"theory $\pi/(\beta\sqrt{\mu^2-s^2})$")
    d = np.geomspace((close.x - mu_c).min(), (close.x - mu_c).max(), 50)  # the power law holds near mu_c only
    ax2.loglog(d, fit.fit_prefactor * d**fit.fit_exponent, color="#0072B2", lw=3.0, alpha=0.45, zorder=1,
               label=f"fit near $\\mu_c$: exponent ${fit.fit_exponent:.3f}$ (theory $-1/2$)")
ax2.set_xlabel(r"$\mu - \mu_c$")
ax2.set_ylabel("period of $R_2$ (units of $t$)")
ax2.legend(fontsize=6, loc="lower left", frameon=False)
panel_letter(ax2, "b", x=-0.1)
fig.suptitle(r"C5, claim: saddle-node at $\mu_c = s$; on $|R_2| = 1$, $\dot\varphi = 2\beta(\mu - s\sin\varphi)$", fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
