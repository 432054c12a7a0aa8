"""Build a graph from any source: the library entry point behind `audit build`.

A source is read and checked whole by ``extract`` (PISTOL files, text corpora, a Wikidata file),
the questions the audit asks are written on its facts by ``audit.questions`` (text templates,
LLM questions, the Wikidata property registry), and ``graphstore.ingest.write_graph`` writes
each graph with its structure in one transaction: a bad file is refused before the database
is touched, and the graph stays as it was.

``audit`` uses ``extract``'s readers here (and, to generate people, in the memorization check):
a graph's questions belong to the audit (they are what it measures), and they are written when
the graph is built.

Example:
    with GraphStore.open() as store:
        built = build_graph(store, PistolSource([Path("sample_data_1.json")]))
        print(built[0].summary.facts)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from audit.questions.backends import QuestionBackend, backend_for
from audit.questions.llm import FactForQuestions, generate_questions
from audit.questions.properties import PropertyRegistry, add_property_questions, load_registry
from audit.questions.templates import add_generated, add_questions
from extract.pistol.load import PistolVariant, load_pistol, pistol_variant  # noqa: F401  (the variant, for callers)
from extract.text.corpus import CorpusOptions
from extract.text.options import LLMExtractorOptions, TextBuildOptions
from extract.text.graph import corpus_sha256, extract_corpora, read_corpora, text_graph_record
from extract.wikidata.read import PropertyInfo, WikidataOptions, WikidataReport, read_wikidata
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError, InputDataError
from graphstore.ingest import LoadSummary, write_graph
from graphstore.progress import Progress
from graphstore.records import GraphRecord

PROGRESS_MIN_FACTS = 5000      # smaller PISTOL builds finish before a bar would be worth drawing
PROGRESS_MIN_DOCUMENTS = 50


@dataclass(frozen=True)
class PistolSource:
    """PISTOL QA datasets (``[{question, answer, edge}, ...]``): every file becomes one graph."""
    paths: tuple[Path, ...]
    split: str = "retain"            # the forget/retain split recorded on every edge
    variant: PistolVariant | None = None   # part of the file, entities renamed (PISTOL's Sec. 6)


@dataclass(frozen=True)
class TextSource:
    """Text corpora: all of them become one graph of passages, entities and facts."""
    forget: tuple[Path, ...]
    retain: tuple[Path, ...] = ()
    options: TextBuildOptions = field(default_factory=TextBuildOptions)
    questions_llm: str | None = None   # OpenAI-compatible base URL or local causal LM folder
    llm_model: str = "default"         # model name sent to the endpoint


@dataclass(frozen=True)
class WikidataSource:
    """A Wikidata entity file: subjects (items of ``instance_of``), their properties and values."""
    path: Path
    labels: tuple[Path, ...] = ()
    instance_of: tuple[str, ...] = ("Q5",)    # () = every item
    language: str = "en"
    skip_bad_records: bool = False
    properties_file: Path | None = None       # a user's property registry over the shipped one


Source = PistolSource | TextSource | WikidataSource


@dataclass
class BuiltGraph:
    """One graph written, with what its source says about it."""
    summary: LoadSummary | None                             # None until written (``write`` fills it)
    record: GraphRecord
    notes: list[str] = field(default_factory=list)          # Wikidata: skipped or flagged input, said after the write
    documents: int | None = None                            # text sources
    passages: int | None = None
    redundancy: dict | None = None                          # text: forget, redundant, audit set, weaker signals
    wikidata: WikidataReport | None = None


def build_graph(store: GraphStore, source: Source, graph: str | None = None, replace: bool = False,
                notes: Callable[[str], None] | None = None) -> list[BuiltGraph]:
    """Read, check and write ``source``; returns one ``BuiltGraph`` per graph written.
    ``prepare`` then ``write``: the CLI calls the two apart, so that a bad file is refused
    before any database is opened.

    Args:
        graph: the graph's name (default: the file name without extension).
        replace: replace a graph of the same name that holds different content.
        notes: called with each note on a text source (skipped documents, LLM question counts)
            as soon as it is known; a Wikidata file's notes are in ``BuiltGraph.notes``.

    Raises:
        InputDataError: a file is malformed; the message names the file and the record.
        ConfigError: the options cannot build this source (two files would make one graph, ...).
    """
    return write(store, prepare(source, graph, notes), replace)


def prepare(source: Source, graph: str | None = None,
            notes: Callable[[str], None] | None = None) -> list[BuiltGraph]:
    """Every graph of ``source`` read and checked, with its questions, nothing written yet."""
    if graph is not None and not graph.strip():
        raise ConfigError("the graph name is empty; leave it out to use the file name")
    if isinstance(source, PistolSource):
        return _pistol_records(source, graph)
    if isinstance(source, WikidataSource):
        registry = load_registry(source.properties_file)
        record, report = wikidata_graph(source.path, graph, registry, instance_of=source.instance_of,
                                        language=source.language, labels=source.labels,
                                        skip_bad_records=source.skip_bad_records)
        return [BuiltGraph(None, record, [f"{source.path}: {line}" for line in report.lines()], wikidata=report)]
    return [_text_record(source, graph, notes)]


def write(store: GraphStore, prepared: list[BuiltGraph], replace: bool = False) -> list[BuiltGraph]:
    """Write prepared graphs, each in one transaction with its structure; fills their summaries."""
    for built in prepared:
        shown = len(built.record.facts) >= PROGRESS_MIN_FACTS
        with Progress(f"{built.record.name}: writing facts" if shown else None, total=len(built.record.facts),
                      unit="facts") as bar:
            built.summary = write_graph(store, built.record, replace=replace, progress=bar.update)
        if built.documents is not None:   # a text graph: what the redundancy step found
            built.redundancy = dict(store.read(Q.REDUNDANCY_SUMMARY, graph=built.record.name)[0])
    return prepared


def wikidata_graph(path: Path, graph: str | None, registry: PropertyRegistry,
                   **options) -> tuple[GraphRecord, WikidataReport]:
    """A Wikidata file's graph record with the registry's questions on every fact, and the read's
    report. ``options`` are ``extract.wikidata.read.WikidataOptions`` fields; the registry
    supplies the labels of properties the file does not describe."""
    labels = {pid: PropertyInfo(t.label, t.description, t.aliases) for pid, t in registry.properties.items()}
    record, report = read_wikidata(path, graph, WikidataOptions(registry=labels, **options))
    return add_property_questions(record, registry), report


def _pistol_records(source: PistolSource, graph: str | None) -> list[BuiltGraph]:
    if not source.paths:
        raise ConfigError("no PISTOL file to build")
    if graph and len(source.paths) > 1:
        raise ConfigError("a graph name names one graph; give one PISTOL file with it")
    # Every file is validated before anything is written: a bad second file must not leave the
    # first one loaded.
    records = [load_pistol(path, graph=graph, split=source.split, variant=source.variant) for path in source.paths]
    names = [r.name for r in records]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ConfigError(f"two files would both become graph {duplicate!r}; load them separately with --graph")
    return [BuiltGraph(None, record) for record in records]


def _text_record(source: TextSource, graph: str | None, notes: Callable[[str], None] | None) -> BuiltGraph:
    if not source.forget:
        raise ConfigError("a text build needs at least one forget corpus: the forget corpus is what is audited")
    name = graph or Path(source.forget[0]).stem
    forget, retain = list(source.forget), list(source.retain)
    corpora = read_corpora(forget, retain, source.options)
    total = len(corpora.documents)
    with Progress(f"{name}: extracting" if total >= PROGRESS_MIN_DOCUMENTS else None, total=total,
                  unit="documents") as bar:
        corpus = extract_corpora(name, corpora, source.options, progress=bar.update,
                                 backend=extractor_backend(source.options))
    if corpus.extractor_notes and notes:
        notes(corpus.extractor_notes)
    for report in corpus.reports:
        if report.empty_skipped and notes:
            notes(f"{report.path}: skipped {report.empty_skipped} empty document(s)")
    path = " ".join(str(Path(p).resolve()) for p in forget + retain)
    record = add_questions(text_graph_record(corpus, corpus_sha256(corpora.reports, source.options), path))
    if not record.facts:
        raise InputDataError(", ".join(map(str, forget + retain)),
                             f"no facts found in {len(corpus.documents)} document(s); nothing was built")
    if source.questions_llm:
        record = _llm_questions(record, source.questions_llm, source.llm_model, notes)
    return BuiltGraph(None, record, documents=len(corpus.documents), passages=len(corpus.passages))


def _llm_questions(record: GraphRecord, source: str, model: str, notes: Callable[[str], None] | None) -> GraphRecord:
    backend = backend_for(source, model)
    passages = {p.key: p.text for p in record.passages}
    facts = [FactForQuestions(f.key, f.attributes["head_name"], f.domain, f.attributes["tail_name"],
                              passages.get(f.attributes["passages"][0], ""), f.attributes["passages"][0])
             for f in record.facts if f.split == "forget"]
    batch = generate_questions(facts, backend)
    if notes:
        notes(batch.summary())
    return add_generated(record, batch.questions)


def text_options(extractor: str = "rules", spacy_model: str | None = None, rebel_model: str | None = None,
                 passage_tokens: int = 128, corpus_format: str | None = None, one_per_line: bool = False,
                 text_field: str = "text", rebel_device: str | None = None, rebel_batch_size: int = 8,
                 extractor_llm: str | None = None, extractor_model: str = "default",
                 extractor_prompt: Path | None = None, extractor_batch: int = 4, extractor_workers: int = 4,
                 extractor_cache: Path | None = None, extractor_retries: int = 2,
                 extractor_skip_unanswered: bool = False) -> TextBuildOptions:
    """``TextBuildOptions`` from the flat options `audit build` and `audit extract-score` offer."""
    llm = (LLMExtractorOptions(extractor_llm, extractor_model, extractor_prompt, extractor_batch, extractor_workers,
                               extractor_retries, extractor_cache, extractor_skip_unanswered) if extractor_llm else None)
    return TextBuildOptions(extractor=extractor, spacy_model=spacy_model, rebel_model=rebel_model,
                            rebel_device=rebel_device, rebel_batch_size=rebel_batch_size, llm=llm,
                            passage_tokens=passage_tokens,
                            corpus=CorpusOptions(corpus_format, one_per_line, text_field))


def extractor_backend(options: TextBuildOptions) -> QuestionBackend | None:
    """The backend that answers the ``llm`` extractor's prompts (the backends of
    ``--questions-llm``); None for the other extractors."""
    if options.extractor != "llm" or options.llm is None:
        return None
    return backend_for(options.llm.source, options.llm.model)