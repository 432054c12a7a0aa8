"""`audit query`: run any Cypher against the graph."""

from __future__ import annotations

import json

import click

from extract.jsonfile import MAX_DEPTH_HINT, strict_loads

from graphstore import GraphStore
from cli.common import connection_options, emit_rows, format_option


def parse_param(text: str) -> tuple[str, object]:
    """``name=value``: the value is read as JSON when it parses (5, 0.5, true, ["a"]), else as text."""
    name, sep, raw = text.partition("=")
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"{text!r} is not name=value (e.g. --param k=5 --param name='Jzrcws SA')")
    try:
        return name, strict_loads(raw)
    except json.JSONDecodeError as e:
        if e.msg == MAX_DEPTH_HINT or "appears twice" in e.msg:
            raise click.BadParameter(f"--param {name}: {e.msg}") from None
        return name, raw


@click.command()
@click.argument("cypher")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A query parameter, used as $NAME; VALUE is JSON if it parses, else text. Repeatable.")
@click.option("--write", is_flag=True, help="Allow the query to change the graph (default: read-only).")
@format_option
@connection_options
def query(cypher, params, write, fmt, settings):
    """Run a Cypher query and print its rows. Read-only unless --write: the engine itself
    refuses a write (on the embedded engine the query runs as a read-only user; on Neo4j it
    is refused from its plan and runs in a READ session), and LOAD CSV.

    \b
    Examples:
      audit query "MATCH (h)-[r:FACT]->(t) WHERE r.edge_degree >= \\$k RETURN r.key, r.edge_degree" --param k=10
      audit query "MATCH (e:Entity {name: \\$name})-[r:FACT]-() RETURN r.key" --param name="Jzrcws SA"
      audit query "MATCH (c:Component) RETURN c.key, c.nodes, c.edges, c.density" --format json
    """
    if not cypher.strip():
        raise click.BadParameter("the query is empty", param_hint="CYPHER")
    values = dict(parse_param(p) for p in params)
    with GraphStore.open(settings) as store:
        result = store.run_query(cypher, values, allow_write=write)
    emit_rows(result.columns, result.rows, fmt)
    if write and result.counters.get("contains_updates"):
        changed = {k: v for k, v in result.counters.items() if k != "contains_updates" and v}
        click.echo("changed: " + ", ".join(f"{k} {v}" for k, v in changed.items()), err=True)
