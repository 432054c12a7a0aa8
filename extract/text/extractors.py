"""One interface for every text extractor, each registered once by name.

    extractor = create_extractor(options, backend)    # extract.text.catalog: "rules", "rebel", "llm"
    triples = extractor.extract(segments)              # Segment: a passage and its parsed sentences

| name | class | reads | needs |
| --- | --- | --- | --- |
| rules | ``RulesPassages`` (``extract.text.rules_passages``) | frame patterns over spaCy's sentences | nothing: offline |
| rebel | ``RebelExtractor`` (``extract.text.rebel``) | REBEL's generated linearization | ``--rebel-model`` |
| llm | ``LLMExtractor`` (``extract.text.llm``) | an instruction-tuned model's JSON | ``--extractor-llm`` |

Every triple carries its provenance: the passage key, the character span of its evidence in
the passage text (``Triple.start``/``end``, -1 when the extractor cannot say), the extractor's
name, and ``Extractor.version`` (model, prompt and inventory versions), which the build
records on the graph and on every fact.

A build hands an extractor whole documents, in order: at least ``batch_passages`` passages at
a time (REBEL and the LLM fill a batch from several short documents; the rules read one
document at a time, since a pronoun at a sentence's start stands for the document's subject).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from extract.text.options import TextBuildOptions
from extract.text.units import Passage, Triple

if TYPE_CHECKING:
    from spacy.tokens import Span


class Segment(NamedTuple):
    """A passage with the spaCy sentences it was cut from (``extract.text.graph.segment``)."""

    passage: Passage
    sentences: list[Span]


class ChatBackend(Protocol):
    """Anything that answers a (system, user) prompt with text: the backends of
    ``audit.questions.backends`` (an OpenAI-compatible server, a local causal LM) fit it."""

    def complete(self, system: str, user: str) -> str:
        """The model's reply; ``graphstore.errors.BackendCallError`` for a failed call."""


class Extractor(Protocol):
    """Passages in, triples out."""

    name: str            # the registered name; every triple's ``extractor``
    version: str         # what produced the triples: model, prompt, lexicon and inventory versions
    batch_passages: int  # the build gathers whole documents until this many passages wait

    def extract(self, segments: Sequence[Segment]) -> list[Triple]:
        """The triples the passages state, each with its passage key and evidence span."""

    def summary(self) -> str:
        """What it dropped, repaired or could not read so far, for the build's notes ("" for nothing)."""


class ExtractorClass(Protocol):
    """What the registry holds: a named class that builds itself from the build's options."""

    name: str

    def from_options(self, options: TextBuildOptions, backend: ChatBackend | None) -> Extractor:
        """The extractor ``options`` describe; ``backend`` answers the LLM extractor's prompts."""



def evidence_span(passage: Passage, evidence: str) -> tuple[int, int]:
    """Where ``evidence`` stands in the passage text (first occurrence), or (-1, -1)."""
    at = passage.text.find(evidence) if evidence else -1
    return (at, at + len(evidence)) if at >= 0 else (-1, -1)
