"""`audit experiment`'s report: the table of cells (mean and 95 % t interval over seeds), the
rank correlations of the deviation score with edge degree and component density, and three
figures (deviation score per cell with error bars; per-edge deviation score against degree and
against density)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from audit.experiment.aggregate import STRUCTURE, CellRow, EdgePoint
from audit.experiment.stats import Correlation
from audit.views.plots import deviation_limits, degree_ticks, finish, new_figure, write_figure

FIGURE_SIZE = (10, 5)


def cell_figure(rows: list[CellRow], path: Path, title: str) -> Path:
    return write_figure(draw_cells(rows, title), path)


def draw_cells(rows: list[CellRow], title: str):
    """One bar per cell: the mean deviation score over its seeds, the 95 % t interval as error bar;
    the axis from 0 to a little above the highest interval."""
    fig, ax = new_figure((max(FIGURE_SIZE[0], 0.5 * len(rows)), FIGURE_SIZE[1]))
    means, errors, labels = [], [], []
    for r in rows:
        i = r.interval("deviation_score")
        means.append(i.mean if i else np.nan)
        errors.append(i.half_width() or 0.0 if i else 0.0)
        labels.append(f"{r.method}{f'[{r.options}]' if r.options else ''} {r.selector}"
                      + ("" if r.lr is None else f" lr {r.lr:g}"))
    x = np.arange(len(rows))
    ax.bar(x, means, yerr=errors, capsize=3, color="#6baed6")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=8)
    tops = [m + e for m, e in zip(means, errors) if not np.isnan(m)]
    ax.set_ylim(deviation_limits(tops))
    ax.set_ylabel("deviation score (lower is better)")
    return finish(fig, title)


def structure_figure(points: list[EdgePoint], correlations: dict[str, Correlation], structure: str, path: Path,
                     title: str) -> Path:
    return write_figure(draw_structure(points, correlations, structure, title), path)


def draw_structure(points: list[EdgePoint], correlations: dict[str, Correlation], structure: str, title: str):
    """Per forget edge and run: deviation score against ``edge_degree`` (whole-degree ticks) or
    ``component_density``, one colour per method, Spearman's ρ over all points in the title."""
    assert structure in STRUCTURE
    fig, ax = new_figure(FIGURE_SIZE)
    for method in sorted({p.method for p in points}):
        mine = [p for p in points if p.method == method]
        ax.scatter([getattr(p, structure) for p in mine], [p.deviation_score for p in mine], label=method, alpha=0.7, s=18)
    ax.set_xlabel(structure.replace("_", " "))
    ax.set_ylabel("deviation score")
    ax.set_ylim(deviation_limits([p.deviation_score for p in points]))
    if structure == "edge_degree":
        degree_ticks(ax, np.array([p.edge_degree for p in points]))
    if points:
        fig.legend(loc="outside right upper", fontsize=8)
    return finish(fig, f"{title}: {describe(correlations.get(structure))}")


def describe(c: Correlation | None) -> str:
    """``ρ = 0.41 [0.12, 0.66], 36 points on 6 edges`` (the interval: 95 % bootstrap over edges)."""
    if c is None or c.rho is None:
        return f"ρ undefined ({c.n if c else 0} points)"
    interval = f" [{c.low:.2f}, {c.high:.2f}]" if c.low is not None else " (no interval)"
    edges = f" on {c.clusters} edges" if c.clusters else ""
    return f"ρ = {c.rho:.2f}{interval}, {c.n} points{edges}"
