"""Coverage of a QA benchmark against a forget graph.

An edge is covered when both of its entities occur in some question or answer of the
benchmark (one QA pair may name one and another pair the other: the benchmark tests what
it mentions). Names are compared in ``normalize_name`` form, as whole words.
"""

from __future__ import annotations

from dataclasses import dataclass

from extract.text.normalize import NameIndex


@dataclass(frozen=True)
class Coverage:
    qa_pairs: int
    edges: int
    covered: int
    audit_edges: int      # after redundancy removal
    audit_covered: int

    @property
    def share(self) -> float:
        return self.covered / self.edges if self.edges else 0.0

    @property
    def audit_share(self) -> float:
        return self.audit_covered / self.audit_edges if self.audit_edges else 0.0


def coverage(texts: list[str], edges: list[dict]) -> Coverage:
    """``texts``: each QA pair's question and answer, joined.
    ``edges``: rows with ``head``, ``tail`` (normalized names) and ``redundant``."""
    index = NameIndex({e["head"] for e in edges} | {e["tail"] for e in edges})
    found = set().union(*(index.find(t) for t in texts))
    covered = [e for e in edges if e["head"] in found and e["tail"] in found]
    kept = [e for e in edges if not e["redundant"]]
    return Coverage(len(texts), len(edges), len(covered), len(kept),
                    sum(1 for e in covered if not e["redundant"]))
