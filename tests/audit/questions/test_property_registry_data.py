"""The shipped Wikidata property registry (audit/data/wikidata_properties.v1.json) keeps its rules:
schema and enums, the listed properties, enough distinct paraphrases, and placeholders used exactly
as the code that fills them expects. Read with the standard library only, so the data is checked
apart from the code."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest

REGISTRY = Path(__file__).parents[3] / "audit/data/wikidata_properties.v1.json"

# The properties the registry must carry, in the order the file lists them (written out by hand).
REQUIRED = [
    "P106", "P1412", "P19", "P21", "P27",
    "P569", "P570", "P20", "P69", "P108", "P102", "P39", "P166", "P26", "P22", "P25", "P40",
    "P3373", "P735", "P734", "P551", "P463", "P54", "P413", "P641", "P1303", "P136", "P264",
    "P101", "P103", "P140", "P172", "P184", "P512", "P800", "P119", "P509", "P937", "P2048",
    "P1971",
]
VALUE_TYPES = {"item", "string", "quantity", "time"}
SHAPES = {"copular", "possessive", "transitive"}
PROPERTY_KEYS = {"label", "description", "aliases", "value_type", "shape", "base", "paraphrases", "questions"}
VALUE_FIELDS = {"value", "a_value", "on_value"}
PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|they|them|their)\b", re.IGNORECASE)


def _registry() -> dict:
    with REGISTRY.open(encoding="utf-8") as f:
        return json.load(f)


DOC = _registry()
PROPERTIES = DOC["properties"]


def _fields(template: str) -> list[str]:
    """Every replacement field in the template, in order (raises ValueError on a stray brace)."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def _statements(prop: dict) -> list[str]:
    return [prop["base"], *prop["paraphrases"]]


def test_top_level_schema():
    assert set(DOC) == {"version", "generic_subject", "about", "default", "properties"}
    assert DOC["version"] == "wikidata_properties.v1"
    assert DOC["generic_subject"] == "this person"
    assert isinstance(DOC["about"], str) and len(DOC["about"]) > 100


def test_required_properties_present_in_order():
    assert [pid for pid in PROPERTIES if pid in REQUIRED] == REQUIRED
    assert all(re.fullmatch(r"P[1-9][0-9]*", pid) for pid in PROPERTIES)


@pytest.mark.parametrize("pid", list(PROPERTIES))
def test_property_schema(pid):
    prop = PROPERTIES[pid]
    assert set(prop) == PROPERTY_KEYS
    assert prop["value_type"] in VALUE_TYPES
    assert prop["shape"] in SHAPES
    assert isinstance(prop["label"], str) and prop["label"].strip()
    assert isinstance(prop["description"], str) and prop["description"].strip()
    aliases = prop["aliases"]
    assert isinstance(aliases, list) and 1 <= len(aliases) <= 5
    assert all(isinstance(a, str) and a.strip() for a in aliases)
    assert len(set(aliases)) == len(aliases)


@pytest.mark.parametrize("pid", list(PROPERTIES))
def test_paraphrases_are_many_and_distinct(pid):
    prop = PROPERTIES[pid]
    paraphrases = prop["paraphrases"]
    assert len(paraphrases) >= 10
    assert len(set(paraphrases)) == len(paraphrases), "duplicate paraphrase"
    assert prop["base"] not in paraphrases
    assert len(prop["questions"]) == 2
    assert prop["questions"][0] != prop["questions"][1]


@pytest.mark.parametrize("pid", list(PROPERTIES))
def test_statement_placeholders(pid):
    prop = PROPERTIES[pid]
    for template in _statements(prop):
        fields = _fields(template)
        assert fields.count("subject") == 1, template
        values = [f for f in fields if f != "subject"]
        assert len(values) == 1 and values[0] in VALUE_FIELDS, template
        if values[0] == "on_value":
            assert prop["value_type"] == "time", f"{{on_value}} outside a time property: {template}"
        if prop["value_type"] == "time":
            # the code supplies the preposition through {on_value}
            assert not re.search(r"\b(on|in)\s+\{value\}", template, re.IGNORECASE), template


@pytest.mark.parametrize("pid", list(PROPERTIES))
def test_question_placeholders(pid):
    for question in PROPERTIES[pid]["questions"]:
        assert _fields(question) == ["subject"], question
        assert question.endswith("?"), question


@pytest.mark.parametrize("pid", list(PROPERTIES))
def test_sentences_end_and_avoid_pronouns(pid):
    prop = PROPERTIES[pid]
    for template in _statements(prop):
        assert template.endswith("."), template
        assert "?" not in template, template
    for template in [*_statements(prop), *prop["questions"]]:
        assert template == template.strip() and "  " not in template, template
        assert not PRONOUN.search(template), template
        assert len(template.split()) < 25, template


def test_default_family_is_written_with_the_label():
    # The family for properties outside the registry: {label} stands for the property's label.
    default = DOC["default"]
    templates = [default["base"], *default["paraphrases"]]
    assert len(set(default["paraphrases"]) - {default["base"]}) >= 10
    for template in templates + default["questions"]:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
        assert fields.count("subject") == 1 and fields.count("label") == 1, template
    for template in templates:
        assert sum(f in ("value", "a_value", "on_value") for _, f, _, _ in string.Formatter().parse(template)) == 1
