"""`audit build --wikidata FILE`: Wikidata subjects, their properties and values, into one graph."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

import click

from audit.properties import PropertyRegistry, add_property_questions, load_registry
from extract.wikidata import PropertyInfo, WikidataOptions, read_wikidata
from graphstore import GraphStore
from graphstore.ingest import write_graph

FILE = click.Path(dir_okay=False, path_type=Path)


def wikidata_options(command: Callable) -> Callable:
    options = [
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
    ]
    for option in reversed(options):
        command = option(command)
    return command


def wikidata_graph(path: Path, graph_name: str | None, registry: PropertyRegistry, **options):
    """The file's graph record with the registry's questions on every fact, and the read's report.
    ``options`` are ``extract.wikidata.WikidataOptions`` fields; the registry supplies the labels
    of properties the file does not describe."""
    labels = {pid: PropertyInfo(t.label, t.description, t.aliases) for pid, t in registry.properties.items()}
    record, report = read_wikidata(path, graph_name, WikidataOptions(registry=labels, **options))
    return add_property_questions(record, registry), report


def build_wikidata(path: Path, graph_name: str | None, replace: bool, settings, *, labels_files, instance_of,
                   language, skip_bad_records, properties_file) -> None:
    registry = load_registry(properties_file)
    classes = () if instance_of == ("any",) else (tuple(instance_of) or ("Q5",))
    # The file is read and checked whole before the database is touched.
    record, report = wikidata_graph(path, graph_name, registry, instance_of=classes, language=language,
                                    labels=tuple(labels_files), skip_bad_records=skip_bad_records)
    with GraphStore.open(settings) as store:
        summary = write_graph(store, record, replace=replace)
    for line in report.lines():   # after the write: a refused build says one thing, its error
        click.echo(f"{path}: {line}", err=True)
    click.echo(f"{summary.graph}: {summary.status} - {report.subjects} subjects, {len(record.property_records)} "
               f"properties, {summary.entities} entities, {summary.facts} facts, {summary.qas} questions "
               f"({report.form}, {report.records} entities read, {report.not_selected} not selected; {store.location})")
