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
# # A regime atlas for random weights (claim C12, beyond the paper)
# (a) d = 2 LSA by OA: the fraction of each regime per weight ensemble, with 95 % Wilson intervals (log scale);
# (b–d) where the limit cycles (OA label oscillate) live: the oscillating fraction in quantile bins of disc V, tr A
# and det A; (e, f) token runs at d > 2, LSA and USA: regime fractions per d (first ensemble); then the (β, t) phase
# diagrams of the fraction of runs clustered (r(t) ≥ threshold), USA and SA, per d, in one row with its own colour
# bar. The ensembles (a–d) and the regimes (e, f) use separate colour sets (a colour means one thing). Reads results
# tables only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from lsadyn.paper.plotting import COLUMN_WIDTH, REGIME_STYLE, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_atlas")
sm = snakemake
PDF, PNG, DPI = sm.output.pdf, sm.output.png, sm.params.dpi

style()
atlas = load_table(sm.input.atlas, "atlas")
inv = load_table(sm.input.invariants, "atlas_invariants")
phase = load_table(sm.input.phase, "atlas_phase_table")
LABELS = list(REGIME_STYLE)
oa = atlas[atlas.method == "oa"]
tok = atlas[atlas.method == "tokens"]
ensembles = list(dict.fromkeys(oa.ensemble))
first_tok = list(dict.fromkeys(tok.ensemble))[:1]
first_phase = list(dict.fromkeys(phase.ensemble))[:1]
phase_keys = list(dict.fromkeys(zip(phase.model, phase.d))) if len(phase) else []
tok_models = list(dict.fromkeys(tok.model))
# ensembles (a-d) get colours no regime uses (regimes, e-f, take blue, orange, green, vermillion, grey), plus a
# marker, line style and hatch each: a colour means one thing in the whole figure
ENS_COLOR = ["#000000", "#CC79A7", "#56B4E9", "#F0E442"]
ENS_MARK, ENS_LS, ENS_HATCH = ["o", "s", "^", "D"], ["-", "--", ":", "-."], ["", "////", "....", "xxxx"]


def ens_style(k):
    return {"color": ENS_COLOR[k % len(ENS_COLOR)], "marker": ENS_MARK[k % len(ENS_MARK)],
            "ls": ENS_LS[k % len(ENS_LS)], "hatch": ENS_HATCH[k % len(ENS_HATCH)]}


n_phase = max(len(phase_keys), 1)
ncol = max(4, len(tok_models) + 1, n_phase)
fig = plt.figure(figsize=(2 * COLUMN_WIDTH, 7.4))
sub = fig.subfigures(3, 1, height_ratios=[1.25, 1.0, 1.0])
row_a = sub[0].subplots(1, 4, gridspec_kw={"width_ratios": [1.3, 1, 1, 1]})
letters = iter("abcdefghijklmnopqrstuvwxyz")

# %% (a) d = 2 fractions: horizontal bars, the regimes on the y axis (no slanted labels)
ax = row_a[0]
h = 0.8 / max(len(ensembles), 1)
for k, ens in enumerate(ensembles):
    e = oa[oa.ensemble == ens].set_index("regime").reindex(LABELS)
    y = np.arange(len(LABELS)) + (k - (len(ensembles) - 1) / 2) * h
    f = e.fraction.to_numpy(float)
    keep = f > 0
    err = np.array([f - e.ci_low.to_numpy(float), e.ci_high.to_numpy(float) - f])
    st = ens_style(k)
    ax.barh(y[keep], f[keep], h, color=st["color"], hatch=st["hatch"], edgecolor="white", lw=0.3)
    ax.errorbar(f[keep], y[keep], xerr=err[:, keep], fmt="none", ecolor="0.35", elinewidth=0.6, capsize=1.2)
ax.set_xscale("log")
ax.set_yticks(np.arange(len(LABELS)), [REGIME_STYLE[r]["short"] for r in LABELS])
ax.invert_yaxis()
ax.set_xlabel("fraction (95 % interval)")
ax.set_title(f"$d = 2$ by OA, β = {oa.beta.iloc[0]:g}", fontsize=7)
panel_letter(ax, next(letters), x=-0.05, y=1.02)

# %% (b-d) where the limit cycles live
NAMES = {"discV": r"disc $V$ = (tr $V$)² − 4 det $V$", "trA": r"tr $A$", "detA": r"det $A$"}
for ax, name in zip(row_a[1:], ("discV", "trA", "detA")):
    for k, ens in enumerate(ensembles):
        b = inv[(inv.ensemble == ens) & (inv.invariant == name)]
        mid = (b.lo.to_numpy(float) + b.hi.to_numpy(float)) / 2
        st = ens_style(k)
        ax.plot(mid, b.fraction, marker=st["marker"], ls=st["ls"], ms=2.5, lw=0.9, color=st["color"])
        ax.fill_between(mid, b.ci_low, b.ci_high, color=st["color"], alpha=0.12, lw=0)
    ax.set_xlabel(NAMES[name] + ("\n" if name == "discV" else "") + " (bin centre)")
    ax.set_title("limit cycles by " + NAMES[name].split(" =")[0], fontsize=7)
    ax.set_ylim(bottom=0)
    if name == "discV":
        ax.set_ylabel("fraction oscillating (limit cycles)")
        ax.axvline(0, color="0.5", lw=0.5, ls=":")
    panel_letter(ax, next(letters), x=-0.12, y=1.02)
