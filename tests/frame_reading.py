"""What the rules extractor reads out of a sentence: the fixture, the helpers and the table row
of the frame tests.

A table module (``tests/extract/text/test_relation_*.py``) imports the fixture, the row and its check:
``from frame_reading import Reading, check_reading, extractor`` (the fixture is found by pytest
in the module that imports it). Other modules ask ``sentence_facts`` or ``sentence_relations``
directly."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pytest

from extract.text.rules import RulesExtractor

Fact = tuple[str, str, str]   # (relation, head, tail)


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    """The rules extractor, built once per test module (its pipeline takes a moment)."""
    return RulesExtractor()


def sentence_facts(extractor: RulesExtractor, text: str) -> set[Fact]:
    """(relation, head, tail) of every triple the frames read in ``text``, sentence by sentence."""
    doc = extractor.nlp(text)
    return {(t.relation, t.head, t.tail) for t in extractor.extract_sentences(doc, [(s, "p") for s in doc.sents])}


def sentence_relations(extractor: RulesExtractor, text: str) -> set[str]:
    """The relation ids of the triples the frames read in ``text``."""
    return {relation for relation, _, _ in sentence_facts(extractor, text)}


@dataclass(frozen=True)
class Pattern:
    """A kind of fact, said in words and told by a test of (relation, head, tail): a pattern no
    fact of the output may match (``no(...)``), or the part of the output a row checks exactly."""
    description: str
    test: Callable[[str, str, str], bool] = field(repr=False)

    def __call__(self, fact: Fact) -> bool:
        return self.test(*fact)


ANY_FACT = Pattern("any fact", lambda r, h, t: True)


def no(*relations: str) -> Pattern:
    """Any fact of these relations: ``no("P108")`` forbids every P108 fact."""
    return Pattern(f"any {' or '.join(relations)} fact", lambda r, h, t: r in relations)


@dataclass(frozen=True)
class OneOf:
    """Facts of which at least one must come out (a symmetric relation, read either way round)."""
    facts: tuple[Fact, ...]


def either(*facts: Fact) -> OneOf:
    return OneOf(facts)


@dataclass(frozen=True)
class Reading:
    """One row of a frame table: a sentence (or a short text), the facts that must be among what
    the extractor reads in it, the facts or patterns that must not, and what the row checks.
    ``exactly``: True when the whole output must be the expected facts and nothing more; a
    ``Pattern`` when only the output's facts of that kind must be exactly the expected ones."""
    id: str
    sentence: str
    expected: Iterable[Fact | OneOf] = ()
    forbidden: Iterable[Fact | Pattern] = ()
    reason: str = ""
    exactly: bool | Pattern = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "expected", tuple(self.expected))
        object.__setattr__(self, "forbidden", tuple(self.forbidden))


def check_reading(extractor: RulesExtractor, row: Reading) -> None:
    """Read ``row.sentence`` and fail with every way the output differs from the row."""
    got = sentence_facts(extractor, row.sentence)
    problems = []
    for want in row.expected:
        if isinstance(want, OneOf):
            if not set(want.facts) & got:
                problems.append(f"missing one of {list(want.facts)}")
        elif want not in got:
            problems.append(f"missing {want}")
    for never in row.forbidden:
        if isinstance(never, Pattern):
            if hits := sorted(f for f in got if never(f)):
                problems.append(f"forbidden {never.description}, got {hits}")
        elif never in got:
            problems.append(f"forbidden {never}")
    if row.exactly is not False:
        scope = ANY_FACT if row.exactly is True else row.exactly
        if extra := sorted(f for f in got if scope(f) and f not in row.expected):
            problems.append(f"more than expected ({scope.description}): {extra}")
    assert not problems, f"{row.reason}\n{row.sentence!r} gave {sorted(got)}\n" + "\n".join(problems)
