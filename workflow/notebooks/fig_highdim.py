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
# r(t) = (d λ_max(M) − 1)/(d − 1) with M = (1/n) Σ_j x_j x_jᵀ, the angle swept by the leading eigenvector of M
# (radians), and histograms of pairwise inner products ⟨x_i, x_j⟩ at the last time. End markers: the observed
# regime; open: an antipodal pair, filled otherwise (highdim.csv's cluster_shape, when present; empty for an
# undetermined run, which has no end state). They sit in a
# strip right of t = t_max, one column per scenario, at the final r: ends at r = 1 no longer hide each other.
# The limit-cycle scenarios (an attracting limit cycle of the d = 2 OA flow, beyond the paper; LSA only, from a
# uniform and from a near-plane start) are drawn with the others; their end markers say what they did, and FINDINGS.md
# (row C7-limitcycle) gives the plane's transverse exponent (highdim.csv transverse_rate; offplane_final: how far
# from the plane the tokens end). The suptitle counts the runs of rows C7-lsa, C7-usa (one per scenario and model;
# the rows C7-<scenario>-<model> count the persistence stage's (d, seed) runs: fig_persistence).
# Likewise in (e, f): the height of a peak in the bin at -1 or +1 is repeated outside [-1, 1], one column per
# scenario, and scenarios whose histograms coincide are named in the panel. Reads results files only.

# %%
import matplotlib.pyplot as plt
from lsadyn_workflow.io import atomic_path, load_arrays, load_table
from matplotlib.lines import Line2D

from lsadyn.paper.persistence.plan import LIMIT_CYCLE
from lsadyn.paper.plotting import (
    COLUMN_WIDTH,
    LINESTYLES,
    OKABE_ITO,
    REGIME_STYLE,
    edge_peaks,
    identical_groups,
    panel_letter,
    save_figure,
    style,
)

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_highdim")
sm = snakemake
ARRAYS, TABLE, SCEN = list(sm.input.arrays), sm.input.table, list(sm.params.scenarios)
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
table = load_table(TABLE, "highdim_run")
data = {s: load_arrays(p, "highdim") for s, p in zip(SCEN, ARRAYS)}
models = list(dict.fromkeys(table.model))
has_shape = "cluster_shape" in table.columns
SHAPE_FACE = {"single": "filled", "antipodal_pair": "open"}
END_STEP = 0.13  # (a, b): spacing of the end-marker columns right of t_max, in units of t_max
EDGE_STEP = 0.16  # (e, f): spacing of the columns outside [-1, 1] that repeat the heights of the bins at -1 and +1
EDGE_PEAK = 0.25  # (e, f): a bin at -1 or +1 is a peak (repeated outside [-1, 1]) from this fraction of the highest bin


