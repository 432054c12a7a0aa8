"""What the rules extractor reads out of a sentence: the helper of the frame tests."""

from __future__ import annotations

from extract.text.rules import RulesExtractor


def sentence_facts(extractor: RulesExtractor, text: str) -> set[tuple[str, str, str]]:
    """(relation, head, tail) of every triple the frames read in ``text``, sentence by sentence."""
    doc = extractor.nlp(text)
    return {(t.relation, t.head, t.tail) for t in extractor.extract_sentences(doc, [(s, "p") for s in doc.sents])}
