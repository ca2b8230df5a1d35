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
# # Persistence of the d = 2 behaviours (issue 12: C7 measured, C9 random weights, C10 β)
# (a, b) Regime map, scenario × d, one marker per seed (colour and shape: the observed regime; filled: one
# cluster or no cluster, open: an antipodal pair). (c) Rotation rate against the derived rate (rotation runs
# just left of each d, saddle-rotate runs just right). (d) Oscillation
# period per seed against d, beside the d = 2 seeds' range (filled: the case-4 centre, scenario oscillation; open: the
# attracting limit cycle of the d = 2 OA flow, scenarios limit_cycle and limit_cycle_plane, beyond the paper); the d
# whose seeds all lie outside the d = 2 range are listed in FINDINGS.md (persistence paragraph). (e) Random
# N(0, 1/d) weights: fraction of runs per regime. (f, g) β sweep; an undetermined run (no rate or period) is a grey x
# on the β axis, and a panel whose runs are all undetermined says so. Suptitle: the runs of the paper's scenarios,
# the set the counted rows C7-<scenario>-<model> and FINDINGS' C7 sentence count; the saddle pair and the limit
# cycle (beyond the paper) apart.
# (c, d, f, g): shape and colour = model (black circle LSA, purple square USA; no regime colour), fill = cluster shape as in (a, b); a run whose
# regime differs from the scenario's d = 2 regime is labelled with its regime. A run without a certified label (its r(t) had not settled, or no attractor was checked)
# within its budget is undetermined (grey x, hatched in (e)): it has no period.
# Reads results/tables/persistence.csv only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from lsadyn.paper.persistence.plan import BEYOND_PAPER, LIMIT_CYCLE
from lsadyn.paper.persistence.summary import CLUSTERED, RATE_TOL
from lsadyn.paper.plotting import COLUMN_WIDTH, REGIME_STYLE, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_persistence")
sm = snakemake
TABLE = sm.input.table
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
table = load_table(TABLE, "persistence_run")
dim = table[table.study == "dimension"]
rnd = table[table.study == "random"]
bet = table[table.study == "beta"]
models = list(dict.fromkeys(table.model))
MODEL_MARK = {"lsa": "o", "usa": "s"}
# colours no regime uses (REGIME_STYLE takes blue, orange, green, vermillion, grey): a colour means one thing
MODEL_COLOR = {"lsa": "#000000", "usa": "#CC79A7"}


def shape_face(model, shape, regime):
    """Marker face: open for a clustered end state that is an antipodal pair, filled (model colour) for one cluster
    or none (an unclustered run has no cluster shape, whatever the table records), as in (a, b)."""
    return "white" if shape == "antipodal_pair" and regime in CLUSTERED else MODEL_COLOR[model]


def plain_log_ticks(axis):
    """Log axis with 1-2-5 ticks written as plain numbers (a range inside one decade keeps labelled ticks)."""
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())

