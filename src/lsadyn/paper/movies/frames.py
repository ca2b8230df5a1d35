"""Drawing token movies from token trajectories (no simulation here; :mod:`lsadyn.paper.movies.runs` simulates): tokens on
the circle with the R₂ axis (d = 2), tokens on S² with the leading axis of M (d = 3), beside r(t), as one GIF
(:func:`write_token_movie`), and a Pillow GIF writer that grabs blitted frames (only the moving artists are redrawn; no
ffmpeg needed)."""

from __future__ import annotations

import numpy as np
from matplotlib.animation import PillowWriter
from PIL import Image


def token_colours(X0, cmap="twilight"):
    """A fixed colour per token from its initial azimuth (cyclic, colour-vision-deficiency friendly), so
    individual tokens can be followed from frame to frame."""
    import matplotlib

    phase = np.mod(np.arctan2(X0[:, 1], X0[:, 0]), 2 * np.pi) / (2 * np.pi)
    return matplotlib.colormaps[cmap](phase)


def circle_frames(ax, X0, colours):
    """d = 2: set up the unit circle, the tokens and R₂ drawn as the cluster axis (a segment through the
    origin at angle arg(R₂)/2 with half-length |R₂|: R₂ is a second harmonic, an axis rather than a
    direction). Returns ``update(X, R2)`` that moves them to another frame."""
    s = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(s), np.sin(s), color="0.7", lw=0.8, zorder=0)
    ax.plot([0], [0], marker="+", color="0.4", ms=5)
    dots = ax.scatter(X0[:, 0], X0[:, 1], s=14, c=colours, edgecolors="k", linewidths=0.3, zorder=3)
    (axis_line,) = ax.plot([], [], color="#D55E00", lw=2.0, zorder=2, solid_capstyle="round", label=r"$R_2$ axis")
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.set_aspect("equal")
    ax.set_axis_off()

    def update(X, R2):
        dots.set_offsets(X[:, :2])
        phi = np.angle(R2) / 2
        u = abs(R2) * np.array([np.cos(phi), np.sin(phi)])
        axis_line.set_data([-u[0], u[0]], [-u[1], u[1]])
        return [axis_line, dots]

    return update


def sphere_frames(ax, X0, colours, elev=20.0, azim=-60.0):
    """d = 3: set up a wire sphere (fixed view), the tokens on S² and the leading axis of M scaled by r.
    Returns ``update(X, axis, r)``."""
    u, v = np.mgrid[0:2 * np.pi:24j, 0:np.pi:12j]
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.3)
    dots = ax.scatter(X0[:, 0], X0[:, 1], X0[:, 2], s=12, c=colours, edgecolors="k", linewidths=0.2,
                      depthshade=False)
    (axis_line,) = ax.plot([], [], [], color="#D55E00", lw=2.0)
    for set_lim in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
        set_lim(-0.85, 0.85)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(elev=elev, azim=azim)
    ax.set_axis_off()

    def update(X, axis, r):
        dots._offsets3d = (X[:, 0], X[:, 1], X[:, 2])
        if ax.M is not None:  # Axes3D.draw projects; a blitted frame draws the artist alone
            dots.do_3d_projection()
        a = r * np.asarray(axis)
        axis_line.set_data_3d([-a[0], a[0]], [-a[1], a[1]], [-a[2], a[2]])
        return [axis_line, dots]

    return update


class BlittedPillowWriter(PillowWriter):
    """matplotlib's Pillow GIF writer (no ffmpeg) grabbing the canvas as drawn, so that a movie can
    redraw only its moving artists on a saved background (blitting) instead of the whole figure per
    frame. Use with ``writer.saving(fig, path, fig.dpi)``; draw each frame, then ``grab_frame()``."""

    def grab_frame(self, **savefig_kwargs):
        """Keep a copy of the canvas as drawn: an (h, w, 4) uint8 RGBA array (the alpha is dropped when written)."""
        self._frames.append(np.array(self.fig.canvas.buffer_rgba(), dtype=np.uint8))

    def finish(self):
        """Write the GIF with one 256-colour palette for all frames (:func:`shared_palette`) and each frame
        mapped to it exactly (:func:`to_palette`). Pillow's writer ran a median cut on every frame (~19 ms
        at 420 x 230: about half of a movie job's CPU); the frames are the same to the eye (as close to the
        drawn RGB frames as Pillow's were: mean error < 0.15 of 255, 99th percentile <= 4 on the quick
        build's movies) and the files are 55-70 % of the size."""
        frames = self._frames
        palette = shared_palette(frames)
        indexed = []
        for idx in to_palette(frames, palette):
            im = Image.frombytes("P", (idx.shape[1], idx.shape[0]), idx.tobytes())
            im.putpalette(palette.ravel().tolist())
            indexed.append(im)
        indexed[0].save(self.outfile, save_all=True, append_images=indexed[1:], duration=int(1000 / self.fps),
                        loop=0)


