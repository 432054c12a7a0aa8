"""The ``rules`` extractor: frame patterns over a rule-based spaCy pipeline; works offline.

For every sentence: render it as a signature (entities as ``KIND#i``, other tokens as
``lower|lemma``), run every frame of ``extract.frames`` over it, and turn the roles of each
match into triples. Pronouns at the start of a sentence ("He", "The company") stand for the
document's subject: the first name of its first sentence. Nationalities become countries
("German" -> Germany); "located in" a country becomes the ``country`` relation.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span

from extract.frames import FRAMES
from extract.nlp import NAME_LABELS, country_aliases, demonym_countries, load_pipeline
from extract.normalize import GENERIC_MENTIONS, display_name
from extract.text_types import Triple

PRONOUNS = frozenset({"he", "she", "it", "they"})
# Relations whose tail must name its own kind: "Fulda River", "Sentinel Range".
TAIL_LAST_WORDS = {
    "P206": frozenset({"river", "lake", "sea", "bay", "ocean", "creek", "gulf", "strait", "channel",
                       "sound", "fjord", "lagoon", "reservoir", "canal", "stream", "brook"}),
    "P4552": frozenset({"mountains", "range", "alps", "hills", "highlands", "massif", "ridge"}),
}
# Relations whose tail must be a country.
COUNTRY_TAILS = frozenset({"P17", "P27"})
_ENTITY_REF = re.compile(r"^([A-Z_]+)#(\d+)$")
KIND_OF_LABEL = {"PERSON": "person", "ORG": "organization", "GPE": "place", "LOC": "place",
                 "FAC": "place", "COUNTRY": "place", "DATE": "date", "OCCUPATION": "occupation",
                 "NORP": "place", "WORK_OF_ART": "work"}


def signature(sentence: Span) -> str:
    """One line per sentence: `` NAME#0 was|be born|bear in|in NAME#4``.

    A sentence-initial pronoun, or "the" + a generic noun ("The company"), becomes ``PRON#i``.
    """
    parts = []
    first = True
    skip_next_article = False
    for token in sentence:
        if token.is_space:
            continue
        lower = token.lower_
        if token.ent_type_:
            parts.append(f"{token.ent_type_}#{token.i}")
        elif first and lower in PRONOUNS:
            parts.append(f"PRON#{token.i}")
        elif first and lower in ("the", "this") and token.i + 1 < len(token.doc) \
                and token.doc[token.i + 1].lower_ in GENERIC_MENTIONS:
            skip_next_article = True
            first = False
            continue
        elif skip_next_article:
            parts.append(f"PRON#{token.i}")
            skip_next_article = False
        else:
            word = _clean(lower)
            parts.append(f"{word}|{_clean(token.lemma_.lower()) or word}")
        first = False
    return " " + " ".join(parts)


def _clean(text: str) -> str:
    return text.replace(" ", "_").replace("|", "_").replace("#", "_")


def document_subject(doc: Doc) -> Span | None:
    """The first name of the document's first sentence: what its pronouns most likely mean."""
    for sentence in doc.sents:
        for ent in sentence.ents:
            if ent.label_ in NAME_LABELS:
                return ent
        return None
    return None


class RulesExtractor:
    """Facts from frame patterns; see ``extract.frames`` for the frames themselves.

    Example:
        >>> ex = RulesExtractor()
        >>> doc = ex.nlp("Marie Curie (born 7 November 1867 in Warsaw) was a Polish physicist.")
        >>> sorted((t.relation, t.tail) for t in ex.extract_sentences(doc, [(doc[:], "p0")]))
        [('P106', 'physicist'), ('P19', 'Warsaw'), ('P27', 'Poland'), ('P569', '7 November 1867')]
    """

    name = "rules"

    def __init__(self, spacy_model: str | None = None):
        self.nlp = load_pipeline(spacy_model)
        self.spacy_model = spacy_model or "blank:en+rules"

    def extract_sentences(self, doc: Doc, sentences: list[tuple[Span, str]]) -> list[Triple]:
        """Triples of ``sentences`` (each with the key of the passage it belongs to)."""
        subject = document_subject(doc)
        triples: dict[tuple, Triple] = {}
        for sentence, passage in sentences:
            line = signature(sentence)
            found: list[Triple] = []
            for frame in FRAMES:
                for match in frame.regex.finditer(line):
                    for head_role, relation, tail_role in frame.facts:
                        triple = self._triple(doc, match, head_role, relation, tail_role, subject,
                                              passage, sentence.text)
                        if triple is not None:
                            found.append(triple)
            for triple in found + _country_of_located(found):
                triples.setdefault((triple.head, triple.relation, triple.tail, passage), triple)
        return list(triples.values())

    def _triple(self, doc, match, head_role, relation, tail_role, subject, passage, evidence) -> Triple | None:
        head = self._filler(doc, match.group(head_role) if head_role in match.groupdict() else None, subject)
        tail = self._filler(doc, match.group(tail_role) if tail_role in match.groupdict() else None, subject)
        if head is None or tail is None:
            return None
        (head_text, head_label), (tail_text, tail_label) = head, tail
        if tail_label == "NORP":
            tail_text = demonym_countries().get(tail_text.lower())
            tail_label = "COUNTRY"
            if tail_text is None:
                return None
        elif tail_label == "COUNTRY":
            tail_text = country_aliases().get(tail_text.lower(), tail_text)
        if head_label == "COUNTRY":
            head_text = country_aliases().get(head_text.lower(), head_text)
            if relation in ("P131", "P17"):
                return None  # a country is not located in a place it names
        if relation == "P131" and tail_label == "COUNTRY":
            relation = "P17"
        if relation in COUNTRY_TAILS and tail_label != "COUNTRY":
            return None
        if relation in TAIL_LAST_WORDS and tail_text.split()[-1].lower() not in TAIL_LAST_WORDS[relation]:
            return None
        head_text, tail_text = display_name(head_text), display_name(tail_text)
        if not head_text or not tail_text or head_text.lower() == tail_text.lower():
            return None
        return Triple(head_text, relation, tail_text, passage, self.name,
                      KIND_OF_LABEL.get(head_label, ""), KIND_OF_LABEL.get(tail_label, ""), evidence)

    @staticmethod
    def _filler(doc: Doc, ref: str | None, subject: Span | None) -> tuple[str, str] | None:
        if ref is None:
            return None
        m = _ENTITY_REF.match(ref)
        if m is None:  # a WORD role: "lower|lemma"
            return ref.split("|", 1)[0], "WORD"
        label, index = m.group(1), int(m.group(2))
        if label == "PRON":
            return (subject.text, subject.label_) if subject is not None else None
        return doc[index].text, label


def _country_of_located(found: list[Triple]) -> list[Triple]:
    """X located in Y, Y in country Z (same sentence) => X in country Z: a country is inherited."""
    country = {t.head: t for t in found if t.relation == "P17"}
    return [Triple(t.head, "P17", country[t.tail].tail, t.passage, t.extractor, t.head_kind, "place", t.evidence)
            for t in found if t.relation == "P131" and t.tail in country and t.head != country[t.tail].tail]
