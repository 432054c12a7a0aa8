"""`audit memorization-check`: prove the memorization measure on facts we control, on this machine."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from audit.config import SIZES, MemorizationConfig
from cli.common import connection_options, emit_rows, format_option
from graphstore import GraphStore
from graphstore.progress import say


@click.command("memorization-check")
@click.option("--people", type=int, default=24, show_default=True, help="Synthetic people to generate.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the people, the model and the measure.")
@click.option("--graph", "graph_name", default="synthetic-people", show_default=True, metavar="NAME",
              help="Graph the people are built into (replaced if it exists).")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the people file (<graph>.json) and the trained model (model/).")
@click.option("--property", "properties", multiple=True, metavar="PID",
              help="Properties measured (default: the five WikiMem studies: P106 P1412 P19 P21 P27).")
@click.option("--size", type=click.Choice(sorted(SIZES)), default="tiny", show_default=True, help="Scratch model size.")
@click.option("--epochs", type=int, default=30, show_default=True, help="Training epochs over the sentences.")
@click.option("--train-paraphrases", type=int, default=2, show_default=True,
              help="Paraphrases per fact trained on besides the base sentence; the others are held out.")
@click.option("--counterfactuals", type=int, default=10, show_default=True, help="Counterfactual values per fact.")
@click.option("--paraphrases", type=int, default=None, help="Paraphrases measured per property (default all).")
@click.option("--contexts", type=int, default=4, show_default=True, help="Contextualized variants per fact.")
@click.option("--run-id", default=None, metavar="ID", help="Name of the memorization run.")
@click.option("--device", default="auto", show_default=True, help="auto (CUDA when present), cpu, cuda ...")
@format_option
@connection_options
def memorization_check(people, seed, graph_name, out_dir, properties, size, epochs, train_paraphrases,
                       counterfactuals, paraphrases, contexts, run_id, device, fmt, settings):
    """Check that the memorization measure tells facts a model knows from facts it never saw.

    Generates synthetic people (audit generate wikidata), builds them into a graph, trains a
    scratch model on sentences about every other person (the first, third, ... by Q-id),
    measures every person's facts with audit memorization, and prints the AUROC of the
    strength and the rank-1, strict and lenient rates of both groups, each explained under
    the table (--format csv|json: the same figures under their keys, e.g. rank1_other). The
    graph, the model folder and the run stay: audit run --select memorized:<an injected Q-id>
    --model <output>/model --no-inject then unlearns a "person" the model really knows.

    \b
    Examples:
      audit memorization-check --output out/check
      audit memorization-check --people 400 --size small --counterfactuals 100 --output out/big --device cuda
    """
    # Training and the measure need torch and transformers: imported here, so the command line starts fast.
    from audit.run.memorization_check import FIGURE_NOTES, CheckRequest, check_memorization, figure_rows

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    config = MemorizationConfig(counterfactuals=counterfactuals, paraphrases=paraphrases, contexts=contexts, seed=seed)
    request = CheckRequest(out_dir, people, seed, graph_name, list(properties), size, epochs, train_paraphrases,
                           config, run_id, device)
    with GraphStore.open(settings) as store:
        outcome = check_memorization(store, request, report=say)
    rows = figure_rows(outcome)
    table = fmt == "table"
    emit_rows(["measure", "value"], [[label, round(value, 3) if isinstance(value, float) else value] if table
                                     else [key, value] for key, label, value in rows], fmt)
    for line in FIGURE_NOTES if table else ():
        click.echo(line)
    # with --format csv|json, stdout is the figures alone; the run's names go to stderr
    click.echo(f"run {outcome.run}; model {outcome.model_dir}; injected subjects: {', '.join(outcome.injected)}",
               err=not table)
    click.echo(f"forget one: audit run --graph {graph_name} --select memorized:{outcome.injected[0]}@{outcome.run} "
               f"--model {outcome.model_dir} --no-inject", err=not table)
