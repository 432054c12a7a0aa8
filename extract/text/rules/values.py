"""The values that pass between the stages of the ``rules`` extractor, and the relation ids its
stages share (schema: which facts only a person has, which say where a thing is).

document (``ParsedDocument``) -> mentions (``coref.Mentions``: each name with its kind) ->
frame matches (``FrameMatch``) -> candidates (``Candidate``, ``ClassStatement``) through named
filters -> triples (``units.Triple``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.tokens import Doc, Span

from extract.text.class_phrase import ClassPhrase
from extract.text.frames import Frame
from extract.text.units import Triple

# The extractor's name, which every triple it makes carries.
EXTRACTOR = "rules"
# Relations whose tail must be a country.
COUNTRY_TAILS = frozenset({"P17", "P27", "P495"})
# "Located" relations, re-typed by the tail's last word; P706 is kept only with a typed tail.
LOCATIVE = frozenset({"P131", "P706"})
# Facts that say where a thing is: a person has none of them.
PLACE_FACTS = frozenset({"P131", "P17", "P30", "P206", "P706", "P4552", "P361", "P159"})
# Facts that only a person has.
PERSON_FACTS = frozenset({"P569", "P570", "P19", "P20", "P27", "P106", "P26", "P69", "P108", "P54", "P39",
                          "P551", "P40", "P22", "P25", "P3373", "P102", "P768", "P413", "P3629"})
# Positions (``roles.role_category``) that, named without an organisation in a story about one
# ("Chief executive X said", "Founder X"), are that organisation's; of the heads, only a managing director.
STORY_ROLES = frozenset({"chief_executive", "chair", "founder", "head"})
# An entity label -> the kind of thing a triple's end is.
KIND_OF_LABEL = {"PERSON": "person", "ORG": "organization", "GPE": "place", "LOC": "place",
                 "FAC": "place", "COUNTRY": "place", "CONTINENT": "place", "DATE": "date",
                 "OCCUPATION": "occupation", "NORP": "place", "WORK_OF_ART": "work", "CLASS": "class"}


@dataclass(frozen=True)
class ParsedDocument:
    """A parsed document and what its opening says: the subject that pronouns at the start of a
    sentence stand for, and a title-case headline, whose sentence is skipped (its capitals glue
    words into names)."""

    doc: Doc
    subject: Span | None
    headline: Span | None


@dataclass(frozen=True)
class FrameMatch:
    """One match of a frame in one sentence's signature (``signature.signature_parts``), which
    passed the checks the frame asks of its fillers."""

    frame: Frame
    match: re.Match
    sentence: Span
    passage: str                  # the key of the passage the sentence belongs to
    starts: tuple[int, ...]       # where each token's text starts in the signature
    tokens: tuple[int, ...]       # the document index of each token of the signature


@dataclass(frozen=True)
class Candidate:
    """A triple a frame match states, before the filters."""

    triple: Triple
    frame: Frame
    from_role_words: bool = False  # made from the words that filled the frame (an ``@`` fact, see
    # ``news_frames.role_facts``), which checks them itself: the candidate filters pass it


@dataclass(frozen=True)
class ClassStatement:
    """"X is a 1935 British comedy film": a head and what its class phrase says, turned into facts
    once the whole document is read (``infer.class_facts``). ``base`` is a ``P31`` triple with an
    empty tail that carries the head, its kind, the passage and the evidence."""

    base: Triple
    phrase: ClassPhrase
