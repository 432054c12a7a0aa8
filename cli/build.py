"""`audit build`: load sources into the graph and recompute its structure."""

from __future__ import annotations

from pathlib import Path

import click

from graphstore import GraphStore
from graphstore.progress import Progress
from cli.common import connection_options
from cli.build_text import build_text, text_options
from cli.build_wikidata import build_wikidata, wikidata_options
from extract.pistol_load import load_pistol
from graphstore.ingest import write_graph

PROGRESS_MIN_FACTS = 5000  # smaller builds finish before a bar would be worth drawing
FILE = click.Path(dir_okay=False, path_type=Path)


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
@text_options
@wikidata_options
@connection_options
def build(pistol_files, forget_files, retain_files, wikidata_file, graph_name, split, replace, settings,
          labels_files, instance_of, language, skip_bad_records, properties_file, **text):
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
      audit build --forget person.txt --retain news.jsonl --graph person
      audit build --wikidata people.json.gz --labels value_labels.tsv --graph people
    """
    if graph_name is not None and not graph_name.strip():
        raise click.BadParameter("--graph must name a graph (it was empty); leave it out to use the file name")
    if sum(map(bool, (pistol_files, forget_files or retain_files, wikidata_file))) > 1:
        raise click.UsageError("build PISTOL files, text corpora and Wikidata files in separate commands")
    if wikidata_file:
        build_wikidata(wikidata_file, graph_name, replace, settings, labels_files=labels_files,
                       instance_of=instance_of, language=language, skip_bad_records=skip_bad_records,
                       properties_file=properties_file)
        return
    if forget_files or retain_files:
        if not forget_files:
            raise click.UsageError("--retain needs at least one --forget FILE: the forget corpus is what is audited")
        build_text(forget_files, retain_files, graph_name, replace, settings, **text)
        return
    if not pistol_files:
        raise click.UsageError("nothing to build: give --pistol FILE, --forget FILE [--retain FILE], "
                               "or --wikidata FILE")
    if graph_name and len(pistol_files) > 1:
        raise click.UsageError("--graph names one graph; give one --pistol FILE with it")
    # Validate every file before touching the database: a bad second file must not leave
    # the first one loaded.
    records = [load_pistol(path, graph=graph_name, split=split) for path in pistol_files]
    names = [r.name for r in records]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise click.UsageError(f"two files would both become graph {duplicate!r}; load them separately with --graph")
    with GraphStore.open(settings) as store:
        for record in records:
            shown = len(record.facts) >= PROGRESS_MIN_FACTS
            with Progress(f"{record.name}: writing facts" if shown else None, total=len(record.facts),
                          unit="facts") as bar:
                summary = write_graph(store, record, replace=replace, progress=bar.update)
            click.echo(
                f"{summary.graph}: {summary.status} - {summary.entities} entities, {summary.facts} edges, "
                f"{summary.qas} QA pairs, {summary.components} components ({store.location})"
            )
