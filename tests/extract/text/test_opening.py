"""How a document opens: a title-case headline is read for nothing, and gives no subject.

Every text is made up for these tests; expected values are written by hand.
"""

from __future__ import annotations

import pytest

from frame_reading import extractor  # noqa: F401
from extract.text.opening import document_subject, title_case_headline


@pytest.mark.parametrize("text, headline", [
    ("Calloway Pictures Taps Streaming Exec Petra Lund\n\nCalloway Pictures has named Petra Lund its chief.", True),
    ("New Chief Executive for Harlow Grain Board\n\nThe board has appointed Mr Tobi Adeyemi.", True),
    ("Calloway Pictures taps a streaming executive\n\nCalloway Pictures has named Petra Lund.", False),  # sentence case
    ("Calloway Pictures Taps Petra Lund.\n\nCalloway Pictures has named Petra Lund.", False),  # ends a sentence
    ("Petra Lund (born 1971) is a Danish film producer.", False),  # an encyclopedia's first sentence
    ("Rovers Triumph\n\nRovers won 2-1 at home.", False),  # two words beyond the small ones
])
def test_title_case_headline(extractor, text, headline):
    assert (title_case_headline(extractor.nlp(text)) is not None) == headline


def test_a_title_case_headline_gives_no_name_and_no_subject(extractor):
    text = ("Calloway Pictures Taps Streaming Exec Petra Lund\n\n"
            "Calloway Pictures has named Petra Lund its new chief executive. She starts in May.")
    doc = extractor.nlp(text)
    assert document_subject(doc).text == "Calloway Pictures"
    got = {(t.relation, t.head, t.tail) for t in extractor.extract_sentences(doc, [(s, "p") for s in doc.sents])}
    assert ("P169", "Calloway Pictures", "Petra Lund") in got
    assert not any("Taps" in h + t for r, h, t in got)


def test_a_dateline_is_no_lead_organisation(extractor):
    from extract.text.coref import Mentions
    from extract.text.opening import dateline

    text = ("Calloway recalls 4,000 vans\n\nOSLO (AP) — Calloway Motor Group said on Monday it would "
            "recall 4,000 vans. Chief executive Petra Lund said the fault was rare.")
    doc = extractor.nlp(text)
    sentences = list(doc.sents)
    assert {doc[i].text for i in dateline(sentences[1])} >= {"OSLO", "AP"}
    assert dateline(sentences[2]) == set()  # no capitals, no dateline
    assert Mentions(doc, document_subject(doc)).lead == "Calloway Motor Group"
