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
# # Movies: tokens of one scenario on the circle (d = 2) and on the sphere (d = 3)
# Reads the saved trajectories (results/movies/<scenario>.npz, written by the movie_tokens rule);
# never simulates. GIFs via matplotlib's Pillow writer (no ffmpeg).

# %%
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from lsadyn.paper.movies.frames import BlittedPillowWriter, circle_frames, gif_html_page, sphere_frames, token_colours
from lsadyn.paper.plotting import style
from lsadyn_workflow.io import atomic_path, load_arrays

if "snakemake" not in globals():  # run on its own (python, Jupyter): the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("movie", movie="cluster_rotate")
sm = snakemake
TOKENS, OUT2, OUT3 = sm.input.tokens, sm.output.d2, sm.output.d3
PAGES = {2: sm.output.page_d2, 3: sm.output.page_d3}  # the GIFs as HTML pages: the report shows them
TITLE, FPS, DPI = sm.params.title, sm.params.fps, sm.params.dpi
REST_A, REST_V = sm.params.rest

style()
data = load_arrays(TOKENS)


# %%
def movie(d, out):
    t, X, r = data[f"d{d}_t"], data[f"d{d}_X"], data[f"d{d}_r"]
    R2, axis = data[f"d{d}_R2"], data[f"d{d}_axis"]
    colours = token_colours(X[0])
    fig = plt.figure(figsize=(4.2, 2.3), dpi=DPI, layout="constrained")
    fig.get_layout_engine().set(w_pad=0.06)
    gs = fig.add_gridspec(1, 2, width_ratios=[1.1, 1])
    ax = fig.add_subplot(gs[0], projection="3d" if d == 3 else None)
    tr = fig.add_subplot(gs[1])
    if d == 2:
        update = circle_frames(ax, X[0], colours)
        # top-left corner of the circle's square, inside the figure (at the axes' edge, x = 0, the canvas
        # edge cut the first letter); no token reaches it (tokens sit on the unit circle)
        stamp = ax.text(-1.1, 1.12, "", fontsize=6, va="top", ha="left")
        tr.set_ylabel(r"$|R_2(t)|$ (orange: $R_2$ axis, left)")
    else:
        update = sphere_frames(ax, X[0], colours)
        stamp = ax.text2D(0.04, 1.0, "", transform=ax.transAxes, fontsize=6, va="top")
        tr.set_ylabel(r"$r(t) = (3\lambda_{\max}(M) - 1)/2$")
    tr.plot(t, r, color="0.8", lw=0.8)
    (line,) = tr.plot([], [], color="#D55E00", lw=1.2)
    (dot,) = tr.plot([], [], "o", color="#D55E00", ms=3)
    # a margin right of t_max and a layout pad: the last frame's end marker sat on the right spine, at the
    # canvas edge, and was cut in half
    tr.set_xlim(0, t[-1] * 1.04)
    tr.set_ylim(-0.02, 1.02)
    tr.set_xlabel("$t$")
    # d = 3: the title's matrices are the plane block; the third axis is scaled by rest_A, rest_V (config)
    embedded = (f"\nembedded: A = diag(A$_2$, {REST_A:g}), V = diag(V$_2$, {REST_V:g})" if d > 2 else "")
    fig.suptitle(f"{TITLE}; d = {d}, n = {X.shape[1]}, linear attention{embedded}", fontsize=7)

    def frame(i):
        moving = update(X[i], R2[i]) if d == 2 else update(X[i], axis[i], r[i])
        stamp.set_text(f"t = {t[i]:.1f}")  # plain text: a mathtext stamp was parsed anew every frame (0.5 s a job)
        line.set_data(t[: i + 1], r[: i + 1])
        dot.set_data([t[i]], [r[i]])
        return [*moving, stamp, line, dot]

    animated = frame(0)
    for a in animated:
        a.set_animated(True)
    fig.canvas.draw()  # lay out once and keep the static parts as a background
    fig.set_layout_engine("none")
    background = fig.canvas.copy_from_bbox(fig.bbox)
    writer = BlittedPillowWriter(fps=FPS)
    with atomic_path(out) as tmp:
        with writer.saving(fig, tmp, DPI):
            for i in range(len(t)):
                fig.canvas.restore_region(background)
                for a in frame(i):
                    fig.draw_artist(a)
                writer.grab_frame()
        os.chmod(tmp, 0o644)
    plt.close(fig)
    with atomic_path(PAGES[d]) as tmp:
        Path(tmp).write_text(gif_html_page(out, f"{TITLE}, d = {d}"), encoding="utf-8")


# %%
movie(2, OUT2)
movie(3, OUT3)