# %%
fig = plt.figure(figsize=(2 * COLUMN_WIDTH, 10.4))
# one subfigure per panel group, each with its own legend below it: (a, b) regimes, (c, d) and (f, g) models,
# (e) regimes as bars
sub = fig.subfigures(4, 1, height_ratios=[2.3, 1.6, 1.15, 1.25])
gs_ab, gs_cd, gs_e, gs_fg = (sf.add_gridspec(1, 2) for sf in sub)
scen = list(dict.fromkeys(dim.scenario))
dvals = sorted(dim.d.unique())
expect = dim.drop_duplicates("scenario").set_index("scenario").expect
letters = iter("abcdefgh")
# the limit-cycle scenarios' names on the regime map (beyond the paper; the start is their difference)
SCEN_NAME = {"limit_cycle": "limit cycle*, uniform", "limit_cycle_plane": "limit cycle*, near plane"}
boxed = False  # a dashed box drawn: its legend entry is shown only then
for j, model in enumerate(["lsa", "usa"]):
    ax = sub[0].add_subplot(gs_ab[0, j])
    g = dim[dim.model == model]
    # counted as the suptitle counts: the paper's scenarios (rows C7) apart from those beyond the paper
    in_paper = ~g.scenario.isin(BEYOND_PAPER)
    kept = g.regime == g.expect
    n_ok, n_ok_beyond = int(kept[in_paper].sum()), int(kept[~in_paper].sum())
    for yi, sc in enumerate(scen):
        for xi, d in enumerate(dvals):
            cell = g[(g.scenario == sc) & (g.d == d)].sort_values("seed")
            k = len(cell)
            for s, r in enumerate(cell.itertuples()):
                st = REGIME_STYLE[r.regime]
                off = (s - (k - 1) / 2) * 0.18
                face = "white" if r.cluster_shape == "antipodal_pair" and r.regime in CLUSTERED else st["color"]
                ax.plot(xi + off, yi, marker=st["marker"], ms=5, mfc=face, mec=st["color"], mew=1.0, ls="")
            # a run not counted as keeping the d = 2 regime (another label or undetermined), as the titles count
            if k and not (cell.regime == expect[sc]).all():
                ax.add_patch(plt.Rectangle((xi - 0.45, yi - 0.45), 0.9, 0.9, fill=False, ec="k", lw=0.6, ls="--"))
                boxed = True
    ax.set_xticks(range(len(dvals)), [str(d) for d in dvals])
    ax.set_yticks(range(len(scen)), [f"{SCEN_NAME.get(s, s.replace('_', ' '))}\n(d = 2: "
                                     f"{REGIME_STYLE[expect[s]]['short']})" for s in scen] if j == 0 else [])
    ax.set_xlim(-0.6, len(dvals) - 0.4)
    ax.set_ylim(len(scen) - 0.5, -0.5)
    ax.set_xlabel("token dimension $d$")
    ax.set_title(f"{model.upper()}: runs that keep the $d = 2$ regime\n"
                 f"paper's scenarios {n_ok} of {int(in_paper.sum())}"
                 + (f", beyond the paper {n_ok_beyond} of {int((~in_paper).sum())}" if (~in_paper).any() else "")
                 if len(g) else model.upper(), fontsize=7)
    panel_letter(ax, next(letters), x=-0.02 if j else -0.32)

# (c) rotation rate against the derived rate
ax = sub[1].add_subplot(gs_cd[0, 0])
rot = dim[dim.rate_rel_err.notna()]
SCEN_LS = {"rotation": "-", "saddle_rotate": ":"}  # scenario: line style (fill is the cluster shape, as in a, b)
# scenario: side of each d (rotation just left, saddle rotate just right), so a marker tells its scenario
SCEN_NUDGE = {"rotation": 10 ** -0.03, "saddle_rotate": 10 ** 0.03}
for model in models:
    for sc, ls in SCEN_LS.items():
        g = rot[(rot.model == model) & (rot.scenario == sc)].sort_values("d")
        if len(g):
            err = np.maximum(g.rate_rel_err, 1e-12)
            med = err.groupby(g.d).median()
            ax.plot(med.index * SCEN_NUDGE[sc], med.values, color=MODEL_COLOR[model], ls=ls, lw=0.7)
            for dd, e, shp, reg in zip(g.d, err, g.cluster_shape, g.regime):
                ax.plot(dd * SCEN_NUDGE[sc], e, marker=MODEL_MARK[model], ls="", mfc=shape_face(model, shp, reg),
                        mec=MODEL_COLOR[model], ms=4)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xticks(dvals, [str(d) for d in dvals])
ax.minorticks_off()
ax.set_xlabel("token dimension $d$")
ax.set_ylabel("|rate / derived rate − 1|")
ax.set_title("rotating runs: rate vs the derived rate\n"
             r"(LSA $2\beta\sqrt{w^2-q^2}$; USA, one cluster, $2e^\beta\sqrt{w^2-q^2}$)")
if len(rot):  # head room above the points for the legend
    lo, hi = np.nanmin(np.maximum(rot.rate_rel_err, 1e-12)), np.nanmax(np.maximum(rot.rate_rel_err, 1e-12))
    ax.set_ylim(lo / 3, max(hi, RATE_TOL) * 3e3)
ax.axhline(RATE_TOL, color="0.5", lw=0.6, ls="--", zorder=1)  # rows C7r hold below it
ax.legend(handles=[Line2D([], [], color="0.3", ls=ls, lw=0.7,
                          label=sc.replace("_", " ") + f" (median over seeds; markers {side} of each $d$)")
                   for (sc, ls), side in zip(SCEN_LS.items(), ("left", "right"))]
          + [Line2D([], [], color="0.5", ls="--", lw=0.6, label=f"tolerance of rows C7r ({RATE_TOL:g})")],
          fontsize=5.5, frameon=False, loc="upper left", ncol=1)
panel_letter(ax, next(letters), x=-0.16)

