"""The phases of a run: their order, and each one's "is it done?" read from what is written."""

from __future__ import annotations

import dataclasses

import pytest

from audit.config import InjectionConfig, ResurfacingConfig, UnlearnConfig
from audit.results.schema import EdgeResult, Run
from audit.run.lifecycle import RunState
from audit.run.phases import (Inject, MeasureAfter, MeasureBefore, Resurfacing, RunContext, Scope, SweepDamage,
                              Unlearn, phases)
from graphstore.errors import ConfigError
from audit.run.plan import plan
from audit.run.record import RunRecord
from audit.run.request import RunRequest
from audit.run.runner import run_audit
from conftest import small_pistol_run
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.ingest import write_graph

EDGES = [("0", "1"), ("0", "2"), ("1", "3")]
KEYS = [f"phases/{a}_{b}" for a, b in EDGES]
SMALL_EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4"), ("2", "5")]


@pytest.fixture()
def planned(store, tmp_path):
    path = tmp_path / "phases.json"
    write_dataset(generate_pistol(EDGES, seed=4), path)
    write_graph(store, load_pistol(path, graph="phases"))

    def make(**overrides):
        options = {"select": "top-degree:1", "method": "ga", "device": "cpu", "equivalence": None, **overrides}
        request = RunRequest(graph="phases", cache_dir=tmp_path / "cache", injection=InjectionConfig(), **options)
        p = plan(store, request)
        return p, RunContext(store, p, lambda line: None, RunRecord(p.run_dir), lambda: None)

    return make


def state(edges: dict[str, dict], **run) -> RunState:
    return RunState({k: EdgeResult.from_props({"edge": k, **v}) for k, v in edges.items()}, Run.from_props(run))


def names(steps) -> list[str]:
    return [s.name for s in steps]


def test_a_joint_run_and_a_sweep_have_their_phases_in_order(planned):
    _, joint = planned()
    assert names(phases(joint)) == ["inject", "measure before", "unlearn", "measure after"]
    _, checked = planned(resurfacing=ResurfacingConfig(checks=("relearn",)))
    assert names(phases(checked))[-1] == "resurfacing"
    _, sweep = planned(per_edge=True, select="edges:0_1,1_3")
    assert names(phases(sweep)) == ["inject", "measure before", "unlearn phases/0_1", "measure after phases/0_1",
                                    "unlearn phases/1_3", "measure after phases/1_3", "damage"]
    _, checked_sweep = planned(per_edge=True, select="edges:0_1,1_3", resurfacing=ResurfacingConfig(checks=("relearn",)))
    assert names(phases(checked_sweep))[2:5] == ["unlearn phases/0_1", "measure after phases/0_1",
                                                 "resurfacing phases/0_1"]


def test_measures_are_done_when_every_edge_has_them(planned):
    p, _ = planned()
    before = {k: {"rouge1_before": 0.5} for k in KEYS}
    assert not MeasureBefore(p).done(state({}))
    assert not MeasureBefore(p).done(state(dict(list(before.items())[:2])))
    assert MeasureBefore(p).done(state(before))
    joint = Scope.joint(p)
    assert not MeasureAfter(p, joint).done(state(before))
    after = {k: {**v, "rouge1_after": 0.0} for k, v in before.items()}
    assert MeasureAfter(p, joint).done(state(after))
    # a run with a utility set is measured before only with its utility score
    with_utility = dataclasses.replace(p, utility=["a question"])
    assert not MeasureBefore(with_utility).done(state(before))
    assert MeasureBefore(with_utility).done(state(before, utility_rouge1_before=0.4))


def test_unlearning_and_checks_are_done_when_the_run_holds_them(planned):
    p, _ = planned()
    joint = Scope.joint(p)
    before = {k: {"rouge1_before": 0.5} for k in KEYS}
    assert not Unlearn(p, joint).done(state(before))
    assert Unlearn(p, joint).done(state(before, unlearn_steps=12))
    assert Unlearn(p, joint).done(state({k: {**v, "rouge1_after": 0.1} for k, v in before.items()}))   # older runs
    assert not Resurfacing(p, joint).done(state(before, unlearn_steps=12))
    assert Resurfacing(p, joint).done(state(before, resurfacing_seconds={"relearn": 1.5}))
    assert not Inject().done(state(before)) and not SweepDamage().done(state(before))


