"""Each stage of the ``rules`` extractor on its own (``extract.text.rules.stages``): the parsed
document, the mentions with kinds, the frame matches, the candidates, the named filters and the
document's triples; the frames' options; the lexicon loader.

Every sentence here is made up, and every expected value is written by hand from what the
sentence says.
"""

from __future__ import annotations

import pytest

from extract.text.coref import Mentions
from extract.text.frames import FRAMES
from extract.text.lexicons import evidence_weights, lexicon_versions, rule_word_list, rule_word_map, rule_words
from extract.text.rules.fill import candidates
from extract.text.rules.filters import (CANDIDATE_FILTERS, DOCUMENT_FILTERS, SENTENCE_FILTERS, FilterContext,
                                        FilterCounts, filter_candidates, filter_triples)
from extract.text.rules.matches import ALL_FRAMES, frame_matches
from extract.text.rules.stages import document_mentions, document_triples, read_document, sentence_triples
from extract.text.rules.values import Candidate, ParsedDocument
from extract.text.units import Triple
from frame_reading import extractor  # noqa: F401  (a fixture)

BIRTH = "Halvard Tessen (born 3 March 1961 in Bergen) is a Norwegian luthier."
INSURER = "The insurer Brightwater Mutual said profits rose. Ms Ingrid Solberg, its chief executive, spoke."
HEADLINE = "Mayor Opens New Bridge In Dunmore\n\nThe mayor of Dunmore, Aileen Farr, opened the bridge on Monday."


def parsed(extractor, text: str) -> tuple[ParsedDocument, Mentions]:  # noqa: F811
    document = read_document(extractor.nlp(text))
    return document, document_mentions(document)


def frame(name: str):
    return next(f for f in ALL_FRAMES if f.name == name)


def spo(triples) -> list[tuple[str, str, str]]:
    return sorted((t.head, t.relation, t.tail) for t in triples)


# -- 1. the parsed document ---------------------------------------------------------------------

def test_the_document_knows_its_subject_and_has_no_headline(extractor):  # noqa: F811
    document, _ = parsed(extractor, BIRTH)
    assert document.subject is not None and document.subject.text == "Halvard Tessen"
    assert document.headline is None


def test_a_title_case_headline_is_found(extractor):  # noqa: F811
    document, _ = parsed(extractor, HEADLINE)
    assert document.headline is not None
    assert document.headline.start == 0 and document.headline.text.strip() == "Mayor Opens New Bridge In Dunmore"


# -- 2. mentions with kinds ---------------------------------------------------------------------

def test_mentions_know_what_each_name_is(extractor):  # noqa: F811
    _, mentions = parsed(extractor, BIRTH)
    assert mentions.kind("Halvard Tessen") == "person"
    assert mentions.kind("Bergen") == "place"
    _, mentions = parsed(extractor, INSURER)
    assert mentions.kind("Brightwater Mutual") == "organization"  # "the insurer X"
    assert mentions.kind("Ingrid Solberg") == "person"            # "Ms X"


# -- 3. frame matches ---------------------------------------------------------------------------

def test_frame_matches_of_one_sentence(extractor):  # noqa: F811
    document, mentions = parsed(extractor, BIRTH)
    sentence = next(document.doc.sents)
    found = frame_matches(document, mentions, sentence, "p0")
    assert [f.frame.name for f in found] == ["birth-aside", "is-a"]
    birth = found[0]
    assert document.doc[int(birth.match.group("place").split("#")[1])].text == "Bergen"
    assert birth.sentence == sentence and birth.passage == "p0"


@pytest.mark.parametrize("name, kept", [("Whitlock Gallery", True), ("Whitlock Partnership", False)])
def test_a_frame_whose_head_must_end_in_a_building_word(extractor, name, kept):  # noqa: F811
    document, mentions = parsed(extractor, f"The {name} in Glasgow has appointed a new director.")
    names = [f.frame.name for f in frame_matches(document, mentions, next(document.doc.sents), "p0")]
    assert ("facility-in" in names) is kept


# -- 4. candidates ------------------------------------------------------------------------------

