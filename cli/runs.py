"""`audit runs`: list runs, show one, or delete one with its results."""

from __future__ import annotations

import json

import click

from audit.results import repository as R
from audit.run.lock import held
from cli.common import connection_options, emit_rows, format_option
from extract.jsonfile import json_safe
from graphstore import GraphStore
from audit.results import queries as RQ

COLUMNS = ["key", "graph", "method", "mode", "model", "selector", "forget_edges", "status", "deviation_score",
           "started_at", "ended_at"]


@click.command()
@click.argument("run_id", required=False)
@click.option("--graph", "graph_name", default=None, metavar="NAME", help="Only the runs of this graph.")
@click.option("--delete", is_flag=True, help="Delete RUN_ID and all its per-edge results.")
@format_option
@connection_options
def runs(run_id, graph_name, delete, fmt, settings):
    """List the runs, or show every property of RUN_ID (settings, versions, summary; with
    --format json one object). A run shown `running (process gone)` was killed or lost its
    machine: run it again with the same --run-id to resume it. A run's folder
    (<cache>/runs/<id>) holds its results.json, config.toml, environment.json and loss.jsonl.

    \b
    Examples:
      audit runs
      audit runs demo-npo
      audit runs demo-npo --format json
      audit runs demo-npo --delete
    """
    with GraphStore.open(settings) as store:
        if delete:
            if not run_id:
                raise click.UsageError("--delete needs a RUN_ID")
            n = R.delete_run(store, run_id)
            click.echo(f"deleted run {run_id} and {n} result(s)")
            return
        if run_id:
            every = R.plain(R.require_run(store, run_id))   # with properties this version does not declare
            if fmt == "json":   # one object, as results.json in the run's folder has it
                click.echo(json.dumps(json_safe(every), ensure_ascii=False, indent=2, default=str, allow_nan=False))
            else:
                # settings whole, as the node holds them (a table cuts lists and objects short)
                emit_rows(["property", "value"], [[k, json.dumps(v, sort_keys=True) if isinstance(v, dict) else v]
                                                  for k, v in every.items()], fmt)
            return
        if graph_name is not None:
            store.graph(graph_name)
        rows = store.read(RQ.RUN_LIST, graph=graph_name)
    for r in rows:   # a run marked running whose process is gone (killed, machine restarted) says so
        if r["status"] == R.RUNNING and held(r["lock"]) is False:
            r["status"] = "running (process gone)"
    emit_rows(COLUMNS, [[r[c] for c in COLUMNS] for r in rows], fmt)
