"""Structure of a graph, computed in Cypher and written onto it.

- node degree: the number of facts an entity takes part in (Cypher, ``COUNT {}``);
- connected components: union-find over the edge list read by Cypher (runs on both engines;
  label propagation in Cypher would need as many passes as the longest chain), or GDS WCC
  when the Neo4j server has the Graph Data Science plugin;
- per component: nodes, edges and density ``2E / (V(V-1))`` (Cypher);
- per edge: edge degree ``deg(u) + deg(v) - 1`` (PISTOL), its component and that
  component's density (Cypher).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphstore import queries as Q


@dataclass(frozen=True)
class StructureSummary:
    graph: str
    components: int
    method: str  # "union-find" or "gds-wcc"


def connected_components(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Label every node with its component; 0 is the largest, ties broken by smallest key.

    The numbering depends only on the graph, so it is the same on every engine and every run.
    """
    parent = {n: n for n in nodes}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[max(ru, rv)] = min(ru, rv)
    members: dict[str, list[str]] = {}
    for n in nodes:
        members.setdefault(find(n), []).append(n)
    return _number_components(members.values())


def _number_components(groups) -> dict[str, int]:
    """0 = the largest group, ties by smallest key: the same numbering whoever found them."""
    ordered = sorted(groups, key=lambda m: (-len(m), min(m)))
    return {n: index for index, group in enumerate(ordered) for n in group}


def _components_from_gds(tx, graph: str) -> dict[str, int]:
    projection = f"audit-wcc-{graph}"
    tx.run(Q.GDS_PROJECT, graph=graph, projection=projection)
    try:
        rows = tx.run(Q.GDS_WCC_STREAM, projection=projection)
    finally:
        tx.run(Q.GDS_DROP, projection=projection)
    groups: dict[int, list[str]] = {}
    for row in rows:
        groups.setdefault(row["component"], []).append(row["key"])
    return _number_components(groups.values())  # GDS's own ids are arbitrary


def compute_structure(tx, graph: str, use_gds: bool = False) -> StructureSummary:
    """Recompute degrees, components and densities of ``graph`` inside transaction ``tx``."""
    tx.run(Q.NODE_DEGREE_SET, graph=graph)
    if use_gds:
        component_of, method = _components_from_gds(tx, graph), "gds-wcc"
    else:
        nodes = tx.run(Q.ENTITY_KEYS, graph=graph)[0]["keys"]
        edge_list = tx.run(Q.EDGE_LIST, graph=graph)[0]
        edges = list(zip(edge_list["heads"], edge_list["tails"]))
        component_of, method = connected_components(nodes, edges), "union-find"
    rows = [{"key": key, "component": index} for key, index in component_of.items()]
    tx.write_rows(Q.ENTITY_COMPONENT_SET, rows, batch_rows=10000)
    tx.run(Q.COMPONENTS_DELETE, graph=graph)
    created = tx.run(Q.COMPONENTS_CREATE, graph=graph)
    count = created[0]["components"] if created else 0
    tx.run(Q.EDGE_STRUCTURE_SET, graph=graph)
    tx.run(Q.GRAPH_STRUCTURE_SET, graph=graph, components=count)
    return StructureSummary(graph=graph, components=count, method=method)
