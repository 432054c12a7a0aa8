"""The subjects of a Wikidata graph as the memorization measure sees them, and which facts to measure."""

from __future__ import annotations

from audit.measure.memorization.canaries import Subject, subjects_from_rows
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError


def load_subjects(store: GraphStore, graph: str, info: dict | None = None) -> dict[str, Subject]:
    """Every subject of a Wikidata graph with its facts (values grouped by property).
    ``info``: the graph's node when the caller has read it (``GraphStore.graph``)."""
    info = info or store.graph(graph)
    if info["source"] != "wikidata":
        raise ConfigError(f"graph {graph!r} was built from {info['source']} data; the memorization measure "
                          "needs a Wikidata graph (audit build --wikidata FILE)")
    return subjects_from_rows(store.read(Q.WIKIDATA_FACTS, graph=graph))


def resolve_subjects(store: GraphStore, graph: str, names: list[str]) -> list[str]:
    """Q-ids for subjects given by Q-id, entity key or name; an unknown or ambiguous one is refused."""
    out = []
    for name in names:
        found = store.read(Q.SUBJECT_FIND, graph=graph, subject=name)
        if not found:
            raise ConfigError(f"no subject of graph {graph!r} has Q-id, key or name {name!r} "
                              "(audit query \"MATCH (s:Entity {graph: $g})-[:FACT]->() RETURN DISTINCT s.label, s.name\")")
        if len(found) > 1:
            raise ConfigError(f"{name!r} names {len(found)} subjects ({', '.join(r['qid'] for r in found)}); "
                              "give the Q-id instead")
        out.append(found[0]["qid"])
    return list(dict.fromkeys(out))


def targets_for(subjects: dict[str, Subject], qids: list[str], properties: list[str]) -> list[tuple[str, str]]:
    """(qid, pid) of every fact of ``qids`` (of ``properties`` when given), in a fixed order."""
    out = [(q, p) for q in qids for p in sorted(subjects[q].facts) if not properties or p in properties]
    if not out:
        raise ConfigError(f"no fact to measure for {', '.join(qids)}"
                          + (f" with properties {', '.join(properties)}" if properties else ""))
    return out