# (d) oscillation period against d, beside the d = 2 seeds' range (persistence.period_comparison: the period
# belongs to the orbit the tokens select, so seeds differ at one d; a change with d means something beyond that)
ax = sub[1].add_subplot(gs_cd[0, 1])
osc = dim[(dim.regime == "oscillate") & dim.period.notna()]
FAMILIES = (("centre", ~osc.scenario.isin(LIMIT_CYCLE)), ("limit cycle", osc.scenario.isin(LIMIT_CYCLE)))
for model in models:
    for fam, in_fam in FAMILIES:
        g = osc[(osc.model == model) & in_fam]
        if not len(g):
            continue
        color, filled = MODEL_COLOR[model], fam == "centre"
        d2 = g[g.d == 2].period  # the d = 2 runs: the reference period_comparison uses
        if len(d2):  # the d = 2 seeds' range: a band (a line when one seed)
            if np.isclose(d2.min(), d2.max(), rtol=5e-3):
                ax.axhline(float(d2.median()), color=color, lw=0.7, ls=":" if filled else "-.", zorder=1)
            else:
                ax.axhspan(float(d2.min()), float(d2.max()), color=color, alpha=0.15 if filled else 0.07, lw=0,
                           zorder=1)
        nudge = 10 ** (0.025 * (1 if model == "usa" else -1))  # LSA left, USA right: equal values stay visible
        ax.plot(g.d * nudge, g.period, marker=MODEL_MARK[model], color=color, ls="", ms=4,
                mfc=color if filled else "white", label=f"{model.upper()} {fam}", zorder=3)
ax.set_xscale("log")
ax.set_xticks(dvals, [str(d) for d in dvals])
ax.minorticks_off()
ax.set_xlabel("token dimension $d$")
ax.set_ylabel("period (units of $t$)")
# two lines; which d lie outside the d = 2 range is said in FINDINGS (persistence paragraph) and the caption
n_osc = len(osc)
ax.set_title(f"oscillating runs ({n_osc}): period per seed\n(filled: centre, open: limit cycle*; band or line: $d = 2$ range)"
             if n_osc else "no oscillating run")
# no legend inside (d): its markers sat on the d = 2 column and read as data; the (c, d) legend below says LSA / USA
panel_letter(ax, next(letters), x=-0.14)

# (e) random weights
def bar_style(regime):
    """Bar of one regime in (e) and its legend patch: regime colour, undetermined hatched."""
    return {"facecolor": REGIME_STYLE[regime]["color"], "hatch": "//" if regime == "undetermined" else None,
            "ec": "white", "lw": 0.3}


ax = sub[2].add_subplot(gs_e[0, :])
labels = list(REGIME_STYLE)
xt, xl, x = [], [], 0.0
for model in models:
    for d in sorted(rnd[rnd.model == model].d.unique()):
        g = rnd[(rnd.model == model) & (rnd.d == d)]
        bottom = 0.0
        for lab in labels:
            frac = float((g.regime == lab).mean())
            if frac:
                ax.bar(x, frac, bottom=bottom, width=0.8, **bar_style(lab))
            bottom += frac
        xt.append(x)
        xl.append(f"{d}")
        x += 1
    if model == models[0]:
        x += 0.8
for model in models:
    pos = [xt[i] for i in range(len(xt))][: len(rnd[rnd.model == models[0]].d.unique())] if model == models[0] \
        else xt[len(rnd[rnd.model == models[0]].d.unique()):]
    if pos:
        ax.text(np.mean(pos), 1.06, model.upper(), ha="center", va="bottom", fontsize=7, transform=ax.transData)
ax.set_xticks(xt, xl)
ax.set_ylim(0, 1.22)
ax.set_yticks([0, 0.5, 1])
ax.set_xlabel("token dimension $d$")
ax.set_ylabel("fraction of runs")
n_und = int((rnd.regime == "undetermined").sum())
ax.set_title(f"C9 (beyond the paper): random $A, V \\sim N(0, 1/d)$, {len(rnd)} runs;\n{n_und} still undetermined "
             "within the budget (hatched, shown, not guessed)")
panel_letter(ax, next(letters), x=-0.06)

