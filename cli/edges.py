"""`audit edges`: one row per edge, with its structure, or with a run's per-edge results."""

from __future__ import annotations

import json
from pathlib import Path

import click

from audit.results import repository as R
from audit.results.resurfaced import EDGE_COLUMNS
from audit.results.schema import EdgeResult
from audit.measure.leakage import LeakageThresholds, borderline, classify
from cli.common import connection_options, emit_rows, format_option
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError

COLUMNS = ["key", "source", "domain", "head", "tail", "edge_degree", "component",
           "component_density", "split", "qas"]

# A run's table: the scalar properties of the result schema, in its order (identity and structure,
# each measure before/after, the sweep's columns), less the bookkeeping ones.
HIDDEN = EdgeResult.check(["key", "run", "graph", "head_key", "tail_key", "utility_rouge1_after", "unlearn_seconds",
                           "unlearn_tokens", "retained_in_unlearnings"])
RUN_COLUMNS = [n for n in EdgeResult.scalar_names() if n not in HIDDEN]
RUN_TABLE = EdgeResult.check(["edge", "role", "edge_degree", "component_density", "rouge1_before", "rouge1_after",
                              "answer_probability_before", "answer_probability_after", "memorized_before",
                              "memorized_after", "deviation_score"])
# With resurfacing checks (docs/robustness.md) the table shows their columns instead of the extra measures.
CHECK_TABLE = EdgeResult.check(["edge", "role", "rouge1_before", "rouge1_after", *EDGE_COLUMNS])
# With a masked injection (docs/localization.md): each edge's group, and a swept edge's precision.
LOCALIZATION_TABLE = EdgeResult.check(["mask_group", "localization_auc_magnitude", "localization_auc"])
EXPORTS = (".csv", ".parquet")


@click.command()
@click.option("--graph", "graph_name", default=None, metavar="NAME", help="Only the edges of this graph.")
@click.option("--run", "run_id", default=None, metavar="ID", help="Show this run's per-edge results as columns.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the rows to FILE.csv or FILE.parquet (pandas) instead of printing; with --run, "
                   "every result property is exported, the generated answers included.")
@format_option
@connection_options
def edges(graph_name, run_id, output, fmt, settings):
    """List every edge: key, source, domain, its two endpoints, edge degree, component,
    component density, split and number of QA pairs. With --run, one row per edge of that run:
    role (forget/retain), structure, every measure before and after unlearning, and for
    per-edge sweeps the retained ROUGE-1 and deviation score of each edge's unlearning. For a run
    with resurfacing checks (audit run --check), the table shows the checks' columns; with a masked
    injection (--mask-groups), each edge's group and, for a sweep, its localization precision.

    \b
    Examples:
      audit edges
      audit edges --graph sample_data_2 --format csv > edges.csv
      audit edges --run demo-npo
      audit edges --run demo-npo --output results.parquet
    """
    if output is not None and output.suffix.lower() not in EXPORTS:
        raise ConfigError(f"--output {output}: the file name must end in .csv or .parquet")
    with GraphStore.open(settings) as store:
        if run_id:
            run = R.require_run(store, run_id)
            if graph_name is not None and run.get("graph") != graph_name:
                raise ConfigError(f"run {run_id!r} audited graph {run.get('graph')!r}, not {graph_name!r}: "
                                  "give --run alone, or --graph alone")
            records = R.read_results(store, run_id)
            columns = [c for c in RUN_COLUMNS if any(c in r for r in records)] or list(RUN_TABLE)
            checked = any(c in r for r in records for c in EDGE_COLUMNS)
            table = (CHECK_TABLE if checked else RUN_TABLE) if fmt == "table" and output is None else columns
            table = [c for c in table if c in columns] + [c for c in LOCALIZATION_TABLE if c in columns]
            rows = [[r.get(c) for c in table] for r in records]
            if fmt == "table" and output is None:   # the status each view shows, and a flag at a threshold
                table, t = [*table, "status", "borderline"], LeakageThresholds()
                rows = [[*row, *_status(r, t)] for row, r in zip(rows, records)]
        else:
            if graph_name is not None:
                store.graph(graph_name)   # an unknown graph is an error, not an empty table
            records = store.read(Q.EDGES_TABLE, graph=graph_name)
            table, rows = COLUMNS, [[r[c] for c in COLUMNS] for r in records]
    if output is not None:
        _export([{**r.extra, **r.props()} for r in records] if run_id else [dict(zip(table, r)) for r in rows], output)
        click.echo(f"wrote {len(rows)} rows to {output}")
        return
    emit_rows(table, rows, fmt)
    if run_id and fmt == "table":
        t = LeakageThresholds()
        click.echo("better: on forget edges lower *_after (forgotten), on retained edges higher *_after (kept); "
                   "deviation_score lower (docs/metrics.md)")
        click.echo(f"status at the default thresholds (forgotten <= {t.forgotten:g} < partly < {t.leaked:g} <= leaked; "
                   f"damaged: drop >= {t.damaged:g}); borderline: within {t.margin:g} of the threshold named")


def _status(record: dict, t: LeakageThresholds) -> tuple[str | None, str | None]:
    score, status = classify(record, t)
    return status, borderline(record.get("role", "retain"), score, t)


def _export(records: list[dict], path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame.from_records(records)
    if "edge" in frame.columns:
        first = [c for c in ("edge", "role") if c in frame.columns]
        frame = frame[first + sorted(c for c in frame.columns if c not in first)]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        for column in frame.columns:
            if frame[column].map(lambda v: isinstance(v, list)).any():
                frame[column] = frame[column].map(lambda v: json.dumps(v) if isinstance(v, list) else v)
        frame.to_csv(path, index=False)
