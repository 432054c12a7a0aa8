"""How a document opens: its subject, and a headline in title case.

``document_subject`` is the first name of the first sentence: what the document's pronouns most
likely mean. ``dateline`` is the place and agency that wire copy opens a story with ("MEXICO
CITY (AP) —", "TOKYO —"): a place, not what the story is about.

A headline in title case: "Meridian Pictures Taps Streaming Exec Dana Whitford".

In such a line every word but the small ones is capitalised, so its capitals say nothing about
where a name begins and ends, and the blank pipeline glues its words into one long name
("Meridian Pictures Taps Streaming Exec Dana Whitford"). That name would then stand for the
firm all through the story, as its subject, its lead organisation and the long form of its
short mentions. The rules therefore read no fact from a title-case headline and take neither
the document's subject nor its lead organisation from it; the story says the same again in
sentences whose capitals mean something. A headline in sentence case ("Harumoto recalls
412,000 vehicles over faulty fuel pump") is read like any other sentence.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from extract.text.lexicons import rule_words
from extract.text.nlp import NAME_LABELS



def title_case_headline(doc: Doc) -> Span | None:
    """The document's first line when it is a headline in title case, else None.

    A headline is a first sentence that is a line of its own (a line break follows it) and does
    not end with a full stop; it is in title case when it has three or more words beyond the
    small ones and each of them begins with a capital.

    Example:
        >>> from extract.text.nlp import load_pipeline
        >>> nlp = load_pipeline(None)
        >>> title_case_headline(nlp("Meridian Pictures Taps New Chief\\n\\nThe studio said so.")).text.strip()
        'Meridian Pictures Taps New Chief'
        >>> title_case_headline(nlp("Meridian Pictures taps a new chief\\n\\nThe studio said so.")) is None
        True
    """
    first = next(iter(doc.sents), None)
    if first is None:
        return None
    text = first.text.rstrip()
    if "\n" in text or text.endswith(".") or "\n" not in doc.text[first.start_char:first.end_char + 2]:
        return None
    words = [w for t in first for w in t.text.split()  # a merged name is one token of several words
             if w.isalpha() and w.lower() not in rule_words("headline_small_words")]
    if len(words) < 3 or not all(w[0].isupper() for w in words):
        return None
    return first


def document_subject(doc: Doc) -> Span | None:
    """The first name of the document's first sentence, after a title-case headline."""
    headline = title_case_headline(doc)
    for sentence in doc.sents:
        if headline is not None and sentence.start == headline.start:
            continue
        for ent in sentence.ents:
            if ent.label_ in NAME_LABELS:
                return ent
        return None
    return None


DASHES = frozenset({"—", "–", "-"})


def dateline(sentence: Span) -> set[int]:
    """The token indices of a wire story's dateline at the start of ``sentence``: the words
    before the first dash when the sentence opens on a word in capitals ("RIVERTON, Ohio —",
    "WASHINGTON (AP) —"); an empty set when it has none."""
    tokens = [t for t in sentence if not t.is_space]
    if not tokens or not (tokens[0].text.isupper() and sum(c.isalpha() for c in tokens[0].text) > 1):
        return set()
    dash = next((k for k, t in enumerate(tokens[:12]) if t.text in DASHES), None)
    return {t.i for t in tokens[:dash]} if dash else set()
