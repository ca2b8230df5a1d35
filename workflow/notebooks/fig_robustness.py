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
# (rows) and model (LSA circles left of each level, USA squares right of it: both stay visible where they
# are equal), at each dimension of the config.
# Open markers: some runs at that point stayed `undetermined` (counted as not kept). Where the unperturbed run itself
# is undetermined (at robustness.budget_factor) there is no regime to keep: the panel says so, with the counts of
# undetermined unperturbed and perturbed runs, instead of drawing a fraction 0. Crosses (clustered
# scenarios), in the model's colour beside its marker: the fraction the eigenvalue criterion predicts to keep
# the regime (drawn behind the marker). A pale bar below a marker: kept runs that are predicted to rotate more slowly than the decision
# procedure resolves (predicted_rate < min_rate), so they were labelled by what the window showed; the bar ends
# at the fraction kept without them. Vertical lines (clustered scenarios with m₀ ≠ 0): δ_min = |m₀|/‖V‖_F below
# which the rotation margin m₀ cannot change sign, and δ_typ = d·δ_min. Every δ of one dimension reuses the
# same random directions G (one per seed; the x label says how many). Reads results/tables/robustness.csv only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from lsadyn.paper.plotting import OKABE_ITO, REGIME_STYLE, save_figure, style
from lsadyn.paper.robustness.summary import kept_fractions, thresholds, with_reference

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_robustness")
sm = snakemake
TABLE, PDF, PNG, DPI = sm.input.table, sm.output.pdf, sm.output.png, sm.params.dpi

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
kept_runs = with_reference(table)
# kept runs whose predicted rotation is too slow for the decision procedure to resolve (labelled by the window)
kept_runs = kept_runs.assign(
    level=np.where(kept_runs.kind == "perturb", kept_runs.delta, kept_runs.bits.astype(float)),
    slow_kept=kept_runs.kept & (kept_runs.predicted == "cluster_rotate")
    & (kept_runs.predicted_rate < kept_runs.min_rate) & (kept_runs.reference != "cluster_rotate"))
slow = kept_runs.groupby(["scenario", "d", "model", "kind", "level"]).slow_kept.sum()
n_dirs = table[table.kind == "perturb"].groupby("d").perturb_seed.nunique()
# LSA left of each level, USA right of it (log axis: a factor; bits: an offset)
DODGE = {m: (k - (len(models) - 1) / 2) for k, m in enumerate(models)}


def dodged(x, kind, model):
    x = np.asarray(x, float)
    return x * 10 ** (0.13 * DODGE[model]) if kind == "perturb" else x + 0.6 * DODGE[model]


cols = [("perturb", d) for d in dims] + [("quantise", d) for d in dims]
fig, axes = plt.subplots(len(scenarios), len(cols), figsize=(1.75 * len(cols) + 0.9, 1.35 * len(scenarios) + 1.4),
                         squeeze=False)
