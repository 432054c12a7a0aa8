"""QA pairs as the audit sees them: per edge, per role, and the sets outside the graph.

The types are in ``audit/types.py``; nothing here talks to a model. ``load_graph_edges`` is the
one read of the graph an audit needs (every edge with its QA pairs and structure).
"""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

from audit.types import UTILITY_EDGE, Edge, QAExample
from extract.jsonfile import json_line_error, read_json
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError, InputDataError

def load_graph_edges(store: GraphStore, graph: str) -> dict[str, Edge]:
    """Every edge of ``graph`` with its QA pairs, keyed by edge key (sorted)."""
    edges = {}
    for row in store.read(Q.AUDIT_EDGES, graph=graph):
        qas = tuple(QAExample(row["key"], i, q, a)
                    for i, (q, a) in enumerate(zip(row["questions"], row["answers"])))
        edges[row["key"]] = Edge(row["key"], row["head_key"], row["tail_key"], row["domain"],
                                 row["edge_degree"], row["component"], row["component_density"], qas,
                                 row["redundant"])
    if not edges:
        store.graph(graph)   # an unknown graph is refused naming the known ones; a known one has no edges
        raise ConfigError(f"graph {graph!r} has no edges to audit")
    return dict(sorted(edges.items()))


def neighbourhood(edges: dict[str, Edge], forget: list[str]) -> list[str]:
    """Keys of the edges that share an entity with a forget edge (the forget edges excluded)."""
    entities = {e for k in forget for e in (edges[k].head_key, edges[k].tail_key)}
    forget_set = set(forget)
    return [k for k, e in edges.items()
            if k not in forget_set and (e.head_key in entities or e.tail_key in entities)]


def retain_edges(edges: dict[str, Edge], forget: list[str], scope: str, seed: int) -> list[str]:
    """The edges whose QA pairs form the training retain set.

    ``scope``: ``all`` (every other edge), ``neighbours`` (edges sharing an entity with a forget
    edge) or ``sample:N`` (N other edges drawn with ``seed``).
    """
    forget_set = set(forget)
    others = [k for k in edges if k not in forget_set]
    if scope == "all":
        return others
    if scope == "neighbours":
        return neighbourhood(edges, forget)
    if scope.startswith("sample:"):
        try:
            n = int(scope.split(":", 1)[1])
        except ValueError:
            n = -1
        if n < 1:
            raise ConfigError(f"--retain {scope!r}: the sample size must be a positive whole number, e.g. sample:10")
        return sorted(random.Random(seed).sample(others, min(n, len(others))))
    raise ConfigError(f"--retain {scope!r} is not known; valid: all, neighbours, sample:N")


def load_utility(path: str | Path) -> list[QAExample]:
    """General questions outside the graph: a JSON list of ``{question, answer}``
    (e.g. PISTOL's ``factual_data.json``)."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list) or not data:
        raise InputDataError(path, "expected a non-empty JSON list of {question, answer} objects")
    out = []
    for i, item in enumerate(data):
        if not (isinstance(item, dict) and isinstance(item.get("question"), str)
                and isinstance(item.get("answer"), str) and item["question"].strip() and item["answer"].strip()):
            raise InputDataError(path, "each item needs a non-empty string 'question' and 'answer'", record=i)
        out.append(QAExample(UTILITY_EDGE, i, item["question"], item["answer"]))
    return out


def load_refusals(path: str | Path | None = None) -> tuple[str, list[str]]:
    """Refusal answers for DPO: the shipped ``refusals.v1`` set, or a user's file.

    A user's file has one refusal per line, as plain text or as a JSON string (PISTOL's
    ``idontknow.jsonl`` is plain text); blank lines are skipped.
    Returns (version, refusals); a user file's version is ``file:<name>``.
    """
    if path is None:
        data = json.loads(resources.files("audit").joinpath("data/refusals.v1.json").read_text("utf-8"))
        return data["version"], list(data["refusals"])
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputDataError(path, "no such file") from None
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text: {e}") from e
    refusals = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        if text.startswith('"'):
            try:
                text = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputDataError(path, f"line {number} starts like a JSON string but is not one: {json_line_error(e)}") from e
            if not isinstance(text, str) or not text.strip():
                raise InputDataError(path, f"line {number} is an empty JSON string")
        refusals.append(text)
    if not refusals:
        raise InputDataError(path, "no refusal sentences in the file (one per line)")
    return f"file:{path.name}", refusals
