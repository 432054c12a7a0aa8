"""The named filters candidate triples pass on their way to be triples, in the order they run.

Each filter has a name, so a run can count what each one drops (``FilterCounts``). Candidate
filters judge one frame's candidate against what the document says its head is; the sentence
filter sees one sentence's triples together; the document filters run once the whole document is
read, when it is known who is a person and who plays a sport (``FilterContext``).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Callable

from extract.text.coref import Mentions
from extract.text.kin_frames import drop_kin_chains
from extract.text.news_frames import drop_general_positions, plausible
from extract.text.normalize import display_name
from extract.text.rules.values import PERSON_FACTS, PLACE_FACTS, Candidate
from extract.text.units import Triple

# Filter name -> how many triples it dropped.
FilterCounts = collections.Counter


@dataclass(frozen=True)
class FilterContext:
    """What the filters know of the document: its mentions and, once it is read whole, its
    persons and the heads that play a sport (``infer.document_facts``)."""

    mentions: Mentions
    persons: frozenset[str] = field(default_factory=frozenset)
    sporty: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class CandidateFilter:
    """Keeps a candidate where ``keep(candidate, mentions)``."""

    name: str
    keep: Callable[[Candidate, Mentions], bool]


@dataclass(frozen=True)
class TripleFilter:
    """Keeps what ``kept(triples, context)`` returns of a list of triples, in order."""

    name: str
    kept: Callable[[list[Triple], FilterContext], list[Triple]]


def _person_fact_of_a_person(c: Candidate, mentions: Mentions) -> bool:
    """"Her publisher, Greaves & Hart, said she died in X": a person's fact of an organisation or a place."""
    return c.from_role_words or c.triple.relation not in PERSON_FACTS \
        or mentions.kind(c.triple.head) not in ("organization", "place")


def _fits_the_head(c: Candidate, mentions: Mentions) -> bool:
    """A news frame's fact fits what its head is (``news_frames.plausible``)."""
    return c.from_role_words or not c.frame.news or plausible(c.triple, mentions, named=c.frame.named_organisation)


def _keep_each(keep: Callable[[Triple, FilterContext], bool]) -> Callable[[list[Triple], FilterContext], list[Triple]]:
    return lambda triples, context: [t for t in triples if keep(t, context)]


def _first_of_each(triples: list[Triple], context: FilterContext) -> list[Triple]:
    """One triple per (head, relation, tail, passage): the first."""
    first: dict[tuple[str, str, str, str], Triple] = {}
    for t in triples:
        first.setdefault((t.head, t.relation, t.tail, t.passage), t)
    return list(first.values())


def _not_story_placed(triples: list[Triple], context: FilterContext) -> list[Triple]:
    """A position put at the story's organisation only because the story opens on it ("Chairman
    Tom Pike said") gives way where the document places the person at another one ("Velnor
    Bank chairman Tom Pike")."""
    mentions = context.mentions
    lead = display_name(mentions.lead or "")
    elsewhere = {(t.tail, t.relation) for t in triples if t.tail in mentions.story_placed and t.head != lead}
    return [t for t in triples if not (t.head == lead and (t.tail, t.relation) in elsewhere)]


CANDIDATE_FILTERS: tuple[CandidateFilter, ...] = (
    CandidateFilter("person-fact-of-a-non-person", _person_fact_of_a_person),
    CandidateFilter("does-not-fit-the-head", _fits_the_head),
)
SENTENCE_FILTERS: tuple[TripleFilter, ...] = (
    # "survived by his daughter, Susan, and his son Michael": the second "his" is not Susan's
    TripleFilter("kin-chain", lambda triples, context: drop_kin_chains(triples)),
)
DOCUMENT_FILTERS: tuple[TripleFilter, ...] = (
    # "of Halden Foods, Kwame Boateng,": a person is no place a place lies in
    TripleFilter("place-fact-of-a-person", _keep_each(
        lambda t, c: not (t.relation in PLACE_FACTS and (t.head in c.persons or t.tail in c.persons)))),
    # P54 (member of sports team) needs a head that plays a sport
    TripleFilter("team-without-a-sport", _keep_each(lambda t, c: t.relation != "P54" or t.head in c.sporty)),
    TripleFilter("repeated", _first_of_each),
    TripleFilter("story-placed", _not_story_placed),
    # "prime minister" beside "prime minister of Latvia" for one person
    TripleFilter("general-position", lambda triples, context: drop_general_positions(triples)),
)


def filter_candidates(found: list[Candidate], mentions: Mentions,
                      filters: tuple[CandidateFilter, ...] = CANDIDATE_FILTERS,
                      counts: FilterCounts | None = None) -> list[Triple]:
    """The triples of the candidates every filter keeps, in order; ``counts`` gets what each drops."""
    kept = []
    for candidate in found:
        failed = next((f.name for f in filters if not f.keep(candidate, mentions)), None)
        if failed is None:
            kept.append(candidate.triple)
        elif counts is not None:
            counts[failed] += 1
    return kept


def filter_triples(triples: list[Triple], context: FilterContext, filters: tuple[TripleFilter, ...],
                   counts: FilterCounts | None = None) -> list[Triple]:
    """``triples`` through each filter in turn; ``counts`` gets what each drops."""
    for f in filters:
        kept = f.kept(triples, context)
        if counts is not None:
            counts[f.name] += len(triples) - len(kept)
        triples = kept
    return triples
