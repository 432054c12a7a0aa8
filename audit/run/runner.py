"""`audit run` end to end: a plan, then phases, then the run's readings written for the Browser.

Two modes:
- joint (default): one unlearning of all selected edges together;
- per-edge (``per_edge=True``): the PISTOL protocol, one unlearning per selected edge, each
  from the same injected model (only the adapters are reset in between).

``plan`` (``audit/run/plan.py``) checks and settles everything and writes nothing; the phases
(``audit/run/phases.py``) each say whether they are done and do their step; the lifecycle
(``audit/run/lifecycle.py``) creates or resumes the Run, runs the phases not yet done and writes
what they give, so a run restarted with the same id skips what is already there.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Callable

from audit.config import as_dict
from audit.measure.leakage import reading
from audit.models.ranks import current
from audit.results import repository as R
from audit.results.leakage import run_leakage, write_browser_leakage
from audit.run import readings
from audit.run.lifecycle import RunLifecycle
from audit.run.memorization import UnlearningMemorization
from audit.run.phases import RunContext, phases, summary
from audit.run.plan import RunPlan, plan
from audit.run.record import RunRecord, environment
from audit.run.request import RunOutcome, RunRequest
from graphstore import GraphStore

log = logging.getLogger(__name__)

__all__ = ["RunOutcome", "RunRequest", "run_audit"]


def run_audit(store: GraphStore, request: RunRequest, report: Callable[[str], None] = log.info) -> RunOutcome:
    """Run (or resume) one audit; returns the run's key and summary."""
    p = plan(store, request)   # everything that can be refused is refused here, before any write
    life = RunLifecycle(store, p.key, p.settings)
    existing = life.finished()
    if existing is not None:
        report(f"run {p.key} is already complete; nothing to do")
        done = readings.stored_summary(existing)
        return RunOutcome(p.key, R.DONE, True, done, reading(run_leakage(store, p.key), done))

    life.claim(p.run_dir / "run.lock")   # a second process with this run id is refused here
    resumed = life.start(p.start_props())
    _report_start(p, resumed, report)
    context = RunContext(store, p, report, RunRecord(p.run_dir), life.state)
    with life.running():
        _record_start(p, context.record, life, store)
        if p.graph_info["source"] == "wikidata" and not p.request.per_edge:
            context.memorization = UnlearningMemorization(store, p.key, p.request, None, None, p.edges, p.forget,
                                                          p.graph_info)
        life.advance(phases(context), context)
        result = summary(context, life.state())
    life.finish(result)
    context.record.finish(store, p.key, result)
    report(f"run record: {p.run_dir} (results.json, config.toml, environment.json, loss.jsonl)")
    for line in (readings.redundancy_reading(result), readings.resurfacing_reading(result)):
        if line:
            report(line)
    return RunOutcome(p.key, R.DONE, resumed, result, reading(write_leakage(store, p.key, report), result))


def write_leakage(store: GraphStore, run: str, report: Callable[[str], None] = log.info):
    """After a run: its leakage reading written as relationships the Neo4j Browser draws
    (``audit.results.leakage``); returns the reading."""
    leakage = write_browser_leakage(store, run)
    report("leakage: " + ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in leakage.counts().items())
           + f" (Neo4j Browser: MATCH p = ()-[:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED {{run: '{run}'}}]->() RETURN p)")
    return leakage


def _report_start(p: RunPlan, resumed: bool, report: Callable[[str], None]) -> None:
    request, data = p.request, p.data
    report(f"{'resuming' if resumed else 'starting'} run {p.key}: {p.method.name} on {len(p.forget)} forget edge(s) "
           f"of {request.graph} ({len(p.edges)} edges), model {request.model}, lr {request.unlearn.lr:g} "
           f"({p.lr_source}), {request.unlearn.epochs} epochs, {p.hardware.label}{_processes()}")
    if data.kind != "qa":
        mixed = ""
        if data.kind == "passages" and data.mixed_policy is not None:
            done = {"forget": "unlearned", "retain": "kept as retain", "drop": "left out"}[data.mixed_policy]
            mixed = (f"; {len(data.mixed)} mixed passage(s) state a forget and a retained fact: {done} "
                     f"(--mixed-passages {data.mixed_policy})")
        report(f"training on {data.kind}: {len(data.forget)} forget and {len(data.retain)} retain text(s){mixed}")


def _processes() -> str:
    """``, training over 2 processes (data parallel)`` in a launched run (audit.models.ranks),
    ``(sharded, FSDP)`` when it shards the model, else nothing."""
    ranks = current()
    how = "sharded, FSDP" if ranks.sharded else "data parallel"
    return f", training over {ranks.world} processes ({how})" if ranks.parallel else ""


def _record_start(p: RunPlan, record: RunRecord, life: RunLifecycle, store: GraphStore) -> None:
    """The run folder's config and environment, and the versions on the Run node."""
    env = environment(store, p.hardware)
    # the rate as given: a re-run on another model or method takes that one's default again
    request = p.request
    record.start(dataclasses.replace(request, run_id=p.key, unlearn=dataclasses.replace(request.unlearn, lr=p.given_lr)),
                 as_dict(p.method.config), env, [] if p.given_lr is not None else
                 [f"lr: not given; this run used {request.unlearn.lr:g}, {p.lr_source}"])
    life.update(environment=env)
