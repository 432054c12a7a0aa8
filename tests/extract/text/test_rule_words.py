"""The words and names under the rules extractor's frames, as tables: what a position word is
(``role_category``), a plural noun (``plural_noun``), a firm's class (``org_class``); the names
the pipeline finds and where it cuts them; what a pronoun or a short name stands for and what
kind of thing a name is (``Mentions``); and the short names ``resolve_short_mentions`` joins to
a full one across a graph's triples.

Every sentence and triple is made up for these tests (invented people, firms and places); every
expected value is written by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from extract.text.coref import Mentions
from extract.text.name_kinds import org_class, plural_noun
from extract.text.normalize import resolve_short_mentions
from extract.text.roles import role_category
from extract.text.rules import document_subject
from extract.text.units import Triple
from frame_reading import extractor  # noqa: F401  (a fixture)

# -- the words: positions, plurals, a firm's class ---------------------------------------------

ROLE_CATEGORIES = [  # (words, category): the category is read off the last words
    ("transport minister", "office"),
    ("chief executive", "chief_executive"),
    ("first-team coach", "coach"),
    ("novelist", ""),
]


@pytest.mark.parametrize("words, category", ROLE_CATEGORIES, ids=[w for w, _ in ROLE_CATEGORIES])
def test_role_category(words, category):
    assert role_category(words) == category


PLURAL_NOUNS = [  # (word, plural): a firm's last word that is a plural noun ("the X Homes")
    ("Homes", True), ("Resources", True), ("Lions", True), ("Industries", True),
    # not a surname that is also a plural, not a word that only ends in s
    ("Banks", False), ("Williams", False), ("Davis", False), ("News", False),
]


@pytest.mark.parametrize("word, plural", PLURAL_NOUNS, ids=[w for w, _ in PLURAL_NOUNS])
def test_plural_noun(word, plural):
    assert plural_noun(word) is plural


ORG_CLASSES = [  # (words, known as a firm, class or None, what it checks)
    ("struggling retailer", True, "retailer", "a judging word is cut off the class"),
    ("venture capital firm", False, "venture capital firm", "a firm's noun makes a class of itself"),
    ("copper producer", False, None, "no firm's noun, and not known as a firm"),
    ("chairman", True, None, "a position"),
    ("family favourite", True, None, "no trade, no firm's noun"),
]


@pytest.mark.parametrize("words, known, expected, reason", ORG_CLASSES, ids=[w for w, *_ in ORG_CLASSES])
def test_org_class(words, known, expected, reason):
    assert org_class(words, known) == expected, reason


# -- the names the pipeline finds ------------------------------------------------------------------

@dataclass(frozen=True)
class NoEntity:
    """A kind of entity, said in words, that must not be among a text's entities."""
    description: str
    test: Callable[[str, str], bool] = field(repr=False)


@dataclass(frozen=True)
class Names:
    """A text, the entities (text, label; label None: any) its entities begin with, exactly, in
    order; entities that must be among them; entities that must not."""
    id: str
    text: str
    first: tuple[tuple[str, str | None], ...] = ()
    present: tuple[tuple[str, str | None], ...] = ()
    absent: NoEntity | None = None
    reason: str = ""


NAMES = [
    Names("title-cut-off-the-name", "Prime Minister Dana Okafor spoke.",
          first=(("Prime Minister", "ROLE"), ("Dana Okafor", "NAME")),
          reason="a title is cut off the name"),
    Names("first-name-that-is-a-title-word", "Dean Harlow, 34, was arrested.", present=(("Dean Harlow", "NAME"),),
          reason="a first name that is also a title word stays a name"),
    Names("positions-and-amounts", "The chief executive said revenue was £14.6bn and the plant employs 1,200 people.",
          present=(("chief executive", "ROLE"), ("£14.6bn", "QUANTITY"), ("1,200", "QUANTITY")),
          reason="positions and amounts are entities"),
    Names("percent-is-no-amount", "Inflation fell to 3.1% in May.",
          absent=NoEntity("a QUANTITY", lambda text, label: label == "QUANTITY"),
          reason="a percentage is no amount"),
    Names("firm-starting-with-an-occupation-word", "Farmer Brothers Group said profits fell.",
          first=(("Farmer Brothers Group", None),),
          reason="a firm's name that starts with an occupation word is left whole"),
    Names("names-no-longer-cut", "She moved to Kingston upon Thames and later to Walton-on-the-Naze. "
                                 "He was treated at St Anne's Hospital. The Data Commissioner's Office fined it.",
          present=(("Kingston upon Thames", None), ("Walton-on-the-Naze", None), ("St Anne's Hospital", None),
                   ("Data Commissioner's Office", None)),
          reason='names the blank pipeline used to cut ("upon", hyphens, an inner possessive) are whole'),
    Names("possessive-ends-a-name", "Harbin's chief executive, Ada Vell, spoke.",
          absent=NoEntity("an entity with \"Harbin's\"", lambda text, label: "Harbin's" in text),
          reason="a possessive before any other word still ends a name"),
]


def _same(entity: tuple[str, str], want: tuple[str, str | None]) -> bool:
    return entity[0] == want[0] and want[1] in (None, entity[1])


@pytest.mark.parametrize("row", NAMES, ids=[row.id for row in NAMES])
def test_names(extractor, row):  # noqa: F811  (the fixture imported above)
    entities = [(e.text, e.label_) for e in extractor.nlp(row.text).ents]
    assert len(entities) >= len(row.first) and all(map(_same, entities, row.first)), (row.reason, entities)
    assert all(any(_same(e, want) for e in entities) for want in row.present), (row.reason, entities)
    assert row.absent is None or not [e for e in entities if row.absent.test(*e)], (row.reason, entities)


