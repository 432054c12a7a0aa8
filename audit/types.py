"""The types every part of ``audit`` shares, in its lowest module: a graph's edges and their QA
pairs as the audit sees them, and the density tiers of ``--select density:TIER``. Models,
measures, results, runs, experiments and views all import them from here, so no sub-package
reaches up into another for a type (``tests/test_layout.py`` checks the order).
"""

from __future__ import annotations

from dataclasses import dataclass

UTILITY_EDGE = "(utility)"
DENSITY_TIERS = ("sparse", "mid", "dense")
DENSITY_LOW, DENSITY_HIGH = 1 / 3, 2 / 3


@dataclass(frozen=True)
class QAExample:
    """One question with its ground-truth answer, and the edge it tests."""
    edge: str          # edge key, or UTILITY_EDGE for a question outside the graph
    index: int         # position of the pair on its edge
    question: str
    answer: str


@dataclass(frozen=True)
class Edge:
    """An edge of the graph with what the audit needs of it."""
    key: str
    head_key: str
    tail_key: str
    domain: str
    edge_degree: int
    component: int
    component_density: float
    qas: tuple[QAExample, ...]
    redundant: bool | None = None   # text graphs: the other corpus states the same fact (HANKER)


def density_tier(density: float) -> str:
    """``sparse`` (<= 1/3), ``mid`` (<= 2/3) or ``dense``, as ``--select density:TIER`` chooses."""
    if density <= DENSITY_LOW:
        return DENSITY_TIERS[0]
    return DENSITY_TIERS[1] if density <= DENSITY_HIGH else DENSITY_TIERS[2]
