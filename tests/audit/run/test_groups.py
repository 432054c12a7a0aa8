"""The groups of a masked injection, chosen from the graph: written out by hand for a small graph."""

from __future__ import annotations

from audit.run.groups import edge_groups
from audit.types import Edge


def edge(key: str, head: str, tail: str, component: int) -> Edge:
    return Edge(key, head, tail, "sales", 1, component, 1.0, ())


# a-b, a-c, b-c in component 0; d-e in component 10 (numeric order: 0 before 10)
EDGES = {e.key: e for e in (edge("g/ab", "g/a", "g/b", 0), edge("g/ac", "g/a", "g/c", 0), edge("g/bc", "g/b", "g/c", 0),
                            edge("g/de", "g/d", "g/e", 10))}


def test_the_forget_set_and_the_rest():
    groups = edge_groups(EDGES, ["g/ab"], "forget")
    assert groups.names == ("forget", "rest") and groups.of_edge == {"g/ab": 0, "g/ac": 1, "g/bc": 1, "g/de": 1}
    assert groups.record() == {"by": "forget", "groups": {"forget": ["g/ab"], "rest": ["g/ac", "g/bc", "g/de"]}}
    assert groups.neighbours(EDGES, ["g/ab"]) == {"rest": {1}}


def test_components_in_numeric_order_entities_and_edges():
    by_component = edge_groups(EDGES, ["g/ab"], "component")
    assert by_component.names == ("0", "10") and by_component.of_edge["g/de"] == 1
    assert by_component.neighbours(EDGES, ["g/ab"]) == {}   # a component holds all of an edge's neighbours
    by_entity = edge_groups(EDGES, ["g/ab"], "entity")     # the head entity
    assert by_entity.names == ("g/a", "g/b", "g/d")
    assert by_entity.of_edge == {"g/ab": 0, "g/ac": 0, "g/bc": 1, "g/de": 2}
    assert by_entity.neighbours(EDGES, ["g/ab"]) == {"g/b": {1}}   # b-c shares b; a-c is in a-b's own group
    by_edge = edge_groups(EDGES, ["g/ab"], "edge")
    assert by_edge.count == 4 and by_edge.of(["g/ab", "g/de"]) == {0, 3}
    assert by_edge.neighbours(EDGES, ["g/ab"]) == {"g/ac": {1}, "g/bc": {2}}
