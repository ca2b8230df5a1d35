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
# markers: the tokens reach the OA regime; crosses: they reach another one; "?": the tokens' run stayed
# undetermined within the budget (counted as not reaching OA by C6a). Discrepancies below 10⁻⁶ (zero up to the
# integration tolerance) sit in a grey band under that line, one row per family. Dashed: ε_small of the claims
# table.
# Reads results files only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.patheffects import withStroke
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from lsadyn.paper.plotting import COLUMN_WIDTH, OKABE_ITO, panel_letter, save_figure, style

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("fig_stability")
sm = snakemake
TABLE, PDF, PNG, DPI = sm.input.table, sm.output.pdf, sm.output.png, sm.params.dpi
EPS = sm.params.eps_small

style()
st = load_table(TABLE, "stability_run")
# panels: the theorem's hypotheses first, then the regimes outside them
regimes = sorted(dict.fromkeys(st.regime), key=lambda r: not bool(st[st.regime == r].hypothesis.iloc[0]))
fam_style = {"harmonics": ("o", OKABE_ITO[0]), "von_mises": ("s", OKABE_ITO[1]), "clumps": ("^", OKABE_ITO[2]),
             "random": ("D", OKABE_ITO[4])}
FAMILY_LABEL = {"harmonics": r"density $1 + s\sum_{k \leq 3} \cos(2k\theta + \varphi_k)/k$", "von_mises": "von Mises mixture",
                "clumps": "equal clumps", "random": "random sample"}
FLOOR = 1e-6  # discrepancies below this are zero up to the integration tolerance: drawn in a band under it
# the band below the floor: one row per family (a value under the floor is only "below it", so the rows carry no
# y value and runs of different families at the same ε no longer sit on one another)
ROW_STEP = 0.4  # decades between the band's rows
FLOOR_ROW = {fam: FLOOR * 10 ** (-ROW_STEP * (i + 1)) for i, fam in enumerate(fam_style)}
BAND_LOW = FLOOR * 10 ** (-ROW_STEP * (len(fam_style) + 1))


def title_lines(statement, hypothesis):
    """A config statement ('A = I, lambda_max(V) > 0', 'A = I, V = I + J (rotating clusters)') as two
    title lines: the matrices as maths, then the note and whether the theorem applies."""
    head, _, note = statement.partition(" (")
    math = head.replace("lambda_max", r"\lambda_{\max}").replace("sym(A)", r"\mathrm{sym}(A)")
    math = math.replace("positive definite", r"\succ 0").replace("negative definite", r"\prec 0")
    math = math.replace(", ", r",\ ")
    note = note.rstrip(")")
    for tag_text in ("; outside the theorem", "outside the theorem"):
        note = note.replace(tag_text, "")
    tag = "within the hypotheses" if hypothesis else "outside the hypotheses"  # as the C6 rows say
    return f"${math}$\n" + (f"{note}\n" if note else "") + tag


