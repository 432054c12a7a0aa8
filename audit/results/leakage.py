"""A run's leakage read from the store, and written back for Neo4j Browser: the statuses of
``audit/measure/leakage.py`` for every EdgeResult of a run, with its entities' names.
"""

from __future__ import annotations

from audit.measure.leakage import EdgeLeakage, LeakageThresholds, RunLeakage, borderline, classify
from audit.results import repository as R
from graphstore import GraphStore
from audit.results import queries as RQ
from graphstore import queries as Q
from graphstore.errors import ConfigError


def run_leakage(store: GraphStore, run: str, thresholds: LeakageThresholds | None = None) -> RunLeakage:
    """Every edge result of ``run`` with its names, score and status.

    Raises:
        ConfigError: no such run, or a run with no edge results (a memorization run).
    """
    thresholds = thresholds or LeakageThresholds()
    node = R.require_run(store, run)
    results = R.read_results(store, run)
    if not results:
        raise ConfigError(f"run {run!r} has no per-edge results (status {node.get('status')!r}"
                          f"{', a memorization run' if node.get('kind') == 'memorization' else ''})")
    names = entity_names(store, node["graph"])
    edges = []
    for r in results:
        score, status = classify(r, thresholds)
        edges.append(EdgeLeakage(
            r["edge"], r["head_key"], r["tail_key"], names.get(r["head_key"], r["head_key"]),
            names.get(r["tail_key"], r["tail_key"]), r.get("role", "retain"), r.get("domain", ""),
            int(r.get("edge_degree") or 0), int(r.get("component") if r.get("component") is not None else -1),
            float(r.get("component_density") or 0.0), r.get("rouge1_before"),
            r.get("rouge1_after", r.get("retained_rouge1_after")), score, status,
            r.get("deviation_score") if r.get("role") == "forget" else None,
            borderline(r.get("role", "retain"), score, thresholds)))
    edges.sort(key=lambda e: (e.role != "forget", e.edge))
    return RunLeakage(node, edges, thresholds, results)


def entity_names(store: GraphStore, graph: str) -> dict[str, str]:
    row = store.read(Q.ENTITY_NAMES, graph=graph)[0]
    return dict(zip(row["keys"], row["names"]))


def write_browser_leakage(store: GraphStore, run: str, thresholds: LeakageThresholds | None = None) -> RunLeakage:
    """(Re)write the run's leakage relationships for Neo4j Browser, in one transaction: for every
    measured edge that is not simply kept, ``(head)-[:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED
    {run, edge, score, caption, rouge1_before, rouge1_after}]->(tail)``. Returns the run's leakage.
    The thresholds used are recorded on the run (``leakage_thresholds``)."""
    leakage = run_leakage(store, run, thresholds)
    graph = leakage.run["graph"]
    by_status: dict[str, list[dict]] = {s: [] for s in RQ.LEAKAGE_TYPES}
    for e in leakage.edges:
        if e.status in by_status:
            by_status[e.status].append({
                "head": e.head_key, "tail": e.tail_key, "edge": e.edge, "role": e.role, "status": e.status,
                "score": round(e.score, 4), "caption": f"{'-' if e.status == 'damaged' else ''}{e.score:.2f}",
                "measures": {k: v for k, v in (("rouge1_before", e.rouge1_before), ("rouge1_after", e.rouge1_after))
                             if v is not None}})
    with store.transaction() as tx:
        tx.run(RQ.LEAKAGE_DELETE, graph=graph, run=run)
        for status, rows in by_status.items():
            if rows:
                tx.write_rows(RQ.leakage_create(status), rows, run=run)
    R.update_run(store, run, leakage_thresholds=leakage.thresholds.as_dict())
    return leakage