# (f) rotation scenario over beta, (g) oscillation scenario over beta
UND = REGIME_STYLE["undetermined"]
for col, sc in enumerate(["rotation", "oscillation"]):
    ax = sub[3].add_subplot(gs_fg[0, col])
    g = bet[bet.scenario == sc]
    if len(g):
        y_all = g.rate if sc == "rotation" else g.period
        finite = np.isfinite(y_all.to_numpy(float))
        for model in models:
            gm = g[g.model == model].sort_values("beta")
            y = gm.rate if sc == "rotation" else gm.period
            nudge = 10 ** (0.025 * (1 if model == "usa" else -1))  # as in (d): equal values stay visible
            last = g.beta.max()
            for r, yy in zip(gm.itertuples(), y):
                if not np.isfinite(yy):  # undetermined (or no rate / period): a grey x on the bottom edge
                    ax.plot(r.beta * nudge, 0.04, marker=UND["marker"], color=UND["color"], ms=4.5, mew=1.1, ls="",
                            transform=ax.get_xaxis_transform(), clip_on=False, zorder=4)
                    continue
                ax.plot(r.beta * nudge, yy, marker=MODEL_MARK[model], ms=4.5, ls="", mec=MODEL_COLOR[model],
                        mfc=shape_face(model, r.cluster_shape, r.regime), zorder=4)
                if r.regime != r.expect:  # say which regime, rather than a new marker
                    left = r.beta == last  # at the right edge the label goes left of the marker
                    ax.annotate(REGIME_STYLE[r.regime]["short"], (r.beta * nudge, yy), xytext=(-4 if left else 4, -3),
                                ha="right" if left else "left", textcoords="offset points", fontsize=5.5,
                                color=MODEL_COLOR[model])
        b = np.geomspace(g.beta.min(), g.beta.max(), 50)
        if sc == "rotation":
            ax.plot(b, 2 * b, color=MODEL_COLOR["lsa"], lw=0.8, label=r"LSA derived $2\beta$")
            ax.plot(b, 2 * np.exp(b), color=MODEL_COLOR["usa"], lw=0.8, ls="--", label=r"USA derived $2e^\beta$ (one cluster)")
            ax.set_ylabel("rate of $\\arg R_2$\n(rad per unit $t$)")
        else:
            lsa = g[(g.model == "lsa") & np.isfinite(g.period)]
            if len(lsa):
                c = float(np.median(lsa.period * lsa.beta))
                ax.plot(b, c / b, color=MODEL_COLOR["lsa"], lw=0.8, label=r"LSA: period $\propto 1/\beta$")
            ax.set_ylabel("period (units of $t$)")
        ax.set_xscale("log")
        if finite.any():
            ax.set_yscale("log")
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo / 1.3, hi * 1.6)  # room for the markers at the edges and their regime labels
            plain_log_ticks(ax.yaxis)  # a range inside one decade kept no labelled tick
        else:  # no run with a rate / period: say so in the panel, not a blank axis
            ax.set_yticks([])
        n_und = int((g.regime == "undetermined").sum())
        if not finite.any():
            ax.text(0.5, 0.55, f"all {len(g)} runs undetermined\n(no certified label within the budget):\nno "
                    + ("rate" if sc == "rotation" else "period") + " to show", transform=ax.transAxes, ha="center",
                    va="center", fontsize=6.5, color="0.25")
        ax.set_xticks(sorted(g.beta.unique()), [f"{v:g}" for v in sorted(g.beta.unique())])
        ax.minorticks_off()
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=5.5, frameon=False, loc="upper left" if sc == "rotation" else "upper right")
        # a decided run in another regime changes regime; an undetermined run has no regime and is counted apart
        changes = g[(g.regime != g.expect) & (g.regime != "undetermined")]
        what = "; ".join(f"{m.upper()} changes regime at β = "
                         + ", ".join(f"{v:g}" for v in sorted(changes[changes.model == m].beta.unique()))
                         for m in models if (changes.model == m).any()) or "no decided run changes regime"
        und = ", ".join(f"{m.upper()} {int((gm.regime == 'undetermined').sum())} of {len(gm)}"
                        for m, gm in g.groupby("model", sort=False) if (gm.regime == "undetermined").any())
        ax.set_title(f"C10, {sc}, $d = {int(g.d.iloc[0])}$: {what}" + (f"\nundetermined (grey x): {und}" if n_und
                                                                      else ""), fontsize=6.5)
    ax.set_xlabel(r"inverse temperature $\beta$")
    panel_letter(ax, next(letters), x=-0.14)

# (a, b): marker shape and colour = regime, fill = cluster shape
handles = [Line2D([], [], marker=st["marker"], ls="", mfc=st["color"], mec=st["color"], ms=5, label=st["label"])
           for st in REGIME_STYLE.values()]
