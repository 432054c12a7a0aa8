"""What the rules extractor reads out of a sentence: the fixture and helper of the frame tests.

A test module imports both: ``from frame_reading import extractor, sentence_facts as facts``
(and ``sentence_relations as relations`` where it asks only which relations came out)
(the fixture is found by pytest in the module that imports it)."""

from __future__ import annotations

import pytest

from extract.text.rules import RulesExtractor


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    """The rules extractor, built once per test module (its pipeline takes a moment)."""
    return RulesExtractor()


def sentence_facts(extractor: RulesExtractor, text: str) -> set[tuple[str, str, str]]:
    """(relation, head, tail) of every triple the frames read in ``text``, sentence by sentence."""
    doc = extractor.nlp(text)
    return {(t.relation, t.head, t.tail) for t in extractor.extract_sentences(doc, [(s, "p") for s in doc.sents])}


def sentence_relations(extractor: RulesExtractor, text: str) -> set[str]:
    """The relation ids of the triples the frames read in ``text``."""
    return {relation for relation, _, _ in sentence_facts(extractor, text)}
