"""The ``rules`` extractor behind the passage interface (``extract.text.extractors``).

The rules read a document at a time (a pronoun at a sentence's start stands for the document's
subject), so ``extract`` takes the segments of whole documents, in order, and gives each
document's sentences to ``RulesExtractor.extract_sentences``. Each triple's span is that of its
evidence sentence in its passage.

``extract.text.rules`` loads spaCy (two seconds); it is imported when a rules extractor is
made, so that listing the extractors (every command's start) does not pay for it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from extract.text.extractors import ChatBackend, Segment, evidence_span
from extract.text.lexicons import lexicon_versions
from extract.text.normalize import relations_version
from extract.text.options import TextBuildOptions
from extract.text.units import Triple

if TYPE_CHECKING:
    from extract.text.rules import RulesExtractor


class RulesPassages:
    """Facts from frame patterns (``extract.text.rules``), offline."""

    name = "rules"
    batch_passages = 1   # one document at a time

    def __init__(self, rules: RulesExtractor):
        self.rules = rules
        self.version = f"rules:{rules.spacy_model}+{lexicon_versions()}+{relations_version()}"

    @classmethod
    def from_options(cls, options: TextBuildOptions, backend: ChatBackend | None = None) -> RulesPassages:
        from extract.text.rules import RulesExtractor   # spaCy: see the module's notes
        return cls(RulesExtractor(options.spacy_model))

    def summary(self) -> str:
        return ""

    def extract(self, segments: Sequence[Segment]) -> list[Triple]:
        passages = {s.passage.key: s.passage for s in segments}
        found: list[Triple] = []
        for _, group in itertools.groupby(segments, key=lambda s: (s.passage.path, s.passage.document)):
            parts = [s for s in group if s.sentences]
            if not parts:
                continue
            doc = parts[0].sentences[0].doc
            for t in self.rules.extract_sentences(doc, [(s, p.passage.key) for p in parts for s in p.sentences]):
                start, end = evidence_span(passages[t.passage], t.evidence)
                found.append(replace(t, start=start, end=end))
        return found