# no shared axes: every panel sets the same limits itself (y: one range; x: one per column) and only the outer
# panels label their ticks. Sharing 48 axes made every limit lookup visit all the siblings (O(N^2) per draw)
for i, sc in enumerate(scenarios):
    for j, (kind, d) in enumerate(cols):
        ax = axes[i, j]
        no_ref = []  # models whose unperturbed runs are all undetermined: no regime to keep, nothing to plot
        for model in models:
            g = fr[(fr.scenario == sc) & (fr.d == d) & (fr.model == model) & (fr.kind == kind)].sort_values("level")
            if not len(g):
                continue
            base = table[(table.scenario == sc) & (table.d == d) & (table.model == model) & (table.kind == "none")]
            if len(base) and (base.regime == "undetermined").all():
                pert = table[(table.scenario == sc) & (table.d == d) & (table.model == model) & (table.kind == kind)]
                no_ref.append(f"{model.upper()}: {len(base)} of {len(base)}; "
                              f"{int((pert.regime == 'undetermined').sum())} of {len(pert)}")
                continue
            st = MODEL_STYLE.get(model, dict(color="k", ls=":", marker="^", ms=4))
            x = dodged(g.level, kind, model)
            ax.plot(x, g.fraction_kept, color=st["color"], ls=st["ls"], lw=0.9)
            # the markers: one line per run of points with the same fill, in order (as many one-point lines drew them,
            # with a fraction of the artists)
            opened = np.asarray(g.undetermined, bool)
            runs = np.split(np.arange(len(g)), np.flatnonzero(np.diff(opened)) + 1)
            for r in runs:
                ax.plot(x[r], np.asarray(g.fraction_kept)[r], marker=st["marker"], ms=st["ms"], color=st["color"],
                        mfc="white" if opened[r[0]] else st["color"], mew=0.8, ls="", clip_on=False, zorder=4)
            for xx, lv, y, n in zip(x, g.level, g.fraction_kept, g.runs):
                k_slow = int(slow.get((sc, d, model, kind, lv), 0))
                if k_slow:
                    y0 = y - k_slow / n
                    ax.plot([xx, xx], [y0, y], color=st["color"], lw=2.6, alpha=0.35, solid_capstyle="butt",
                            zorder=2)
                    ax.plot([xx], [y0], marker="_", ms=5, mew=0.9, color=st["color"], ls="", zorder=3)
            ok = np.isfinite(g.fraction_predicted).to_numpy()
            if ok.any():  # an empty unclipped marker line would sit at the figure origin and collapse the layout
                ax.plot(x[ok], g.fraction_predicted[ok], marker="x", ms=7, mew=0.8, color=st["color"], ls="",
                        clip_on=False, zorder=3)  # behind the model's marker: its arms show around it
        if no_ref:  # say it, rather than a fraction 0 that reads as 'never keeps it'
            ax.text(0.5, 0.5, "no regime to keep: the unperturbed\nrun is undetermined within the budget\n"
                    "(robustness.horizon × budget_factor)\nundetermined, unperturbed; perturbed\n"
                    + "\n".join(no_ref),
                    transform=ax.transAxes, ha="center", va="center", fontsize=5.5, color="0.2",
                    bbox={"fc": "white", "ec": "0.6", "lw": 0.5, "pad": 2.0})
        t = th[(th.scenario == sc) & (th.d == d)]
        if kind == "perturb":
            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(NullLocator())  # decades only: minor ticks doubled the layout time
            levels = table[(table.d == d) & (table.kind == "perturb")].delta
            bounds = th[(th.d == d) & (th.delta_min > levels.min() / 100)].delta_min  # drawn δ_min lines stay in view
            ax.set_xlim(min(levels.min(), bounds.min() if len(bounds) else np.inf) / 10 ** 0.4,
                        levels.max() * 10 ** 0.4)
            dmax = ax.get_xlim()[1]  # a bound is drawn wherever it falls inside the axis
            if len(t) and 0 < t.delta_min.iloc[0] <= dmax:  # m0 = 0 (V = I): no bound to draw
                ax.axvline(t.delta_min.iloc[0], color="0.35", lw=0.8, ls=(0, (4, 2)), zorder=1)
                if t.delta_typ.iloc[0] <= dmax:
                    ax.axvline(t.delta_typ.iloc[0], color="0.35", lw=0.8, ls=":", zorder=1)
                else:  # beyond the largest δ run: say where, rather than leave it out silently
                    ax.text(0.98, 0.82, f"$\\delta_{{typ}}$ = {t.delta_typ.iloc[0]:.3g} →", transform=ax.transAxes,
                            ha="right", va="center", fontsize=6.5, color="0.25", zorder=4,
                            bbox=dict(fc="white", ec="none", pad=0.6, alpha=0.85))
        else:
            bits = sorted(table[(table.d == d) & (table.kind == "quantise")].bits.unique())
            ax.set_xticks(bits)
            ax.set_xlim(min(bits) - 1.2, max(bits) + 1.2)
            q = table[(table.scenario == sc) & (table.d == d) & (table.kind == "quantise")]
            if len(q) and q.rel_change_V.max() == 0 and q.rel_change_A.max() == 0:
                ax.text(0.5, 0.45, "A, V on the grid:\nquantisation exact", transform=ax.transAxes, ha="center",
                        va="center", fontsize=6.5, color="0.25")
        ax.set_ylim(-0.06, 1.08)
        ax.tick_params(labelbottom=i == len(scenarios) - 1, labelleft=j == 0)
        ax.grid(True, lw=0.3, alpha=0.5)
        ref = table[(table.scenario == sc) & (table.d == d) & (table.kind == "none")].set_index("model").regime
        shorts = [REGIME_STYLE[r]["short"] if r in REGIME_STYLE else r for r in ref.reindex(models).fillna("-")]
        # large enough to read (at 5.5 pt grey the trial could not): one word when every model agrees
        refs = shorts[0] if len(set(shorts)) == 1 else ", ".join(f"{m.upper()} {r}" for m, r in zip(models, shorts))
        ax.text(0.0, 1.03, f"unperturbed: {refs}", transform=ax.transAxes, fontsize=7, color="0.1", va="bottom")
        if i == 0:
            what = "perturbation δ" if kind == "perturb" else "quantisation b"
            ax.set_title(rf"$\bf{{({'abcdefgh'[j]})}}$ {what}, $d = {d}$" + "\n", fontsize=8)
        if i == len(scenarios) - 1:
            if kind == "perturb":
                k = int(n_dirs.get(d, 0))
                ax.set_xlabel(r"relative size $\delta$" + f"\n(the same {k} direction{'s' if k != 1 else ''} "
                              "at every δ)")
            else:
                ax.set_xlabel("bits $b$")
    axes[i, 0].set_ylabel(sc.replace("_", " ") + "\nfraction kept", fontsize=7)
handles = [Line2D([], [], color=MODEL_STYLE[m]["color"], ls=MODEL_STYLE[m]["ls"], marker=MODEL_STYLE[m]["marker"],
                  ms=MODEL_STYLE[m]["ms"], lw=0.9, label=f"{m.upper()} ({'left' if DODGE[m] < 0 else 'right'} of "
                  "each δ or b)") for m in models if m in MODEL_STYLE]
handles += [Line2D([], [], color="k", marker="o", mfc="white", ls="", ms=4, label="open: some runs undetermined (not kept)"),
            Line2D([], [], color="k", marker="x", ls="", ms=6, mew=0.8,
                   label="fraction predicted to keep it, of the runs with a prediction (eigenvalue criterion)"),
            Line2D([], [], color="k", lw=2.6, alpha=0.35, solid_capstyle="butt",
                   label="kept, but predicted to rotate too slowly to resolve (bar in the model's colour)"),
            Line2D([], [], color="0.35", ls=(0, (4, 2)), lw=0.8,
                   label=r"$\delta_{min} = |m_0|/\|V\|_F$ ($m_0$: rotation margin)"),
            Line2D([], [], color="0.35", ls=":", lw=0.8, label=r"$\delta_{typ} = d\,\delta_{min}$")]
fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False, fontsize=7)
fig.suptitle("C8 (beyond the paper): fraction of runs keeping the unperturbed regime under weight perturbation "
             r"$A + \delta\|A\|_F G/\|G\|_F$ and $b$-bit quantisation", fontsize=8.5)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
