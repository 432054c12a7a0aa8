"""`audit compare`: two runs of one graph, edge by edge."""

from __future__ import annotations

from pathlib import Path

import click

from cli.common import connection_options, emit_rows, format_option, threshold_options
from graphstore import GraphStore


@click.command()
@click.argument("run_a")
@click.argument("run_b")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write DIR/compare.csv (every row) and DIR/compare.png (A against B per edge).")
@threshold_options
@format_option
@connection_options
def compare(run_a, run_b, output, thresholds, fmt, settings):
    """Compare two runs of the same graph edge by edge: each edge's status and score in run A
    and run B (forget edges: ROUGE-1 after unlearning; retained edges: ROUGE-1 drop) and the
    difference B - A, then the forget edges leaked after A but not after B and after B but not
    after A. Edges with a result in only one run are counted. Runs on different graphs are
    refused.

    \b
    Examples:
      audit compare demo-ga demo-npo
      audit compare demo-ga demo-npo --format csv > ga-vs-npo.csv
      audit compare demo-ga demo-npo --output out/ga-vs-npo --leaked 0.9
    """
    from audit.views.compare import compare_runs, write_compare_figure   # matplotlib: only when comparing

    with GraphStore.open(settings) as store:
        comparison = compare_runs(store, run_a, run_b, thresholds)
    columns, rows = comparison.table()
    emit_rows(columns, rows, fmt)
    # Beside a table the summary goes to stdout; beside CSV or JSON to stderr, so the data stays clean.
    err = fmt != "table"
    for label, edges in ((f"leaked after A ({run_a}) but not B ({run_b})", comparison.leaks_only_a),
                         (f"leaked after B ({run_b}) but not A ({run_a})", comparison.leaks_only_b)):
        click.echo(f"{label}: {len(edges)}" + (f": {', '.join(edges)}" if edges else ""), err=err)
    for run, edges in ((run_a, comparison.only_in_a), (run_b, comparison.only_in_b)):
        if edges:
            click.echo(f"note: {len(edges)} edge(s) have a result in {run} only, left out", err=err)
    for note in comparison.notes:
        click.echo(f"note: {note}", err=err)
    if output is not None:
        output.mkdir(parents=True, exist_ok=True)
        with open(output / "compare.csv", "w", encoding="utf-8", newline="") as f:
            emit_rows(columns, rows, "csv", out=f)
        figure = write_compare_figure(comparison, output / "compare.png")
        for path in (output / "compare.csv", figure):
            click.echo(f"wrote {path}", err=err)
