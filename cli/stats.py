"""`audit stats` and `audit coverage`: a text graph's forget, retain and audit sets."""

from __future__ import annotations

from pathlib import Path

import click

from cli.common import connection_options, emit_rows, format_option
from audit.run.qa import load_utility
from extract.text.coverage import coverage as compute_coverage
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError


def _text_graph(store: GraphStore, graph: str) -> None:
    source = store.graph(graph)["source"]
    if source != "text":
        raise ConfigError(f"graph {graph!r} comes from {source}, not text corpora; "
                          "stats and coverage are about forget/retain text graphs")


@click.command()
@click.option("--graph", "graph_name", required=True, metavar="NAME", help="A graph built from text corpora.")
@format_option
@connection_options
def stats(graph_name, fmt, settings):
    """Nodes, edges and average degree of the forget and retain graphs and the audit set.

    "before" counts every fact of a split; "after" only the facts the other split does not
    also state (redundancy removed, HANKER's E_conf). For forget, "after" is the audit set.

    \b
    Example:
      audit stats --graph person
    """
    with GraphStore.open(settings) as store:
        _text_graph(store, graph_name)
        rows = []
        for split in ("forget", "retain"):
            before = store.read(Q.SPLIT_STATS, graph=graph_name, split=split, all=True)[0]
            after = store.read(Q.SPLIT_STATS, graph=graph_name, split=split, all=False)[0]
            rows.append([split, before["nodes"], before["edges"], round(before["average_degree"], 3),
                         after["nodes"], after["edges"], round(after["average_degree"], 3)])
        signals = store.read(Q.REDUNDANCY_SUMMARY, graph=graph_name)[0]
    emit_rows(["split", "nodes_before", "edges_before", "avg_degree_before",
               "nodes_after", "edges_after", "avg_degree_after"], rows, fmt)
    if fmt == "table":
        click.echo(f"audit set: {rows[0][5]} forget facts ({signals['redundant']} redundant removed); "
                   f"weaker signals: linked in retain {signals['linked_in_retain']}, "
                   f"both entities in retain text {signals['entities_in_retain_text']}")


@click.command()
@click.argument("qa_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--graph", "graph_name", required=True, metavar="NAME", help="A graph built from text corpora.")
@connection_options
def coverage(qa_file, graph_name, settings):
    """Share of forget-graph edges a QA benchmark covers, before and after redundancy removal.

    An edge is covered when both of its entities occur (whole words, normalized) in some
    question or answer of QA_FILE, a JSON list of {question, answer}.

    \b
    Example:
      audit coverage benchmark.json --graph person
    """
    texts = [f"{qa.question} {qa.answer}" for qa in load_utility(qa_file)]
    with GraphStore.open(settings) as store:
        _text_graph(store, graph_name)
        edges = store.read(Q.FORGET_FACT_NAMES, graph=graph_name)
    result = compute_coverage(texts, edges)
    click.echo(f"{qa_file}: {result.qa_pairs} QA pairs")
    click.echo(f"forget edges covered: {result.covered}/{result.edges} ({result.share:.1%})")
    click.echo(f"audit set covered (redundancy removed): {result.audit_covered}/{result.audit_edges} "
               f"({result.audit_share:.1%})")
