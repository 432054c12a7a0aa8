"""Ingest and structure speed on a PISTOL-style graph of ~100,000 edges, embedded engine.

Prints, in one run on one fresh store:
- generation and parsing time (Python only, no database);
- batched ingest (UNWIND, one transaction for the whole graph) in edges/s;
- the naive way, one query and one transaction per edge, on a sample of the same edges;
- degree + components + density (graphstore.structure) in seconds.

    .venv/bin/python bench/bench_ingest.py                 # ~100k edges
    .venv/bin/python bench/bench_ingest.py --nodes 5000    # quicker
"""

from __future__ import annotations

import argparse
import platform
import os
import tempfile
import time
from pathlib import Path

from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.topology import build_topology
from graphstore import ConnectionSettings, GraphStore
from graphstore import queries as Q
from graphstore.embedded import EmbeddedServer
from graphstore.ingest import FACT_BATCH_ROWS, entity_rows, fact_rows
from graphstore.store import DEFAULT_BATCH_ROWS
from graphstore.structure import compute_structure


def timed(label: str, fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"{label:<44} {seconds:8.2f} s", flush=True)
    return value, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=50_000, help="Barabasi-Albert nodes (m=2: ~2 edges each)")
    parser.add_argument("--naive-sample", type=int, default=3_000, help="edges written one query each")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--topology", default="barabasi_albert", choices=["barabasi_albert", "erdos_renyi"],
                        help="barabasi_albert (m=2, hubs like PISTOL's sample 1) or erdos_renyi (same mean degree)")
    args = parser.parse_args()

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    work = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    shape = {"m": 2} if args.topology == "barabasi_albert" else {"p": 4.0 / args.nodes}
    edges, _ = timed(f"topology ({args.topology}, {shape})", build_topology, args.topology, args.nodes,
                     seed=args.seed, **shape)
    records, _ = timed(f"generate {len(edges)} contracts", generate_pistol, edges, seed=args.seed, employment_fraction=0.3)
    path = work / "bench.json"
    timed(f"write JSON ({len(records)} QA records)", write_dataset, records, path)
    graph, parse_s = timed("parse + validate (load_pistol)", load_pistol, path, graph="bench")
    print(f"  -> {len(graph.facts) / parse_s:,.0f} edges/s parsed")

    settings = ConnectionSettings.resolve(store_dir=work / "store", environ={})
    server = EmbeddedServer(settings.store_dir)
    try:
        _, boot_s = timed("embedded server cold start", server.ensure_running)
        with GraphStore.open(settings) as store:
            store.setup_schema()
            ents, facts = entity_rows(graph), fact_rows(graph)
            start = time.perf_counter()
            with store.transaction() as tx:
                tx.run(Q.GRAPH_CREATE, graph="bench", props={"source": "pistol"})
                tx.write_rows(Q.ENTITIES_CREATE, ents, batch_rows=DEFAULT_BATCH_ROWS)
                tx.write_rows(Q.FACTS_CREATE, facts, batch_rows=FACT_BATCH_ROWS)
            ingest_s = time.perf_counter() - start
            print(f"{'batched ingest (entities + edges, 1 tx)':<44} {ingest_s:8.2f} s")
            batched_rate = len(facts) / ingest_s
            print(f"  -> {batched_rate:,.0f} edges/s ({len(ents)} entities, {len(facts)} edges)")

            start = time.perf_counter()
            with store.transaction() as tx:
                summary = compute_structure(tx, "bench")
            structure_s = time.perf_counter() - start
            print(f"{'degree + components + density':<44} {structure_s:8.2f} s  ({summary.components} components)")

            # The naive way on the same kind of rows: one query, one transaction per edge,
            # into a separate graph whose entities are written first.
            sample = facts[: args.naive_sample]
            ends = {f["head"] for f in sample} | {f["tail"] for f in sample}
            naive_ents = [dict(e, key="naive:" + e["key"], graph="naive") for e in ents if e["key"] in ends]
            naive_facts = [dict(f, key="naive:" + f["key"], graph="naive", head="naive:" + f["head"],
                                tail="naive:" + f["tail"]) for f in sample]
            store.write_rows(Q.ENTITIES_CREATE, naive_ents)
            start = time.perf_counter()
            for row in naive_facts:
                store.write(Q.FACTS_CREATE, rows=[row])
            naive_s = time.perf_counter() - start
            naive_rate = len(naive_facts) / naive_s
            print(f"{'naive: one query per edge (sample)':<44} {naive_s:8.2f} s")
            print(f"  -> {naive_rate:,.0f} edges/s on {len(naive_facts)} edges")
            print()
            print(f"SUMMARY edges={len(facts)} entities={len(ents)} ingest_edges_per_s={batched_rate:,.0f} "
                  f"naive_edges_per_s={naive_rate:,.0f} ratio={batched_rate / naive_rate:.1f}x "
                  f"structure_s={structure_s:.2f} parse_edges_per_s={len(facts) / parse_s:,.0f} "
                  f"cold_start_s={boot_s:.1f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
