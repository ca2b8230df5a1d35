import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_pair(rng, d, scale=1.0):
    """Random (A, V) with i.i.d. N(0, scale²) entries."""
    return scale * rng.standard_normal((d, d)), scale * rng.standard_normal((d, d))
