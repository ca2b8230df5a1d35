"""lsadyn.runs: the Run protocol the decision procedure consumes, and its implementations."""

from __future__ import annotations

import inspect
import typing

import numpy as np

from lsadyn import runs
from lsadyn.regimes import decision


def _implementations():
    return [c for _, c in inspect.getmembers(runs, inspect.isclass)
            if c.__module__ == runs.__name__ and c is not runs.Run]


def test_every_run_class_implements_the_protocol_and_is_listed():
    classes = _implementations()
    assert len(classes) == 7, [c.__name__ for c in classes]
    for cls in classes:
        assert callable(getattr(cls, "advance", None)), cls
        assert list(inspect.signature(cls.advance).parameters) == ["self", "idx", "times"], cls
        assert f":class:`{cls.__name__}`" in runs.__doc__, f"{cls.__name__} missing from the runs docstring's table"


def test_decide_is_typed_with_the_protocol():
    hints = typing.get_type_hints(decision.decide, {**vars(decision), "Run": runs.Run})
    assert hints["run"] is runs.Run
    assert "lsadyn.runs.Run" in decision.decide.__doc__


def test_a_run_advanced_in_pieces_continues_where_it_stopped():
    """The protocol's promise on one implementation: advance(idx, times) continues from where the points stopped,
    so two calls give the observations of one call over the same times (the compiled phase points: exactly)."""
    from lsadyn.reductions.kuramoto import kuramoto_coefficients

    A = np.array([[[1.0, 0.3], [0.0, 0.5]]] * 2)
    V = np.array([[[0.5, 0.0], [0.2, 1.0]]] * 2)
    coeffs = kuramoto_coefficients(A, V, np.ones(2))
    z0 = np.exp(2j * np.linspace(0.1, 3.0, 16))
    times = np.linspace(0.0, 2.0, 9)[1:]
    whole = runs.PhasePointRun(coeffs, z0, 1e-8, 1e-10)
    pieces = runs.PhasePointRun(coeffs, z0, 1e-8, 1e-10)
    assert isinstance(whole, runs.Run)
    one = whole.advance(np.arange(2), times)
    two = np.concatenate([pieces.advance(np.arange(2), times[:4]), pieces.advance(np.arange(2), times[4:])], axis=1)
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-7)
