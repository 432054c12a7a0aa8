"""`audit experiment FILE`: a grid of audit runs, resumable, aggregated over seeds (audit.experiment)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from cli.common import connection_options, emit_rows
from graphstore import GraphStore
from graphstore.errors import StoreError
from graphstore.progress import say

FORMATS = ("table", "csv", "json", "markdown")
SHOWN = ("forget_rouge1_after", "retain_rouge1_after", "deviation_score")   # the table and markdown forms
SHOWN_IF_ANY = ("localization_auc_magnitude", "localization_auc")            # ... when a run has them


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="The file changed since the experiment ran: run the new grid "
                                              "(cells it still has are reused).")
@click.option("--dry-run", is_flag=True, help="List the cells (one run each), those already done, and the time the "
                                              "rest will take from earlier runs in the store; run nothing.")
@click.option("--table-only", is_flag=True, help="Run nothing: the table and figures of what has run.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="The table's format: table and markdown show mean ± half of the 95 % t interval of the main "
                   "measures; csv and json every measure with its interval's ends.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for table.md, table.csv and the figures (default out/experiments/<name>).")
@click.option("--pair", "pairs", multiple=True, metavar="SEL_A,SEL_B",
              help="Also print SEL_A minus SEL_B per method, matched by seed and injected model (a paired t interval): "
                   "e.g. --pair edges:A_B,edges:A_C; both must be selectors of the grid. Repeatable.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Injected models and run checkpoints (default: <store>/cache), shared by the cells.")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Run the cells on a local Ray cluster of N workers, started for the run (default: one "
                   "after another in this process). Needs Ray (the 'distributed' extra).")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Run the cells on an existing Ray cluster: HOST:6379 of `ray start --head`, or ray://HOST:10001. "
                   "Its workers must reach the graph: give a Neo4j --uri when the cluster has other machines.")
@click.option("--gpus-per-cell", type=float, default=None, metavar="N",
              help="With --workers or --ray: GPUs a cell asks for (default 1 when the cluster has GPUs, else 0).")
@connection_options
def experiment(file, replace, dry_run, table_only, fmt, out_dir, pairs, cache_dir, workers, ray_address,
               gpus_per_cell, settings):
    """Run an experiment file (TOML or YAML): every cell of its grid is one audit run.

    The grid is graphs x selectors x methods x method options x learning rates x models x
    modes x (injected models x) seeds (docs/experiments.md). Cells share injected models
    through the cache; their runs are linked to one Experiment node. Killed and started again, finished cells
    are skipped and an unfinished one resumes. With [lr_protocol], each method's rate is
    chosen first, PISTOL's way, and held fixed. Then the table: per cell, each measure's
    mean and 95 % t interval over the seeds, and Spearman's rho of the per-edge deviation
    score with edge degree and component density (95 % bootstrap interval). With
    grid.inject_seeds (every seed on each of several injected models), the interval is over
    the models' means, and the variance between models and between seeds is printed.

    \b
    Examples:
      audit experiment experiments/pistol_table2.toml
      audit experiment experiments/pistol_table2.toml --dry-run
      audit experiment experiments/pistol_table2.toml --table-only --format markdown
      audit experiment experiments/pistol_table2.toml --table-only --pair edges:A_B,edges:A_C
      audit experiment experiments/pistol_table2.toml --workers 2
      audit experiment experiments/pistol_table2.toml --ray 10.0.0.5:6379 --uri bolt://10.0.0.5:7687
    """
    # The runs need torch and transformers: imported here, so the command line starts fast.
    from audit.experiment import aggregate as A
    from audit.experiment.cost import estimate_cost
    from audit.experiment.grid import expand
    from audit.experiment.cells import current_runs, run_experiment
    from audit.experiment.spec import load_spec
    from audit.views import experiment as V
    from audit.views.report import table as markdown_table

    from audit.experiment.workers import Workers
    from audit.models.load import launched

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    if ray_address is not None and not ray_address.strip():
        raise click.UsageError("--ray needs an address: HOST:6379 of `ray start --head`, or ray://HOST:10001")
    if workers is not None and ray_address is not None:
        raise click.UsageError("give --workers N (a local Ray cluster) or --ray ADDRESS (an existing one), not both")
    if gpus_per_cell is not None and workers is None and ray_address is None:
        raise click.UsageError("--gpus-per-cell goes with --workers or --ray")
    if (workers or ray_address) and launched():
        raise click.UsageError("--workers and --ray run cells on Ray, not under torchrun or accelerate launch: "
                               "launch the experiment as one process, or without --workers to train each cell "
                               "over the launched processes")
    pool = Workers(workers, ray_address, gpus_per_cell) if (workers or ray_address) else None
    spec = load_spec(file)
    for pair in pairs:   # refused before anything runs
        _split_pair(pair, spec.selectors)
    if dry_run:
        cells = expand(spec)
        if spec.lr_protocol:   # the rates, and so the run ids, are known once the protocol has run
            emit_rows(["cell", "seed"], [[c.group().replace("lr=default", "lr=protocol"), _seed(c)] for c in cells],
                      "table")
        else:
            emit_rows(["cell", "seed", "run"], [[c.group(), _seed(c), c.run_id(spec.name, spec.run)] for c in cells],
                      "table")
        if spec.inject_seeds:
            click.echo(f"every seed on each of {len(spec.inject_seeds)} injected models (grid.inject_seeds)")
        rates = "" if not spec.lr_protocol else (
            "; learning rates chosen first by the protocol: "
            + ", ".join(f"{m} {len(spec.lr_protocol.grid_for(m))}" for m in spec.methods) + " trial run(s) per model")
        click.echo(f"{len(cells)} cell(s){rates}")
        try:
            store = GraphStore.open(settings)
        except StoreError as e:   # the cells are listed; only the cost needs the store
            click.echo(f"cost: not estimated, the store is not reachable ({' '.join(str(e).split())})")
            return
        with store:
            estimate = estimate_cost(store, spec)
        click.echo("cost, from the wall times of earlier runs in this store (complete runs are skipped):")
        for line in estimate.lines():
            click.echo(f"  {line}")
        return
    out_dir = out_dir or Path("out") / "experiments" / spec.name
    with GraphStore.open(settings) as store:
        store.setup_schema()
        if not table_only:
            outcome = run_experiment(store, spec, cache_dir or settings.store_dir / "cache", replace, report=say,
                                     workers=pool, settings=settings)
            say(f"experiment {spec.name}: {outcome.cells} cell(s), {outcome.ran} run now, {outcome.skipped} already done")
        runs = current_runs(store, spec)   # runs an earlier version of the file made are not counted
        rows, points = A.read_experiment(store, spec.name, runs)
    correlations = A.correlations(points)
    columns, full = A.table(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "table.csv").open("w", encoding="utf-8") as csv_file:
        emit_rows(columns, full, "csv", out=csv_file)
    compact_columns, compact = _compact(rows)
    rho_rows = [[group, s, c.rho, c.low, c.high, c.n, c.clusters] for group, by in correlations.items()
                for s, c in by.items()]
    rho_columns = ["methods", "structure", "spearman_rho", "low", "high", "points", "edges"]
    (out_dir / "table.md").write_text(f"# {spec.name}\n\n{spec.description}\n\n" + markdown_table(compact_columns, compact)
                                      + "\n\n## Deviation score against structure (Spearman)\n\n"
                                      + markdown_table(rho_columns, rho_rows) + "\n", encoding="utf-8")
    V.cell_figure(rows, out_dir / "deviation_by_cell.png", f"{spec.name}: deviation score per cell (95 % t interval)")
    for s in A.STRUCTURE:
        V.structure_figure(points, correlations["all"], s, out_dir / f"deviation_vs_{s}.png",
                           f"{spec.name}: per-edge deviation score")
    component_columns, component_rows = A.components_table(rows)
    if component_rows:
        with (out_dir / "components.csv").open("w", encoding="utf-8") as csv_file:
            emit_rows(component_columns, component_rows, "csv", out=csv_file)
        with (out_dir / "table.md").open("a", encoding="utf-8") as md:
            md.write("\n## Variance components (injected models, unlearning seeds of one model)\n\n"
                     + markdown_table(component_columns, component_rows) + "\n")
    link_columns = ["precision", "resurfacing", "spearman_rho", "low", "high", "runs"]
    link_rows = A.localization_link(rows)
    if link_rows:
        with (out_dir / "table.md").open("a", encoding="utf-8") as md:
            md.write("\n## Localization precision against resurfacing (Spearman over runs; LACUNA Sec. 4.3)\n\n"
                     + markdown_table(link_columns, link_rows) + "\n")
    pair_columns, pair_rows = _paired(A, rows, pairs, spec.selectors)
    if pair_rows:
        with (out_dir / "paired.csv").open("w", encoding="utf-8") as csv_file:
            emit_rows(pair_columns, pair_rows, "csv", out=csv_file)
    if fmt == "json":
        interval = "95% t over seeds" + ("; over the injected models' means in nested rows" if component_rows else "")
        click.echo(json.dumps({"experiment": spec.name, "interval": interval,
                               "cells": [dict(zip(columns, r)) for r in full],
                               "correlations": [dict(zip(rho_columns, r)) for r in rho_rows],
                               "components": [dict(zip(component_columns, r)) for r in component_rows],
                               "paired": [dict(zip(pair_columns, r)) for r in pair_rows],
                               "localization_link": [dict(zip(link_columns, r)) for r in link_rows]},
                              indent=2, default=str))
    elif fmt == "csv":
        emit_rows(columns, full, "csv")
    elif fmt == "markdown":
        click.echo(markdown_table(compact_columns, compact))
    else:
        emit_rows(compact_columns, compact, "table")
        for group, by in correlations.items():
            click.echo(f"{group}: deviation score vs " + "; vs ".join(f"{s.replace('_', ' ')} {V.describe(c)}"
                                                                        for s, c in by.items()))
        if component_rows:
            emit_rows(component_columns, component_rows, "table")
        if pair_rows:
            emit_rows(pair_columns, pair_rows, "table")
        if link_rows:
            emit_rows(link_columns, link_rows, "table")
        nested = " (over the injected models' means where a row has several)" if component_rows else ""
        click.echo(f"mean ± half of the 95 % t interval over seeds{nested}; every measure in "
                   f"{out_dir / 'table.csv'}, figures in {out_dir}")


def _seed(cell) -> str:
    return str(cell.seed) if cell.inject_seed is None else f"{cell.seed} on model {cell.inject_seed}"


def _compact(rows) -> tuple[list[str], list[list]]:
    # deviation_score: the mean of the runs' scores, with its interval; ds_paper: PISTOL's, from
    # the mean ROUGE-1s (its tables' definition; no interval)
    shown = [*SHOWN, *(m for m in SHOWN_IF_ANY if any(r.values.get(m) for r in rows))]
    columns = ["method", "options", "selector", "graph", "lr", "model", "mode", "seeds", *shown, "ds_paper"]
    out = []
    for r in rows:
        cells = []
        for m in shown:
            i = r.interval(m)
            cells.append("" if i is None else f"{i.mean:.3f}" + ("" if i.low is None else f" ± {i.half_width():.3f}"))
        paper = r.paper_deviation_score()
        out.append([r.method, r.options, r.selector, r.graph, r.lr, r.model, r.mode, len(r.runs), *cells,
                    "" if paper is None else f"{paper:.1f}"])
    return columns, out


def _split_pair(pair: str, selectors: tuple[str, ...]) -> tuple[str, str]:
    """SEL_A,SEL_B, both selectors of the grid. A selector may hold commas itself
    (``edges:A_C,A_C2``), so the pair is cut at the comma that leaves a grid selector on each side."""
    for i, char in enumerate(pair):
        if char == "," and pair[:i] in selectors and pair[i + 1:] in selectors:
            return pair[:i], pair[i + 1:]
    raise click.BadParameter(f"{pair!r}: expected SEL_A,SEL_B, two of the grid's selectors: "
                             + "; ".join(selectors), param_hint="--pair")


def _paired(A, rows, pairs: tuple[str, ...], selectors: tuple[str, ...]) -> tuple[list[str], list[list]]:
    columns = ["pair", "method", "options", "model", "mode", "measure", "seeds", "injected_models", "mean_difference",
               "low", "high"]
    out = []
    for pair in pairs:
        a, b = _split_pair(pair, selectors)
        for measure in SHOWN:
            for p in A.paired(rows, a, b, measure):
                i = p.interval()
                out.append([f"{a} - {b}", p.method, p.options, p.model, p.mode, measure, len(p.differences),
                            len(set(p.models)), i.mean if i else None, i.low if i else None, i.high if i else None])
    return columns, out
