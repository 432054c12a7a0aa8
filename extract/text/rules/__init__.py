"""The ``rules`` extractor: frame patterns over a rule-based spaCy pipeline; works offline.

For every sentence: render it as a signature (entities as ``KIND#i``, other tokens as
``lower|lemma``), run every frame of ``extract.text.frames`` over it, and turn the roles of each
match into triples. Pronouns at the start of a sentence ("He", "The company") stand for the
document's subject: the first name of its first sentence.

The extractor is a pipeline of stages with typed values between them (``stages``):
document (``values.ParsedDocument``) -> mentions with kinds (``coref.Mentions``) -> frame matches
(``matches``: ``values.FrameMatch``) -> candidate triples (``fill``: ``values.Candidate``) through
named filters (``filters``) -> triples, with the facts the whole document decides (``infer``).
What a frame asks of its fillers are fields of the frame (``frames.Frame``); the word lists and
the weights of the evidence for a name's kind are data (``lexicons``).
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from extract.text.class_phrase import class_phrase
from extract.text.nlp import load_pipeline
from extract.text.opening import document_subject
from extract.text.rules.stages import extract_triples
from extract.text.rules.values import EXTRACTOR
from extract.text.units import Triple

__all__ = ["RulesExtractor", "class_phrase", "document_subject"]


class RulesExtractor:
    """Facts from frame patterns; see ``extract.text.frames`` for the frames themselves.

    Example:
        >>> ex = RulesExtractor()
        >>> doc = ex.nlp("Marie Curie (born 7 November 1867 in Warsaw) was a Polish physicist.")
        >>> sorted((t.relation, t.tail) for t in ex.extract_sentences(doc, [(doc[:], "p0")]))
        [('P106', 'physicist'), ('P19', 'Warsaw'), ('P27', 'Poland'), ('P569', '7 November 1867')]
    """

    name = EXTRACTOR

    def __init__(self, spacy_model: str | None = None):
        self.nlp = load_pipeline(spacy_model)
        self.spacy_model = spacy_model or "blank:en+rules"

    def extract_sentences(self, doc: Doc, sentences: list[tuple[Span, str]]) -> list[Triple]:
        """Triples of ``sentences`` (each with the key of the passage it belongs to)."""
        return extract_triples(doc, sentences)