def test_candidates_of_a_match_and_a_class_statement(extractor):  # noqa: F811
    document, mentions = parsed(extractor, BIRTH)
    birth, is_a = frame_matches(document, mentions, next(document.doc.sents), "p0")
    stated, statements = candidates(document, mentions, birth)
    assert [(c.triple.head, c.triple.relation, c.triple.tail) for c in stated] == [
        ("Halvard Tessen", "P569", "3 March 1961"), ("Halvard Tessen", "P19", "Bergen")]
    assert all(c.frame.name == "birth-aside" and not c.from_role_words for c in stated)
    assert all(c.triple.passage == "p0" and c.triple.evidence == BIRTH for c in stated)
    assert statements == []
    stated, statements = candidates(document, mentions, is_a)
    assert stated == []
    [statement] = statements
    assert statement.base.head == "Halvard Tessen"
    assert statement.phrase.nationality == "Norwegian" and statement.phrase.classes == ["luthier"]


def test_a_fact_made_from_the_words_of_the_frame(extractor):  # noqa: F811
    document, mentions = parsed(extractor, INSURER)
    found = frame_matches(document, mentions, next(document.doc.sents), "p0")
    stated, _ = candidates(document, mentions, found[0])
    assert [(c.triple.head, c.triple.relation, c.triple.tail, c.from_role_words) for c in stated] == [
        ("Brightwater Mutual", "P31", "insurer", True)]


# -- 5. the named filters -----------------------------------------------------------------------

def test_the_filters_by_name_in_the_order_they_run():
    assert [f.name for f in CANDIDATE_FILTERS] == ["person-fact-of-a-non-person", "does-not-fit-the-head"]
    assert [f.name for f in SENTENCE_FILTERS] == ["kin-chain"]
    assert [f.name for f in DOCUMENT_FILTERS] == [
        "place-fact-of-a-person", "team-without-a-sport", "repeated", "story-placed", "general-position"]


def test_candidate_filters_drop_and_count(extractor):  # noqa: F811
    _, mentions = parsed(extractor, INSURER)
    born_in = Triple("Brightwater Mutual", "P19", "Leeds", "p0", "rules")   # a firm is born nowhere
    workforce = Triple("Ingrid Solberg", "P1128", "240", "p0", "rules")     # a person has no workforce
    kept = Triple("Brightwater Mutual", "P1128", "240", "p0", "rules")
    counts = FilterCounts()
    out = filter_candidates([Candidate(born_in, frame("born-in")),
                             Candidate(born_in, frame("born-in"), from_role_words=True),
                             Candidate(workforce, frame("workforce-of")),
                             Candidate(workforce, frame("born-in")),  # not a news frame: no such check
                             Candidate(kept, frame("workforce-of"))], mentions, counts=counts)
    assert out == [born_in, workforce, kept]
    assert counts == {"person-fact-of-a-non-person": 1, "does-not-fit-the-head": 1}


def test_document_filters_drop_and_count(extractor):  # noqa: F811
    _, mentions = parsed(extractor, INSURER)
    first = Triple("Ana Ruiz", "P54", "Kestrel Rovers", "p0", "rules", evidence="one")
    again = Triple("Ana Ruiz", "P54", "Kestrel Rovers", "p0", "rules", evidence="two")
    no_sport = Triple("Ben Ode", "P54", "Kestrel Rovers", "p0", "rules")
    placed = Triple("Lyndhurst Road", "P131", "Ana Ruiz", "p0", "rules")
    general = Triple("Ana Ruiz", "P39", "mayor", "p0", "rules")
    specific = Triple("Ana Ruiz", "P39", "mayor of Dunmore", "p0", "rules")
    context = FilterContext(mentions, persons=frozenset({"Ana Ruiz", "Ben Ode"}), sporty=frozenset({"Ana Ruiz"}))
    counts = FilterCounts()
    out = filter_triples([first, again, no_sport, placed, general, specific], context, DOCUMENT_FILTERS, counts)
    assert out == [first, specific]
    assert counts == {"place-fact-of-a-person": 1, "team-without-a-sport": 1, "repeated": 1, "story-placed": 0,
                      "general-position": 1}


