"""The cost of an experiment before it runs: real Run nodes with known wall times, written through
the store functions `audit run` uses, price the cells left; the expected totals are worked out
by hand beside each test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from audit.experiment.cost import CELL, TRIAL, duration, estimate_cost
from audit.experiment.grid import expand, protocol_trials, trial_run_id
from audit.experiment.spec import load_spec
from audit.results import repository as R
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore import queries as Q
from graphstore.ingest import write_graph

CHAIN = [(str(i), str(i + 1)) for i in range(12)]   # a path: n edges are n facts
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def build(store, folder: Path, graph: str, edges: int) -> None:
    path = folder / f"{graph}.json"
    write_dataset(generate_pistol(CHAIN[:edges], seed=1), path)
    write_graph(store, load_pistol(path, graph=graph))


def past_run(store, key: str, graph: str, seconds: float, model: str = "scratch:tiny", mode: str = "joint",
             forget: int = 1, status: str = R.DONE, resumed: bool = False) -> None:
    """A run as `audit run` leaves it: created by start_run, ended by update_run."""
    R.start_run(store, key, {"graph": graph, "model": model, "mode": mode, "method": "ga", "per_edge": mode != "joint",
                             "forget_edges": [f"e{i}" for i in range(forget)], "settings_sha256": key})
    ended = START + timedelta(seconds=seconds)
    R.update_run(store, key, status=status, started_at=START.isoformat(timespec="seconds"),
                 ended_at=ended.isoformat(timespec="seconds"),
                 **({"resumed_at": (START + timedelta(seconds=1)).isoformat(timespec="seconds")} if resumed else {}))


def spec_file(folder: Path, body: str) -> Path:
    path = folder / "cost.toml"
    path.write_text('name = "cost"\n[[graphs]]\nname = "g5"\n' + body, encoding="utf-8")
    return path


def test_cells_left_are_priced_from_comparable_runs_and_done_cells_are_free(store, tmp_path):
    for graph, edges in (("g5", 5), ("g8", 8), ("g12", 12)):
        build(store, tmp_path, graph, edges)
    assert {r["key"]: r["facts"] for r in store.read(Q.GRAPH_LIST)} == {"g5": 5, "g8": 8, "g12": 12}
    spec = load_spec(spec_file(tmp_path, '[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga", "npo"]\n'
                                         'seeds = [0, 1]\nper_edge = [false, true]\n'))
    cells = expand(spec)
    assert len(cells) == 8   # 2 methods x 2 modes x 2 seeds
    joint_done = next(c for c in cells if not c.per_edge)
    past_run(store, joint_done.run_id(spec.name, spec.run), "g5", 150)    # 30 s per fact, and free now
    past_run(store, "a", "g5", 100)                                        # 20 s per fact
    past_run(store, "b", "g8", 240)                                        # 30 s per fact (8 facts: within 2x of 5)
    past_run(store, "resumed", "g5", 5000, resumed=True)                   # spans a pause: not a rate
    past_run(store, "far", "g12", 12)                                      # 12 facts: more than twice 5
    past_run(store, "other-model", "g5", 5000, model="scratch:small")
    past_run(store, "failed", "g5", 5000, status=R.FAILED)
    past_run(store, "edge", "g5", 400, mode="per-edge", forget=4)          # 400 / (5 facts x 4 edges) = 20 s

    estimate = estimate_cost(store, spec)

    joint, per_edge = (next(g for g in estimate.groups if g.mode == mode) for mode in ("joint", "per-edge"))
    assert (joint.role, joint.runs, joint.done) == (CELL, 4, 1)
    # median of 30, 20, 30 s per fact = 30; a 5-fact cell 150 s; 3 left
    assert joint.seconds == pytest.approx(3 * 150)
    assert sorted(r.key for r in joint.sources) == sorted(["a", "b", joint_done.run_id(spec.name, spec.run)])
    # per-edge: top-degree:1 is 1 forget edge on 5 facts = 5 units at 20 s = 100 s; 4 left
    assert (per_edge.runs, per_edge.done) == (4, 0)
    assert per_edge.seconds == pytest.approx(4 * 100)
    assert [r.key for r in per_edge.sources] == ["edge"]
    assert estimate.count(CELL) == (8, 1) and estimate.count(TRIAL) == (0, 0)
    assert estimate.complete and estimate.seconds == pytest.approx(850)
    lines = estimate.lines()
    assert lines[-1] == "in all ≈ 14.2 min for the 7 run(s) left"   # 850 s / 60
    assert lines[1] == ("4 cell(s) (scratch:tiny, per-edge): 0 done; ~1.7 min each from 1 earlier run(s) of "
                        "scratch:tiny (per-edge) on graphs of 5 facts in this store (edge): 4 left ≈ 6.7 min")


def test_protocol_trials_count_and_cells_without_a_rate_say_so(store, tmp_path):
    build(store, tmp_path, "g5", 5)
    spec = load_spec(spec_file(tmp_path, '[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\nseeds = [0, 1]\n'
                                         'per_edge = [true]\n'
                                         '[lr_protocol]\ngrid = [0.001, 0.01, 0.1]\nselector = "top-degree:1"\n'))
    trials = protocol_trials(spec, "g5", "ga", "scratch:tiny")
    past_run(store, trial_run_id(spec, trials[0]), "g5", 60)   # one trial done: 12 s per fact

    estimate = estimate_cost(store, spec)

    cells, protocol = (next(g for g in estimate.groups if g.role == role) for role in (CELL, TRIAL))
    assert (protocol.runs, protocol.done, protocol.mode) == (3, 1, "joint")
    assert protocol.seconds == pytest.approx(2 * 60)                  # two trials left, 5 facts x 12 s
    # the cells' rate is the protocol's choice: not run yet, so none is done; no per-edge run to price them
    assert (cells.runs, cells.done, cells.seconds) == (2, 0, None)
    assert not estimate.complete and estimate.seconds == pytest.approx(120)
    assert estimate.lines()[0] == ("2 cell(s) (scratch:tiny, per-edge): 0 done; no rate for the 2 left: no "
                                   "finished, never-resumed run of scratch:tiny (per-edge) on a graph of 2.5-10 facts "
                                   "in this store")
    assert estimate.lines()[-1].startswith("in all: unknown (2 of the 4 run(s) left priced, ≈ 2.0 min)")


def test_an_unbuilt_graph_has_no_size_and_a_finished_experiment_costs_nothing(store, tmp_path):
    spec = load_spec(spec_file(tmp_path, '[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\nseeds = [0]\n'))
    estimate = estimate_cost(store, spec)
    assert estimate.lines()[0] == ("1 cell(s) (scratch:tiny, joint): 0 done; no rate for the 1 left: graph g5 is not "
                                   "built yet, so its size is unknown")
    build(store, tmp_path, "g5", 5)
    (cell,) = expand(spec)
    past_run(store, cell.run_id(spec.name, spec.run), "g5", 30)
    assert estimate_cost(store, spec).lines() == ["1 cell(s) (scratch:tiny, joint): 1 done",
                                                  "nothing left to run: every run is complete in the store"]


@pytest.mark.parametrize("seconds, text", [(45, "45 s"), (89.4, "89 s"), (750, "12.5 min"), (5399, "90.0 min"),
                                           (12120, "3 h 22 min")])
def test_durations_read_in_the_unit_that_fits(seconds, text):
    assert duration(seconds) == text
