"""The embedded engine and Neo4j 5.26 side by side, in one run, on the same graphs.

For each size (default 10k and 100k edges, Barabasi-Albert m=2, PISTOL contracts with 20 QA
pairs an edge) and each engine, on a fresh store:
- ingest: entities and edges, batched UNWIND, one transaction (graphstore.ingest);
- structure: degrees, components, densities (graphstore.structure, union-find);
- a 1,500-QA evaluation's graph I/O: the top-degree selection (75 edges x 20 QA pairs), the run's
  read of every edge with its QA pairs (audit.run.qa.load_graph_edges), the Run node, and the
  75 per-edge results written back (audit.results.repository.write_results), then read back; once
  cold (right after the build on a fresh server) and the best of three more (warm).
Prints seconds per step and engine, and the ratio Neo4j / embedded (< 1: Neo4j is faster).

Neo4j is the test server of tests/neo4j_server (`make neo4j-server` first), one JVM with a 4 GB
heap (as the embedded server's default), started here; the embedded server is started here too.
With a 1 GB heap Neo4j refuses the 100k-edge build: one transaction needs more than its 70 %.

    .venv/bin/python bench/bench_engines.py                  # 10k and 100k edges
    .venv/bin/python bench/bench_engines.py --edges 10000    # one size
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the Neo4j test server's launcher lives with the tests; the repository goes first so that the
# packages are found before the test folders of the same names (tests/audit is no package)
sys.path[:0] = [str(REPO)]
sys.path.append(str(REPO / "tests"))

from audit.results import repository as R                         # noqa: E402
from audit.run.qa import load_graph_edges                    # noqa: E402
from extract.pistol.generate import generate_pistol, write_dataset  # noqa: E402
from extract.pistol.load import load_pistol                  # noqa: E402
from extract.pistol.topology import build_topology           # noqa: E402
from graphstore import ConnectionSettings, GraphStore        # noqa: E402
from graphstore import queries as Q                          # noqa: E402
from graphstore.embedded import EmbeddedServer               # noqa: E402
from graphstore.ingest import FACT_BATCH_ROWS, entity_rows, fact_rows  # noqa: E402
from graphstore.structure import compute_structure           # noqa: E402
from neo4j_server.server import Neo4jTestServer, missing     # noqa: E402

EVAL_EDGES = 75      # x 20 QA pairs = 1,500 QA
REPEATS = 4          # evaluation I/O: one cold, the best of three warm


def eval_io(store: GraphStore, graph, run: str) -> dict[str, float]:
    """A 1,500-QA evaluation's graph reads and writes, as `audit run` makes them."""
    out = {}
    start = time.perf_counter()
    rows = store.read("MATCH (:Entity {graph: $g})-[f:FACT]->() RETURN f.key AS key "
                      "ORDER BY f.edge_degree DESC, f.key LIMIT $n", g=graph.name, n=EVAL_EDGES)
    out["eval: select 75 edges"] = time.perf_counter() - start
    start = time.perf_counter()
    edges = load_graph_edges(store, graph.name)
    out["eval: read all edges + QA"] = time.perf_counter() - start
    chosen = [r["key"] for r in rows]
    assert sum(len(edges[k].qas) for k in chosen) == EVAL_EDGES * 20
    start = time.perf_counter()
    R.start_run(store, run, {"graph": graph.name, "settings_sha256": "bench", "method": "ga"})
    R.write_results(store, run, [{"edge": k, "graph": graph.name, "role": "forget",
                                  "answers_after": [f"answer {i} of {k}" for i in range(20)],
                                  "rouge1_qa_after": [i / 20 for i in range(20)]} for k in chosen])
    back = R.read_results(store, run)
    out["eval: write + read 75 results"] = time.perf_counter() - start
    assert len(back) == EVAL_EDGES
    return out


def steps(store: GraphStore, graph) -> dict[str, float]:
    """Seconds of each step on one store."""
    out = {}
    store.setup_schema()
    ents, facts = entity_rows(graph), fact_rows(graph)
    start = time.perf_counter()
    with store.transaction() as tx:
        tx.run(Q.GRAPH_CREATE, graph=graph.name, props={"source": "pistol"})
        tx.write_rows(Q.ENTITIES_CREATE, ents)
        tx.write_rows(Q.FACTS_CREATE, facts, batch_rows=FACT_BATCH_ROWS)
    out["ingest"] = time.perf_counter() - start
    start = time.perf_counter()
    with store.transaction() as tx:
        compute_structure(tx, graph.name)
    out["structure"] = time.perf_counter() - start

    for attempt in range(REPEATS):   # the first is cold (a fresh server's JIT); the best of the rest is warm
        timings = eval_io(store, graph, f"bench-{attempt}")
        for step, seconds in timings.items():
            if attempt == 0:
                out[f"{step} (cold)"] = seconds
            else:
                out[f"{step} (warm)"] = min(seconds, out.get(f"{step} (warm)", seconds))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", type=int, action="append", help="edges of a graph (repeat; default 10000, 100000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--neo4j-heap", default="4g", help="Neo4j's JVM heap (the embedded server's default is 4g too)")
    args = parser.parse_args()
    sizes = args.edges or [10_000, 100_000]
    reason = missing()
    if reason:
        sys.exit(f"Error: {reason}")
    load = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    work = Path(tempfile.mkdtemp(prefix="audit-bench-engines-"))
    for size in sizes:
        edges = build_topology("barabasi_albert", size // 2 + 1, seed=args.seed, m=2)
        path = work / f"bench{size}.json"
        write_dataset(generate_pistol(edges, seed=args.seed, employment_fraction=0.3), path)
        graph = load_pistol(path, graph=f"bench{size}")
        results = {}
        embedded = EmbeddedServer(work / f"store{size}")
        embedded.ensure_running()
        try:
            with GraphStore.open(ConnectionSettings.resolve(store_dir=embedded.store_dir, environ={})) as store:
                results["embedded"] = steps(store, graph)
        finally:
            embedded.stop()
        neo4j = Neo4jTestServer(work / f"neo4j{size}", heap=args.neo4j_heap)
        info = neo4j.start()
        try:
            settings = ConnectionSettings.resolve(uri=info.uri, password=info.password, environ={})
            with GraphStore.open(settings) as store:
                results[f"neo4j {info.version}"] = steps(store, graph)
        finally:
            neo4j.stop()
        names = list(results)
        print(f"\n{len(graph.facts):,} edges, {len(graph.entities):,} entities")
        print(f"{'step':<40} {names[0]:>12} {names[1]:>14} {'neo4j/embedded':>15}")
        for step in results[names[0]]:
            a, b = results[names[0]][step], results[names[1]][step]
            print(f"{step:<40} {a:>10.2f} s {b:>12.2f} s {b / a:>15.2f}")
    load = os.getloadavg()
    print(f"\nload at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
