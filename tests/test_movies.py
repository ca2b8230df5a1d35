"""Movies: token trajectories (library runs) and the GIFs drawn from them."""

import numpy as np
import pytest

from lsadyn.observers import order_parameter_r2_tokens
from lsadyn.paper.movies.runs import token_movie_run

I2, ROT = [[1, 0], [0, 1]], [[1, -1], [1, 1]]


@pytest.mark.parametrize("d", [2, 3])
def test_token_movie_run_saves_states_on_the_sphere_and_their_order_parameters(d):
    res = token_movie_run(I2, ROT, d, 1.0, 0.5, 1.0, n=32, seed=3, horizon=20.0, n_frames=40)
    assert res["X"].shape == (40, 32, d) and res["t"].shape == (40,)
    assert np.allclose(np.linalg.norm(res["X"], axis=-1), 1, atol=1e-9)
    assert np.all((res["r"] > -1e-9) & (res["r"] < 1 + 1e-9))
    if d == 2:  # r = |R2| in d = 2, and R2 is that of the saved tokens
        assert np.allclose(res["r"], np.abs(res["R2"]), atol=1e-9)
        assert np.allclose(res["R2"], order_parameter_r2_tokens(res["X"]))
    assert res["r"][-1] > 0.99  # A = I, V = I + J: clusters (rotating) within 20 tau


def test_same_seed_same_movie():
    a = token_movie_run(I2, I2, 2, 1.0, 1.0, 1.0, n=16, seed=1, horizon=5.0, n_frames=10)
    b = token_movie_run(I2, I2, 2, 1.0, 1.0, 1.0, n=16, seed=1, horizon=5.0, n_frames=10)
    assert np.array_equal(a["X"], b["X"])


def test_write_token_movie_writes_small_gifs_and_pages(tmp_path):
    from PIL import Image

    from lsadyn.paper.movies.frames import write_token_movie

    for d in (2, 3):
        run = token_movie_run(I2, ROT, d, 1.0, 0.5, 1.0, n=24, seed=2, horizon=10.0, n_frames=12)
        gif, page = tmp_path / f"a_d{d}.gif", tmp_path / f"a_d{d}.html"
        write_token_movie(gif, page, run, d, "test", (1.0, 0.5), fps=10, dpi=60)
        assert 0 < gif.stat().st_size <= 3 * 2**20
        with Image.open(gif) as im:
            assert im.n_frames == 12
        assert "data:image/gif;base64," in page.read_text()


def test_shared_palette_keeps_drawn_colours_exactly_and_maps_the_rest_to_the_nearest():
    from lsadyn.paper.movies.frames import shared_palette, to_palette

    rng = np.random.default_rng(0)
    colours = rng.integers(0, 256, (40, 3), dtype=np.uint8)  # a movie drawn with 40 colours: kept exactly
    frames = [colours[rng.integers(0, 40, (30, 20))] for _ in range(7)]
    palette = shared_palette(frames)
    assert palette.shape == (256, 3) and palette.dtype == np.uint8
    for frame, idx in zip(frames, to_palette(frames, palette), strict=True):
        assert idx.shape == frame.shape[:2] and idx.dtype == np.uint8
        assert np.array_equal(palette[idx], frame)
    # more colours than the palette holds: each pixel gets its nearest palette colour (brute force)
    noisy = [rng.integers(0, 256, (16, 16, 3), dtype=np.uint8) for _ in range(3)]
    palette = shared_palette(noisy)
    for frame, idx in zip(noisy, to_palette(noisy, palette), strict=True):
        dist = ((frame[:, :, None, :].astype(int) - palette[None, None].astype(int)) ** 2).sum(-1)
        assert np.array_equal(dist[np.arange(16)[:, None], np.arange(16)[None], idx], dist.min(-1))
