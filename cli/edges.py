"""`audit edges`: one row per edge, with its structure."""

from __future__ import annotations

import click

from graphstore import GraphStore
from cli.common import connection_options, emit_rows, format_option
from graphstore import queries as Q

COLUMNS = ["key", "source", "domain", "head", "tail", "edge_degree", "component",
           "component_density", "split", "qas"]


@click.command()
@click.option("--graph", "graph_name", default=None, metavar="NAME", help="Only the edges of this graph.")
@format_option
@connection_options
def edges(graph_name, fmt, settings):
    """List every edge: key, source, domain, its two endpoints, edge degree, component,
    component density, split and number of QA pairs.

    \b
    Examples:
      audit edges
      audit edges --graph sample_data_2 --format csv > edges.csv
    """
    with GraphStore.open(settings) as store:
        rows = store.read(Q.EDGES_TABLE, graph=graph_name)
    emit_rows(COLUMNS, [[r[c] for c in COLUMNS] for r in rows], fmt)
