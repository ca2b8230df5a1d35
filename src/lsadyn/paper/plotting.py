"""One figure style for every paper figure: Okabe–Ito colours (colour-blind safe) plus a marker
per regime, 7-pt text, legends at 6 pt, bold panel letters, one-column width (3.4 in). Plot helpers
read arrays, never simulate."""

from __future__ import annotations

import contextlib
import logging

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COLUMN_WIDTH = 3.4  # inches
REGIME_STYLE = {
    "cluster_converge": dict(color="#0072B2", marker="o", label="clusters converge", short="converge"),
    "cluster_rotate": dict(color="#E69F00", marker="s", label="clusters rotate", short="rotate"),
    "oscillate": dict(color="#009E73", marker="^", label="oscillate", short="oscillate"),
    "interior_converge": dict(color="#D55E00", marker="D", label="interior (no clusters)", short="interior"),
    "undetermined": dict(color="#999999", marker="x", label="undetermined", short="undetermined"),
}
RC = {
    "font.size": 7, "axes.titlesize": 7, "axes.labelsize": 7, "legend.fontsize": 6, "xtick.labelsize": 6,
    "ytick.labelsize": 6, "lines.linewidth": 1.0, "axes.linewidth": 0.6, "savefig.bbox": "tight",
    "pdf.fonttype": 42, "figure.constrained_layout.use": True, "svg.hashsalt": "lsadyn",
}


#: Okabe–Ito palette (Wong, Nature Methods 8, 441 (2011)), distinguishable under common colour-vision
#: deficiencies; pair each colour with a line style or marker where lines may overlap.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (3, 1))]


def style():
    """Apply the project style (call once per figure script). Also quiets fontTools, whose INFO lines on font
    subsetting (hundreds per PDF) buried a figure job's warnings in its log."""
    plt.rcParams.update(RC)
    logging.getLogger("fontTools").setLevel(logging.WARNING)


def panel_letter(ax, letter, x=-0.1, y=1.02, above=None, left_of_ylabel=False):
    """Bold panel letter "(a)" at the top left, outside the data area. ``above``: an artist over the axes (a
    legend from :func:`legend_above`): the letter then sits on that artist's top edge instead of ``y`` (a
    legend as wide as the panel would otherwise run through it). ``left_of_ylabel``: the letter's right edge sits
    on the y label's left edge (``x`` is ignored), wherever the layout puts that label: a y label longer than a
    short panel is tall reaches above the axes, and wide tick labels push it left, into a letter at a fixed ``x``.
    Call ``fig.align_ylabels()`` to line such letters up across panels."""
    kw = {"ha": "right", "va": "bottom", "fontsize": 8, "fontweight": "bold"}
    if left_of_ylabel:  # x in fraction of the label's bounding box (0: its left edge), y in axes fraction
        return ax.annotate(f"({letter})", xy=(0.0, y), xycoords=(ax.yaxis.label, ax.transAxes),
                           xytext=(-3.0, 0.0), textcoords="offset points", annotation_clip=False, **kw)
    if above is None:
        return ax.text(x, y, f"({letter})", transform=ax.transAxes, **kw)
    # x in axes fraction, y in fraction of the artist's bounding box (1: its top)
    return ax.annotate(f"({letter})", xy=(x, 1.0), xycoords=(ax.transAxes, above), annotation_clip=False, **kw)


def legend_above(ax, handles=None, ncol=2):
    """A 6-pt legend in a row above the axes (never over data)."""
    kw = dict(fontsize=6, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=ncol, frameon=False,
              handlelength=1.5, columnspacing=1.0)
    return ax.legend(handles=handles, **kw) if handles is not None else ax.legend(**kw)


