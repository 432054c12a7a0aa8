"""`audit view`: one self-contained HTML page of a run's graph, edges coloured by leakage."""

from __future__ import annotations

from pathlib import Path

import click

from audit.measure.leakage import STATUSES
from audit.views.graph import DEFAULT_MAX_EDGES, default_output, load_view
from audit.views.page import write_page
from cli.common import connection_options, threshold_options
from graphstore import GraphStore


@click.command()
@click.option("--run", "run_id", required=True, metavar="ID", help="The run to show (`audit runs` lists them).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE.html",
              help="Where to write the page (default: <run>.html in the current folder).")
@click.option("--max-edges", type=click.IntRange(min=0), default=DEFAULT_MAX_EDGES, show_default=True,
              help="Show at most this many edges: every forget edge, then the retained edges touching "
                   "their entities, then the others, most damaged first. 0 shows every edge.")
@threshold_options
@connection_options
def view(run_id, output, max_edges, thresholds, settings):
    """Write one HTML page showing the graph of a run: entities as nodes, each edge in the colour
    of its status (forget edges dashed and thick: leaked vermillion, partly forgotten orange,
    forgotten blue; retained edges thin: damaged reddish purple, kept grey), edges within
    --margin of a threshold marked borderline. The page opens on the forget edges and their
    neighbours, laid out the same way on every load; hover or click an edge for its key, degree,
    density and measures; filter by score, status, role and borderline. The page is a single
    file that opens offline (the cytoscape.js library and the data are inside it). See docs/view.md.

    \b
    Examples:
      audit view --run demo-npo
      audit view --run demo-npo --output pages/demo.html --max-edges 500
      audit view --run big-run --max-edges 0          # every edge, no cut
      audit view --run demo-npo --leaked 0.9 --forgotten 0.1 --damaged 0.3 --margin 0.1
    """
    with GraphStore.open(settings) as store:
        data = load_view(store, run_id, thresholds, max_edges)
    path = write_page(data, output or default_output(run_id))
    counts = ", ".join(f"{s} {data.counts[s]}" for s in STATUSES)
    click.echo(f"wrote {path}: {len(data.nodes)} nodes, {len(data.edges)} edges (of {data.total_edges}), "
               f"statuses {counts}; {data.borderline} borderline (within {data.thresholds.margin:g} of a threshold)")
    if data.note:
        click.echo(data.note)
