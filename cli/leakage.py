"""`audit leakage`: a run's leakage as relationship types Neo4j Browser colours, and its counts."""

from __future__ import annotations

import click

from audit.results.leakage import write_browser_leakage
from cli.common import connection_options, emit_rows, threshold_options
from graphstore import GraphStore


@click.command()
@click.option("--run", "run_id", required=True, metavar="ID", help="The run (audit runs lists them).")
@threshold_options
@connection_options
def leakage(run_id, thresholds, settings):
    """Write (again) a run's leakage for Neo4j Browser and print how many edges have each status.

    Every forget edge gets, beside its FACT, a relationship typed by its status: LEAKED
    (ROUGE-1 after >= --leaked), PARTLY_FORGOTTEN, or FORGOTTEN (<= --forgotten); every
    retained edge whose ROUGE-1 dropped by --damaged or more gets DAMAGED. Each carries the
    run, the score as caption, and ROUGE-1 before/after. audit run writes them with the
    default thresholds when it finishes; this command rewrites them with yours. The
    stylesheet and guide in docker/neo4j/ colour them (docs/leakage.md).

    \b
    Examples:
      audit leakage --run demo-npo
      audit leakage --run demo-npo --leaked 0.9 --damaged 0.1
    """
    with GraphStore.open(settings) as store:
        counts = write_browser_leakage(store, run_id, thresholds).counts()
    emit_rows(["status", "edges"], [[s, n] for s, n in counts.items()], "table")
    click.echo(f"in Neo4j Browser: MATCH p = ()-[:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED {{run: '{run_id}'}}]->() "
               "RETURN p")