def regime_scatter(ax, x, y, labels, size=9, edge=0.5, hollow=None):
    """Scatter points coloured and shaped by regime label; returns the legend handles (one per regime present).
    Undetermined points (usually few) are drawn on top of the others, larger and with a thicker ×, so none hides
    under a determined marker. ``edge``: width (pt) of the determined markers' edge, in their own colour, which adds
    to their size (``size`` is the area in pt², as in ``scatter``): 0 on a dense grid keeps close columns apart.
    ``hollow``: boolean mask of points drawn as open markers (edge in the regime's colour, white inside; the
    figure's legend must say what open means there); an × has no fill, so undetermined points stay as they are."""
    labels = np.asarray(labels)
    x, y = np.asarray(x), np.asarray(y)
    hollow = np.zeros(len(labels), bool) if hollow is None else np.asarray(hollow, bool)
    handles = []
    # open markers: the regime with the fewest open points on top (zorder 2.6-2.8, below undetermined at 3), so a
    # few points never hide under many (open clusters were hidden under open diamonds in fig_case1, then an open
    # oscillation triangle under open circles)
    counts = {lab: int(((labels == lab) & hollow).sum()) for lab in REGIME_STYLE}
    by_count = sorted(counts, key=lambda lab: -counts[lab])  # most first (lowest)
    for lab, st in REGIME_STYLE.items():
        sel = labels == lab
        if not sel.any():
            continue
        if lab == "undetermined":
            handles.append(ax.scatter(x[sel], y[sel], c=st["color"], marker=st["marker"], label=st["label"],
                                      s=3 * size, linewidths=1.3, zorder=3))
            continue
        # the legend's regime entry is filled even where every point of the regime is open (an empty scatter)
        handles.append(ax.scatter(x[sel & ~hollow], y[sel & ~hollow], c=st["color"], marker=st["marker"],
                                  label=st["label"], s=size, linewidths=edge))
        if (sel & hollow).any():  # larger than a filled marker (an outline reads smaller than a disc), white inside
            # (as fig_highdim's open markers) so that one drawn over filled markers of its colour stays open; above
            # every filled marker, the regimes with fewer open points above those with more
            ax.scatter(x[sel & hollow], y[sel & hollow], facecolors="white", edgecolors=st["color"],
                       marker=st["marker"], s=2.2 * size, linewidths=1.0,
                       zorder=2.6 + 0.05 * by_count.index(lab))
    return handles


