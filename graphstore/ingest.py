"""Write a validated ``GraphRecord`` into the store: whole, or not at all.

A graph (one source file) is written in a single transaction together with its structure
(degrees, components, densities), so a failure at any point leaves the database exactly as
it was. Loading the same file again is recognised by its SHA-256 and changes nothing; a
different file under a name already taken is refused unless ``replace`` is asked for.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import time
from dataclasses import dataclass
from typing import Callable

from graphstore import queries as Q
from graphstore.errors import InputDataError, QueryError, StoreError
from graphstore.records import GraphRecord
from graphstore.store import DEFAULT_BATCH_ROWS, GraphStore
from graphstore.structure import StructureSummary, compute_structure

log = logging.getLogger(__name__)

FACT_BATCH_ROWS = 1000  # a fact row carries 20 attributes and 40 QA strings (~2.5 kB)


@dataclass(frozen=True)
class LoadSummary:
    graph: str
    status: str  # "loaded", "replaced", "unchanged"
    entities: int
    facts: int
    qas: int
    components: int


def entity_rows(record: GraphRecord) -> list[dict]:
    return [
        {"key": e.key, "graph": e.graph, "label": e.label, "name": e.name, "kind": e.kind,
         "props": dict(e.properties)}
        for e in record.entities
    ]


def fact_rows(record: GraphRecord) -> list[dict]:
    return [
        {"key": f.key, "graph": f.graph, "label": f.label, "relation": f.relation,
         "domain": f.domain, "split": f.split, "source": record.source,
         "head": f.head, "tail": f.tail, "attributes": dict(f.attributes),
         "questions": list(f.questions), "answers": list(f.answers),
         "qa_attributes": list(f.qa_attributes)}
        for f in record.facts
    ]


def passage_rows(record: GraphRecord) -> tuple[list[dict], list[dict]]:
    passages = [{"key": p.key, "graph": p.graph, "split": p.split, "path": p.path, "document": p.document,
                 "position": p.position, "text": p.text} for p in record.passages]
    mentions = [{"passage": p.key, "entity": e} for p in record.passages for e in p.mentions]
    return passages, mentions


def property_rows(record: GraphRecord) -> list[dict]:
    return [{"key": p.key, "graph": p.graph, "pid": p.pid, "label": p.label, "description": p.description,
             "aliases": list(p.aliases), "label_source": p.label_source} for p in record.property_records]


def check_references(record: GraphRecord) -> None:
    """Every fact's endpoints are entities of the same graph; keys are unique."""
    keys = [e.key for e in record.entities]
    if len(set(keys)) != len(keys):
        raise InputDataError(record.path, "two entities share a key")
    known = set(keys)
    seen = set()
    passages = {p.key for p in record.passages}
    if len(passages) != len(record.passages):
        raise InputDataError(record.path, "two passages share a key")
    for p in record.passages:
        for end in p.mentions:
            if end not in known:
                raise InputDataError(record.path, f"passage {p.key!r} mentions unknown entity {end!r}")
    for f in record.facts:
        if f.key in seen:
            raise InputDataError(record.path, f"fact key {f.key!r} appears twice")
        seen.add(f.key)
        for end in (f.head, f.tail):
            if end not in known:
                raise InputDataError(record.path, f"fact {f.key!r} points at unknown entity {end!r}")
        if f.head == f.tail:
            raise InputDataError(record.path, f"fact {f.key!r} joins {f.head!r} to itself")


