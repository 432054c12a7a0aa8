"""What an experiment will cost before it runs (`audit experiment FILE --dry-run`).

Its runs are the grid's cells and the learning-rate protocol's trials. A run already complete in
the store costs nothing (the experiment resumes past it). The others are priced from the wall
times the store measured for comparable finished runs: the same model and mode, on a graph
within a factor of ``SIZE_WINDOW`` in facts, never resumed (a resumed run's start-to-end time
spans the pause). A run's work grows with the graph it audits (injection, unlearning and the
evaluation all pass over its facts) and, per-edge, with its forget edges (one unlearning and one
evaluation each), so a past run's seconds per unit of work — facts, times forget edges per-edge —
is scaled to each planned run's units, and the median of the comparable runs is taken (a run that
trained a new injected model, or ran beside other work, is an outlier).

Example:
    >>> estimate = estimate_cost(store, load_spec(Path("experiments/pistol_table2.toml")))
    >>> print("\\n".join(estimate.lines()))
    96 cell(s) (scratch:tiny, joint): 12 done; ~2.1 min each from 36 earlier run(s) of scratch:tiny ...
    in all ≈ 2 h 56 min for the 84 run(s) left
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime

from audit.experiment.grid import Cell, chosen_rates, expand, protocol_trials, trial_run_id
from audit.experiment.spec import ExperimentSpec
from audit.results import repository as R
from audit.run.qa import load_graph_edges
from audit.run.selectors import select
from graphstore import GraphStore
from audit.results import queries as RQ
from graphstore import queries as Q

SIZE_WINDOW = 2.0     # comparable: a graph with between half and twice the planned graph's facts
CELL, TRIAL = "cell", "protocol trial"
NAMED_RUNS = 3        # runs a rate names before "and N more"


@dataclass(frozen=True)
class PlannedRun:
    """One run the experiment needs: a cell or a protocol trial."""
    role: str                # CELL or TRIAL
    model: str
    mode: str                # `joint` or `per-edge`, as the Run node says
    graph: str
    run_id: str | None       # None: a cell whose rate the protocol has not chosen yet
    done: bool               # complete in the store: the experiment skips it
    facts: int | None        # the graph's facts; None: not built yet
    units: float | None      # work: facts, times forget edges per-edge; None: unknown


@dataclass(frozen=True)
class PastRun:
    """A finished run of the store, with the wall time it took."""
    key: str
    model: str
    mode: str
    graph: str
    facts: int
    units: float
    seconds: float


@dataclass(frozen=True)
class GroupCost:
    """The runs of one role, model and mode, and what those left will take."""
    role: str
    model: str
    mode: str
    runs: int
    done: int
    seconds: float | None            # the runs left; None: some have no comparable earlier run
    sources: tuple[PastRun, ...]     # the comparable runs the rate comes from
    unpriced: tuple[str, ...] = ()   # why some runs left have no price

    @property
    def left(self) -> int:
        return self.runs - self.done


@dataclass(frozen=True)
class CostEstimate:
    groups: tuple[GroupCost, ...]

    def count(self, role: str) -> tuple[int, int]:
        """(runs, done) of a role."""
        groups = [g for g in self.groups if g.role == role]
        return sum(g.runs for g in groups), sum(g.done for g in groups)

    @property
    def seconds(self) -> float:
        """The priced runs left, in all."""
        return sum(g.seconds or 0.0 for g in self.groups)

    @property
    def complete(self) -> bool:
        """Every run left has a price."""
        return all(g.seconds is not None or not g.left for g in self.groups)

    def lines(self) -> list[str]:
        """The estimate in words: a line per role, model and mode, then the total."""
        out = [_group_line(g) for g in self.groups]
        left = sum(g.left for g in self.groups)
        if not left:
            out.append("nothing left to run: every run is complete in the store")
        elif self.complete:
            out.append(f"in all ≈ {duration(self.seconds)} for the {left} run(s) left")
        else:
            priced = sum(g.left for g in self.groups if g.seconds is not None)
            known = f"{priced} of the {left} run(s) left priced, ≈ {duration(self.seconds)}" if priced else \
                f"none of the {left} run(s) left priced"
            out.append(f"in all: unknown ({known}); a rate comes from a finished run: start the experiment and "
                       "stop it (Ctrl-C) after its first cell, it resumes there; then --dry-run again")
        return out


def estimate_cost(store: GraphStore, spec: ExperimentSpec) -> CostEstimate:
    """Price every run ``spec`` needs from the runs already in ``store`` (module docstring)."""
    facts = {r["key"]: r["facts"] for r in store.read(Q.GRAPH_LIST)}
    listed = store.read(RQ.RUN_LIST, graph=None)
    done = {r["key"] for r in listed if r["status"] == R.DONE}
    planned = _planned(store, spec, facts, done)
    past = _past_runs(listed, facts, {(p.model, p.mode) for p in planned if not p.done})
    groups = []
    for role in (CELL, TRIAL):
        keys = dict.fromkeys((p.model, p.mode) for p in planned if p.role == role)
        for model, mode in keys:
            runs = [p for p in planned if p.role == role and p.model == model and p.mode == mode]
            groups.append(_price(role, model, mode, runs, [r for r in past if r.model == model and r.mode == mode]))
    return CostEstimate(tuple(groups))


def duration(seconds: float) -> str:
    """``45 s``, ``12.5 min``, ``3 h 22 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.1f} min"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min"