def shared_palette(frames, n_picks=4):
    """(256, 3) uint8 palette for RGB ``frames`` (each (h, w, 3) uint8, or (h, w, 4) RGBA whose alpha is
    ignored): Pillow's median cut over a montage of ``n_picks`` frames spread over the movie, each of its colours
    then replaced by the most frequent drawn colour it stands for, so that the background, lines and token fills
    keep their exact colours."""
    picks = sorted({round(i * (len(frames) - 1) / max(n_picks - 1, 1)) for i in range(n_picks)})
    montage = np.concatenate([frames[i][..., :3] for i in picks], axis=0)
    index = np.asarray(Image.fromarray(montage).quantize(256)).ravel().astype(np.int64)
    key = index << 24 | _rgb_code(montage).ravel()
    uniq, counts = np.unique(key, return_counts=True)
    order = np.lexsort((-counts, uniq >> 24))  # by palette index, most frequent colour first
    first = order[np.r_[True, (uniq[order] >> 24)[1:] != (uniq[order] >> 24)[:-1]]]
    palette = np.zeros((256, 3), np.uint8)
    palette[uniq[first] >> 24] = _rgb_decode(uniq[first] & 0xFFFFFF)
    return palette


def to_palette(frames, palette):
    """Each RGB frame (or RGBA, alpha ignored) as (h, w) uint8 indices into ``palette``: a colour of the palette
    maps to itself, any other to its nearest palette colour (Euclidean in RGB; no dithering); each distinct colour
    is looked up once per movie."""
    pal = palette.astype(np.float32)  # squared distances below are integers < 2**18: exact in float32
    pal_sq = (pal**2).sum(1)
    lut = _lut()
    touched = [_rgb_code(palette)]
    try:
        lut[touched[0][::-1]] = np.arange(len(palette))[::-1]  # exact colours (first index on repeats)
        for frame in frames:
            code = _rgb_code(frame)
            idx = lut[code]
            missing = idx < 0
            if missing.any():
                new = np.unique(code[missing])
                touched.append(new)
                c = _rgb_decode(new).astype(np.float32)
                lut[new] = (pal_sq[None, :] - 2 * (c @ pal.T)).argmin(1)  # + |c|^2, the same for every entry
                idx = lut[code]
            yield idx.astype(np.uint8)
    finally:  # back to all -1 for the next movie (filling the whole table anew took ~12 ms)
        for t in touched:
            lut[t] = -1


_LUT = []


def _lut():
    """The colour lookup table of :func:`to_palette` (2^24 int16, all -1 between uses), made once per process
    (one movie converted at a time)."""
    if not _LUT:
        _LUT.append(np.full(1 << 24, -1, np.int16))
    return _LUT[0]


def _rgb_code(rgb):
    """R << 16 | G << 8 | B of each pixel of an (..., 3) RGB or (..., 4) RGBA uint8 array, as int64."""
    rgb = np.asarray(rgb)
    if rgb.shape[-1] == 4 and rgb.dtype == np.uint8 and rgb.flags.c_contiguous:  # one 32-bit word per pixel
        word = rgb.view("<u4")[..., 0]  # R | G << 8 | B << 16 | A << 24
        return (word.byteswap() >> 8).astype(np.int64)  # B | G << 8 | R << 16
    return (rgb[..., 0].astype(np.int64) << 16) | (rgb[..., 1].astype(np.int64) << 8) | rgb[..., 2]


