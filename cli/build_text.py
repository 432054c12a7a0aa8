"""`audit build --forget/--retain`: text corpora into one graph (options and the build)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click

from audit.questions import add_generated, add_questions
from extract.corpus import FORMATS, CorpusOptions
from extract.text_graph import (EXTRACTORS, TextBuildOptions, corpus_sha256, extract_corpora, read_corpora,
                                text_graph_record)
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.ingest import write_graph
from graphstore.progress import Progress


def text_options(command: Callable) -> Callable:
    options = [
        click.option("--extractor", type=click.Choice(EXTRACTORS), default="rules", show_default=True,
                     help="rules: offline spaCy rules; rebel: the REBEL model (--rebel-model)."),
        click.option("--rebel-model", metavar="PATH", default=None,
                     help="REBEL model folder or hub id, for --extractor rebel."),
        click.option("--spacy-model", metavar="NAME", default=None,
                     help="An installed trained spaCy pipeline (e.g. en_core_web_sm) for sentences and "
                          "entities; default: the blank English pipeline with rule components."),
        click.option("--format", "corpus_format", type=click.Choice(FORMATS), default=None,
                     help="Corpus format (default: from the extension: .jsonl, .json, else text)."),
        click.option("--one-per-line", is_flag=True,
                     help="Plain text: one document per line (default: documents separated by a blank line)."),
        click.option("--text-field", default="text", show_default=True, metavar="FIELD",
                     help="JSON Lines / JSON objects: the field that holds the text."),
        click.option("--passage-tokens", type=int, default=128, show_default=True,
                     help="A passage holds whole sentences up to this many tokens."),
        click.option("--questions-llm", metavar="URL|PATH", default=None,
                     help="Also generate questions with a language model: an OpenAI-compatible base URL "
                          "(http://host/v1) or a local causal LM folder."),
        click.option("--llm-model", metavar="NAME", default="default",
                     help="Model name sent to the OpenAI-compatible endpoint."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def build_text(forget_files, retain_files, graph_name, replace, settings, *, extractor, rebel_model,
               spacy_model, corpus_format, one_per_line, text_field, passage_tokens, questions_llm,
               llm_model) -> None:
    options = TextBuildOptions(extractor=extractor, spacy_model=spacy_model, rebel_model=rebel_model,
                               passage_tokens=passage_tokens,
                               corpus=CorpusOptions(corpus_format, one_per_line, text_field))
    graph = graph_name or Path(forget_files[0]).stem
    forget, retain = list(forget_files), list(retain_files)
    # Everything is read, extracted and checked before the database is touched.
    corpora = read_corpora(forget, retain, options)
    total = len(corpora.documents)
    with Progress(f"{graph}: extracting" if total >= 50 else None, total=total, unit="documents") as bar:
        corpus = extract_corpora(graph, corpora, options, progress=bar.update)
    for report in corpus.reports:
        if report.empty_skipped:
            click.echo(f"{report.path}: skipped {report.empty_skipped} empty document(s)", err=True)
    path = " ".join(str(Path(p).resolve()) for p in forget + retain)
    record = add_questions(text_graph_record(corpus, corpus_sha256(corpora.reports, options), path))
    if not record.facts:
        raise click.ClickException(f"{', '.join(map(str, forget + retain))}: no facts found in "
                                   f"{len(corpus.documents)} document(s); nothing was built")
    if questions_llm:
        record = _llm_questions(record, questions_llm, llm_model)
    with GraphStore.open(settings) as store:
        summary = write_graph(store, record, replace=replace)
        redundancy = store.read(Q.REDUNDANCY_SUMMARY, graph=graph)[0]
    click.echo(f"{summary.graph}: {summary.status} - {len(corpus.documents)} documents, {len(corpus.passages)} "
               f"passages, {summary.entities} entities, {summary.facts} facts, {summary.qas} questions "
               f"({store.location})")
    click.echo(f"forget facts: {redundancy['forget']}, redundant with retain: {redundancy['redundant']}, "
               f"audit set: {redundancy['forget'] - redundancy['redundant']} "
               f"(weaker: linked in retain {redundancy['linked_in_retain']}, both entities in retain text "
               f"{redundancy['entities_in_retain_text']})")


def _llm_questions(record, source: str, model: str):
    from audit.question_llm import FactForQuestions, OpenAICompatibleBackend, TransformersBackend, generate_questions
    backend = (OpenAICompatibleBackend(source, model) if source.startswith(("http://", "https://"))
               else TransformersBackend(source))
    passages = {p.key: p.text for p in record.passages}
    facts = [FactForQuestions(f.key, f.attributes["head_name"], f.domain, f.attributes["tail_name"],
                              passages.get(f.attributes["passages"][0], ""), f.attributes["passages"][0])
             for f in record.facts if f.split == "forget"]
    batch = generate_questions(facts, backend)
    click.echo(batch.summary(), err=True)
    return add_generated(record, batch.questions)
