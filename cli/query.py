"""`audit query`: run any Cypher against the graph."""

from __future__ import annotations

import json

import click

from audit.config import INT64_MAX
from extract.jsonfile import MAX_DEPTH_HINT, strict_loads

from graphstore import GraphStore
from graphstore.errors import QueryError
from cli.common import connection_options, emit_rows, format_option


def utf8_argument(text: str, what: str) -> str:
    """``text`` as given on the command line, refused when it is not UTF-8 (Python keeps the bad
    bytes as lone surrogates, which no driver can send)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise click.BadParameter(f"{what} is not valid UTF-8 text") from None
    return text


def _fits_64_bits(value) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -INT64_MAX - 1 <= value <= INT64_MAX
    if isinstance(value, list):
        return all(_fits_64_bits(v) for v in value)
    if isinstance(value, dict):
        return all(_fits_64_bits(v) for v in value.values())
    return True


def parse_param(text: str) -> tuple[str, object]:
    """``name=value``: the value is read as JSON when it parses (5, 0.5, true, ["a"]), else as text.
    Integers must fit in 64 bits, as the graph's integers do."""
    name, sep, raw = utf8_argument(text, "--param").partition("=")
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"{text!r} is not name=value (e.g. --param k=5 --param name='Jzrcws SA')")
    try:
        value = strict_loads(raw)
    except json.JSONDecodeError as e:
        if e.msg == MAX_DEPTH_HINT or "appears twice" in e.msg:
            raise click.BadParameter(f"--param {name}: {e.msg}") from None
        return name, raw
    if not _fits_64_bits(value):
        raise click.BadParameter(f"--param {name}: an integer past 64 bits (the graph's integers are 64-bit)")
    return name, value


PARAMETER_MISSING = "Neo.ClientError.Statement.ParameterMissing"


def missing_parameters(error: QueryError) -> list[str]:
    """The parameters the engine found no value for (both engines say ``Expected parameter(s):
    a, b``), or [] when ``error`` is another refusal."""
    cause = error.__cause__
    if getattr(cause, "code", None) != PARAMETER_MISSING:
        return []
    _, _, names = (getattr(cause, "message", None) or "").partition("Expected parameter(s):")
    return [n.strip() for n in names.split(",") if n.strip()]


def missing_parameters_message(names: list[str]) -> str:
    """``Error: ...`` for a query whose ``$NAME``s were given no ``--param``."""
    used = " and ".join(", ".join(f"${n}" for n in names).rsplit(", ", 1))
    give = " ".join(f"--param {n}=VALUE" for n in names)
    return (f"the query uses {used} but no value was given for {'it' if len(names) == 1 else 'them'}; nothing was "
            f"run. Add {give} (VALUE is JSON when it parses, else text: --param k=5, --param name='Jzrcws SA')")


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
    if not utf8_argument(cypher, "the query").strip():
        raise click.BadParameter("the query is empty", param_hint="CYPHER")
    values = dict(parse_param(p) for p in params)
    with GraphStore.open(settings) as store:
        try:
            result = store.run_query(cypher, values, allow_write=write)
        except QueryError as e:
            missing = missing_parameters(e)
            if not missing:
                raise
            raise QueryError(missing_parameters_message(missing)) from e
    emit_rows(result.columns, result.rows, fmt)
    if write and result.counters.get("contains_updates"):
        changed = {k: v for k, v in result.counters.items() if k != "contains_updates" and v}
        click.echo("changed: " + ", ".join(f"{k} {v}" for k, v in changed.items()), err=True)