def write_graph(store: GraphStore, record: GraphRecord, replace: bool = False,
                progress: Callable[[int], None] | None = None) -> LoadSummary:
    """Write ``record`` and recompute its structure, in one transaction.

    Args:
        replace: drop a graph of the same name that came from different content first.
        progress: called with the number of facts written after each batch.

    Raises:
        InputDataError: the graph name is taken by different content and ``replace`` is off.
        StoreError: the database failed; nothing was written.
    """
    check_references(record)
    if not record.facts:
        raise InputDataError(record.path, f"no facts were found, so graph {record.name!r} was not built"
                                          f"{' and the graph of that name was left as it was' if replace else ''}; "
                                          "nothing was written")
    store.setup_schema()
    existing = store.read(Q.GRAPH_GET, graph=record.name)
    status = "loaded"
    if existing:
        old = existing[0]
        if old["sha256"] == record.sha256:
            return LoadSummary(record.name, "unchanged", old["entities"], old["facts"], old["qas"],
                               old["components"])
        if not replace:
            raise InputDataError(
                record.path,
                f"graph {record.name!r} already holds other content (from {old['path']}); "
                "load it under another name with --graph NAME, or pass --replace")
        status = "replaced"
    props = {
        "source": record.source, "path": record.path, "sha256": record.sha256,
        "entities": len(record.entities), "facts": len(record.facts), "qas": record.qa_count,
        "loaded_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        **record.properties,
    }
    try:
        structure = _write_retrying(store, record, props, bool(existing), progress)
    except QueryError:
        # Two builds of the same content at once: the other committed the graph first, and this
        # one collided on its unique key. The graph is there, as this build would have made it.
        now = store.read(Q.GRAPH_GET, graph=record.name)
        if now and now[0]["sha256"] == record.sha256 and not existing:
            return LoadSummary(record.name, "unchanged", now[0]["entities"], now[0]["facts"], now[0]["qas"],
                               now[0]["components"])
        raise
    return LoadSummary(record.name, status, len(record.entities), len(record.facts),
                       record.qa_count, structure.components)


WRITE_ATTEMPTS = 4


def _write_retrying(store: GraphStore, record: GraphRecord, props: dict, existing: bool,
                    progress: Callable[[int], None] | None) -> StructureSummary:
    """``_write``, again when the engine says a conflict with another transaction is worth a
    retry (two large builds at once on the embedded engine: "Concurrent modification on page
    ... Please retry"); each try is the whole transaction, so nothing partial is ever seen."""
    for attempt in range(WRITE_ATTEMPTS):
        try:
            return _write(store, record, props, existing, progress)
        except StoreError as e:
            if not e.retryable or attempt == WRITE_ATTEMPTS - 1:
                raise
            log.info("graph %s: the engine asked for a retry (%s); trying again", record.name, e)
            time.sleep(0.5 * 2 ** attempt + random.random() * 0.5)
    raise AssertionError("unreachable")


def _write(store: GraphStore, record: GraphRecord, props: dict, existing: bool,
           progress: Callable[[int], None] | None) -> StructureSummary:
    """The build's one transaction: the old graph out (when replacing), the new one in, its structure."""
    with store.transaction() as tx:
        if existing:
            for statement in Q.GRAPH_DELETE:
                tx.run(statement, graph=record.name)
        tx.run(Q.GRAPH_CREATE, graph=record.name, props=props)
        tx.write_rows(Q.ENTITIES_CREATE, entity_rows(record), batch_rows=DEFAULT_BATCH_ROWS)
        tx.write_rows(Q.FACTS_CREATE, fact_rows(record), batch_rows=FACT_BATCH_ROWS, progress=progress)
        if record.passages:
            passages, mentions = passage_rows(record)
            tx.write_rows(Q.PASSAGES_CREATE, passages, batch_rows=DEFAULT_BATCH_ROWS)
            tx.write_rows(Q.MENTIONS_CREATE, mentions, batch_rows=DEFAULT_BATCH_ROWS)
        if record.property_records:
            tx.write_rows(Q.PROPERTIES_CREATE, property_rows(record), batch_rows=DEFAULT_BATCH_ROWS)
        structure: StructureSummary = compute_structure(tx, record.name, use_gds=store.has_gds)
        if record.source == "text":
            tx.run(Q.REDUNDANCY_SET, graph=record.name)
    return structure

