"""``audit compare``: two runs of one graph, edge by edge.

Each edge measured in both runs gets its status and score in each (``audit/measure/leakage.py``: a
forget edge's score is its ROUGE-1 after unlearning, a retained edge's its ROUGE-1 drop) and
the difference B - A. The headline is the two lists of forget edges that are ``leaked`` after
one run but not after the other: where one method (or setting) leaves a fact the other removes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.results.resurfaced import resurfaced_under
from audit.views import plots as P
from audit.measure.leakage import EdgeLeakage, LeakageThresholds, RunLeakage
from audit.results.leakage import run_leakage
from graphstore import GraphStore
from graphstore.errors import ConfigError

COLUMNS = ["edge", "role", "status_a", "status_b", "score_a", "score_b", "difference", "resurfaced_a", "resurfaced_b"]


@dataclass
class EdgeDifference:
    """One edge in both runs. ``role`` is ``forget`` or ``retain``, or ``forget/retain`` (A's role,
    then B's) when the runs chose differently; then the scores mean different things and
    ``difference`` is None."""
    edge: str
    role: str
    status_a: str | None
    status_b: str | None
    score_a: float | None
    score_b: float | None
    difference: float | None   # score_b - score_a: for a forget edge, > 0 means B leaves more of it
    resurfaced_a: str = ""     # the resurfacing checks under which the edge came back in A (docs/robustness.md)
    resurfaced_b: str = ""

    def row(self) -> list:
        return [self.edge, self.role, self.status_a, self.status_b, self.score_a, self.score_b, self.difference,
                self.resurfaced_a, self.resurfaced_b]


@dataclass
class RunComparison:
    run_a: Mapping[str, Any]            # the Run nodes' properties
    run_b: Mapping[str, Any]
    thresholds: LeakageThresholds
    rows: list                          # [EdgeDifference]: forget edges first, then by key
    leaks_only_a: list = field(default_factory=list)   # forget edges leaked after A, not after B
    leaks_only_b: list = field(default_factory=list)
    only_in_a: list = field(default_factory=list)      # edges with a result in one run only
    only_in_b: list = field(default_factory=list)
    notes: list = field(default_factory=list)          # caveats about comparing these two runs

    def table(self) -> tuple[list[str], list[list]]:
        """The columns and rows; the resurfacing columns only when a run had checks."""
        if any(r.resurfaced_a or r.resurfaced_b for r in self.rows):
            return COLUMNS, [r.row() for r in self.rows]
        return COLUMNS[:-2], [r.row()[:-2] for r in self.rows]


def compare_runs(store: GraphStore, run_a: str, run_b: str,
                 thresholds: LeakageThresholds | None = None) -> RunComparison:
    """Compare two runs of the same graph edge by edge.

    Raises:
        ConfigError: a run does not exist or has no per-edge results, or the runs are on
            different graphs.
    """
    a = run_leakage(store, run_a, thresholds)
    b = run_leakage(store, run_b, thresholds)
    if a.run.get("graph") != b.run.get("graph"):
        raise ConfigError(f"runs {run_a!r} (graph {a.run.get('graph')!r}) and {run_b!r} (graph "
                          f"{b.run.get('graph')!r}) are on different graphs; compare two runs of one graph "
                          "(`audit runs --graph NAME` lists them)")
    edges_a, edges_b = {e.edge: e for e in a.edges}, {e.edge: e for e in b.edges}
    rows = [_difference(edges_a[k], edges_b[k]) for k in edges_a if k in edges_b]
    for label, leakage in (("a", a), ("b", b)):   # where the runs had resurfacing checks
        came_back = {r.edge: ", ".join(resurfaced_under(r)) for r in leakage.results}
        for r in rows:
            setattr(r, f"resurfaced_{label}", came_back.get(r.edge, ""))
    rows.sort(key=lambda r: ("forget" not in r.role, r.edge))
    forget = [r for r in rows if r.role == "forget"]
    return RunComparison(
        a.run, b.run, a.thresholds, rows,
        leaks_only_a=[r.edge for r in forget if r.status_a == "leaked" and r.status_b != "leaked"],
        leaks_only_b=[r.edge for r in forget if r.status_b == "leaked" and r.status_a != "leaked"],
        only_in_a=sorted(set(edges_a) - set(edges_b)), only_in_b=sorted(set(edges_b) - set(edges_a)),
        notes=_notes(a, b, rows))


def write_compare_figure(comparison: RunComparison, path: Path) -> Path:
    """Scatter of A against B per edge (``audit.views.plots.draw_compare``)."""
    measured = [r for r in comparison.rows if r.score_a is not None and r.score_b is not None]
    forget = [P.PairedScores(r.edge, r.score_a, r.score_b) for r in measured if r.role == "forget"]
    retained = [P.PairedScores(r.edge, r.score_a, r.score_b) for r in measured if r.role == "retain"]
    return P.write_figure(P.draw_compare(forget, retained, comparison.thresholds, _label(comparison.run_a),
                                         _label(comparison.run_b)), Path(path))


def _difference(a: EdgeLeakage, b: EdgeLeakage) -> EdgeDifference:
    same = a.role == b.role
    difference = b.score - a.score if same and a.score is not None and b.score is not None else None
    return EdgeDifference(a.edge, a.role if same else f"{a.role}/{b.role}", a.status, b.status, a.score, b.score,
                          difference)


def _notes(a: RunLeakage, b: RunLeakage, rows: list[EdgeDifference]) -> list[str]:
    notes = []
    if a.run.get("graph_sha256") != b.run.get("graph_sha256"):
        notes.append("the graph changed between the runs (its SHA-256 differs): the same edge key may not hold "
                     "the same fact")
    if a.run.get("mode") != b.run.get("mode"):
        notes.append(f"the runs differ in mode ({a.run.get('mode')} vs {b.run.get('mode')}): a sweep's retained "
                     "score is a mean over the other edges' unlearnings, a joint run's is one unlearning's")
    mixed = sum("/" in r.role for r in rows)
    if mixed:
        notes.append(f"{mixed} edge(s) are forget edges in one run and retained in the other: no difference given")
    located = [x.run.get("localization_auc_magnitude") for x in (a, b)]
    if any(v is not None for v in located):   # docs/localization.md
        shown = ["not measured" if v is None else f"{v:.3f}" for v in located]
        notes.append(f"localization precision, ROC AUC of |change| against the forget mask: {shown[0]} vs {shown[1]} "
                     "(1: only the forget weights moved, 0.5: indiscriminate)")
    return notes


def _label(run: Mapping[str, Any]) -> str:
    return f"{run['key']} ({run.get('method')})"