def r2_panel(ax, t, R2, regimes, ylabel=r"$|R_2(t)|$"):
    """|R₂(t)| of representative runs, one line per regime."""
    for tt, r, lab in zip(t, R2, regimes):
        st = REGIME_STYLE[str(lab)]
        ax.plot(tt / tt[-1], np.abs(r), color=st["color"], label=st["label"])
    ax.set_xlabel(r"$t / t_{\max}$ ($t_{\max}$: each run's own horizon)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)


def identical_groups(curves, atol=0.01):
    """Groups (lists of keys, in the dict's order) of two or more curves of ``curves`` ({name: 1-d array}) equal up
    to ``atol`` times the largest absolute value of the group's first curve: drawn on top of one another, only the
    last of a group shows, so a figure names them instead."""
    groups, left = [], list(curves)
    while left:
        first = left.pop(0)
        scale = max(float(np.max(np.abs(curves[first]))), 1e-12)
        group = [first] + [k for k in left if np.allclose(curves[k], curves[first], rtol=0, atol=atol * scale)]
        left = [k for k in left if k not in group]
        if len(group) > 1:
            groups.append(group)
    return groups


def edge_peaks(hists, fraction):
    """{-1: [...], 1: [...]}: the keys of ``hists`` ({name: bin values}) whose first (-1) or last (+1) bin is a peak,
    at least ``fraction`` of the highest bin of them all (in fig_highdim's histograms of inner products: tokens in
    one cluster, +1, or in an antipodal pair, -1 and +1), in the dict's order. Curves that reach the same height in
    such a bin hide each other."""
    top = max(float(np.max(h)) for h in hists.values())
    return {side: [k for k, h in hists.items() if h[0 if side < 0 else -1] >= fraction * top] for side in (-1, 1)}


TOKEN_ANGLE_LABEL = r"$\theta_k$ mod $2\pi$"


def token_panel(ax, t, theta, regime, max_tokens=64):
    """Space-time plot of token angles θ_k(t) (mod 2π) for one run."""
    st = REGIME_STYLE[str(regime)]
    k = np.linspace(0, theta.shape[1] - 1, min(max_tokens, theta.shape[1])).astype(int)
    ax.scatter(np.repeat(t[:, None], k.size, axis=1), np.mod(theta[:, k], 2 * np.pi), s=0.15, c=st["color"],
               rasterized=True, linewidths=0)
    ax.set_ylim(0, 2 * np.pi)
    ax.set_yticks([0, np.pi, 2 * np.pi], ["0", r"$\pi$", r"$2\pi$"])
    ax.set_title(st["short"])
    ax.set_xlabel("$t$")


def _lean_pdf_font_subsets():
    """Embed TrueType subsets (pdf.fonttype 42) without the OpenType layout tables GSUB, GPOS and GDEF: in a PDF
    every glyph is placed by the file itself (matplotlib laid the text out), so no viewer reads them, while
    subsetting them was about half of a figure's PDF time (0.25-0.6 s per figure). fontTools keeps its list of
    tables to drop in a private attribute: if that is renamed, this does nothing and only the speed-up is lost."""
    from fontTools import subset

    dropped = getattr(subset.Options, "_drop_tables_default", None)
    if isinstance(dropped, list) and "GSUB" not in dropped:
        subset.Options._drop_tables_default = [*dropped, *_LAYOUT_TABLES]
    if not getattr(subset.load_font, "_lsadyn_drops_layout", False):
        subset.load_font = _dropping_layout_tables(subset.load_font)


_LAYOUT_TABLES = ("GSUB", "GPOS", "GDEF")


def _dropping_layout_tables(load_font):
    """``fontTools.subset.load_font`` that removes the layout tables the options drop as soon as the font is
    loaded. Newer fontTools (4.6x) decompile GSUB, GPOS and GDEF in ``Subsetter.subset`` (to convert their
    formats) before the subsetter drops them: ~1/3 of a figure's font subsetting, for tables the PDF never
    holds. Removed on load, they are never read; the subset is the same, byte for byte: the subsetter drops a
    legacy 'kern' table when the font has GPOS (it checks before it drops GPOS), so that goes too."""

    def load(font_file, options, *args, **kwargs):
        font = load_font(font_file, options, *args, **kwargs)
        if "GPOS" in options.drop_tables and "GPOS" in font and not options.legacy_kern and "kern" in font:
            del font["kern"]
        for tag in _LAYOUT_TABLES:
            if tag in options.drop_tables and tag in font:
                del font[tag]
        return font

    load._lsadyn_drops_layout = True
    load.__wrapped__ = load_font
    return load


def save_figure(fig, pdf, png, dpi, atomic=None):
    """Write the figure as PNG and PDF (metadata without dates, so reruns are reproducible).

    ``atomic(path)``: a context manager giving the temporary path to write and renaming it into place on success
    (the workflow passes :func:`lsadyn_workflow.io.atomic_path`: a full disk is then one line naming the file, and
    no half-written figure is left); by default each file is written in place.

    The figure is laid out once: constrained layout and the tight bounding box are computed at the PNG's
    dpi (what ``savefig(png, bbox_inches="tight")`` does), then both files are drawn with the layout
    engine off and that box. Each ``savefig`` would otherwise run the layout, a dry draw and the tight
    box again: half of a figure job's time for the 48 axes of fig_robustness. The PNG is pixel for pixel
    what it was; the PDF's positions come from the same layout instead of one computed at 72 dpi. The layout
    engine runs by itself (it measures the artists it needs) rather than inside a dry draw of every artist
    (``draw_without_rendering``): the same layout and box, both files byte for byte as before, without one
    whole pass over the artists (~0.2 s of a figure job)."""
    atomic_path = _in_place if atomic is None else atomic
    fig.set_dpi(dpi)
    renderer = fig.canvas.get_renderer()  # Agg renderer at the PNG's dpi
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    box = fig.get_tightbbox(renderer).padded(plt.rcParams["savefig.pad_inches"])
    # no engine at all ("none" leaves a placeholder, and savefig then dry-draws again); inside the rc context,
    # since savefig resets the engine to None, which outside it means the rc default (constrained layout)
    with plt.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)
        # atomically (temp file + rename): a full disk is one line naming the file, and no half-written figure
        with atomic_path(png) as tmp_png:  # renamed into place only once the PDF is written too
            with _mathtext_shared_with(renderer):
                fig.savefig(tmp_png, dpi=dpi, bbox_inches=box, metadata={"Software": None})
            _lean_pdf_font_subsets()
            with atomic_path(pdf) as tmp_pdf:
                fig.savefig(tmp_pdf, bbox_inches=box, metadata={"CreationDate": None, "ModDate": None})
    plt.close(fig)