# %%
fig = plt.figure(figsize=(COLUMN_WIDTH, 7.0))
# panels above, the two legends (scenario lines; end markers) below in a strip of their own
sub = fig.subfigures(2, 1, height_ratios=[4.85, 2.15])
axes = sub[0].subplots(3, len(models), sharey="row", squeeze=False, gridspec_kw={"height_ratios": [1.4, 1, 1]})
seen = {}
hists = {m: {} for m in models}
edge_columns = 0
for j, model in enumerate(models):
    for k, s in enumerate(SCEN):
        a = data[s]
        rows = table[(table.scenario == s) & (table.model == model)]
        if not len(rows):  # a scenario run for some models only (its config key models)
            continue
        row = rows.iloc[0]
        t = a[f"{model}_t"]
        style_k = dict(color=OKABE_ITO[k % len(OKABE_ITO)], ls=LINESTYLES[k % len(LINESTYLES)], lw=0.9)
        axes[0, j].plot(t / t[-1], a[f"{model}_r"], **style_k)
        st = REGIME_STYLE[row.regime]
        shape = row.cluster_shape if has_shape and isinstance(row.cluster_shape, str) else ""  # "": undetermined
        pair = shape == "antipodal_pair"
        x_end = 1.0 + END_STEP * (k + 1)  # one column per scenario right of t_max
        axes[0, j].plot([1.0, x_end], [a[f"{model}_r"][-1]] * 2, color=style_k["color"], lw=0.4, ls=":")
        axes[0, j].plot([x_end], [a[f"{model}_r"][-1]], marker=st["marker"], ms=4,
                        mfc="white" if pair else style_k["color"], mec=style_k["color"] if pair else "k",
                        mew=0.9 if pair else 0.5, ls="", clip_on=False, zorder=5)
        seen[row.regime] = st
        axes[1, j].plot(t / t[-1], a[f"{model}_swept_angle"], **style_k)
        edges = a[f"{model}_bin_edges"]
        centres = (edges[1:] + edges[:-1]) / 2
        hist = a[f"{model}_histograms"][-1]
        axes[2, j].plot(centres, hist, drawstyle="steps-mid", **style_k)
        hists[model][s] = hist
    axes[0, j].axvline(1.0, color="0.7", lw=0.5, zorder=0)
    axes[0, j].set_xlim(-0.04, 1.0 + END_STEP * (len(SCEN) + 1.0))
    axes[0, j].set_xticks([0, 0.5, 1])
    d = int(table.d.iloc[0])
    axes[0, j].set_title(f"{model.upper()}, $d = {d}$, $n = {int(table.n_tokens.iloc[0])}$")
    for i in (1, 2):  # every panel says its model, not only the top row
        axes[i, j].set_title(model.upper())
    axes[0, j].set_xlabel("$t/t_{\\max}$ ($t_{\\max}$: legend)")
    axes[1, j].set_xlabel("$t/t_{\\max}$ ($t_{\\max}$: legend)")
    axes[2, j].set_xlabel(r"$\langle x_i, x_j\rangle$ at $t_{\max}$")
    for side, names in edge_peaks(hists[model], EDGE_PEAK).items():
        axes[2, j].axvline(side, color="0.7", lw=0.5, zorder=0)
        for c, name in enumerate(names):  # one column per peaked scenario outside [-1, 1], joined by a dotted leader
            value = hists[model][name][0 if side < 0 else -1]
            x_edge = side * (1.0 + EDGE_STEP * (c + 1))
            color = OKABE_ITO[SCEN.index(name) % len(OKABE_ITO)]
            axes[2, j].plot([side, x_edge], [value] * 2, color=color, lw=0.4, ls=":")
            axes[2, j].plot([x_edge], [value], marker="_", ms=3, mew=1.6, color=color, ls="", clip_on=False,
                            zorder=5)
        edge_columns = max(edge_columns, len(names))
    same = identical_groups(hists[model], atol=0.01)
    if same:  # say it where it happens: these curves lie on one another
        lines = [", ".join(g).replace("_", " ").replace(", ", ",\n") for g in same]  # narrow: clear of the peaks
        axes[2, j].text(0.5, 0.6, "one curve\n(within 1 %):\n" + ";\n".join(lines),
                        transform=axes[2, j].transAxes, ha="center", va="center", fontsize=5.5, color="0.25")
for j in range(len(models)):  # (e, f) share the strip's width
    axes[2, j].set_xlim(-1.0 - EDGE_STEP * (edge_columns + 0.7), 1.0 + EDGE_STEP * (edge_columns + 0.7))
    axes[2, j].set_xticks([-1, 0, 1])
    for i in range(3):
        # left column: the letter left of the y label (a wide panel's label reaches the letter at a fixed x)
        panel_letter(axes[i, j], "abcdef"[2 * i + j] if len(models) == 2 else "abcdefghi"[3 * i + j], x=-0.12,
                     left_of_ylabel=j == 0)
axes[0, 0].set_ylabel(r"$r(t)$, order parameter")
axes[1, 0].set_ylabel("angle swept by the leading\neigenvector of $M$ (rad)")
axes[2, 0].set_ylabel("density of pairs")
sub[0].align_ylabels(axes[:, 0])
table_expect = table.drop_duplicates("scenario").set_index("scenario").expect