def _rgb_decode(code):
    code = np.asarray(code, dtype=np.int64)
    return np.stack([code >> 16, (code >> 8) & 255, code & 255], axis=-1).astype(np.uint8)


def gif_html_page(gif_path, title: str) -> str:
    """A self-contained HTML page showing the GIF at ``gif_path`` (embedded as a data URI): Snakemake's
    report shows PNG/SVG/JPEG, PDF and HTML results in the page but offers any other file, a GIF
    included, only as a download, so the report lists this page for each movie."""
    import base64
    import html
    from pathlib import Path

    data = base64.b64encode(Path(gif_path).read_bytes()).decode("ascii")
    esc = html.escape(title)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc}</title></head>"
            f"<body style='margin:0;background:#fff'><img alt='{esc}' style='max-width:100%' "
            f"src='data:image/gif;base64,{data}'></body></html>")


def write_token_movie(gif, page, run, d: int, title: str, rest, fps: int, dpi: int, atomic=None,
                      caption: str | None = None) -> None:
    """The GIF ``gif`` of one run of :func:`lsadyn.paper.movies.runs.token_movie_run` (``run``: its arrays ``t``, ``X``
    (frames, n, d), ``r``, ``R2``, ``axis``) and ``page``, an HTML page showing it (:func:`gif_html_page`). Left, the
    tokens on the circle with the R₂ axis (d = 2) or on S² with the leading axis of M (d = 3); right, r(t) of the
    whole run in grey and in orange up to the frame's time. ``rest``: (rest_A, rest_V) of the embedding (named in the
    d = 3 title). ``atomic(path)``: a context manager giving the temporary path to write and renaming it into place on
    success (the workflow passes :func:`lsadyn_workflow.io.atomic_path`); by default each file is written in place.
    ``caption``: the figure's title instead of the embedded scenario's (``rest`` is then not read); ``run['t']`` is
    the time axis, labelled ``run.get('t_label', 't')``; ``run.get('stamps')``: one text per frame instead of "t = …"."""
    import os
    from pathlib import Path

    import matplotlib.pyplot as plt

    from ..plotting import _in_place

    atomic_path = _in_place if atomic is None else atomic
    t, X, r, R2, axis = (run[k] for k in ("t", "X", "r", "R2", "axis"))
    stamps = run.get("stamps")
    colours = token_colours(X[0])
    fig = plt.figure(figsize=(4.2, 2.3), dpi=dpi, layout="constrained")
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
    tr.set_xlabel(run.get("t_label", "$t$"))
    if caption is None:
        # d = 3: the title's matrices are the plane block; the third axis is scaled by rest_A, rest_V (config)
        rest_A, rest_V = rest
        embedded = (f"\nembedded: A = diag(A$_2$, {rest_A:g}), V = diag(V$_2$, {rest_V:g})" if d > 2 else "")
        caption = f"{title}; d = {d}, n = {X.shape[1]}, linear attention{embedded}"
    fig.suptitle(caption, fontsize=7)

    def frame(i):
        moving = update(X[i], R2[i]) if d == 2 else update(X[i], axis[i], r[i])
        stamp.set_text(stamps[i] if stamps is not None else f"t = {t[i]:.1f}")  # plain text: a mathtext stamp was parsed anew every frame (0.5 s a job)
        line.set_data(t[: i + 1], r[: i + 1])
        dot.set_data([t[i]], [r[i]])
        return [*moving, stamp, line, dot]

    animated = frame(0)
    for a in animated:
        a.set_animated(True)
    fig.canvas.draw()  # lay out once and keep the static parts as a background
    fig.set_layout_engine("none")
    background = fig.canvas.copy_from_bbox(fig.bbox)
    writer = BlittedPillowWriter(fps=fps)
    with atomic_path(gif) as tmp:
        with writer.saving(fig, tmp, dpi):
            for i in range(len(t)):
                fig.canvas.restore_region(background)
                for a in frame(i):
                    fig.draw_artist(a)
                writer.grab_frame()
        os.chmod(tmp, 0o644)
    plt.close(fig)
    with atomic_path(page) as tmp:
        Path(tmp).write_text(gif_html_page(gif, f"{title}, d = {d}"), encoding="utf-8")