def test_a_sweep_runs_the_same_phases_over_one_scope_per_edge(planned):
    p, _ = planned(per_edge=True, select="edges:0_1,1_3")
    first, second = Scope.sweep(p)
    assert (first.edge, first.position, second.edge, second.total) == (p.forget[0], 1, p.forget[1], 2)
    written = state({p.forget[0]: {"rouge1_before": 1.0, "unlearn_seconds": 2.0, "rouge1_after": 0.2},
                     p.forget[1]: {"rouge1_before": 1.0, "unlearn_seconds": 2.5}})
    assert Unlearn(p, first).done(written) and Unlearn(p, second).done(written)
    assert MeasureAfter(p, first).done(written) and not MeasureAfter(p, second).done(written)
    assert not Resurfacing(p, first).done(written)
    checked = state({p.forget[0]: {"rouge1_after": 0.2, "resurfacing_seconds": {"relearn": 1.0}}})
    assert Resurfacing(p, first).done(checked) and not Resurfacing(p, second).done(checked)


def test_a_run_stopped_between_unlearning_and_measuring_measures_the_saved_adapters(store, run_cache, tmp_path):
    """The unlearning is done once the Run holds its steps: a run stopped before its measures
    after loads the saved adapters and measures them, and gets what the first measuring got."""
    options = dict(select="top-degree:2", method="ga", equivalence=None, device="cpu",
                   unlearn=UnlearnConfig(epochs=8, lr=3e-3, batch_size=4),
                   injection=InjectionConfig(max_epochs=20, target_rouge1=0.6))
    run = small_pistol_run(store, tmp_path, run_cache, "stopped", "stopped-run", SMALL_EDGES, seed=5, **options)
    read = ("MATCH (r:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult) "
            "RETURN x.edge AS edge, x.rouge1_qa_after AS after, r.unlearn_seconds AS seconds, x.role AS role, "
            "x.rouge1_qa_before AS before")
    rows = store.read(read, run=run)
    # the adapters matter: without them the answers after would be those before
    assert any(row["after"] != row["before"] for row in rows if row["role"] == "forget")
    first = {row["edge"]: (row["after"], row["seconds"]) for row in rows}
    # as if the process had died after the unlearning's write and before the measures after
    store.write("MATCH (r:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult) "
                "SET x.rouge1_after = null, x.rouge1_qa_after = null, r.status = 'interrupted'", run=run)
    outcome = run_audit(store, RunRequest(graph="stopped", run_id=run, cache_dir=run_cache, **options),
                        report=lambda line: None)
    assert outcome.resumed
    again = {row["edge"]: (row["after"], row["seconds"]) for row in store.read(read, run=run)}
    assert again == first   # the same measures, and the unlearning's seconds untouched: it did not run again


def test_a_sweep_stopped_between_an_edge_s_unlearning_and_its_measures_resumes_from_the_saved_adapters(
        store, run_cache, tmp_path):
    """Each swept edge's unlearning is saved before its measures: a sweep stopped there loads the
    edge's adapters and measures what the first measuring measured; the adapters of another edge
    are refused, not measured as this one's."""
    options = dict(select="top-degree:2", method="ga", equivalence=None, device="cpu", per_edge=True,
                   unlearn=UnlearnConfig(epochs=6, lr=3e-3, batch_size=4),
                   injection=InjectionConfig(max_epochs=20, target_rouge1=0.6))
    run = small_pistol_run(store, tmp_path, run_cache, "swept", "swept-run", SMALL_EDGES, seed=5, **options)
    read = ("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult) WHERE x.role = 'forget' "
            "RETURN x.edge AS edge, x.rouge1_qa_after AS after, x.retain_rouge1_by_edge AS others, "
            "x.unlearn_seconds AS seconds ORDER BY edge")
    first = store.read(read, run=run)
    forget = [row["edge"] for row in first]
    last = Scope.sweep(plan(store, RunRequest(graph="swept", run_id=run, cache_dir=run_cache, **options)))[-1].edge
    stop = ("MATCH (r:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult {edge: $edge}) "
            "SET x.rouge1_after = null, x.rouge1_qa_after = null, r.status = 'interrupted'")
    store.write(stop, run=run, edge=last)   # as if the process had died after the last edge's unlearning
    outcome = run_audit(store, RunRequest(graph="swept", run_id=run, cache_dir=run_cache, **options),
                        report=lambda line: None)
    assert outcome.resumed and store.read(read, run=run) == first   # the same measures; no unlearning again
    other = next(k for k in forget if k != last)
    store.write(stop, run=run, edge=other)   # the saved adapters are the last edge's, not this one's
    with pytest.raises(ConfigError, match=f"not those of edge '{other}'"):
        run_audit(store, RunRequest(graph="swept", run_id=run, cache_dir=run_cache, **options),
                  report=lambda line: None)
