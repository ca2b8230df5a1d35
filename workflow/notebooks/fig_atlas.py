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
# diagrams of the fraction of runs clustered (r(t) ≥ threshold), USA and SA, per d. Reads results tables only.

# %%
import matplotlib.pyplot as plt
import numpy as np
from lsadyn_workflow.io import atomic_path, load_table

from lsadyn.paper.plotting import COLUMN_WIDTH, OKABE_ITO, REGIME_STYLE, panel_letter, save_figure, style

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
n_panels = 4 + len(tok_models) + len(phase_keys)
ncol = 4
nrow = int(np.ceil(n_panels / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(2 * COLUMN_WIDTH, 1.9 * nrow + 0.3), squeeze=False)
flat = list(axes.ravel())
letters = iter("abcdefghijklmnopqrstuvwxyz")

# %% (a) d = 2 fractions
ax = flat.pop(0)
w = 0.8 / max(len(ensembles), 1)
for k, ens in enumerate(ensembles):
    e = oa[oa.ensemble == ens].set_index("regime").reindex(LABELS)
    x = np.arange(len(LABELS)) + (k - (len(ensembles) - 1) / 2) * w
    f = e.fraction.to_numpy(float)
    keep = f > 0
    err = np.array([f - e.ci_low.to_numpy(float), e.ci_high.to_numpy(float) - f])
    ax.bar(x[keep], f[keep], w, color=OKABE_ITO[k % len(OKABE_ITO)],
           label=f"{ens} (n = {int(e.n_samples.iloc[0])})")
    ax.errorbar(x[keep], f[keep], yerr=err[:, keep], fmt="none", ecolor="k", elinewidth=0.6, capsize=1.5)
ax.set_yscale("log")
ax.set_xticks(np.arange(len(LABELS)), [REGIME_STYLE[r]["short"] for r in LABELS], rotation=35, ha="right")
ax.set_ylabel("fraction")
n_oa = "/".join(str(int(oa[oa.ensemble == e].n_samples.iloc[0])) for e in ensembles)
ax.set_title(f"d = 2, OA (β = {oa.beta.iloc[0]:g}), {n_oa} per ensemble", fontsize=6)  # colours: legend of (b)
panel_letter(ax, next(letters), x=-0.28, y=1.1)

# %% (b-d) where the limit cycles live
NAMES = {"discV": r"disc $V$ = (tr $V$)² − 4 det $V$", "trA": r"tr $A$", "detA": r"det $A$"}
for name in ("discV", "trA", "detA"):
    ax = flat.pop(0)
    for k, ens in enumerate(ensembles):
        b = inv[(inv.ensemble == ens) & (inv.invariant == name)]
        mid = (b.lo.to_numpy(float) + b.hi.to_numpy(float)) / 2
        c = OKABE_ITO[k % len(OKABE_ITO)]
        ax.plot(mid, b.fraction, "o-", ms=2.5, lw=0.9, color=c, label=ens)
        ax.fill_between(mid, b.ci_low, b.ci_high, color=c, alpha=0.18, lw=0)
    ax.set_xlabel(NAMES[name] + " (bin centre)")
    ax.set_ylabel("fraction oscillating")
    ax.set_title("limit cycles by " + NAMES[name].split(" =")[0], fontsize=7)
    ax.set_ylim(bottom=0)
    if name == "discV":
        ax.axvline(0, color="0.5", lw=0.5, ls=":")
        ax.legend(fontsize=5)
    panel_letter(ax, next(letters), x=-0.28, y=1.1)

# %% (e, f) tokens at d > 2
for model in tok_models:
    ax = flat.pop(0)
    t = tok[(tok.model == model) & tok.ensemble.isin(first_tok)]
    ds = sorted(set(t.d))
    bottom = np.zeros(len(ds))
    for r in LABELS:
        f = np.array([float(t[(t.d == d) & (t.regime == r)].fraction.sum()) for d in ds])
        ax.bar(np.arange(len(ds)), f, 0.7, bottom=bottom, color=REGIME_STYLE[r]["color"], label=REGIME_STYLE[r]["short"])
        bottom += f
    n = int(t.n_samples.max()) if len(t) else 0
    ax.set_xticks(np.arange(len(ds)), [str(d) for d in ds])
    ax.set_xlabel("d")
    ax.set_ylabel("fraction of runs")
    ax.set_title(f"{model.upper()} tokens ({n} runs per d)", fontsize=6)
    ax.set_ylim(0, 1)
    if model == tok_models[0]:
        ax.legend(fontsize=5, loc="lower left")
    panel_letter(ax, next(letters), x=-0.28, y=1.1)

# %% phase diagrams
mesh = None
for model, d in phase_keys:
    ax = flat.pop(0)
    p = phase[(phase.model == model) & (phase.d == d) & phase.ensemble.isin(first_phase)]
    betas = np.sort(p.beta.unique())
    times = np.sort(p.t.unique())
    F = p.pivot_table(index="beta", columns="t", values="fraction").reindex(index=betas, columns=times).to_numpy()
    mesh = ax.pcolormesh(times, betas, F, shading="nearest", cmap="RdBu_r", vmin=0, vmax=1)
    ax.set_xlabel("t" if model == "sa" else r"$s = t/\tau_{USA}$")
    ax.set_ylabel(r"$\beta$")
    n = int(p.n_runs.max()) if len(p) else 0
    ax.set_yticks(betas, [f"{b:g}" for b in betas])
    ax.set_title(f"{model.upper()}, d = {d}: clustered ({n} per β)", fontsize=6)
    panel_letter(ax, next(letters), x=-0.28, y=1.1)
for ax in flat:
    ax.axis("off")
fig.tight_layout(rect=(0, 0, 0.93, 0.96))
if mesh is not None:
    cax = fig.add_axes((0.945, 0.08, 0.012, 0.25))
    fig.colorbar(mesh, cax=cax, label=f"fraction with r(t) ≥ {sm.params.r_threshold:g}")
fig.suptitle("C12 (beyond the paper): how common each regime is for random weights; 95 % Wilson intervals",
             fontsize=7, y=0.995)
save_figure(fig, PDF, PNG, DPI, atomic=atomic_path)
