"""Forget and retain corpora -> one knowledge graph: passages, entities, facts.

Pipeline: read every file (``extract.text.corpus``), run the spaCy pipeline over each document,
cut it into passages of a few sentences (bounded in tokens), extract triples per passage
with the chosen extractor, resolve short mentions within each document, normalize names,
canonicalize relations, and merge what several passages state into one fact per
(split, head, relation, tail). Both corpora share one entity per normalized name, so a
fact stated by both is two edges between the same two nodes: the redundancy query of the
graph store finds it by matching them.

Questions are not made here (``audit.questions.templates`` does that); the record is complete otherwise.
"""

from __future__ import annotations

import collections
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from graphstore.errors import InputDataError
from graphstore.records import (EntityRecord, FactRecord, GraphRecord, PassageRecord, entity_key, fact_key,
                                validate_graph_name)

from extract.text.catalog import EXTRACTORS, create_extractor
from extract.text.corpus import CorpusReport, read_corpus
from extract.text.extractors import ChatBackend, Segment
from extract.text.lexicons import lexicon_versions
from extract.text.normalize import (NameIndex, canonical, display_name, normalize_name, relations, relations_version,
                               resolve_short_mentions)
from extract.text.options import TextBuildOptions
from extract.text.units import Document, Passage, Triple

if TYPE_CHECKING:  # spaCy is imported where a build runs
    from spacy.tokens import Span

MAX_NAME_CHARS = 200   # longer "names" are extraction accidents; they would also make keys unwieldy


@dataclass
class TextCorpus:
    """What extraction found, before it is turned into a graph record."""

    graph: str
    documents: list[Document]
    passages: list[Passage]
    triples: list[Triple]
    reports: list[CorpusReport]
    dropped_long_names: int = 0
    extractor_version: str = ""
    extractor_notes: str = ""   # what the extractor dropped or repaired, for the build's notes


def segment(doc, document: Document, prefix: str, max_tokens: int, max_sentences: int) -> list[Segment]:
    """Cut a spaCy ``doc`` into passages of whole sentences (a sentence longer than
    ``max_tokens`` is cut into windows of that many tokens)."""
    pieces = []
    for sentence in doc.sents:
        if all(t.is_space for t in sentence):
            continue
        for start in range(sentence.start, sentence.end, max_tokens):
            pieces.append(doc[start:min(start + max_tokens, sentence.end)])
    out: list[Segment] = []
    group: list[Span] = []

    def close():
        if not group:
            return
        start, end = group[0].start_char, group[-1].end_char
        offsets = tuple((s.start_char - start, s.end_char - start) for s in group)
        passage = Passage(f"{prefix}/{len(out)}", document.split, document.path, document.index, len(out),
                          start, end, doc.text[start:end], offsets)
        out.append(Segment(passage, list(group)))

    tokens = 0
    for piece in pieces:
        if group and (tokens + len(piece) > max_tokens or len(group) >= max_sentences):
            close()
            group, tokens = [], 0
        group.append(piece)
        tokens += len(piece)
    close()
    return out


def _file_prefixes(graph: str, files: list[tuple[str, Path]]) -> dict[tuple[str, Path], str]:
    """``<graph>/<split>/<file stem>``, numbered when two files of a split share a stem."""
    seen: collections.Counter[tuple[str, str]] = collections.Counter()
    out = {}
    for split, path in files:
        stem = path.stem or "corpus"
        seen[(split, stem)] += 1
        suffix = f"-{seen[(split, stem)]}" if seen[(split, stem)] > 1 else ""
        out[(split, path)] = f"{graph}/{split}/{stem}{suffix}"
    return out


@dataclass
class Corpora:
    """Every file of a build, read and checked: (split, path, documents) per file."""

    files: list[tuple[str, Path, list[Document]]]
    reports: list[CorpusReport]

    @property
    def documents(self) -> list[Document]:
        return [d for _, _, docs in self.files for d in docs]


def read_corpora(forget: list[Path], retain: list[Path], options: TextBuildOptions) -> Corpora:
    """Read and check every forget and retain file, before any model runs: a bad last file
    fails fast, and nothing is read twice."""
    if not forget:
        raise InputDataError("--forget", "a text build needs at least one --forget FILE")
    EXTRACTORS.get(options.extractor)   # an unknown name is refused before any file is read
    files, reports = [], []
    for split, paths in (("forget", forget), ("retain", retain)):
        for path in map(Path, paths):
            docs, report = read_corpus(path, split, options.corpus)
            files.append((split, path, docs))
            reports.append(report)
    return Corpora(files, reports)