def _planned(store: GraphStore, spec: ExperimentSpec, facts: dict, done: set[str]) -> list[PlannedRun]:
    node = R.get_experiment(store, spec.name)
    # the protocol's rates, once it has run (recorded on the Experiment node): the cells' run ids
    chosen = chosen_rates(node.lr_choices if node is not None else None)
    forget = _ForgetEdges(store)
    out = []
    for cell in expand(spec, chosen):
        run_id = None if spec.lr_protocol and cell.lr is None else cell.run_id(spec.name, spec.run)
        out.append(_planned_run(CELL, cell, run_id, facts, done, forget))
    for graph in (g.name for g in spec.graphs):
        for method in spec.methods:
            for model in spec.models:
                for cell in protocol_trials(spec, graph, method, model):
                    out.append(_planned_run(TRIAL, cell, trial_run_id(spec, cell), facts, done, forget))
    return out


def _planned_run(role: str, cell: Cell, run_id: str | None, facts: dict, done: set[str], forget) -> PlannedRun:
    n, finished = facts.get(cell.graph), run_id in done
    units = None
    if n and not finished:
        units = float(n) * forget.count(cell) if cell.per_edge else float(n)
    return PlannedRun(role, cell.model, _mode(cell.per_edge), cell.graph, run_id, finished, n, units)


class _ForgetEdges:
    """How many edges a per-edge cell's selector chooses (one unlearning each): the graph's
    edges read once, each selection made once."""

    def __init__(self, store: GraphStore):
        self.store = store
        self.edges: dict[str, list[str]] = {}                  # graph -> its edge keys
        self.counts: dict[tuple[str, str, int], int] = {}      # (graph, selector, seed) -> edges chosen

    def count(self, cell: Cell) -> int:
        key = (cell.graph, cell.selector, cell.seed)
        if key not in self.counts:
            if cell.graph not in self.edges:
                self.edges[cell.graph] = list(load_graph_edges(self.store, cell.graph))
            chosen = select(self.store, cell.graph, self.edges[cell.graph], cell.selector, None, cell.seed)
            self.counts[key] = len(chosen.edges)
        return self.counts[key]


def _past_runs(listed: list, facts: dict, wanted: set[tuple[str, str]]) -> list[PastRun]:
    """The finished runs of ``listed`` (``RUN_LIST``'s rows, read once) that can price ``wanted``."""
    out = []
    for r in listed:
        if r["status"] != R.DONE or (r["model"], r["mode"]) not in wanted or not facts.get(r["graph"]):
            continue
        if r["resumed_at"] or not r["started_at"] or not r["ended_at"]:
            continue   # resumed: its start-to-end time spans the pause
        seconds = (datetime.fromisoformat(r["ended_at"]) - datetime.fromisoformat(r["started_at"])).total_seconds()
        if seconds <= 0:
            continue
        n = facts[r["graph"]]
        units = float(n) * (r["forget_edges"] or 0) if r["mode"] == _mode(True) else float(n)
        if units > 0:
            out.append(PastRun(r["key"], r["model"], r["mode"], r["graph"], n, units, seconds))
    return out


def _price(role: str, model: str, mode: str, runs: list[PlannedRun], past: list[PastRun]) -> GroupCost:
    left = [p for p in runs if not p.done]
    total, unpriced = 0.0, []
    sources: dict[str, PastRun] = {}
    for p in left:
        if p.units is None or p.facts is None:   # both or neither: the graph's size is known or not
            unpriced.append(f"graph {p.graph} is not built yet, so its size is unknown")
            continue
        comparable = [r for r in past if p.facts / SIZE_WINDOW <= r.facts <= p.facts * SIZE_WINDOW]
        if not comparable:
            low, high = p.facts / SIZE_WINDOW, p.facts * SIZE_WINDOW
            unpriced.append(f"no finished, never-resumed run of {model} ({mode}) on a graph of {low:g}-{high:g} "
                            "facts in this store")
            continue
        total += p.units * statistics.median(r.seconds / r.units for r in comparable)
        sources.update((r.key, r) for r in comparable)
    ordered = tuple(sorted(sources.values(), key=lambda r: r.key))
    return GroupCost(role, model, mode, len(runs), len(runs) - len(left), None if unpriced else total, ordered,
                     tuple(dict.fromkeys(unpriced)))


def _group_line(g: GroupCost) -> str:
    head = f"{g.runs} {g.role}(s) ({g.model}, {g.mode}): {g.done} done"
    if not g.left:
        return head
    if g.seconds is None:
        return f"{head}; no rate for the {g.left} left: {'; '.join(g.unpriced)}"
    keys = [r.key for r in g.sources]
    named = ", ".join(keys[:NAMED_RUNS]) + (f" and {len(keys) - NAMED_RUNS} more" if len(keys) > NAMED_RUNS else "")
    sizes = sorted({r.facts for r in g.sources})
    size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    return (f"{head}; ~{duration(g.seconds / g.left)} each from {len(keys)} earlier run(s) of {g.model} ({g.mode}) "
            f"on graphs of {size} facts in this store ({named}): {g.left} left ≈ {duration(g.seconds)}")


def _mode(per_edge: bool) -> str:
    return "per-edge" if per_edge else "joint"
