"""Facts that are no frame's: read off one sentence ("the 1964 Summer Olympics" took place in
1964, a team sheet's players, a description of a person), inherited within one sentence (a
place's country), or decided once the whole document is read, by what a head is: a person (born,
died, an occupation) has a citizenship, not a country; a work ("a 1935 British comedy film") has
a country of origin and a publication year; a club (P54) plays its player's sport.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Span

from extract.text.class_phrase import class_words, person_noun
from extract.text.coref import Mentions
from extract.text.lexicons import rule_words, word_set
from extract.text.member_frames import description_facts
from extract.text.name_kinds import person_shaped
from extract.text.news_frames import KIN
from extract.text.nlp import NAME_LABELS, demonym_countries, sport_names
from extract.text.normalize import display_name
from extract.text.roles import trade_like
from extract.text.rules.values import EXTRACTOR, PERSON_FACTS, ClassStatement
from extract.text.units import Triple

_YEAR_NAME = re.compile(r"^(\d{4}) \S")


@dataclass(frozen=True)
class DocumentFacts:
    """The document's triples with the facts its class statements and sports add, and what the
    document filters need: who is a person, and who plays a sport."""

    triples: list[Triple]
    persons: frozenset[str]
    sporty: frozenset[str]


def event_years(sentence: Span, passage: str) -> list[Triple]:
    """"the 1964 Summer Olympics" took place in 1964 (P585)."""
    out = []
    for ent in sentence.ents:
        m = _YEAR_NAME.match(ent.text)
        if m and ent.label_ in NAME_LABELS:
            out.append(Triple(ent.text, "P585", m.group(1), passage, EXTRACTOR, "event", "date", sentence.text))
    return out


def description_triples(sentence: Span, passage: str, mentions: Mentions) -> list[Triple]:
    """What a description of a person says of the person it refers to (``member_frames.description_facts``)."""
    return [Triple(display_name(h), rel, display_name(t), passage, EXTRACTOR, "person", kind, sentence.text)
            for h, rel, t, kind in description_facts(sentence, mentions)]


def team_sheet_triples(players: list[str], team: str, sentence: Span, passage: str) -> list[Triple]:
    """A team sheet's players play for its team (P54); the sheet says it is a team: no sport needed."""
    return [Triple(display_name(p), "P54", display_name(team), passage, EXTRACTOR, "person", "organization",
                   sentence.text) for p in players]


def country_of_located(found: list[Triple]) -> list[Triple]:
    """X located in Y, Y in country Z (same sentence) => X in country Z: a country is inherited."""
    country = {t.head: t for t in found if t.relation == "P17"}
    return [Triple(t.head, "P17", country[t.tail].tail, t.passage, t.extractor, t.head_kind, "place", t.evidence)
            for t in found if t.relation == "P131" and t.tail in country and t.head != country[t.tail].tail]


def part_of_any(name: str, names: set[str]) -> bool:
    """"Franchère" is part of "Joseph Franchère": a short mention of a person is that person."""
    words = name.lower().split()
    n = len(words)
    for other in names:
        longer = other.lower().split()
        if len(longer) > n and any(longer[i:i + n] == words for i in range(len(longer) - n + 1)):
            return True
    return False


def persons_of(found: list[Triple], statements: list[ClassStatement], named_persons: set[str]) -> set[str]:
    """The heads the document says are persons: by a person's fact, by a name certainly a person's
    (``named_persons``), by a class phrase, as someone's kin, or as a short mention of one."""
    persons = {t.head for t in found if t.relation in PERSON_FACTS} | {
        s.base.head for s in statements if s.base.head in named_persons}
    persons |= {s.base.head for s in statements if s.phrase.person} | {t.tail for t in found if t.relation in KIN}
    persons |= {s.base.head for s in statements if person_shaped(s.base.head)  # "Jo Pike, a German immigrant"
                and any(c.split()[-1].lower() in rule_words("non_trades") for c in s.phrase.classes)}
    persons |= {h for h in {t.head for t in found} | {s.base.head for s in statements} if part_of_any(h, persons)}
    return persons


def class_facts(statement: ClassStatement, persons: set[str]) -> list[Triple]:
    """What a class phrase says of its head, by what the head is: a person's citizenship and
    occupations; a thing's classes, country (of origin, for a work or a group) and year."""
    base, phrase = statement.base, statement.phrase
    out: list[Triple] = []

    def fact(relation: str, tail: str | None, kind: str) -> None:
        if tail:
            out.append(Triple(base.head, relation, tail, base.passage, base.extractor, base.head_kind, kind,
                              base.evidence))

    country = demonym_countries().get(phrase.nationality.lower()) if phrase.nationality else None
    if base.head in persons:
        fact("P27", country, "place")
        for occupation in phrase.occupations:
            if occupation.split()[-1].lower() not in rule_words("non_trades"):  # "an immigrant" is no trade
                fact("P106", occupation, "occupation")
    else:
        for cls in phrase.classes:
            last = cls.split()[-1].lower()
            if person_shaped(base.head) and trade_like(last):
                fact("P106", cls, "occupation")  # "Auguste Delmas, a Bordeaux cooper": a person's trade
            elif not person_noun(last, class_words()) and not (person_shaped(base.head)
                                                                and last in rule_words("people_groups")):
                fact("P31", cls, "class")
        fact("P495" if phrase.work or phrase.group else "P17", country, "place")
        if phrase.work:
            fact("P577", phrase.year, "date")
    if phrase.work or phrase.group:
        fact("P136", phrase.genre, "genre")
    fact("P641", phrase.sport, "sport")
    return out


def document_facts(found: list[Triple], statements: list[ClassStatement], named_persons: set[str]) -> DocumentFacts:
    """``found`` with the facts of the class statements and the sports of players and their clubs."""
    persons = persons_of(found, statements, named_persons)
    out = list(found)
    for statement in statements:
        out += class_facts(statement, persons)
    sports = sport_names()
    out += [Triple(t.head, "P641", sports[t.tail.lower()], t.passage, t.extractor, t.head_kind, "sport", t.evidence)
            for t in found if t.relation == "P106" and t.tail.lower() in sports]
    sport_of = {t.head: t.tail for t in out if t.relation == "P641"}
    # a player's club plays the player's sport
    out += [Triple(t.tail, "P641", sport_of[t.head], t.passage, t.extractor, "organization", "sport", t.evidence)
            for t in found if t.relation == "P54" and t.head in sport_of]
    # ... and so does one who plays for a name that says it is a team ("Kingsford Rovers")
    sporty = set(sport_of) | {t.head for t in found if t.relation == "P413"} | {
        t.head for t in found if t.relation == "P54" and {w.lower() for w in t.tail.split()} & word_set("team_words")}
    return DocumentFacts(out, frozenset(persons), frozenset(sporty))