def horizon_text(s):
    """t_max of a scenario's runs in units of the scenario's time scale τ, as highdim.csv's ``horizon`` column, the
    config and FINDINGS give it (tables without that column: the time the run reached, t): one number when the
    models share it, else one per model (a scenario's settle_horizon can lengthen one model's run)."""
    if "horizon" in table.columns:
        ends = {m: float(g.horizon.iloc[0]) for m, g in table[table.scenario == s].groupby("model", sort=False)}
        unit = "τ"
    else:
        ends = {m: float(data[s][f"{m}_t"][-1]) for m in models if f"{m}_t" in data[s]}
        unit = ""

    def fmt(v):  # 1200, 450, 6.5 (not 1.2e+03)
        return (f"{v:.0f}" if v >= 100 else f"{v:.3g}") + unit

    if len({fmt(v) for v in ends.values()}) == 1:
        only = "" if len(ends) == len(models) else f" ({', '.join(m.upper() for m in ends)} only)"
        return "$t_{\\max}$ = " + fmt(next(iter(ends.values()))) + only
    return "$t_{\\max}$ = " + " / ".join(f"{fmt(v)} ({m.upper()})" for m, v in ends.items())


handles = [Line2D([], [], color=OKABE_ITO[k % len(OKABE_ITO)], ls=LINESTYLES[k % len(LINESTYLES)], lw=0.9,
                  label=f"{s.replace('_', ' ')}" + (f" (d = 2: {REGIME_STYLE[table_expect[s]]['short']})"
                                                     if table_expect.get(s, "") else " (no d = 2 prediction)")
                  + f", {horizon_text(s)}")
           for k, s in enumerate(SCEN)]
markers = [Line2D([], [], marker=st["marker"], ls="", mfc="0.6", mec="k", mew=0.5, ms=4,
                  label=st["label"]) for st in seen.values()]
if has_shape:
    markers += [Line2D([], [], marker="o", ls="", mfc="0.6", mec="k", ms=4, label="filled: one cluster / none"),
                Line2D([], [], marker="o", ls="", mfc="white", mec="k", ms=4, label="open: antipodal pair")]
if edge_columns:
    markers += [Line2D([], [], marker="_", ls="", color="0.3", ms=3, mew=1.6,
                       label="(e, f) outside ±1: height of a\npeak at ±1, a column per scenario")]
# the scenarios in one column (the figure is one journal column wide; long labels), the end markers of (a, b) in two
sub[1].legend(handles=handles, loc="upper center", ncol=1, fontsize=6, frameon=False,
              title="line: scenario (all panels), $t_{\\max}$ in units of $\\tau = 1/(\\beta\\,\\|A\\|_2\\|V\\|_2)$",
              title_fontsize=6)
sub[1].legend(handles=markers, loc="lower center", ncol=2, fontsize=6, frameon=False, columnspacing=1.0,
              title="marker at the end of (a, b): observed regime", title_fontsize=6)
tested = table[(table.expect.fillna("") != "") & ~table.scenario.isin(LIMIT_CYCLE)]
reached = tested[tested.regime == tested.expect]
# counted as the claims rows C7-lsa, C7-usa count: the regime reached (a run whose r(t) has not settled is
# undetermined) and the tolerance check passed; one run per (scenario, model). The other C7 rows,
# C7-<scenario>-<model>, count the persistence stage's (d, seed) runs: fig_persistence.
counted = reached[reached.check_ok]
failed_check = int((~reached.check_ok).sum())  # the tighter-tolerance run disagrees


# two lines: the limit-cycle runs (row C7-limitcycle), the plane's exponent and M, r are in the caption and FINDINGS
fig.suptitle(f"C7 at $d = {d}$: {len(counted)} of {len(tested)} runs of embedded $d = 2$ scenarios\n"
             "reach their $d = 2$ regime (rows C7-lsa, C7-usa)"
             + (f"; {failed_check} failed the tolerance check" if failed_check else ""), fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
