"""Which scratch model memorizes a PISTOL dataset on this machine, and how fast? The measure
behind the model size of the shipped experiments (docs/findings.md, docs/benchmarks.md).

For each scratch size, knowledge injection (the run's own ``inject``: full training until every
edge's mean ROUGE-1 recall reaches the target, checked every ``--eval-every`` epochs) on a real
PISTOL file, in a fresh cache; prints epochs to the target (or the recall reached at the cap),
seconds, seconds per epoch, and the ratio to the first size.

    .venv/bin/python bench/bench_inject_sizes.py                                 # tiny, small on sample_data_1
    .venv/bin/python bench/bench_inject_sizes.py --sizes small --max-epochs 150 --data ../shared/data/pistol/sample_data_2.json
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

from audit.build import PistolSource, build_graph
from audit.config import InjectionConfig
from audit.models.load import select_hardware
from audit.run.injection import inject
from audit.run.qa import load_graph_edges
from graphstore import ConnectionSettings, GraphStore

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="tiny,small")
    parser.add_argument("--data", default=str(REPO.parent / "shared/data/pistol/sample_data_1.json"))
    parser.add_argument("--max-epochs", type=int, default=150)
    parser.add_argument("--eval-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch "
          f"{torch.__version__}, {torch.get_num_threads()} threads; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        settings = ConnectionSettings.resolve(store_dir=Path(tmp) / "store", environ={})
        with GraphStore.open(settings) as store:
            store.setup_schema()
            graph = build_graph(store, PistolSource((Path(args.data),)))[0].summary.graph
            sha = store.graph(graph)["sha256"]
            edges = load_graph_edges(store, graph)
        qas = sum(len(e.qas) for e in edges.values())
        print(f"{graph}: {len(edges)} edges, {qas} QA pairs; target recall 1.0, cap {args.max_epochs} epochs")
        print(f"{'size':6}  {'epochs':>6}  {'reached':>7}  {'min recall':>10}  {'seconds':>8}  {'s/epoch':>8}  ratio")
        first = None
        for size in args.sizes.split(","):
            config = InjectionConfig(max_epochs=args.max_epochs, eval_every=args.eval_every, seed=args.seed)
            started = time.perf_counter()
            result = inject(f"scratch:{size}", graph, sha, edges, config, select_hardware("cpu"), Path(tmp) / size)
            seconds = time.perf_counter() - started
            info = result.info
            per_epoch = seconds / info["epochs"]
            first = first or per_epoch
            print(f"{size:6}  {info['epochs']:>6}  {str(info['reached']):>7}  {info['min_rouge1']:>10.3f}  "
                  f"{seconds:>8.1f}  {per_epoch:>8.2f}  {per_epoch / first:.1f}x")


if __name__ == "__main__":
    main()
