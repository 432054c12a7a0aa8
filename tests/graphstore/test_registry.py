"""The one registry helper: found by name in any case, a name taken once, unknown names listed."""

from __future__ import annotations

import pytest

from audit.measure.equivalence import JUDGES
from audit.measure.metrics import METRICS
from audit.questions.backends import BACKENDS
from graphstore.registry import Registry
from audit.run.methods import METHODS
from graphstore.errors import ConfigError


class Thing:
    def __init__(self, name):
        self.name = name


def test_found_by_name_in_any_case():
    things = Registry("thing")
    a = things.register(Thing("Alpha"))
    assert things.get("ALPHA") is a and "alpha" in things and things.names() == ["alpha"]
    assert things.find("beta") is None


def test_an_unknown_name_lists_the_valid_ones():
    things = Registry("thing")
    things.register(Thing("b"))
    things.register(Thing("a"))
    with pytest.raises(ConfigError, match=r"^unknown thing 'c'; valid: a, b$"):
        things.get("c")


def test_a_name_is_taken_once():
    things = Registry("thing")
    first = things.register(Thing("a"))
    things.register(first)   # the same entry again is harmless (a module imported twice)
    with pytest.raises(ValueError, match="thing 'a' is registered twice"):
        things.register(Thing("A"))


def test_a_check_runs_on_every_entry():
    def named_short(entry):
        assert len(entry.name) < 4, entry.name
    things = Registry("thing", check=named_short)
    things.register(Thing("abc"))
    with pytest.raises(AssertionError):
        things.register(Thing("abcd"))


def test_the_four_registries_are_one_kind():
    assert all(isinstance(r, Registry) for r in (METHODS, METRICS, JUDGES, BACKENDS))
    assert sorted(METHODS) == ["dpo", "ga", "gd", "idk", "kl", "npo", "oraclegrad", "simnpo"]
    assert {"embedding", "nli"} <= set(JUDGES) and {"openai", "transformers"} <= set(BACKENDS)
    with pytest.raises(ConfigError, match="unknown unlearning method 'rmu'"):
        METHODS.get("rmu")
