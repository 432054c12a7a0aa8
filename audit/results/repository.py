"""Runs, their per-edge and per-fact results, and experiments on the graph: where they are read
and written.

``(:Run {key})`` records how a run was made and how it ended; ``(:EdgeResult {key: <run>/<edge>})``
holds one edge's measures for that run, linked ``(:Run)-[:HAS_RESULT]->(:EdgeResult)``. Results
are merged by key, so re-running a run never duplicates one, and each phase (before, after)
only adds its own properties: what is written is never lost. Every property written is checked
against the typed schema (``audit/results/schema.py``), its name and its value's type, before
anything is written (``checked``); reads return the schema's dataclasses.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping
from typing import Any
from datetime import datetime, timezone

from graphstore import GraphStore
from audit.results import queries as RQ
from graphstore.errors import ConfigError
from graphstore.records import validate_key
from audit.results.schema import EdgeResult, Experiment, FactResult, ResultNode, Run

RUNNING, DONE, FAILED, INTERRUPTED = "running", "done", "failed", "interrupted"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def result_key(run: str, edge: str) -> str:
    return f"{run}/{edge}"


def settings_sha256(settings: dict) -> str:
    """The identity of a run's settings: a run resumes only under the same digest."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


# A run id names a folder of the cache (``<cache>/runs/<id>``): one path component, no separator,
# not '.' or '..', short enough for every file system.
_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")


def run_key(run_id: str | None, graph: str, label: str) -> str:
    """The run's key: the id given, or ``<graph>-<label>-<UTC time>``; validated.

    Raises:
        ConfigError: an id that is not a safe folder name (it would escape the cache folder).
    """
    if run_id is not None and (not isinstance(run_id, str) or not _RUN_ID_RE.match(run_id)):
        shown = run_id if len(str(run_id)) <= 60 else f"{str(run_id)[:57]}..."
        raise ConfigError(f"--run-id {shown!r}: use letters, digits, '_', '.', '-' (up to 128), starting with a "
                          "letter or digit (it names the run's folder in the cache)")
    run = run_id or f"{graph}-{label}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}"
    return validate_key(run, "run id")


def finished_run(store: GraphStore, run: str, digest: str) -> Run | None:
    """The run node when the run is complete with these settings (nothing left to do)."""
    existing = get_run(store, run)
    if existing and existing.get("status") == DONE and existing.get("settings_sha256") == digest:
        return existing
    return None


def get_run(store: GraphStore, run: str) -> Run | None:
    rows = store.read(RQ.RUN_GET, run=run)
    return Run.from_props(rows[0]["run"]) if rows else None


def require_run(store: GraphStore, run: str) -> Run:
    """The Run node's properties.

    Raises:
        ConfigError: no such run; the message names the latest runs there are.
    """
    node = get_run(store, run)
    if node is None:
        known = [r["key"] for r in store.read(RQ.RUN_LIST, graph=None)]   # oldest first
        if not known:
            listing = "(none: audit run makes one)"
        elif len(known) > 10:
            listing = f"{', '.join(known[-10:])} (the latest 10 of {len(known)}: audit runs)"
        else:
            listing = ", ".join(known)
        raise ConfigError(f"no run {run!r}; runs there: {listing}")
    return node


def start_run(store: GraphStore, run: str, props: dict) -> Run | None:
    """Create the run node, or return the existing one to resume.

    Raises ConfigError when a run with this key exists with other settings.
    """
    existing = get_run(store, run)
    if existing is None:
        props = checked(Run, run, {**props, "status": RUNNING, "started_at": now()})
        store.write(RQ.RUN_CREATE, run=run, props=props)
        return None
    if existing.get("settings_sha256") != props["settings_sha256"]:
        raise ConfigError(f"run {run!r} already exists with other settings (graph, selection, method, model "
                          "or hyperparameters differ); choose another --run-id, or `audit runs --delete "
                          f"{run}` to discard it")
    update_run(store, run, status=RUNNING, resumed_at=now())
    return existing


def update_run(store: GraphStore, run: str, **props) -> None:
    store.write(RQ.RUN_UPDATE, run=run, props=checked(Run, run, props))


