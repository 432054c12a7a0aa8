"""What every command shares: connection options, opening the store, printing tables."""

from __future__ import annotations

import csv
import functools
import io
import json
import sys
from typing import Callable

import click

from extract.jsonfile import json_safe
from graphstore import ConnectionSettings


def connection_options(command: Callable) -> Callable:
    """Add --store/--uri/--user/--password/--database to a command."""
    options = [
        click.option("--store", "store_dir", metavar="DIR", default=None,
                     help="Embedded store folder (default: $AUDIT_HOME, else ./.audit). Used when no URI is given."),
        click.option("--uri", default=None, metavar="URI",
                     help="Bolt URI of a Neo4j 5 server, e.g. bolt://127.0.0.1:7687 (env AUDIT_NEO4J_URI). "
                          "Without it the embedded engine is used."),
        click.option("--user", default=None, help="User for --uri (env AUDIT_NEO4J_USER, default neo4j)."),
        click.option("--password", default=None, help="Password for --uri (env AUDIT_NEO4J_PASSWORD)."),
        click.option("--database", default=None,
                     help="Database name (env AUDIT_NEO4J_DATABASE; default neo4j, or audit when embedded)."),
    ]
    for option in reversed(options):
        command = option(command)

    @functools.wraps(command)
    def wrapper(*args, store_dir, uri, user, password, database, **kwargs):
        settings = ConnectionSettings.resolve(uri=uri, user=user, password=password,
                                              database=database, store_dir=store_dir)
        return command(*args, settings=settings, **kwargs)

    return wrapper


FORMATS = ("table", "csv", "json")


def format_option(command: Callable) -> Callable:
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Output format.")(command)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, ensure_ascii=False, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return str(value)


def emit_rows(columns: list[str], rows: list[list], fmt: str, out=None) -> None:
    """Print rows as an aligned table, CSV or JSON (a list of objects; NaN and infinities as null)."""
    out = out or sys.stdout
    if fmt == "json":
        out.write(json.dumps([dict(zip(columns, json_safe(list(r)))) for r in rows], ensure_ascii=False, indent=2,
                             default=str, allow_nan=False))
        out.write("\n")
        return
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for r in rows:
            writer.writerow([json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else
                             ("" if v is None else v) for v in r])
        out.write(buffer.getvalue())
        return
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) and rows for i in range(len(columns))]

    def line(values):
        return "  ".join(v.rjust(w) if numeric[i] else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    out.write(line(columns) + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in cells:
        out.write(line(r) + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")


def threshold_options(command: Callable) -> Callable:
    """--leaked / --forgotten / --damaged / --margin: where a run's per-edge scores change status
    (``audit.measure.leakage.LeakageThresholds``), for every leakage view. The command receives
    them as one ``thresholds`` argument."""
    from audit.measure.leakage import LeakageThresholds

    defaults = LeakageThresholds()
    names = ("leaked", "forgotten", "damaged", "margin")

    @functools.wraps(command)
    def with_thresholds(*args, **kwargs):
        return command(*args, thresholds=LeakageThresholds(**{n: kwargs.pop(n) for n in names}), **kwargs)

    options = [
        click.option("--leaked", type=float, default=defaults.leaked, show_default=True,
                     help="A forget edge with ROUGE-1 after at or above this has leaked."),
        click.option("--forgotten", type=float, default=defaults.forgotten, show_default=True,
                     help="A forget edge with ROUGE-1 after at or below this is forgotten (between: partly)."),
        click.option("--damaged", type=float, default=defaults.damaged, show_default=True,
                     help="A retained edge whose ROUGE-1 dropped by this much or more is damaged."),
        click.option("--margin", type=float, default=defaults.margin, show_default=True,
                     help="A score this close to a threshold is flagged borderline (its status could go either way)."),
    ]
    for option in reversed(options):
        with_thresholds = option(with_thresholds)
    return with_thresholds
