"""Figure helpers of lsadyn.paper.plotting: what they place where, and which curves they report as hiding others."""

import numpy as np
import pytest

from lsadyn.paper import plotting


def _short_panel_with_long_label():
    """A panel shaped like fig_case3 (c): short, with a two-line y label longer than the panel is tall."""
    import matplotlib.pyplot as plt

    plotting.style()
    fig = plt.figure(figsize=(plotting.COLUMN_WIDTH, 4.9))
    gs = fig.add_gridspec(3, 1, height_ratios=[1.5, 0.9, 0.9])
    for i in range(3):
        ax = fig.add_subplot(gs[i])
        ax.plot([0, 12], [0, -40])
        ax.set_title("title\nsecond line" if i == 0 else "title", pad=37 if i == 0 else None)
        ax.set_xlabel("$t$")
    ax.set_ylabel(r"$\arg R_2(t) - \arg R_2(0)$" "\n(unwrapped)")
    return fig, ax


def _extents(fig, *artists):
    fig.canvas.draw()  # runs the layout (constrained) and places the label and the letter
    renderer = fig.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists]


def test_a_letter_left_of_the_y_label_clears_a_label_taller_than_its_panel():
    import matplotlib.pyplot as plt

    fig, ax = _short_panel_with_long_label()
    letter = plotting.panel_letter(ax, "c", left_of_ylabel=True)
    box, label, axes = _extents(fig, letter, ax.yaxis.label, ax)
    assert label.y1 > axes.y1  # the situation of the defect: the label reaches above the panel
    assert not box.overlaps(label)
    assert box.x1 <= label.x0
    assert box.y0 >= axes.y1  # still at the panel's top, outside the data area
    plt.close(fig)


def test_the_fixed_letter_position_runs_into_such_a_label():
    """The default placement (x = -0.1 of the axes) overlaps that label: the case left_of_ylabel exists for."""
    import matplotlib.pyplot as plt

    fig, ax = _short_panel_with_long_label()
    letter = plotting.panel_letter(ax, "c")
    box, label = _extents(fig, letter, ax.yaxis.label)
    assert box.overlaps(label)
    plt.close(fig)


def test_identical_groups_names_curves_drawn_on_one_another_only():
    spike = np.r_[np.zeros(40), 20.5]
    curves = {"identity": spike, "negative_definite": np.r_[np.ones(20), np.zeros(21)], "random": spike.copy(),
              "rotation": spike * (1 + 1e-4), "near": spike * 1.05}
    assert plotting.identical_groups(curves) == [["identity", "random", "rotation"]]
    assert plotting.identical_groups({"a": spike, "b": spike * 1.05}) == []
    assert plotting.identical_groups({}) == []


def test_edge_peaks_finds_the_bins_at_minus_and_plus_one_that_are_peaks():
    pair = np.r_[10.0, np.zeros(39), 10.0]  # antipodal pair: half the pairs at -1, half at +1
    single = np.r_[np.zeros(40), 20.0]  # one cluster: every pair at +1
    spread = np.r_[1.5, np.full(39, 1.0), 1.7]  # spread out: low at both ends
    peaks = plotting.edge_peaks({"pair": pair, "single": single, "spread": spread}, 0.25)
    assert peaks == {-1: ["pair"], 1: ["pair", "single"]}
    assert plotting.edge_peaks({"spread": spread}, 0.25) == {-1: ["spread"], 1: ["spread"]}


@pytest.mark.parametrize("letter", ["a", "h"])
def test_panel_letter_returns_its_artist(letter):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert plotting.panel_letter(ax, letter).get_text() == f"({letter})"
    plt.close(fig)


def test_regime_scatter_draws_hollow_points_open_and_keeps_one_filled_legend_entry_per_regime():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    fig, ax = plt.subplots()
    labels = ["cluster_converge", "interior_converge", "interior_converge", "oscillate", "undetermined"]
    hollow = [False, False, True, True, True]
    handles = plotting.regime_scatter(ax, [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], labels, hollow=hollow)
    assert [h.get_label() for h in handles] == [plotting.REGIME_STYLE[r]["label"] for r in
                                               ("cluster_converge", "oscillate", "interior_converge", "undetermined")]
    oscillate = handles[1]  # every oscillating point is hollow: its legend entry is an empty, filled scatter
    assert len(oscillate.get_offsets()) == 0
    assert tuple(oscillate.get_facecolor()[0]) == to_rgba(plotting.REGIME_STYLE["oscillate"]["color"])
    drawn = {tuple(map(float, c.get_offsets()[0])): c for c in ax.collections if len(c.get_offsets())}
    for point, is_hollow in zip([(0, 0), (1, 1), (2, 2), (3, 3)], hollow):
        face = tuple(drawn[point].get_facecolor()[0])
        assert (face == to_rgba("white")) == is_hollow, point
    assert len(ax.collections) == 6  # 4 regimes + the hollow interior and oscillating points
    plt.close(fig)


def test_regime_scatter_draws_the_regime_with_fewest_open_points_on_top():
    # fig_case1 (a'): one open oscillation triangle between open cluster circles at tr A = 0 was hidden under them
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    labels = ["interior_converge"] * 3 + ["cluster_converge"] * 2 + ["oscillate", "undetermined"]
    plotting.regime_scatter(ax, range(7), range(7), labels, hollow=[True] * 7)
    z = {tuple(map(float, c.get_offsets()[0])): c.get_zorder() for c in ax.collections if len(c.get_offsets())}
    assert z[(0.0, 0.0)] < z[(3.0, 3.0)] < z[(5.0, 5.0)] < z[(6.0, 6.0)]  # interior < clusters < oscillate < undet.
    plt.close(fig)


@pytest.mark.parametrize("font_name", ["DejaVu Sans", "DejaVu Sans:bold", "DejaVu Sans:italic"])
def test_pdf_font_subset_is_byte_identical_with_the_layout_tables_dropped_on_load(font_name):
    """save_figure's PDF fonts: removing GSUB, GPOS, GDEF (and the legacy kern table the subsetter drops when
    GPOS is there) right after loading gives the same subset, byte for byte, as letting the subsetter drop them
    after it has read them (matplotlib's own options; the glyphs of a figure's text)."""
    from fontTools import subset
    from matplotlib import font_manager
    from matplotlib.backends import _backend_pdf_ps

    plotting._lean_pdf_font_subsets()
    wrapped = subset.load_font
    assert wrapped._lsadyn_drops_layout
    path = font_manager.findfont(font_manager.FontProperties(font_name))
    font = font_manager.get_font(path)
    glyphs = {font.get_char_index(ord(c)) for c in "(a) |R₂(t)| θ_k mod 2π, d = 100: 0.25 × 10⁻³ fi"}

    def subset_bytes():
        with _backend_pdf_ps.get_glyphs_subset(path, glyphs) as sub:
            return _backend_pdf_ps.font_as_file(sub.font).getvalue(), set(sub.font.keys())

    lean, tags = subset_bytes()
    subset.load_font = wrapped.__wrapped__
    try:
        reference, _ = subset_bytes()
    finally:
        subset.load_font = wrapped
    assert lean == reference
    assert not tags & {"GSUB", "GPOS", "GDEF"}