# one entry per ensemble: its bar in (a) and its line in (b-d)
ens_handles = [(Patch(facecolor=ens_style(k)["color"], hatch=ens_style(k)["hatch"], edgecolor="white"),
                Line2D([], [], color=ens_style(k)["color"], ls=ens_style(k)["ls"], marker=ens_style(k)["marker"],
                       ms=3, lw=0.9)) for k in range(len(ensembles))]
ens_labels = [f"{ens} (n = {int(oa[oa.ensemble == ens].n_samples.iloc[0])})" for ens in ensembles]
sub[0].legend(ens_handles, ens_labels, handler_map={tuple: HandlerTuple(ndivide=None, pad=0.6)},
              loc="outside lower center", ncol=len(ensembles), fontsize=6, frameon=False, handlelength=4.0,
              title="(a–d): weight ensemble (bar in (a), line in (b–d); shaded: 95 % interval)", title_fontsize=6)

# %% (e, f) tokens at d > 2: regime colours (REGIME_STYLE), legend beside them
row_e = sub[1].subplots(1, ncol)
for ax, model in zip(row_e, tok_models):
    t = tok[(tok.model == model) & tok.ensemble.isin(first_tok)]
    ds = sorted(set(t.d))
    bottom = np.zeros(len(ds))
    for r in LABELS:
        f = np.array([float(t[(t.d == d) & (t.regime == r)].fraction.sum()) for d in ds])
        ax.bar(np.arange(len(ds)), f, 0.7, bottom=bottom, color=REGIME_STYLE[r]["color"])
        bottom += f
    n = int(t.n_samples.max()) if len(t) else 0
    ax.set_xticks(np.arange(len(ds)), [str(d) for d in ds])
    ax.set_xlabel("token dimension $d$")
    ax.set_ylabel("fraction of runs" if model == tok_models[0] else "")
    ax.set_title(f"{model.upper()} tokens ({n} runs per $d$)", fontsize=6.5)
    ax.set_ylim(0, 1)
    panel_letter(ax, next(letters), x=-0.12, y=1.02)
rest = list(row_e[len(tok_models):])
for ax in rest:
    ax.axis("off")
if rest:  # the regime legend in the first free slot of the row
    rest[0].legend(handles=[Patch(color=REGIME_STYLE[r]["color"], label=REGIME_STYLE[r]["label"]) for r in LABELS],
                   loc="center left", fontsize=6, frameon=False, title_fontsize=6,
                   title=f"(e, f): regime, {first_tok[0] if first_tok else ''} weights")

# %% phase diagrams: one row, one colour bar for the row
row_g = sub[2].subplots(1, ncol, squeeze=False)[0]
mesh = None
phase_axes, phase_letters = [], []
for ax, (model, d) in zip(row_g, phase_keys):
    p = phase[(phase.model == model) & (phase.d == d) & phase.ensemble.isin(first_phase)]
    betas = np.sort(p.beta.unique())
    times = np.sort(p.t.unique())
    F = p.pivot_table(index="beta", columns="t", values="fraction").reindex(index=betas, columns=times).to_numpy()
    # one row of equal height per β run (the β grid is not evenly spaced: on a β axis 0.1 and 1 would crowd)
    mesh = ax.pcolormesh(times, np.arange(len(betas)), F, shading="nearest", cmap="RdBu_r", vmin=0, vmax=1)
    ax.set_xlabel("t" if model == "sa" else r"$s = t/\tau_{USA}$")
    ax.set_ylabel(r"$\beta$ (a row per value)" if not phase_axes else "")
    n = int(p.n_runs.max()) if len(p) else 0
    ax.set_yticks(np.arange(len(betas)), [f"{b:g}" for b in betas])
    ax.set_title(f"{model.upper()}, $d = {d}$ ({n} runs per β)", fontsize=6.5)
    phase_letters.append(next(letters))
    panel_letter(ax, phase_letters[-1], x=-0.12, y=1.02)
    phase_axes.append(ax)
for ax in row_g[len(phase_keys):]:
    ax.axis("off")
if mesh is not None:
    first, last = phase_letters[0], phase_letters[-1]
    sub[2].colorbar(mesh, ax=phase_axes, shrink=0.9, pad=0.02,
                    label=f"({first}–{last}): fraction of runs\nwith r(t) ≥ {sm.params.r_threshold:g}")
    sub[2].suptitle(f"({first}–{last}) softmax phase diagrams: fraction of runs clustered at time t, "
                    f"{first_phase[0] if first_phase else ''} weights", fontsize=7)
fig.suptitle("C12 (beyond the paper): how common each regime is for random weights", fontsize=8)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
