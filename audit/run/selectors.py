"""Choosing what to forget: named selectors, each one documented Cypher query, plus any
Cypher of the user's that returns edge keys.

A selector is written as ``NAME:ARGUMENT`` on the command line and stored that way on the run:

| spec | edges |
| --- | --- |
| ``top-degree:K`` | the K edges of highest edge degree (ties by key) |
| ``bottom-degree:K`` | the K edges of lowest edge degree |
| ``domain:D`` | every edge of domain D (``sales``, ``employment``) |
| ``density:TIER[:N]`` | N (default 1) random edges, seeded, of component-density tier ``sparse`` / ``mid`` / ``dense`` |
| ``entity:E`` | every edge touching entity E (key, label or name): a right-to-be-forgotten request |
| ``edges:K1,K2,...`` | these edge keys (``<graph>/<label>``, or the label alone) |
| ``audit-set`` | text graphs: the forget facts the retain corpus does not also state |
| ``split:S`` | every edge of split ``forget`` or ``retain`` |
| ``memorized:S1,S2[@RUN]`` | Wikidata graphs: every fact of these subjects (Q-id or name) that a memorization run found memorized; the latest finished one that measured them, or RUN |
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from audit.config import INT64_MAX
from audit.types import DENSITY_HIGH, DENSITY_LOW, DENSITY_TIERS, density_tier
from audit.measure.memorization.subjects import resolve_subjects
from graphstore import GraphStore
from audit.results import queries as RQ
from graphstore import queries as Q
from graphstore.errors import ConfigError

SELECTORS = ("top-degree", "bottom-degree", "domain", "density", "entity", "edges", "audit-set", "split", "memorized")
SPLITS = ("forget", "retain")


@dataclass(frozen=True)
class Selection:
    spec: str                 # as stored on the run: the selector spec, or "cypher"
    cypher: str | None
    edges: list[str]


def select(store: GraphStore, graph: str, known_edges: list[str], spec: str | None = None,
           cypher: str | None = None, seed: int = 0) -> Selection:
    """Run one selector and check its result.

    Raises ConfigError for an unknown selector, a bad argument, an empty selection or an edge
    key that is not in the graph; nothing has run then.
    """
    if (spec is None) == (cypher is None):
        raise ConfigError("give exactly one of --select SPEC or --cypher QUERY; "
                          f"selectors: {', '.join(s + ':...' for s in SELECTORS)}")
    if cypher is not None:
        keys = _cypher_keys(store, graph, cypher)
        label = "cypher"
    else:
        assert spec is not None   # exactly one of the two, checked above
        keys = _named(store, graph, known_edges, spec, seed)
        label = spec
    known = set(known_edges)
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ConfigError(f"{len(unknown)} selected edge key(s) are not edges of graph {graph!r}: "
                          f"{', '.join(map(str, unknown[:5]))}{' ...' if len(unknown) > 5 else ''}; "
                          f"edge keys look like {known_edges[0]!r} (audit edges --graph {graph})")
    keys = list(dict.fromkeys(keys))
    if not keys:
        raise ConfigError(f"the selection {label!r} chose no edge of graph {graph!r}; nothing was run")
    return Selection(label, cypher, keys)


def _named(store: GraphStore, graph: str, known_edges: list[str], spec: str, seed: int) -> list[str]:
    name, _, argument = spec.partition(":")
    if name not in SELECTORS:
        raise ConfigError(f"unknown selector {name!r} in --select {spec!r}; valid: "
                          f"{', '.join(SELECTORS)} (e.g. top-degree:3, density:dense:2, entity:'Jzrcws SA')")
    if name == "audit-set":
        return [r["key"] for r in store.read(Q.SELECT_AUDIT_SET, graph=graph)]
    if not argument:
        raise ConfigError(f"--select {spec!r}: {name} needs an argument, e.g. {_EXAMPLES[name]}")
    if name == "split":
        if argument not in SPLITS:
            raise ConfigError(f"--select {spec!r}: unknown split {argument!r}; valid: {', '.join(SPLITS)}")
        return [r["key"] for r in store.read(Q.SELECT_SPLIT, graph=graph, split=argument)]
    if name == "memorized":
        return _memorized(store, graph, spec, argument)
    if name in ("top-degree", "bottom-degree"):
        k = _count(spec, argument)
        query = Q.SELECT_TOP_DEGREE if name == "top-degree" else Q.SELECT_BOTTOM_DEGREE
        return [r["key"] for r in store.read(query, graph=graph, k=k)]
    if name == "domain":
        keys = [r["key"] for r in store.read(Q.SELECT_DOMAIN, graph=graph, domain=argument)]
        if not keys:
            domains = _edges_by(store, graph, "domain")
            raise ConfigError(f"--select {spec!r}: graph {graph!r} has no edge of domain {argument!r}; its domains: "
                              + _counted({d: domains[d] for d in sorted(domains, key=str)}))
        return keys
    if name == "density":
        tier, _, count = argument.partition(":")
        if tier not in DENSITY_TIERS:
            raise ConfigError(f"--select {spec!r}: unknown density tier {tier!r}; valid: {', '.join(DENSITY_TIERS)}")
        n = _count(spec, count) if count else 1
        candidates = [r["key"] for r in store.read(Q.SELECT_DENSITY_TIER, graph=graph, tier=tier,
                                                   low=DENSITY_LOW, high=DENSITY_HIGH)]
        if not candidates:
            raise ConfigError(f"--select {spec!r}: graph {graph!r} has no edge in density tier {tier!r}; "
                              + _tiers_of(store, graph, n))
        return sorted(random.Random(seed).sample(candidates, min(n, len(candidates))))
    if name == "entity":
        found = store.read(Q.ENTITY_FIND, graph=graph, entity=argument)
        if not found:
            raise ConfigError(f"--select {spec!r}: no entity of graph {graph!r} has key, label or name {argument!r}")
        if len(found) > 1:
            raise ConfigError(f"--select {spec!r}: {argument!r} names {len(found)} entities "
                              f"({', '.join(r['key'] for r in found)}); give the entity key instead")
        return [r["key"] for r in store.read(Q.SELECT_ENTITY, entity=found[0]["key"])]
    # edges: full keys, or labels within the graph
    keys = [k.strip() for k in argument.split(",") if k.strip()]
    known = set(known_edges)
    return [k if k in known or "/" in k else f"{graph}/{k}" for k in keys]


def _tiers_of(store: GraphStore, graph: str, n: int) -> str:
    """The graph's density tiers with their edge counts, and a selector that chooses from the
    largest: ``its tiers (...): sparse 0, mid 13, dense 0 edge(s); e.g. --select density:mid:2``."""
    counts = _edges_by(store, graph, "component_density", density_tier)
    tiers = {t: counts.get(t, 0) for t in DENSITY_TIERS}
    largest = max(DENSITY_TIERS, key=tiers.__getitem__)
    return ("its tiers (component density: sparse <= 1/3 < mid <= 2/3 < dense): " + _counted(tiers)
            + (f"; e.g. --select density:{largest}:{min(n, tiers[largest])}" if tiers[largest] else ""))


def _edges_by(store: GraphStore, graph: str, field: str, group=lambda value: value) -> dict:
    """How many edges of the graph have each value of ``field`` (grouped by ``group``): what a
    selector that chose nothing could have chosen. Read only when one did."""
    counts: dict = {}
    for row in store.read(Q.AUDIT_EDGES, graph=graph):
        value = group(row[field]) if row[field] is not None else None
        counts[value] = counts.get(value, 0) + 1
    return counts


def _counted(counts: dict) -> str:
    """``sparse 0, mid 13, dense 0 edge(s)``; ``no edge`` for an empty graph."""
    if not counts:
        return "no edge"
    return ", ".join(f"{'none' if k is None else k} {n}" for k, n in counts.items()) + " edge(s)"


_EXAMPLES = {"top-degree": "top-degree:3", "bottom-degree": "bottom-degree:3", "domain": "domain:sales",
             "density": "density:dense:2", "entity": "entity:'Jzrcws SA'", "edges": "edges:A_B,A_C",
             "split": "split:forget", "memorized": "memorized:Q42 or memorized:Q42@people-mem"}


def _memorized(store: GraphStore, graph: str, spec: str, argument: str) -> list[str]:
    """Right to be forgotten: the memorized facts of the subjects named, from a memorization run."""
    names, _, run = argument.partition("@")
    qids = resolve_subjects(store, graph, [n.strip() for n in names.split(",") if n.strip()])
    if not run:
        found = store.read(RQ.LATEST_MEMORIZATION_RUN, graph=graph, subjects=qids)
        if not found:
            raise ConfigError(f"--select {spec!r}: no finished memorization run of graph {graph!r} measured "
                              f"{', '.join(qids)}; run audit memorization --graph {graph} --subject {qids[0]} --model ... first")
        run = found[0]["key"]
    elif not store.read(RQ.RUN_GET, run=run):
        raise ConfigError(f"--select {spec!r}: no run {run!r}; `audit runs --graph {graph}` lists them")
    keys = [r["key"] for r in store.read(RQ.SELECT_MEMORIZED, run=run, subjects=qids)]
    if not keys:
        raise ConfigError(f"--select {spec!r}: memorization run {run} found no memorized fact of "
                          f"{', '.join(qids)}; there is nothing to forget")
    return keys


def _count(spec: str, text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= INT64_MAX:   # a count past 64 bits cannot be sent as a query parameter
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise ConfigError(f"--select {spec if len(spec) <= 40 else spec[:37] + '...'!r}: {shown!r} is not a positive "
                          "whole number of at most 64 bits")
    return n


def _cypher_keys(store: GraphStore, graph: str, cypher: str) -> list[str]:
    result = store.run_query(cypher, {"graph": graph})
    if "key" not in result.columns:
        raise ConfigError(f"--cypher must return a column named key (edge keys); it returned "
                          f"{', '.join(result.columns) or 'no columns'}. $graph is set to {graph!r}")
    i = result.columns.index("key")
    return [row[i] for row in result.rows]
