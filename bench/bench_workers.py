"""An experiment's cells in this process, and on a local Ray cluster of 1 and 2 workers.

A 12-cell grid (2 forget edges x 2 methods x 3 seeds, ``scratch:tiny`` or ``--model``) on a
generated 8-edge PISTOL graph; each way runs in a store of its own, all three sharing one cache
whose injected model is trained first (untimed), so the figures are the cells' own work. Prints
wall seconds, seconds per cell, the speed-up over one process and Ray's overhead per cell (one
worker against one process: the same work, one cell at a time). The machine's core count and
load average are printed first: the workers share its cores. This process's torch and one
worker's use every core; two workers one core each.

    .venv/bin/python bench/bench_workers.py
    .venv/bin/python bench/bench_workers.py --model scratch:base --seeds 0 1 2 3
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from audit.experiment.cells import run_experiment
from audit.experiment.spec import load_spec
from audit.experiment.workers import Workers
from extract.pistol.generate import generate_pistol, write_dataset
from graphstore import GraphStore
from graphstore.embedded import EmbeddedServer
from graphstore.settings import ConnectionSettings

EDGES = [("0", "1"), ("0", "2"), ("1", "2"), ("2", "3"), ("3", "4"), ("4", "5"), ("1", "5"), ("5", "6")]


def experiment(folder: Path, name: str, model: str, seeds: list[int]) -> Path:
    dataset = folder / "bench_graph.json"
    if not dataset.exists():
        write_dataset(generate_pistol(EDGES, seed=11), dataset)
    path = folder / f"{name}.toml"
    path.write_text(f"""name = "{name}"
[[graphs]]
name = "benchg"
pistol = "{dataset.name}"

[grid]
selectors = ["edges:0_1", "edges:3_4"]
methods = ["ga", "npo"]
seeds = {seeds}
models = ["{model}"]
lrs = [0.003]

[run]
epochs = 5
equivalence = "none"
inject_max_epochs = 30
inject_target = 0.5
batch_size = 4
""", "utf-8")
    return path


def timed(folder: Path, cache: Path, name: str, model: str, seeds: list[int], workers: Workers | None) -> float:
    settings = ConnectionSettings(store_dir=folder / f"store-{name}")
    with GraphStore.open(settings) as store:
        store.setup_schema()
        spec = load_spec(experiment(folder, name, model, seeds))
        started = time.perf_counter()
        run_experiment(store, spec, cache, report=lambda line: None, workers=workers, settings=settings)
        seconds = time.perf_counter() - started
    EmbeddedServer(settings.store_dir).stop()   # no server left behind by the bench
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="scratch:tiny")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    cells = 2 * 2 * len(args.seeds)
    # this process's torch on every core, as one worker's: one worker against this process is
    # then the same work, and the difference Ray's cost
    os.environ["AUDIT_THREADS"] = str(os.cpu_count() or 1)
    print(f"{platform.node()}: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
          f"{cells} cells, {args.model}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        timed(folder, cache, "warm", args.model, args.seeds[:1], None)   # the injected model, once, untimed
        rows = [("in this process", timed(folder, cache, "inline", args.model, args.seeds, None))]
        import torch
        print(f"torch threads: {torch.get_num_threads()} in this process; a worker: the cores divided by the workers")
        for n in (1, 2):
            rows.append((f"Ray, {n} worker{'s' if n > 1 else ''}",
                         timed(folder, cache, f"ray{n}", args.model, args.seeds, Workers(count=n))))
    base = rows[0][1]
    print(f"{'how':<18} {'wall s':>8} {'s/cell':>7} {'speed-up':>8}")
    for how, seconds in rows:
        print(f"{how:<18} {seconds:>8.1f} {seconds / cells:>7.2f} {base / seconds:>7.2f}x")
    print(f"Ray's overhead per cell (1 worker against this process): {(rows[1][1] - base) / cells:+.2f} s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
