"""`audit status`: where the graph is, which engine, what it holds."""

from __future__ import annotations

import click

from graphstore import GraphStore
from cli.common import connection_options, emit_rows
from graphstore import queries as Q


@click.command()
@connection_options
def status(settings):
    """Show where the store is, the engine and its version, and counts per label and type.

    \b
    Examples:
      audit status
      audit status --uri bolt://127.0.0.1:7687 --password secret
    """
    with GraphStore.open(settings) as store:
        labels, types = store.counts()
        graphs = store.read(Q.GRAPH_LIST)
        click.echo(f"store:    {store.location}")
        click.echo(f"engine:   {store.engine} ({store.server_agent})")
        click.echo(f"database: {store.database}")
    click.echo("")
    emit_rows(["label", "nodes"], [[r["label"], r["count"]] for r in labels], "table")
    click.echo("")
    emit_rows(["type", "relationships"], [[r["type"], r["count"]] for r in types], "table")
    if graphs:
        click.echo("")
        cols = ["key", "source", "entities", "facts", "qas", "components", "loaded_at"]
        emit_rows(["graph"] + cols[1:], [[g[c] for c in cols] for g in graphs], "table")
