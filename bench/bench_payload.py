"""What bounds ingest on the embedded engine: payload per edge and hub degree, side by side.

Writes the same ~10,000 generated PISTOL edges several times into one fresh store, each
time with less per edge, on a Barabási–Albert graph (hubs) and an Erdős–Rényi graph (none):

    .venv/bin/python bench/bench_payload.py [--nodes 5000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from extract.pistol.generate import iter_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.topology import build_topology
from graphstore import ConnectionSettings, GraphStore
from graphstore import queries as Q
from graphstore.embedded import EmbeddedServer
from graphstore.ingest import FACT_BATCH_ROWS, entity_rows, fact_rows

PAYLOADS = {
    "full (20 attributes + QA lists)": lambda f: f,
    "20 attributes, no QA lists": lambda f: dict(f, questions=[], answers=[], qa_attributes=[]),
    "keys only": lambda f: dict(f, questions=[], answers=[], qa_attributes=[], attributes={}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="audit-payload-"))
    graphs = {}
    for topology, shape in (("barabasi_albert", {"m": 2}), ("erdos_renyi", {"p": 4.0 / args.nodes})):
        edges = build_topology(topology, args.nodes, seed=0, **shape)
        path = work / f"{topology}.json"
        write_dataset(iter_pistol(edges, seed=0, employment_fraction=0.3), path)
        graphs[topology] = load_pistol(path, graph=topology)
    settings = ConnectionSettings.resolve(store_dir=work / "store", environ={})
    server = EmbeddedServer(settings.store_dir)
    try:
        with GraphStore.open(settings) as store:
            store.setup_schema()
            runs = [("warm-up", "barabasi_albert", "full (20 attributes + QA lists)")]
            runs += [(f"{t}/{p}", t, p) for p in PAYLOADS for t in graphs]
            for name, topology, payload in runs:
                g = graphs[topology]
                prefix = name + ":"
                ents = [dict(e, key=prefix + e["key"], graph=name) for e in entity_rows(g)]
                facts = [PAYLOADS[payload](dict(f, key=prefix + f["key"], head=prefix + f["head"],
                                                 tail=prefix + f["tail"], graph=name)) for f in fact_rows(g)]
                store.write_rows(Q.ENTITIES_CREATE, ents)
                start = time.perf_counter()
                store.write_rows(Q.FACTS_CREATE, facts, batch_rows=FACT_BATCH_ROWS)
                rate = len(facts) / (time.perf_counter() - start)
                print(f"{name:<55} {len(facts):>7} edges {rate:>9,.0f} edges/s", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
