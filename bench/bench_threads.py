"""How many torch threads should training use on a shared CPU machine? Knowledge injection
(the run's own ``inject``, ``scratch:tiny`` on a real PISTOL file, a fixed number of epochs)
timed with 1, 2, ... threads while other processes keep some cores busy, in one run, with the
thread count ``audit.models.load.cpu_threads`` would choose at that load beside them.

Busy loops in separate processes stand in for the other users of a shared machine: each keeps
one core busy, as a training job of someone else would. Prints epochs per second per thread
count and the ratio to one thread.

    .venv/bin/python bench/bench_threads.py                     # 0, 1, 2 and 6 busy processes
    .venv/bin/python bench/bench_threads.py --busy 0,8 --epochs 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

from audit.build import PistolSource, build_graph
from audit.config import InjectionConfig
from audit.models.load import cpu_threads, select_hardware
from audit.run.injection import inject
from audit.run.qa import load_graph_edges
from graphstore import ConnectionSettings, GraphStore

REPO = Path(__file__).resolve().parents[1]


def _spin(stop) -> None:
    while not stop.is_set():
        sum(range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared/data/pistol/sample_data_1.json"))
    parser.add_argument("--busy", default="0,1,2,6", help="busy processes beside the training, per level")
    parser.add_argument("--threads", default="", help="thread counts to time (default 1..cores)")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    counts = [int(t) for t in args.threads.split(",")] if args.threads else list(range(1, cores + 1))
    print(f"machine: {platform.processor() or platform.machine()}, {cores} cores, torch {torch.__version__}; "
          f"load average before {os.getloadavg()[0]:.2f}; {args.epochs} epochs of scratch:tiny per timing")
    with tempfile.TemporaryDirectory() as tmp:
        settings = ConnectionSettings.resolve(store_dir=Path(tmp) / "store", environ={})
        with GraphStore.open(settings) as store:
            store.setup_schema()
            graph = build_graph(store, PistolSource((Path(args.data),)))[0].summary.graph
            sha = store.graph(graph)["sha256"]
            edges = load_graph_edges(store, graph)
        print(f"{'busy':>4}  {'threads':>7}  {'epochs/s':>8}  {'vs 1 thread':>11}  chosen at this load")
        hardware = select_hardware("cpu")
        for busy in (int(b) for b in args.busy.split(",")):
            stop = multiprocessing.Event()
            spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(busy)]
            for p in spinners:
                p.start()
            time.sleep(2)
            one = None
            for threads in counts:
                torch.set_num_threads(threads)
                config = InjectionConfig(max_epochs=args.epochs, eval_every=10_000, seed=0)
                started = time.perf_counter()
                inject("scratch:tiny", graph, sha, edges, config, hardware, Path(tmp) / f"{busy}-{threads}")
                rate = args.epochs / (time.perf_counter() - started)
                one = one or rate
                # the chooser sees the other processes' load (busy), not this one's
                print(f"{busy:>4}  {threads:>7}  {rate:>8.3f}  {rate / one:>10.2f}x  "
                      f"{cpu_threads(cores=cores, load=float(busy))}")
            stop.set()
            for p in spinners:
                p.join()


if __name__ == "__main__":
    main()
