"""Every text extractor, registered once: ``create_extractor(options, backend)``.

The interface they share is ``extract.text.extractors.Extractor``; ``audit build --extractor
NAME`` and ``audit extract-score --extractor NAME`` offer the names registered here.
"""

from __future__ import annotations

from graphstore.registry import Registry

from extract.text.extractors import ChatBackend, Extractor, ExtractorClass
from extract.text.llm import LLMExtractor
from extract.text.options import TextBuildOptions
from extract.text.rebel import RebelExtractor
from extract.text.rules_passages import RulesPassages

EXTRACTORS: Registry[ExtractorClass] = Registry("extractor")
for _entry in (RulesPassages, RebelExtractor, LLMExtractor):
    EXTRACTORS.register(_entry)


def extractor_names() -> tuple[str, ...]:
    """The registered names, in registration order: rules, rebel, llm."""
    return tuple(EXTRACTORS)


def create_extractor(options: TextBuildOptions, backend: ChatBackend | None = None) -> Extractor:
    """The extractor ``options.extractor`` names; an unknown name lists the registered ones.

    ``backend`` answers the ``llm`` extractor's prompts (``audit.questions.backends``)."""
    return EXTRACTORS.get(options.extractor).from_options(options, backend)
