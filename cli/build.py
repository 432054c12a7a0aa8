"""`audit build`: load sources into the graph and recompute its structure (``audit.build``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from audit.build import PistolSource, TextSource, WikidataSource, pistol_variant, prepare, text_options, write
from cli.common import connection_options
from extract.text.corpus import FORMATS
from extract.text.catalog import extractor_names
from graphstore import GraphStore

FILE = click.Path(dir_okay=False, path_type=Path)


def _options(options: list) -> Callable[[Callable], Callable]:
    def apply(command: Callable) -> Callable:
        for option in reversed(options):
            command = option(command)
        return command
    return apply


# Which extractor, and what each one needs: shared by `audit build` and `audit extract-score`.
EXTRACTOR_OPTIONS = _options([
    click.option("--extractor", type=click.Choice(extractor_names()), default="rules", show_default=True,
                 help="rules: offline spaCy rules; rebel: the REBEL model (--rebel-model); llm: an "
                      "instruction-tuned model asked for JSON (--extractor-llm)."),
    click.option("--rebel-model", metavar="PATH", default=None,
                 help="REBEL model folder or hub id, for --extractor rebel."),
    click.option("--rebel-device", metavar="DEVICE", default=None,
                 help="REBEL: cpu, cuda, cuda:1 (default: CUDA when present, else CPU)."),
    click.option("--rebel-batch-size", type=click.IntRange(min=1), default=8, show_default=True,
                 help="REBEL: passage chunks generated together; raise it on a GPU (e.g. 64)."),
    click.option("--extractor-llm", metavar="URL|PATH", default=None,
                 help="--extractor llm: an OpenAI-compatible base URL (vLLM, llama.cpp's server, Ollama: "
                      "http://host/v1) or a local instruction-tuned causal LM folder."),
    click.option("--extractor-model", metavar="NAME", default="default", show_default=True,
                 help="--extractor llm: the model name sent to the server (recorded on the graph)."),
    click.option("--extractor-prompt", type=FILE, default=None, metavar="FILE",
                 help="--extractor llm: your prompt file, of the form of extract/data/prompts/triples.v1.json."),
    click.option("--extractor-batch", type=click.IntRange(min=1), default=4, show_default=True,
                 help="--extractor llm: passages asked about in one request."),
    click.option("--extractor-workers", type=click.IntRange(min=1), default=4, show_default=True,
                 help="--extractor llm: requests in flight at once."),
    click.option("--extractor-retries", type=click.IntRange(min=0), default=2, show_default=True,
                 help="--extractor llm: a failed call, an unreadable reply or a skipped passage is asked again "
                      "this many times."),
    click.option("--extractor-skip-unanswered", is_flag=True,
                 help="--extractor llm: a passage still unanswered after the retries gives no facts (counted "
                      "in the build's notes) instead of stopping the build."),
    click.option("--extractor-cache", type=click.Path(file_okay=False, path_type=Path), default=None,
                 metavar="DIR", help="--extractor llm: keep each passage's answer here; a rerun asks only "
                                     "for passages not yet answered."),
    click.option("--spacy-model", metavar="NAME", default=None,
                 help="An installed trained spaCy pipeline (e.g. en_core_web_sm) for sentences and "
                      "entities; default: the blank English pipeline with rule components."),
    click.option("--passage-tokens", type=int, default=128, show_default=True,
                 help="A passage holds whole sentences up to this many tokens."),
])

TEXT_OPTIONS = _options([
    EXTRACTOR_OPTIONS,
    click.option("--format", "corpus_format", type=click.Choice(FORMATS), default=None,
                 help="Corpus format (default: from the extension: .jsonl, .json, else text)."),
    click.option("--one-per-line", is_flag=True,
                 help="Plain text: one document per line (default: documents separated by a blank line)."),
    click.option("--text-field", default="text", show_default=True, metavar="FIELD",
                 help="JSON Lines / JSON objects: the field that holds the text."),
    click.option("--questions-llm", metavar="URL|PATH", default=None,
                 help="Also generate questions with a language model: an OpenAI-compatible base URL "
                      "(http://host/v1) or a local causal LM folder."),
    click.option("--llm-model", metavar="NAME", default="default",
                 help="Model name sent to the OpenAI-compatible endpoint."),
])

WIKIDATA_OPTIONS = _options([
    click.option("--labels", "labels_files", multiple=True, type=FILE, metavar="FILE",
                 help="--wikidata: more labels for item values and units: Wikidata entity JSON (any form) "
                      "or 'Q36180<TAB>writer' lines; repeatable."),
    click.option("--instance-of", "instance_of", multiple=True, metavar="QID",
                 help="--wikidata: build items that are instances of this class (default Q5, humans); "
                      "repeatable; 'any' for every item."),
    click.option("--language", default="en", show_default=True,
                 help="--wikidata: language of labels, descriptions and aliases ('mul' labels as fallback)."),
    click.option("--skip-bad-records", is_flag=True,
                 help="--wikidata: skip malformed records and report their lines, instead of refusing the file."),
    click.option("--properties", "properties_file", type=FILE, default=None, metavar="FILE",
                 help="--wikidata: your own property registry (sentence and question templates), laid over "
                      "the shipped one (docs/wikidata.md)."),
])


@click.command()
@click.option("--pistol", "pistol_files", multiple=True, type=FILE,
              metavar="FILE", help="A PISTOL QA dataset ([{question, answer, edge}, ...]); repeatable.")
@click.option("--forget", "forget_files", multiple=True, type=FILE, metavar="FILE",
              help="A text corpus whose facts must be forgotten (.txt, .jsonl, .json); repeatable.")
@click.option("--retain", "retain_files", multiple=True, type=FILE, metavar="FILE",
              help="A text corpus whose facts must be kept; repeatable. With --forget.")
@click.option("--wikidata", "wikidata_file", type=FILE, default=None, metavar="FILE",
              help="Wikidata entity JSON: a dump (.json, .json.gz, .json.bz2), JSON Lines of entities, "
                   "or wbgetentities output. Humans (P31 = Q5) become subjects.")
@click.option("--graph", "graph_name", default=None, metavar="NAME",
              help="Graph name (default: the file name without extension). One PISTOL file, "
                   "the one graph that text corpora become, or the Wikidata file's graph.")
@click.option("--split", type=click.Choice(["retain", "forget"]), default="retain", show_default=True,
              help="PISTOL: the forget/retain split recorded on every edge of these files.")
@click.option("--replace", is_flag=True,
              help="Replace a graph of the same name that holds different content.")
@click.option("--keep-entities", default=None, metavar="LABELS",
              help="PISTOL: keep only the contracts between these entity labels (comma-separated, "
                   "e.g. 20,21,22,23,24).")
@click.option("--rename", "renames", multiple=True, metavar="LABEL=NAME",
              help="PISTOL: every question and answer calls this entity NAME (PISTOL's Sec. 6: a famous "
                   "name in a synthetic graph); repeatable.")
@click.option("--rename-address", "addresses", multiple=True, metavar="LABEL=ADDRESS",
              help="PISTOL: with --rename, the entity's new address; repeatable.")
@TEXT_OPTIONS
@WIKIDATA_OPTIONS
@connection_options
def build(pistol_files, forget_files, retain_files, wikidata_file, graph_name, split, replace, keep_entities,
          renames, addresses, settings, labels_files, instance_of, language, skip_bad_records, properties_file,
          questions_llm, llm_model, **text):
    """Load datasets into the graph, then recompute degrees, components and densities.

    PISTOL files: every file becomes one graph. Text corpora (--forget/--retain): all of
    them become one graph of passages, entities and facts, with facts the retain corpus
    also states marked redundant, and template questions on every fact (docs/text.md).
    Every graph is written in one transaction with its structure: a bad file is refused
    with the file and record named, and the graph stays as it was. Loading the same
    content again changes nothing.

    \b
    Examples:
      audit build --pistol ../shared/data/pistol/sample_data_1.json
      audit build --pistol a.json --pistol b.json
      audit build --pistol new.json --graph contracts --replace
      audit build --pistol sample_data_2.json --graph famous --keep-entities 20,21,22,23,24 \\
          --rename "20=Goldman Sachs" --rename-address "20=200 West Street"
      audit build --forget person.txt --retain news.jsonl --graph person
      audit build --forget person.txt --extractor llm --extractor-llm http://localhost:8000/v1 \\
          --extractor-model Qwen/Qwen2.5-7B-Instruct --extractor-cache .llm-cache
      audit build --wikidata people.json.gz --labels value_labels.tsv --graph people
    """
    if graph_name is not None and not graph_name.strip():
        raise click.BadParameter("--graph must name a graph (it was empty); leave it out to use the file name")
    if sum(map(bool, (pistol_files, forget_files or retain_files, wikidata_file))) > 1:
        raise click.UsageError("build PISTOL files, text corpora and Wikidata files in separate commands")
    if (keep_entities or renames or addresses) and not pistol_files:
        raise click.UsageError("--keep-entities, --rename and --rename-address change a PISTOL file; give --pistol FILE")
    if wikidata_file:
        source = WikidataSource(wikidata_file, tuple(labels_files),
                                () if instance_of == ("any",) else (tuple(instance_of) or ("Q5",)),
                                language, skip_bad_records, properties_file)
    elif forget_files or retain_files:
        if not forget_files:
            raise click.UsageError("--retain needs at least one --forget FILE: the forget corpus is what is audited")
        source = TextSource(tuple(forget_files), tuple(retain_files), text_options(**text), questions_llm, llm_model)
    elif not pistol_files:
        raise click.UsageError("nothing to build: give --pistol FILE, --forget FILE [--retain FILE], "
                               "or --wikidata FILE")
    else:
        if graph_name and len(pistol_files) > 1:
            raise click.UsageError("--graph names one graph; give one --pistol FILE with it")
        source = PistolSource(tuple(pistol_files), split, _variant(keep_entities, renames, addresses))
    # Everything is read, extracted and checked before the database is opened.
    prepared = prepare(source, graph_name, notes=lambda line: click.echo(line, err=True))
    with GraphStore.open(settings) as store:
        built = write(store, prepared, replace)
        location = store.location
    for graph in built:
        s = graph.summary
        for line in graph.notes:   # after the write: a refused build says one thing, its error
            click.echo(line, err=True)
        if isinstance(source, WikidataSource):
            r = graph.wikidata
            click.echo(f"{s.graph}: {s.status} - {r.subjects} subjects, {len(graph.record.property_records)} "
                       f"properties, {s.entities} entities, {s.facts} facts, {s.qas} questions "
                       f"({r.form}, {r.records} entities read, {r.not_selected} not selected; {location})")
        elif isinstance(source, TextSource):
            d = graph.redundancy
            click.echo(f"{s.graph}: {s.status} - {graph.documents} documents, {graph.passages} passages, "
                       f"{s.entities} entities, {s.facts} facts, {s.qas} questions ({location})")
            click.echo(f"forget facts: {d['forget']}, redundant with retain: {d['redundant']}, "
                       f"audit set: {d['forget'] - d['redundant']} (weaker: linked in retain {d['linked_in_retain']}, "
                       f"both entities in retain text {d['entities_in_retain_text']})")
        else:
            click.echo(f"{s.graph}: {s.status} - {s.entities} entities, {s.facts} edges, {s.qas} QA pairs, "
                       f"{s.components} components ({location})")


def _variant(keep_entities: str | None, renames: tuple[str, ...], addresses: tuple[str, ...]):
    """The PISTOL variant of --keep-entities, --rename and --rename-address (None: the file as it is)."""
    def pairs(values, option):
        out = {}
        for value in values:
            label, sep, new = value.partition("=")
            if not sep or not label.strip() or not new.strip():
                raise click.BadParameter(f"expected LABEL=VALUE, got {value!r}", param_hint=option)
            out[label.strip()] = new.strip()
        return out
    entities = [e.strip() for e in keep_entities.split(",") if e.strip()] if keep_entities else []
    try:
        return pistol_variant(entities, pairs(renames, "--rename"), pairs(addresses, "--rename-address"))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--rename-address") from e