def test_kin_chains_drop_within_a_sentence(extractor):  # noqa: F811
    _, mentions = parsed(extractor, INSURER)
    evidence = "survived by his daughter, Susan, and his son Michael"
    daughter = Triple("Tom Reed", "P40", "Susan", "p0", "rules", evidence=evidence)
    chained = Triple("Susan", "P40", "Michael", "p0", "rules", evidence=evidence)
    assert filter_triples([daughter, chained], FilterContext(mentions), SENTENCE_FILTERS) == [daughter]


# -- 6. triples ---------------------------------------------------------------------------------

def test_a_sentence_then_the_document(extractor):  # noqa: F811
    document, mentions = parsed(extractor, BIRTH)
    found, statements = sentence_triples(document, mentions, next(document.doc.sents), "p0")
    assert spo(found) == [("Halvard Tessen", "P19", "Bergen"), ("Halvard Tessen", "P569", "3 March 1961")]
    # a person (born somewhere): the class phrase gives a citizenship and an occupation, no class
    assert spo(document_triples(found, statements, mentions)) == [
        ("Halvard Tessen", "P106", "luthier"), ("Halvard Tessen", "P19", "Bergen"),
        ("Halvard Tessen", "P27", "Norway"), ("Halvard Tessen", "P569", "3 March 1961")]


def test_the_document_drops_what_a_person_cannot_be(extractor):  # noqa: F811
    document, mentions = parsed(extractor, HEADLINE)
    sentence = list(document.doc.sents)[-1]
    found, statements = sentence_triples(document, mentions, sentence, "p0")
    assert ("Dunmore", "P131", "Aileen Farr") in spo(found)  # "of Dunmore, Aileen Farr,": a place chain
    counts = FilterCounts()
    triples = document_triples(found, statements, mentions, counts)
    assert spo(triples) == [("Aileen Farr", "P39", "mayor")]
    assert counts["place-fact-of-a-person"] == 1


def test_the_extractor_runs_every_stage(extractor):  # noqa: F811
    doc = extractor.nlp(BIRTH)
    assert spo(extractor.extract_sentences(doc, [(s, "p0") for s in doc.sents])) == [
        ("Halvard Tessen", "P106", "luthier"), ("Halvard Tessen", "P19", "Bergen"),
        ("Halvard Tessen", "P27", "Norway"), ("Halvard Tessen", "P569", "3 March 1961")]


# -- a frame's options are fields of the frame --------------------------------------------------

def test_frame_options_are_set_where_the_frames_are_defined():
    def having(option):
        return {f.name for f in ALL_FRAMES if getattr(f, option)}
    assert having("head_ends_in") == {"facility-in", "facility-in-first", "facility-in-after"}
    assert {f.head_ends_in for f in ALL_FRAMES if f.head_ends_in} == {"buildings"}
    assert having("named_organisation") == {"national-org", "national-org-first", "country-org-first", "org-national",
                                            "placed-org", "org-placed", "cost-before-name", "work-year"}
    assert having("free_head") == {"apposition-occupation", "apposition-class", "operated-by", "founded-participle-in"}
    assert having("org_not_after_article") == {"org-occupation-name"}
    assert having("dateline") == {"dateline"}
    assert not any(f.news for f in FRAMES) and all(f.news for f in ALL_FRAMES[len(FRAMES):])
    assert len({f.name for f in ALL_FRAMES}) == len(ALL_FRAMES)


# -- the lexicon loader -------------------------------------------------------------------------

def test_word_lists_are_read_from_the_versioned_lexicon():
    assert "rules_lexicon.v1" in lexicon_versions().split("+")
    assert {"gallery", "tower"} <= rule_words("buildings")          # a facility's word, and another building's
    assert "gallery" in rule_words("building_votes") and "hall" not in rule_words("building_votes")  # "Jessica Hall"
    assert rule_word_list("month_names")[:2] == ("January", "February")
    assert rule_word_map("verb_roles")["chaired"] == "chair"
    assert evidence_weights()["honorific_before"] == ("person", 6)


def test_an_unknown_word_list_names_the_valid_ones():
    with pytest.raises(KeyError, match="no word list 'no_such_list' in rules_lexicon.v1; valid: .*non_trades"):
        rule_words("no_such_list")