def test_a_headline_is_its_own_sentence(extractor):  # noqa: F811  (the fixture imported above)
    doc = extractor.nlp("Bank chief quits\n\nThe chief executive of Orvel Bank, Ana Pires, resigned.")
    assert [s.text.strip() for s in doc.sents if s.text.strip()][0] == "Bank chief quits"


# -- what a pronoun or a short name stands for, and what kind a name is -----------------------

PRONOUNS = [  # (text, the pronoun, the person it stands for): the last person of its gender
    ("Prime Minister Ravi Anand thanked Ms Lena Holt for her work. He appointed Tom Birk as housing minister.",
     "He", "Ravi Anand"),
    ("Prime Minister Ravi Anand thanked Ms Lena Holt for her work. He appointed Tom Birk as housing minister.",
     "her", "Lena Holt"),
]


@pytest.mark.parametrize("text, pronoun, person", PRONOUNS, ids=[p for _, p, _ in PRONOUNS])
def test_a_pronoun_is_the_last_person_of_its_gender(extractor, text, pronoun, person):  # noqa: F811
    doc = extractor.nlp(text)
    assert Mentions(doc).resolved[next(t.i for t in doc if t.text == pronoun)][0] == person


SHORT_NAMES = [  # (text, a word, the name it stands for, what it checks)
    ("Pelham Group lost again. Sales at Group level fell.", "Group", "Group",
     '"Group" is the last word of many a firm: never short for one'),
]


@pytest.mark.parametrize("text, word, name, reason", SHORT_NAMES, ids=[w for _, w, *_ in SHORT_NAMES])
def test_a_short_name(extractor, text, word, name, reason):  # noqa: F811  (the fixture imported above)
    doc = extractor.nlp(text)
    assert Mentions(doc, document_subject(doc)).name(next(t for t in doc if t.text == word).i) == name, reason


_VELNOR = ("Shares in Velnor, the Manchester-based maker of valves, fell. Velnor was founded in 1948 by "
           "Arthur Velnor. The Holm Prize went to Mira Lutz.")
KINDS = [  # (text, a name, its kind, True when the name must NOT be of that kind, what it checks)
    ("The ferry is run by Corrado Lines, a company based in Bari. Its chief executive, Aldo Sesti, said little.",
     "Aldo Sesti", "person", False, "the name after \"Its chief executive,\" is a person"),
    (_VELNOR, "Manchester", "place", False, "a city, before \"-based\""),
    (_VELNOR, "Velnor", "organization", False, '"X was founded": an organisation'),
    (_VELNOR, "Holm Prize", "person", True, "a prize is no person"),
]


@pytest.mark.parametrize("text, name, kind, negated, reason", KINDS, ids=[n for _, n, *_ in KINDS])
def test_kind_of_a_name(extractor, text, name, kind, negated, reason):  # noqa: F811
    doc = extractor.nlp(text)
    got = Mentions(doc, document_subject(doc)).kinds[name]
    assert (got != kind) if negated else (got == kind), (reason, got)


# -- short names across a graph's triples ------------------------------------------------------------

@dataclass(frozen=True)
class ShortNames:
    """Triples given to ``resolve_short_mentions``: (head, relation, tail) that must be among the
    output; and, where given, the output's (relation, tail) pairs, exactly."""
    id: str
    triples: tuple[Triple, ...]
    kept: frozenset[tuple[str, str, str]] = frozenset()
    relation_tails: frozenset[tuple[str, str]] | None = None
    reason: str = ""


SHORT_MENTIONS = [
    ShortNames("short-name-is-no-position", (
        Triple("Frank Hale", "P39", "mayor of Burnley", "p", "rules", "person", "position", "e"),
        Triple("Frank Hale", "P19", "Burnley", "p", "rules", "person", "place", "e")),
        relation_tails=frozenset({("P39", "mayor of Burnley"), ("P19", "Burnley")}),
        reason='"Burnley" is not short for the position "mayor of Burnley"'),
    ShortNames("short-firm-names", (
        Triple("Zuidwind Airlines", "P169", "Joost Smit", "p", "rules", "organization", "person", "e"),
        Triple("Zuidwind", "P1128", "4,100", "p", "rules", "", "quantity", "e"),
        Triple("Harlow Harriers", "P488", "Peter Blunt", "p", "rules", "organization", "person", "e"),
        Triple("St Clare's Hospice", "P131", "Harlow", "p", "rules", "", "", "e"),
        Triple("Harlow", "P571", "1947", "p", "rules", "", "date", "e")),
        kept=frozenset({("Zuidwind Airlines", "P1128", "4,100"), ("St Clare's Hospice", "P131", "Harlow"),
                        ("Harlow", "P571", "1947")}),
        reason='"Zuidwind" in a firm\'s slot is Zuidwind Airlines; "Harlow" in a place\'s slot stays Harlow, '
               "and so does the head of an inception, which is as often a town as a firm"),
]


@pytest.mark.parametrize("row", SHORT_MENTIONS, ids=[row.id for row in SHORT_MENTIONS])
def test_short_mentions(row):
    out = resolve_short_mentions(list(row.triples))
    assert row.kept <= {(t.head, t.relation, t.tail) for t in out}, row.reason
    assert row.relation_tails is None or {(t.relation, t.tail) for t in out} == row.relation_tails, row.reason