@contextlib.contextmanager
def _in_place(path):
    yield path


@contextlib.contextmanager
def _mathtext_shared_with(renderer):
    """Inside: every new Agg renderer parses mathtext with ``renderer``'s parser, whose cache holds the
    figure's maths already parsed at this dpi for the layout (each renderer has its own parser and cache, so the
    PNG's renderer, of another size, parsed every expression again: 5-20 ms each, 20-40 per figure). The parse
    depends only on the expression, dpi, font and hinting, which are the cache's key."""
    from matplotlib.backends.backend_agg import RendererAgg

    init = RendererAgg.__init__

    def shared_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.mathtext_parser = renderer.mathtext_parser

    RendererAgg.__init__ = shared_init
    try:
        yield
    finally:
        RendererAgg.__init__ = init


def atlas_with_representatives(sim, traj, title, hollow=None, zoom=False):
    """Figure for an atlas case: regime scatter of (x, y) on top (returned for the caller's
    claim overlay and legend; ``hollow``: mask of points drawn open, see :func:`regime_scatter`), |R₂(t)| of the
    representatives (OA in colour, tokens dotted), and one token space-time panel per representative regime;
    panel letters (a), (b), (c)…, the claim in the figure title. Returns (fig, atlas_axes), or with ``zoom``
    (fig, atlas_axes, zoom_axes): the same scatter again in a narrower axes right of the atlas, for the caller to
    set to a region where points crowd (its limits and frame are the caller's; the figure is taller, for a legend
    below it: one above the narrower atlas would squeeze it)."""
    k = len(traj["regime"])
    fig = plt.figure(figsize=(COLUMN_WIDTH, 5.6 if zoom else 4.9))  # with zoom: room for the legend below
    gs = fig.add_gridspec(3, max(k, 1), height_ratios=[1.6, 0.8, 0.8])
    top = gs[0, :].subgridspec(1, 2, width_ratios=[1.75, 1]) if zoom else None
    ax = fig.add_subplot(top[0, 0] if zoom else gs[0, :])
    regime_scatter(ax, sim.x, sim.y, sim.regime_oa, size=7, hollow=hollow)
    fig.suptitle(title, fontsize=7)
    panel_letter(ax, "a", x=-0.08)
    axz = None
    if zoom:
        axz = fig.add_subplot(top[0, 1])
        regime_scatter(axz, sim.x, sim.y, sim.regime_oa, size=7, hollow=hollow)
    ax2 = fig.add_subplot(gs[1, :])
    r2_panel(ax2, traj["t"], traj["R2_oa"], traj["regime"])
    for t, rp in zip(traj["t"], traj["R2_particles"]):
        ax2.plot(t / t[-1], np.abs(rp), color="k", lw=0.5, ls=":")
    ax2.set_title("representatives: OA (colour) and $n$ tokens (dotted)")
    panel_letter(ax2, "b", x=-0.08)
    for i in range(k):
        axi = fig.add_subplot(gs[2, i])
        token_panel(axi, traj["t"][i], traj["theta"][i], traj["regime"][i])
        if i == 0:
            axi.set_ylabel(TOKEN_ANGLE_LABEL)
        panel_letter(axi, "cdefgh"[i], x=0.0, y=1.3)  # above the short title: narrow panels side by side
    return (fig, ax, axz) if zoom else (fig, ax)
