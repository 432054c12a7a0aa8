"""`audit report`: a run as a Markdown page with its settings, tables and PNG figures."""

from __future__ import annotations

from pathlib import Path

import click

from cli.common import connection_options, threshold_options
from graphstore import GraphStore


@click.command()
@click.option("--run", "run_id", required=True, metavar="ID", help="The run to report on (`audit runs` lists them).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Folder for report.md and its PNG figures (default: report-<run>/).")
@threshold_options
@connection_options
def report(run_id, output, thresholds, settings):
    """Write a short report of one run: report.md with the run's settings, its summary, status
    counts, the forget edges, the most damaged retained edges, the borderline edges (within
    --margin of a threshold), and PNG figures linked from it: forget ROUGE-1 and deviation score
    against edge degree (the PISTOL view), by component density tier, by domain, ROUGE-1
    before/after per edge, and for per-edge sweeps the distributions over the swept edges. What
    each figure shows: docs/report.md.

    \b
    Examples:
      audit report --run demo-npo
      audit report --run demo-npo --output out/report-npo
      audit report --run demo-npo --leaked 0.9 --forgotten 0.1 --damaged 0.3
      audit report --run demo-npo --margin 0.1
    """
    from audit.views.report import default_output, write_report_files   # matplotlib: only when reporting

    with GraphStore.open(settings) as store:
        files = write_report_files(store, run_id, output if output is not None else default_output(run_id), thresholds)
    for path in files:
        click.echo(f"wrote {path}")
