"""One run's training in one process and over 2 launched processes (``torchrun``, data parallel).

The same per-edge sweep (``audit run --per-edge``, 2 forget edges, ``scratch:tiny`` or
``--model``) on a generated PISTOL graph, each way with a fresh cache so that it injects too:

- one process, one torch thread;
- one process, one thread per core (torch's choice on a quiet machine);
- two processes (``torchrun --nproc_per_node 2``, gloo on CPU), one thread each;
- a control: one process, one thread, with the rows of every training batch reversed (the same
  losses and gradients, summed in another order), to show how far float order alone moves the
  per-edge results after an injection of many epochs (what 2 processes also change).

Prints, per way: injection seconds per epoch (the mean over its epochs), unlearning seconds per
edge, wall seconds of the whole command (with process start and the measures, which run on
rank 0 alone), and the ratio of each to one process on one thread; then the per-edge forget
ROUGE-1 of each way. The machine's cores and load average come first: the ways share the cores.

    PYTHONPATH=. .venv/bin/python bench/bench_ranks.py
    PYTHONPATH=. .venv/bin/python bench/bench_ranks.py --inject-epochs 60 --epochs 20
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUDIT = [sys.executable, "-m", "cli.main"]
# The control: `audit` with every training batch's rows reversed (bench code, not the tool's).
REVERSED = """
import sys
import audit.run.injection as injection, audit.run.unlearning as unlearning
for module in (injection, unlearning):
    module.batches = (lambda made: lambda *a: [{k: v.flip(0) for k, v in b.items()} for b in made(*a)])(module.batches)
from cli.main import main
sys.argv[0] = "audit"
main()
"""


def run_args(store: Path, cache: Path, run_id: str, model: str, inject_epochs: int, epochs: int) -> list[str]:
    return ["-m", "cli.main", "--quiet", "run", "--store", str(store), "--graph", "benchr", "--model", model,
            "--select", "top-degree:2", "--per-edge", "--method", "gd", "--epochs", str(epochs),
            "--inject-max-epochs", str(inject_epochs), "--inject-target", "1.0", "--run-id", run_id,
            "--cache-dir", str(cache)]


def one_way(name: str, command: list[str], threads: int | None, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUDIT_QUIET": "1"}
    if threads is not None:
        env["AUDIT_THREADS"] = str(threads)
        env["OMP_NUM_THREADS"] = str(threads)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    info = json.loads(next((cache / "injected").glob("*/injection.json")).read_text())
    results = json.loads(next((cache / "runs").glob("*/results.json")).read_text())
    forget = [row for row in results["edges"] if row["role"] == "forget"]
    epochs = info["loss_log"]
    return {"way": name, "wall": wall, "inject_epoch": sum(e["seconds"] for e in epochs) / len(epochs),
            "inject_epochs": len(epochs), "unlearn_edge": sum(r["unlearn_seconds"] for r in forget) / len(forget),
            "rouge": {r["edge"]: r["rouge1_after"] for r in forget}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="scratch:tiny")
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--inject-epochs", type=int, default=40)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"machine: {platform.machine()}, {cores} cores, load average {os.getloadavg()[0]:.2f} at start")
    with tempfile.TemporaryDirectory(prefix="bench-ranks-") as tmp:
        folder = Path(tmp)
        store = folder / "store"
        graph = folder / "graph.json"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "AUDIT_QUIET": "1"}
        subprocess.run([*AUDIT, "generate", "pistol", "--topology", "barabasi_albert", "--nodes", str(args.nodes),
                        "--m", "2", "--seed", "1", "--output", str(graph)], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        subprocess.run([*AUDIT, "build", "--store", str(store), "--pistol", str(graph), "--graph", "benchr"],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        ways = []
        try:
            for name, launcher, threads in (("1 process, 1 thread", [], 1),
                                            (f"1 process, {cores} threads", [], cores),
                                            ("2 processes, 1 thread each",
                                             ["-m", "torch.distributed.run", "--nproc_per_node", "2"], 1),
                                            ("control: 1 process, rows reversed", ["-c", REVERSED], 1)):
                cache = folder / f"cache{len(ways)}"
                options = run_args(store, cache, f"r{len(ways)}", args.model, args.inject_epochs, args.epochs)
                command = [sys.executable, *launcher, *(options[2:] if launcher[:1] == ["-c"] else options)]
                ways.append(one_way(name, command, threads, cache))
        finally:
            subprocess.run([*AUDIT, "server", "stop", "--store", str(store)], cwd=ROOT, env=env, capture_output=True)
    base = ways[0]
    print(f"load average {os.getloadavg()[0]:.2f} at the end; model {args.model}, "
          f"{args.inject_epochs} injection epochs at most, {args.epochs} unlearning epochs per edge")
    print(f"{'way':<36} {'inject s/epoch':>15} {'x':>6} {'unlearn s/edge':>15} {'x':>6} {'wall s':>8} {'x':>6}")
    for w in ways:
        print(f"{w['way']:<36} {w['inject_epoch']:>15.3f} {base['inject_epoch'] / w['inject_epoch']:>6.2f} "
              f"{w['unlearn_edge']:>15.2f} {base['unlearn_edge'] / w['unlearn_edge']:>6.2f} "
              f"{w['wall']:>8.1f} {base['wall'] / w['wall']:>6.2f}")
    print("per-edge forget ROUGE-1 after (injection epochs):")
    for w in ways:
        print(f"  {w['way']:<36} " + ", ".join(f"{e} {v:.3f}" for e, v in sorted(w["rouge"].items()))
              + f" ({w['inject_epochs']} epochs)")


if __name__ == "__main__":
    main()
