"""Graph topologies for synthetic PISTOL datasets, as edge lists of node-id strings.

Every family returns ``[(u, v), ...]``: node ids are the decimal strings ``"0".."n-1"``,
``u != v``, no pair appears twice (in either orientation), and the order is fixed by the
arguments alone, so the same ``(family, nodes, seed, p, m)`` always gives the same list.
Randomised families draw from their own ``random.Random(seed)``, never the global one.

Nodes that end up with no edge (possible in ``erdos_renyi``) do not appear in the list:
a PISTOL dataset only knows the nodes its contracts mention.

Example::

    >>> build_topology("star", 4)
    [('0', '1'), ('0', '2'), ('0', '3')]
"""

from __future__ import annotations

import math
import random
import re
from itertools import combinations
from pathlib import Path
from typing import Callable

from extract.jsonfile import read_utf8
from graphstore.errors import ConfigError, InputDataError

Edge = tuple[str, str]

# An edge line holds two ids separated by a comma and/or whitespace.
_FIELD_SEPARATOR = re.compile(r"\s*,\s*|\s+")


# A bound on what is generated in memory (each edge becomes a contract of 20 QA pairs, ~2 kB):
# 10 M edges is ~20 GB of records, past what a 24 GB machine builds.
MAX_NODES = 5_000_000
MAX_EDGES = 10_000_000


def _check_nodes(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ConfigError(f"the number of nodes must be a whole number, got {n!r}")
    if n < 2:
        raise ConfigError(f"the number of nodes must be at least 2 (one edge needs two ends), got {n}")
    if n > MAX_NODES:
        shown = f"{n:,}" if n < 10**30 else f"a {len(str(n))}-digit number"
        raise ConfigError(f"the number of nodes must be at most {MAX_NODES:,} (a bound on memory), got {shown}")
    return n


def _check_edge_count(expected: float, family: str) -> None:
    if expected > MAX_EDGES:
        raise ConfigError(f"a {family} graph of this size has about {expected:,.0f} edges; at most {MAX_EDGES:,} "
                          "are generated (a bound on memory)")


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"the seed must be a whole number, got {seed!r}")
    return seed


def chain(n: int) -> list[Edge]:
    """The path 0-1-2-...-(n-1): ``n - 1`` edges."""
    n = _check_nodes(n)
    return [(str(i), str(i + 1)) for i in range(n - 1)]


def star(n: int) -> list[Edge]:
    """Node ``"0"`` joined to each of the other ``n - 1`` nodes."""
    n = _check_nodes(n)
    return [("0", str(i)) for i in range(1, n)]


def complete(n: int) -> list[Edge]:
    """Every pair once: ``n(n-1)/2`` edges, in lexicographic order of (u, v) as integers."""
    n = _check_nodes(n)
    _check_edge_count(n * (n - 1) / 2, "complete")
    return [(str(u), str(v)) for u, v in combinations(range(n), 2)]


def erdos_renyi(n: int, p: float, seed: int = 0) -> list[Edge]:
    """G(n, p): each of the ``n(n-1)/2`` pairs is an edge independently with probability ``p``.

    Runs in O(n + edges), not O(n^2): instead of a coin per pair it draws the length of the
    gap to the next edge, which is geometric with parameter p (Batagelj & Brandes 2005,
    "Efficient generation of large random networks", Phys. Rev. E 71, 036113, algorithm
    G(n,p)). Pairs are visited as (w, v) with w < v, row v by row v; edges come out in
    that order as ``(str(w), str(v))``.

    Raises:
        ConfigError: n < 2, or p not a number in [0, 1].
    """
    n = _check_nodes(n)
    seed = _check_seed(seed)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ConfigError(f"the edge probability p must be a number in [0, 1], got {p!r}")
    if p == 0:
        return []
    if p == 1:
        return complete(n)
    rng = random.Random(seed)
    log_q = math.log1p(-p)  # log(1-p), accurate for tiny p
    edges: list[Edge] = []
    v, w = 1, -1
    while v < n:
        # Skip a geometric number of pairs: floor(log(1-r) / log(1-p)) non-edges, then one edge.
        w += 1 + int(math.log(1.0 - rng.random()) / log_q)
        while w >= v and v < n:
            w -= v
            v += 1
        if v < n:
            edges.append((str(w), str(v)))
    return edges