def write_results(store: GraphStore, run: str, rows: list[dict]) -> None:
    """Merge ``rows`` (``{edge, ...props}``) as the run's EdgeResults, in one transaction (every
    row checked before any is written)."""
    payload = [{"key": (key := result_key(run, r["edge"])), "props": checked(EdgeResult, key, {"run": run, **r})}
               for r in rows]
    with store.transaction() as tx:
        tx.write_rows(RQ.RESULTS_MERGE, payload, run=run)


def read_results(store: GraphStore, run: str) -> list[EdgeResult]:
    return [EdgeResult.from_props(r["result"]) for r in store.read(RQ.RESULTS_FOR_RUN, run=run)]


def fact_result_key(run: str, subject: str, property: str) -> str:
    return f"{run}/{subject}/{property}"


def write_fact_results(store: GraphStore, run: str, rows: list[dict]) -> None:
    """Merge ``rows`` (``{subject, property, subject_key, ...props}``) as the run's FactResults,
    each linked to its subject entity, in one transaction (every row checked before any is written)."""
    payload = [{"key": (key := fact_result_key(run, r["subject"], r["property"])), "subject_key": r["subject_key"],
                "props": checked(FactResult, key, {"run": run, **r})} for r in rows]
    with store.transaction() as tx:
        tx.write_rows(RQ.FACT_RESULTS_MERGE, payload, run=run)


def read_fact_results(store: GraphStore, run: str) -> list[FactResult]:
    return [FactResult.from_props(r["result"]) for r in store.read(RQ.FACT_RESULTS_FOR_RUN, run=run)]


def delete_run(store: GraphStore, run: str) -> int:
    """Remove a run and its results; returns the number of results removed."""
    graph = require_run(store, run).get("graph")
    n = len(read_results(store, run)) + len(read_fact_results(store, run))
    with store.transaction() as tx:
        if graph:
            tx.run(RQ.LEAKAGE_DELETE, graph=graph, run=run)
        tx.run(RQ.RESULTS_DELETE, run=run)
        tx.run(RQ.FACT_RESULTS_DELETE, run=run)
        tx.run(RQ.RUN_DELETE, run=run)
    return n


def json_value(value: Any) -> Any:
    """A JSON-typed property as it was written: stored as text (``storable``), read back as an
    object; a value already an object (a summary not yet stored) as it is."""
    return json.loads(value) if isinstance(value, str) else value


def plain(node: ResultNode) -> dict:
    """Every property of a result node as plain values, by name: the undeclared ones too (written
    by another version), JSON-typed ones (stored as text) as objects."""
    out = {**node.extra, **node.props()}
    for name, value in out.items():
        prop = node.DECLARED.get(name)
        if prop is not None and prop.type == "json" and isinstance(value, str):
            try:
                out[name] = json_value(value)
            except ValueError:
                pass   # plain text written by an older version: kept as it is
    return dict(sorted(out.items()))


def checked(node: type[ResultNode], key: str, props: Mapping) -> dict:
    """``props`` of the node ``key`` as they are stored, once checked against the schema: every
    result property is written through here.

    Raises:
        KeyError: a name the schema does not declare for the node.
        ConfigError: a value not of its declared type (None, which removes a property, always is);
            the message names the node, the property and the type.
    """
    node.check(props)
    for name, value in props.items():
        prop = node.DECLARED[name]
        if not prop.admits(value):
            shown = repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."
            raise ConfigError(f"{node.LABEL} {key!r}: property {name!r} is declared {prop.type}, got "
                              f"{type(value).__name__} {shown} (audit/results/schema.py)")
    return {k: storable(v) for k, v in props.items()}


def storable(value):
    """Property values Neo4j accepts: scalars and homogeneous lists; anything else as JSON text."""
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return json.dumps(value, default=str)
    return value


def get_experiment(store: GraphStore, name: str) -> Experiment | None:
    rows = store.read(RQ.EXPERIMENT_GET, experiment=name)
    return Experiment.from_props(rows[0]["experiment"]) if rows else None


def update_experiment(store: GraphStore, name: str, **props) -> None:
    """Create or update the Experiment node (properties checked against the schema)."""
    store.write(RQ.EXPERIMENT_MERGE, experiment=name, props=checked(Experiment, name, props))


def experiment_runs(store: GraphStore, name: str) -> list[dict]:
    """The experiment's runs: ``run``, ``role`` (cell or lr-protocol), ``cell`` (its group), ``props``."""
    return [dict(r) for r in store.read(RQ.EXPERIMENT_RUNS, experiment=name)]
