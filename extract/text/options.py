"""How corpora become a graph: the options of a text build, checked in one place.

``TextBuildOptions.extractor`` names a registered extractor (``extract.text.catalog``); the
options each one needs sit beside it (``rebel_*`` for REBEL, ``llm`` for the LLM extractor),
and ``__post_init__`` refuses a combination that cannot run, before any file is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from graphstore.errors import InputDataError

from extract.text.corpus import CorpusOptions


@dataclass(frozen=True)
class LLMExtractorOptions:
    """The ``llm`` extractor: which model, and how it is asked."""

    source: str                          # an OpenAI-compatible base URL (http://host/v1) or a local causal LM folder
    model: str = "default"               # the model name sent to the server (recorded on the graph)
    prompt: Path | None = None           # a prompt file of the shipped form; None: extract/data/prompts/triples.v1.json
    passages_per_request: int = 4        # passages asked about in one request
    workers: int = 4                     # requests in flight at once (a server batches them)
    retries: int = 2                     # a failed or unreadable request is asked again this many times
    cache: Path | None = None            # a folder of answers by passage hash; None: no cache
    skip_unanswered: bool = False        # a passage never answered gives no facts (counted) instead of an error

    def __post_init__(self):
        if not self.source.strip():
            raise InputDataError("--extractor-llm", "the llm extractor needs a server URL or a model folder")
        if self.passages_per_request < 1 or self.workers < 1 or self.retries < 0:
            raise InputDataError("--extractor-llm", "passages per request and workers must be at least 1, "
                                                    "retries at least 0")


@dataclass(frozen=True)
class TextBuildOptions:
    """How corpora become a graph."""

    extractor: str = "rules"             # a registered extractor: rules, rebel, llm
    spacy_model: str | None = None       # a trained spaCy pipeline for sentences and entities
    rebel_model: str | None = None       # REBEL model folder or hub id (extractor "rebel")
    rebel_device: str | None = None      # REBEL: cpu, cuda, cuda:1; None: CUDA when present
    rebel_batch_size: int = 8            # REBEL: chunks generated together (raise it on a GPU)
    llm: LLMExtractorOptions | None = None   # extractor "llm": the model and how it is asked
    passage_tokens: int = 128            # a passage ends before it would pass this many tokens
    passage_sentences: int = 4           # ... or this many sentences
    corpus: CorpusOptions = field(default_factory=CorpusOptions)

    def __post_init__(self):
        if self.extractor == "rebel" and not self.rebel_model:
            raise InputDataError("--extractor", "rebel needs --rebel-model PATH (a local folder or hub id)")
        if self.extractor == "llm" and self.llm is None:
            raise InputDataError("--extractor", "llm needs --extractor-llm URL|PATH (an OpenAI-compatible "
                                                "server or a local instruction-tuned model)")
        if self.passage_tokens < 8 or self.passage_sentences < 1:
            raise InputDataError("--passage-tokens", "a passage needs at least 8 tokens and 1 sentence")