def barabasi_albert(n: int, m: int, seed: int = 0) -> list[Edge]:
    """Preferential attachment: each new node joins ``m`` distinct existing nodes.

    Our variant: the seed graph is the complete graph on nodes ``0..m`` (so every seed node
    starts with degree m and the first newcomer can find m distinct targets); then nodes
    ``m+1..n-1`` arrive one at a time and pick m distinct targets with probability
    proportional to degree. Degree-proportional sampling draws uniformly from a list in
    which every node appears once per edge end it has, so one arrival costs O(m) and the
    whole graph O(n*m). Edge count: ``m(m+1)/2 + (n-m-1)*m``; with m = 1 it is a tree.
    Edges come out as the seed clique, then ``(target, newcomer)`` in draw order.

    Raises:
        ConfigError: n < 2, m < 1, or m >= n.
    """
    n = _check_nodes(n)
    seed = _check_seed(seed)
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ConfigError(f"m (edges per new node) must be a whole number >= 1, got {m!r}")
    if m >= n:
        raise ConfigError(f"m (edges per new node) must be smaller than the number of nodes {n}, got {m}")
    rng = random.Random(seed)
    edges = [(str(u), str(v)) for u, v in combinations(range(m + 1), 2)]
    # Each node appears here once for every edge end it holds.
    ends: list[int] = [u for u in range(m + 1) for _ in range(m)]
    for new in range(m + 1, n):
        targets: list[int] = []
        chosen: set[int] = set()
        while len(targets) < m:
            t = ends[rng.randrange(len(ends))]
            if t not in chosen:
                chosen.add(t)
                targets.append(t)
        for t in targets:
            edges.append((str(t), str(new)))
            ends.append(t)
        ends.extend([new] * m)
    return edges


def from_edge_list(path: str | Path) -> list[Edge]:
    """Read a graph from a text file: one edge ``U V`` (or ``U,V``) per line.

    Text after ``#`` and blank lines are ignored. Ids are kept as written (strings).

    Raises:
        InputDataError: the file cannot be read, is not UTF-8, or a line is not two ids, an
            id contains ``_`` (PISTOL edge labels are ``U_V``), an edge joins a node to
            itself, or an edge repeats an earlier line (in either orientation). The error
            names the file and the 1-based line number.
    """
    path = Path(path)
    _, text = read_utf8(path)
    edges: list[Edge] = []
    seen: dict[frozenset, int] = {}
    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = _FIELD_SEPARATOR.split(line)
        if len(fields) != 2:
            raise InputDataError(
                path, f"expected two node ids 'U V' or 'U,V', found {len(fields)} fields in {line!r}", line_number)
        u, v = fields
        for node in (u, v):
            if not node:
                raise InputDataError(path, f"empty node id in {line!r}", line_number)
            if not node.isprintable():
                raise InputDataError(path, f"node id {node!r} holds a control character", line_number)
            if "_" in node:
                raise InputDataError(
                    path, f"node id {node!r} contains '_', which PISTOL edge labels 'U_V' reserve "
                          "as the separator; rename the node", line_number)
        if u == v:
            raise InputDataError(path, f"self-loop {u!r}-{v!r}: an edge must join two different nodes", line_number)
        pair = frozenset((u, v))
        if pair in seen:
            raise InputDataError(
                path, f"edge {u!r}-{v!r} repeats the edge on line {seen[pair]} (edges are undirected)", line_number)
        seen[pair] = line_number
        edges.append((u, v))
    if not edges:
        raise InputDataError(path, "the edge list holds no edges")
    return edges


FAMILIES: dict[str, Callable[..., list[Edge]]] = {
    "chain": chain,
    "star": star,
    "complete": complete,
    "erdos_renyi": erdos_renyi,
    "barabasi_albert": barabasi_albert,
}

# The family-specific parameter each family requires; the others take none.
_REQUIRED = {"erdos_renyi": "p", "barabasi_albert": "m"}


def build_topology(family: str, nodes: int, seed: int = 0, p: float | None = None,
                   m: int | None = None) -> list[Edge]:
    """Build a graph of one of the ``FAMILIES`` by name.

    Args:
        family: one of ``chain``, ``star``, ``complete``, ``erdos_renyi``, ``barabasi_albert``.
        nodes: number of nodes n (ids ``"0".."n-1"``).
        seed: random seed for the randomised families.
        p: edge probability, required by ``erdos_renyi`` and refused by the others.
        m: edges per new node, required by ``barabasi_albert`` and refused by the others.

    Raises:
        ConfigError: an unknown family (the message lists the valid ones), a missing or
            unexpected p/m, or a bad value.
    """
    if family not in FAMILIES:
        raise ConfigError(f"unknown topology family {family!r}; valid families: {', '.join(FAMILIES)}")
    given = {"p": p, "m": m}
    needed = _REQUIRED.get(family)
    for name, value in given.items():
        if name == needed and value is None:
            raise ConfigError(f"the {family} topology needs {name}")
        if name != needed and value is not None:
            users = [f for f, param in _REQUIRED.items() if param == name]
            raise ConfigError(f"{name} applies only to the {', '.join(users)} topology, not to {family}")
    if family == "erdos_renyi":
        assert p is not None  # checked above: erdos_renyi needs p
        if isinstance(p, (int, float)) and isinstance(nodes, int) and not isinstance(nodes, bool):
            _check_edge_count(p * nodes * (nodes - 1) / 2, family)
        return erdos_renyi(nodes, p, seed)
    if family == "barabasi_albert":
        assert m is not None  # checked above: barabasi_albert needs m
        return barabasi_albert(nodes, m, seed)
    return FAMILIES[family](nodes)