handles += [Line2D([], [], marker="o", ls="", mfc="white", mec="0.4", ms=5, label="open: antipodal pair"),
            Line2D([], [], marker="o", ls="", mfc="0.4", mec="0.4", ms=5, label="filled: one cluster / none")]
if boxed:
    handles.append(Patch(fill=False, ec="k", ls="--", lw=0.6, label="cell with a run not kept\n(other label or undetermined)"))
sub[0].legend(handles=handles, loc="outside lower center", ncol=4, fontsize=6, frameon=False,
              title="(a, b): regime (marker and colour)", title_fontsize=6)
# (c, d, f, g): marker shape and colour = model, fill = cluster shape as in (a, b)
model_handles = [Line2D([], [], marker=MODEL_MARK[m], ls="", mfc=MODEL_COLOR[m], mec=MODEL_COLOR[m], ms=4,
                        label=m.upper()) for m in models]
model_handles += [Line2D([], [], marker="o", ls="", mfc="white", mec="0.4", ms=4, label="open: antipodal pair"),
                  Line2D([], [], marker="o", ls="", mfc="0.4", mec="0.4", ms=4, label="filled: one cluster / none")]
und_handle = Line2D([], [], marker=UND["marker"], ls="", color=UND["color"], ms=4.5, mew=1.1,
                    label="on the axis: undetermined (no rate / period)")
# (d) fills by oscillation family, not by cluster shape: its own fill entries
cd_handles = model_handles[:len(models)] + [
    Line2D([], [], marker="o", ls="", mfc="white", mec="0.4", ms=4, label="open: (c) antipodal pair, (d) limit cycle*"),
    Line2D([], [], marker="o", ls="", mfc="0.4", mec="0.4", ms=4, label="filled: (c) one cluster, (d) centre")]
for sf, which, hs in ((sub[1], "(c, d)", cd_handles), (sub[3], "(f, g)", model_handles + [und_handle])):
    sf.legend(handles=hs, loc="outside lower center", ncol=len(hs),
              fontsize=6, frameon=False, title=f"{which}: model (marker and colour)", title_fontsize=6)
# (e): regime as bars, undetermined hatched as drawn
present = [lab for lab in REGIME_STYLE if (rnd.regime == lab).any()]
if present:
    bar_handles = [Patch(**bar_style(lab), label=REGIME_STYLE[lab]["label"]) for lab in present]
    sub[2].legend(handles=bar_handles, loc="outside lower center", ncol=len(bar_handles), fontsize=6, frameon=False,
                  title="(e): regime", title_fontsize=6, handlelength=2.6, handleheight=1.5)
d_max = max(dvals) if dvals else 0
# the set the C7 rows that count (and FINDINGS' C7 sentence) count: the paper's scenarios; the saddle pair and the
# limit cycle are beyond the paper (persistence.plan.BEYOND_PAPER) and counted apart
paper = dim[~dim.scenario.isin(BEYOND_PAPER)]
saddle = dim[dim.scenario.isin(BEYOND_PAPER) & ~dim.scenario.isin(LIMIT_CYCLE)]
cyc = dim[dim.scenario.isin(LIMIT_CYCLE)]


def cycle_count(sc):
    """'LSA 5 of 8, USA 0 of 8': runs of a limit-cycle scenario that oscillate, per model."""
    g = cyc[cyc.scenario == sc]
    return ", ".join(f"{m.upper()} {int((gm.regime == 'oscillate').sum())} of {len(gm)}"
                     for m, gm in g.groupby("model", sort=False))


n_paper_sc = paper.scenario.nunique()
fig.suptitle(f"C7 measured, $d = 2$ to {d_max}: {int((paper.regime == paper.expect).sum())} of {len(paper)} runs of the "
             f"paper's {n_paper_sc} scenarios (LSA and USA) keep their $d = 2$ regime (rows C7-<scenario>-<model> that count)"
             + (f"\nsaddle pair (beyond the paper): {int((saddle.regime == saddle.expect).sum())} of {len(saddle)} keep it"
                if len(saddle) else "")
             + ("\n*limit cycle of the $d = 2$ OA flow (beyond the paper), oscillating runs: uniform start "
                + cycle_count("limit_cycle") + "; near-plane start " + cycle_count("limit_cycle_plane")
                if len(cyc) else ""), fontsize=8)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
