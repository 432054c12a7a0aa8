"""Coverage of a QA benchmark against a forget graph.

An edge is covered when both of its entities occur in some question or answer of the
benchmark (one QA pair may name one and another pair the other: the benchmark tests what
it mentions). Names are compared in ``normalize_name`` form, as whole words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphstore.errors import InputDataError

from extract.jsonfile import read_json
from extract.normalize import NameIndex


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


def read_qa_texts(path: Path) -> list[str]:
    """The questions and answers of a JSON list of ``{question, answer}``."""
    data = read_json(Path(path))
    if not isinstance(data, list) or not data:
        raise InputDataError(path, "expected a non-empty JSON list of {question, answer} objects")
    texts = []
    for i, item in enumerate(data):
        if not (isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(item.get("answer"), str)):
            raise InputDataError(path, "each item needs a string 'question' and 'answer'", record=i)
        texts.append(item["question"] + " " + item["answer"])
    return texts


def coverage(texts: list[str], edges: list[dict]) -> Coverage:
    """``edges``: rows with ``head``, ``tail`` (normalized names) and ``redundant``."""
    index = NameIndex({e["head"] for e in edges} | {e["tail"] for e in edges})
    found = set().union(*(index.find(t) for t in texts))
    covered = [e for e in edges if e["head"] in found and e["tail"] in found]
    kept = [e for e in edges if not e["redundant"]]
    return Coverage(len(texts), len(edges), len(covered), len(kept),
                    sum(1 for e in covered if not e["redundant"]))