# %%
ncol = 2
nrow = int(np.ceil(len(regimes) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(COLUMN_WIDTH, 1.75 * nrow + 0.75), sharex=True, sharey=True,
                         squeeze=False)
for k, (ax, reg) in enumerate(zip(axes.flat, regimes)):
    g = st[st.regime == reg]
    for fam, (marker, color) in fam_style.items():
        f = g[g.family == fam]
        same = (f.regime_tokens == f.regime_oa).to_numpy()
        und = (f.regime_tokens == "undetermined").to_numpy()  # not decided within the budget: not a "differs"
        low = (f.discrepancy < FLOOR).to_numpy()
        y = np.where(low, FLOOR_ROW[fam], f.discrepancy)
        ax.scatter(f.eps[same], y[same], marker=marker, color=color, s=11, linewidths=0.4)
        ax.scatter(f.eps[~same & ~und], y[~same & ~und], marker="x", color=color, s=14, linewidths=0.8)
        ax.scatter(f.eps[und], y[und], marker="$?$", color=color, s=50, linewidths=0.3, zorder=5,
                   path_effects=[withStroke(linewidth=1.5, foreground="white")])  # on top of the others
    ax.axvline(EPS, color="0.4", lw=0.6, ls="--")
    ax.axhspan(BAND_LOW, FLOOR, color="0.9", lw=0, zorder=0)
    ax.axhline(FLOOR, color="0.45", lw=0.6, zorder=1)
    ax.set_xscale("log")
    ax.set_ylim(BAND_LOW, max(float(st.discrepancy.max()), 1e-3) * 4)
    ax.set_yscale("log")
    ax.set_title(title_lines(str(g.statement.iloc[0]), bool(g.hypothesis.iloc[0])), fontsize=6, loc="left")
    panel_letter(ax, "abcdefgh"[k], x=-0.04)
# y ticks: every second decade down to the floor, and the band below it labelled as what it is (zero up to the
# integration tolerance; "< 10^-6" was wider than the decade labels and narrowed the panels until ε's ticks ran
# together)
top = axes.flat[0].get_ylim()[1]
decades = [10.0**e for e in range(-6, 3, 2) if 10.0**e <= top]
axes.flat[0].yaxis.set_major_locator(FixedLocator([np.sqrt(BAND_LOW * FLOOR), *decades]))
axes.flat[0].yaxis.set_major_formatter(plt.FuncFormatter(
    lambda v, _: r"$\approx 0$" if v < FLOOR else f"$10^{{{round(np.log10(v))}}}$"))  # as narrow as 10^-6
axes.flat[0].yaxis.set_minor_locator(NullLocator())
lo, hi = st.eps.min() / 1.5, st.eps.max() * 1.5
ticks = [v for v in (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0) if lo <= v <= hi]
for ax in axes.flat:
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
axes[0, 0].text(EPS * 1.08, 0.97, rf"$\varepsilon_{{\rm small}} = {EPS:g}$", transform=axes[0, 0].get_xaxis_transform(),
                fontsize=6, va="top", ha="left", color="0.3")
for k, ax in enumerate(axes.flat):
    if k + ncol >= len(regimes):  # lowest visible panel of its column: x ticks and label
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlabel(r"$\varepsilon = d_{\rm BL}(\mu_0, \mathrm{uniform})$")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$|R_2^{\rm tokens} - R_2^{\rm OA}|$ at the end")
spare = list(axes.flat[len(regimes):])
for ax in spare:
    ax.set_visible(False)
handles = [Line2D([], [], ls="", marker=m, color=c, ms=3.5, label=FAMILY_LABEL[f]) for f, (m, c) in fam_style.items()]
# labels wrapped for a panel-wide legend: it goes into the empty slot of the grid when there is one
handles += [Patch(facecolor="0.9", edgecolor="0.45", lw=0.6,
                  label=r"below $10^{-6}$: zero up to the" "\n" r"integration tolerance ($\approx 0$);"
                        "\ngrey band, one row per family"),
            Line2D([], [], ls="", marker="x", color="0.3", ms=4, label="regime differs from OA"),
            Line2D([], [], ls="", marker="$?$", color="0.3", ms=7, mew=0.3,
                   label="tokens undetermined within\nthe budget (C6a counts it\nas not reaching OA)"),
            Line2D([], [], ls="--", color="0.4", lw=0.6, label=r"$\varepsilon_{\rm small}$: claim checked" "\nleft of it")]
if spare:  # in the empty slot, left-aligned with it, out of the layout (so it cannot squeeze the panels)
    spare[0].set_visible(True)
    spare[0].axis("off")
    leg = spare[0].legend(handles=handles, loc="center left", bbox_to_anchor=(-0.05, 0.5), fontsize=5.5,
                          frameon=False, handletextpad=0.5, labelspacing=0.6)
    leg.set_in_layout(False)
else:
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=6, frameon=False)
# the title says what is plotted, not whether C6 held (that is the claims table's C6 rows, see the caption)
fig.suptitle("C6: tokens started off the OA manifold against the OA solution from the same $R_2(0)$:\n"
             "final discrepancy vs $\\varepsilon = d_{BL}(\\mu_0, \\mathrm{uniform})$", fontsize=7)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
