"""The stages of the ``rules`` extractor, each a function one can call alone:

1. ``read_document``: a parsed spaCy document -> ``ParsedDocument`` (its subject, its headline);
2. ``document_mentions``: -> ``coref.Mentions``, each name with its kind and full name;
3. ``matches.frame_matches``: one sentence -> ``FrameMatch`` es;
4. ``fill.candidates``: one match -> ``Candidate`` triples (and ``ClassStatement`` s);
5. the named filters of ``filters`` -> triples: ``sentence_triples`` runs the candidate and
   sentence filters; ``document_triples`` adds what the whole document decides and runs the
   document filters.

``extract_triples`` runs them all over a document's sentences.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from extract.text.coref import Mentions
from extract.text.member_frames import team_sheet
from extract.text.opening import document_subject, title_case_headline
from extract.text.rules.fill import candidates
from extract.text.rules.filters import (DOCUMENT_FILTERS, SENTENCE_FILTERS, FilterContext, FilterCounts,
                                        filter_candidates, filter_triples)
from extract.text.rules.infer import (country_of_located, description_triples, document_facts, event_years,
                                      team_sheet_triples)
from extract.text.rules.matches import frame_matches
from extract.text.rules.values import ClassStatement, ParsedDocument
from extract.text.units import Triple


def read_document(doc: Doc) -> ParsedDocument:
    """The document with its subject (the first name of its first sentence) and its title-case
    headline, if it opens on one (``opening``)."""
    return ParsedDocument(doc, document_subject(doc), title_case_headline(doc))


def document_mentions(parsed: ParsedDocument) -> Mentions:
    """Every name of the document with its kind, its full name, and what its pronouns stand for."""
    return Mentions(parsed.doc, parsed.subject)


def sentence_triples(parsed: ParsedDocument, mentions: Mentions, sentence: Span, passage: str,
                     counts: FilterCounts | None = None) -> tuple[list[Triple], list[ClassStatement]]:
    """One sentence's triples (past the candidate and sentence filters; with the countries its
    places inherit) and its class statements, which wait for the whole document."""
    here: list[Triple] = []
    statements: list[ClassStatement] = []
    for found in frame_matches(parsed, mentions, sentence, passage):
        stated, classes = candidates(parsed, mentions, found)
        here += filter_candidates(stated, mentions, counts=counts)
        statements += classes
    here += event_years(sentence, passage)
    here += description_triples(sentence, passage, mentions)
    return filter_triples(here, FilterContext(mentions), SENTENCE_FILTERS, counts) + country_of_located(here), \
        statements


def document_triples(found: list[Triple], statements: list[ClassStatement], mentions: Mentions,
                     counts: FilterCounts | None = None) -> list[Triple]:
    """The document's triples: ``found`` with what its class statements and sports say, through
    the document filters. Only a name certainly a person's counts as one here
    (``Mentions.certain_persons``): a name shaped like a person's is not enough."""
    facts = document_facts(found, statements, mentions.certain_persons)
    return filter_triples(facts.triples, FilterContext(mentions, facts.persons, facts.sporty), DOCUMENT_FILTERS,
                          counts)


def extract_triples(doc: Doc, sentences: list[tuple[Span, str]], counts: FilterCounts | None = None) -> list[Triple]:
    """Every stage over ``sentences`` of ``doc`` (each with the key of the passage it belongs
    to); ``counts`` gets what each named filter drops.

    A team sheet ("Hawks: Liam Rewiti; ...") goes on from one sentence to the next ("Reserves:
    ..."), and its players' P54 need no sport: they pass no filter."""
    parsed = read_document(doc)
    mentions = document_mentions(parsed)
    found: list[Triple] = []
    statements: list[ClassStatement] = []
    sheets: list[Triple] = []
    team = None
    for sentence, passage in sentences:
        if parsed.headline is not None and sentence.start == parsed.headline.start:
            continue  # its capitals glue words into names (``opening``)
        triples, classes = sentence_triples(parsed, mentions, sentence, passage, counts)
        found += triples
        statements += classes
        players, team = team_sheet(sentence, mentions, team)
        if team is not None:
            sheets += team_sheet_triples(players, team, sentence, passage)
    return document_triples(found, statements, mentions, counts) + sheets
