"""Hop's special cases as named signals (retrieve/hop/signals.py): each names its example
and a test that shows it, and one place turns the fired signals into a bonus."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from assistant.retrieve.hop.signals import HOP_TESTS, SIGNALS, Weights

REPO = Path(__file__).resolve().parents[2]


def test_every_signal_names_an_example_and_a_test_that_exists():
    tree = ast.parse((REPO / HOP_TESTS).read_text())
    tests = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for signal in SIGNALS.values():
        assert signal.example and signal.fires_when, signal.name
        assert signal.test in tests, f"{signal.name}: no {signal.test} in {HOP_TESTS}"


def test_the_one_place_that_turns_signals_into_a_bonus():
    w = Weights()
    assert w.linked(0.9) == (pytest.approx(0.9), ("link",))
    assert w.hopped(0.5, 2, related=True, wrong_kind=False) == (0.75, ("hop", "relation"))
    assert w.hopped(0.4, 3, related=False, wrong_kind=True) == (pytest.approx(0.1), ("hop", "third_hop", "wrong_kind"))
    # Cut once every way is known: not the best of its homes, or naming the question's entity again.
    assert w.counted(1.0, linked=True, best_home=False, names_linked=False) == (0.5, ("other_home",))
    assert w.counted(0.75, linked=False, best_home=True, names_linked=True) == (pytest.approx(0.45), ("named_again",))
    assert w.counted(0.2, linked=False, best_home=False, names_linked=True) == (0.0, ("other_bridge_home", "named_again"))
    assert w.counted(0.9, linked=True, best_home=True, names_linked=True) == (0.9, ())  # a linked page: no named_again


def test_the_weights_are_declared_once_and_set_by_the_settings_of_their_names():
    """Issue 50: the weights were declared twice, as HopRetriever's arguments and as Weights'
    fields, under other names ("link_bonus" and "link"). Each weight is now a setting of its
    own name whose default is the weight's."""
    import dataclasses
    import inspect

    from assistant.retrieve.hop.core import HopRetriever

    settings = inspect.signature(HopRetriever.__init__).parameters
    for weight in dataclasses.fields(Weights):
        assert weight.name in settings, weight.name
        assert settings[weight.name].default == weight.default, weight.name
