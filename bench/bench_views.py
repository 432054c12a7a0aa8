"""How long do the leakage views take for a graph of 10,000 edges?

A generated PISTOL graph of ~10,000 edges is built into a fresh embedded store; one run's
per-edge results are written for it with seeded random values (the views read stored values;
how they were produced does not change how long showing them takes; a real unlearning of
10,000 edges with 20 QA pairs each does not fit this machine). Then, each timed:

- Browser: `write_browser_leakage` (the typed relationships, one transaction);
- `audit view`: reading the run, building the page data, writing the HTML, and loading it in
  headless Chromium until the layout is done; the default cut (2,000 edges) side by side with
  every edge (`--max-edges 0`);
- `audit report`: the Markdown report and its PNG plots.

    python bench/bench_views.py                 # 10,000 edges
    python bench/bench_views.py --nodes 2000    # smaller
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from audit.results import repository as R  # noqa: E402
from audit.results.leakage import run_leakage, write_browser_leakage  # noqa: E402
from audit.views.report import write_report  # noqa: E402
from audit.views.graph import build_view  # noqa: E402
from audit.views.page import write_page  # noqa: E402
from extract.pistol.generate import iter_pistol, write_dataset  # noqa: E402
from extract.pistol.load import load_pistol  # noqa: E402
from extract.pistol.topology import build_topology  # noqa: E402
from graphstore import ConnectionSettings, GraphStore  # noqa: E402
from graphstore.embedded import EmbeddedServer  # noqa: E402
from graphstore.ingest import write_graph  # noqa: E402


def timed(label: str, fn):
    started = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - started
    print(f"  {label}: {seconds:.2f} s")
    return value, seconds


def fake_results(store: GraphStore, graph: str, run: str, forget_share: float, seed: int) -> int:
    """A finished joint run whose results are seeded random draws (see the module docstring)."""
    rng = random.Random(seed)
    edges = store.read("MATCH (:Entity {graph: $graph})-[f:FACT]->() RETURN f.key AS key, f.head_key AS head, "
                       "f.tail_key AS tail, f.domain AS domain, f.edge_degree AS degree, f.component AS component, "
                       "f.component_density AS density", graph=graph)
    forget = {e["key"] for e in rng.sample(edges, max(1, int(len(edges) * forget_share)))}
    R.start_run(store, run, {"graph": graph, "method": "npo", "mode": "joint", "selector": "bench",
                             "model": "scratch:tiny", "settings_sha256": "bench", "forget_edges": sorted(forget)})
    rows = []
    for e in edges:
        role = "forget" if e["key"] in forget else "retain"
        before = 1.0
        after = rng.random() if role == "forget" else max(0.0, 1.0 - abs(rng.gauss(0, 0.15)))
        rows.append({"edge": e["key"], "graph": graph, "head_key": e["head"], "tail_key": e["tail"], "role": role,
                     "domain": e["domain"], "edge_degree": e["degree"], "component": e["component"],
                     "component_density": e["density"], "rouge1_before": before, "rouge1_after": after,
                     "answer_probability_before": 0.9, "answer_probability_after": after * 0.9,
                     "memorized_before": 20, "memorized_after": int(after * 20)})
    for start in range(0, len(rows), 2000):
        R.write_results(store, run, rows[start:start + 2000])
    forget_after = [r["rouge1_after"] for r in rows if r["role"] == "forget"]
    retain_after = [r["rouge1_after"] for r in rows if r["role"] == "retain"]
    R.update_run(store, run, status=R.DONE, forget_rouge1_before=1.0, retain_rouge1_before=1.0,
                 forget_rouge1_after=sum(forget_after) / len(forget_after),
                 retain_rouge1_after=sum(retain_after) / len(retain_after))
    return len(rows)


def load_in_chromium(page: Path, folder: Path) -> tuple[float, dict]:
    from browser import Chromium

    with Chromium(folder / "chromium") as chromium:
        tab = chromium.page()
        for domain in ("Page", "Runtime"):
            tab.send(f"{domain}.enable")
        started = time.perf_counter()
        tab.navigate(page.as_uri())
        tab.wait_for("window.auditView && (window.auditView.ready || window.auditView.error !== null)", timeout=600)
        # the plain fields only: auditView also holds the cytoscape instance, which does not serialize
        state = tab.evaluate("({ready: auditView.ready, error: auditView.error, nodes: auditView.nodes, "
                             "edges: auditView.edges, layout: auditView.layout, layoutMs: auditView.layoutMs})")
        return time.perf_counter() - started, state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000, help="Barabasi-Albert nodes (m=2: ~2 edges per node)")
    parser.add_argument("--forget-share", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_views_"))
    data = folder / "graph.json"
    write_dataset(iter_pistol(build_topology("barabasi_albert", args.nodes, seed=args.seed, m=2), seed=args.seed),
                  data)
    server = EmbeddedServer(folder / "store")
    server.ensure_running()
    try:
        with GraphStore.open(ConnectionSettings.resolve(store_dir=folder / "store", environ={})) as store:
            write_graph(store, load_pistol(data, graph="views"))
            n = fake_results(store, "views", "views-run", args.forget_share, args.seed)
            print(f"graph: {n} edges, {args.forget_share:.0%} forget; results written (seeded random values)")
            print("Neo4j Browser relationships:")
            counts, _ = timed("write_browser_leakage", lambda: write_browser_leakage(store, "views-run").counts())
            print(f"  statuses: {counts}")
            print("audit view:")
            leakage, t_read = timed("read the run (run_leakage)", lambda: run_leakage(store, "views-run"))
            for max_edges in (2000, 0):
                label = "default cut, 2,000 edges" if max_edges else "every edge (--max-edges 0)"
                view, t_build = timed(f"{label}: build page data", lambda: build_view(leakage, leakage.results, max_edges))
                page = folder / f"view-{max_edges}.html"
                _, t_write = timed(f"{label}: write HTML", lambda: write_page(view, page))
                seconds, state = load_in_chromium(page, folder)
                print(f"  {label}: {len(view.nodes)} nodes, {len(view.edges)} edges, "
                      f"{page.stat().st_size / 1e6:.1f} MB; Chromium load to layout done {seconds:.2f} s "
                      f"(layout {state.get('layout')}, {state.get('layoutMs')} ms); total "
                      f"{t_read + t_build + t_write + seconds:.2f} s; error {state.get('error')}")
            print("audit report:")
            timed("write_report (Markdown + PNG plots)", lambda: write_report(store, "views-run", folder / "report"))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