def extract_corpora(graph: str, corpora: Corpora, options: TextBuildOptions,
                    progress: Callable[[int], None] | None = None, backend: ChatBackend | None = None) -> TextCorpus:
    """Segment and extract every document of ``corpora`` with the extractor ``options`` name.

    ``progress`` is called with the number of documents done after each batch; ``backend``
    answers the ``llm`` extractor's prompts. Short mentions are resolved per document.
    """
    validate_graph_name(graph)
    prefixes = _file_prefixes(graph, [(split, path) for split, path, _ in corpora.files])
    extractor = create_extractor(options, backend)
    from extract.text.nlp import load_pipeline   # spaCy, where a build runs
    nlp = load_pipeline(options.spacy_model)   # cached: the rules extractor's own pipeline

    passages: list[Passage] = []
    triples: list[Triple] = []
    pending: list[list[Segment]] = []   # whole documents, segmented, not yet extracted

    def extract_pending() -> None:
        # One call over several documents when the extractor batches (REBEL, an LLM); the
        # triples keep the extractor's order, and mentions are resolved per document.
        found = extractor.extract([s for parts in pending for s in parts])
        document_of = {s.passage.key: i for i, parts in enumerate(pending) for s in parts}
        by_document: list[list[Triple]] = [[] for _ in pending]
        for t in found:
            by_document[document_of[t.passage]].append(t)
        for document_triples in by_document:
            triples.extend(resolve_short_mentions(document_triples))
        if progress:
            progress(len(pending))
        pending.clear()

    for split, path, docs in corpora.files:
        prefix = prefixes[(split, path)]
        for document, doc in zip(docs, nlp.pipe((d.text for d in docs), batch_size=32)):
            parts = segment(doc, document, f"{prefix}/{document.index}", options.passage_tokens,
                            options.passage_sentences)
            passages.extend(s.passage for s in parts)
            pending.append(parts)
            if sum(map(len, pending)) >= extractor.batch_passages:
                extract_pending()
    if pending:
        extract_pending()
    kept = [t for t in triples if len(t.head) <= MAX_NAME_CHARS and len(t.tail) <= MAX_NAME_CHARS]
    return TextCorpus(graph, corpora.documents, passages, kept, corpora.reports, len(triples) - len(kept),
                      extractor.version, extractor.summary())


def corpus_sha256(reports: list[CorpusReport], options: TextBuildOptions) -> str:
    """Identity of a text build: every file's bytes with its split and name, and the options
    that change what is extracted."""
    h = hashlib.sha256()
    for report in reports:
        h.update(f"{report.split}\0{Path(report.path).name}\0{report.sha256}".encode())
    llm = None
    if options.llm is not None:   # the prompt by its content: an edited file is another build
        prompt = hashlib.sha256(Path(options.llm.prompt).read_bytes()).hexdigest() if options.llm.prompt else None
        llm = (options.llm.source, options.llm.model, prompt, options.llm.skip_unanswered)
    h.update(repr((options.extractor, options.spacy_model, options.rebel_model, llm, options.passage_tokens,
                   options.passage_sentences, options.corpus, relations_version(), lexicon_versions())).encode())
    return h.hexdigest()


def mentions(passages: list[Passage], names: dict[str, str]) -> dict[str, set[str]]:
    """Which of the graph's entities each passage mentions (normalized names, whole words).

    ``names``: normalized name -> entity key.
    """
    index = NameIndex(names)
    return {p.key: {names[n] for n in index.find(p.text)} for p in passages}


def text_graph_record(corpus: TextCorpus, sha256: str, path: str) -> GraphRecord:
    """The graph record of ``corpus``: entities, one fact per (split, head, relation, tail),
    and the passages with the entities they mention. Facts carry no questions yet."""
    known = relations()
    graph = corpus.graph
    surface: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    kinds: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    grouped: dict[tuple, list[Triple]] = collections.defaultdict(list)
    passage_split = {p.key: p.split for p in corpus.passages}
    for t in corpus.triples:
        head, relation, tail = canonical(t.head, t.relation, t.tail)
        swapped = head is not t.head
        head_kind, tail_kind = (t.tail_kind, t.head_kind) if swapped else (t.head_kind, t.tail_kind)
        h, tl = normalize_name(head), normalize_name(tail)
        if not h or not tl or h == tl:
            continue
        surface[h][display_name(head)] += 1
        surface[tl][display_name(tail)] += 1
        if head_kind:
            kinds[h][head_kind] += 1
        if tail_kind:
            kinds[tl][tail_kind] += 1
        grouped[(passage_split[t.passage], h, relation, tl)].append(t)

    def best_name(norm: str) -> str:
        return sorted(surface[norm].items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]

    keys = {norm: entity_key(graph, norm) for norm in surface}
    entities = tuple(EntityRecord(keys[n], graph, best_name(n),
                                  kinds[n].most_common(1)[0][0] if kinds[n] else "thing", n)
                     for n in sorted(surface))
    facts = []
    for (split, h, relation, tl), found in sorted(grouped.items()):
        rel = known.get(relation)
        label = rel.label if rel else relation
        passages = sorted({t.passage for t in found})
        facts.append(FactRecord(
            key=fact_key(graph, f"{split}/{relation}/{h}/{tl}"), graph=graph,
            label=f"{best_name(h)} | {label} | {best_name(tl)}", head=keys[h], tail=keys[tl],
            relation=relation, domain=label, split=split,
            attributes={"head_name": best_name(h), "tail_name": best_name(tl), "passages": passages,
                        "evidence": found[0].evidence[:1000], "evidence_span": [found[0].start, found[0].end],
                        "extractor": found[0].extractor, "extractor_version": corpus.extractor_version,
                        "mentions": len(found)}))
    mentioned = mentions(corpus.passages, {n: keys[n] for n in surface})
    passage_records = tuple(PassageRecord(p.key, graph, p.split, p.path, p.document, p.position, p.text,
                                          tuple(sorted(mentioned[p.key])))
                            for p in corpus.passages)
    return GraphRecord(graph, "text", path, sha256, entities, tuple(facts),
                       {"extractor": corpus.extractor_version, "documents": len(corpus.documents),
                        "passages": len(corpus.passages)},
                       passages=passage_records)
