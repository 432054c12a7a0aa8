"""The groups of edges a masked injection trains into their own weights (LACUNA's masked
continual pretraining, docs/localization.md), chosen from the graph.

``forget`` is LACUNA's setting: the forget set in one group (0), every other edge in another (1).
The graph offers finer ones none of the papers has: one group per connected ``component``, per
head ``entity`` or per ``edge``. Group ids are numbered in the order of their names (sorted), so
that the same graph and choice give the same ids on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.run.qa import neighbourhood
from audit.types import Edge

FORGET, REST = 0, 1


@dataclass(frozen=True)
class EdgeGroups:
    """Which group each edge is in, by ``by`` (``forget``, ``component``, ``entity``, ``edge``)."""
    by: str
    names: tuple[str, ...]        # group id -> its name (the component index, entity key or edge key)
    of_edge: dict[str, int]       # edge key -> group id

    @property
    def count(self) -> int:
        return len(self.names)

    def of(self, edges: list[str]) -> set[int]:
        return {self.of_edge[k] for k in edges}

    def record(self) -> dict:
        """The groups as written on the Run (``mask_groups``): how they were chosen and each one's edges."""
        members: dict[str, list[str]] = {name: [] for name in self.names}
        for edge, group in sorted(self.of_edge.items()):
            members[self.names[group]].append(edge)
        return {"by": self.by, "groups": members}

    def neighbours(self, edges: dict[str, Edge], forget: list[str]) -> dict[str, set[int]]:
        """The groups holding the forget edges' graph neighbours (edges sharing an entity with one),
        the forget edges' own groups left out: by group name, each a set of one id."""
        own = self.of(forget)
        near = {self.of_edge[k] for k in neighbourhood(edges, forget)} - own
        return {self.names[g]: {g} for g in sorted(near)}


def edge_groups(edges: dict[str, Edge], forget: list[str], by: str) -> EdgeGroups:
    """The groups of ``edges`` chosen ``by`` (``InjectionConfig.mask_groups``)."""
    if by == "forget":
        forget_set = set(forget)
        return EdgeGroups(by, ("forget", "rest"), {k: FORGET if k in forget_set else REST for k in edges})
    name_of = {"component": lambda e: str(e.component), "entity": lambda e: e.head_key,
               "edge": lambda e: e.key}[by]
    names = tuple(sorted({name_of(e) for e in edges.values()}, key=_natural))
    index = {name: i for i, name in enumerate(names)}
    return EdgeGroups(by, names, {k: index[name_of(e)] for k, e in edges.items()})


def _natural(name: str) -> tuple:
    """Component indices in numeric order ('2' before '10'); keys as text."""
    return (0, int(name), "") if name.isdigit() else (1, 0, name)
