"""Which unlearning learning rate forgets on a scratch model? The sweep behind the defaults.

For each method and learning rate, the injected model of a small PISTOL graph is unlearned
on its forget edges from scratch (fresh adapters, the run's own code: ``inject``,
``Unlearner``, ``evaluate``), then every QA pair is answered again. Prints, per (method, lr),
the forget edges' mean ROUGE-1 and the retained edges' mean ROUGE-1 after unlearning (both
1.0 before: injection reaches recall 1 on every edge), and the drop of the forget edges'
answers' probability (per-token geometric mean). A cell passes when forget ROUGE-1 fell by >= 0.3 and the retained mean
stays >= 0.8 (issue 13's bar for "the defaults unlearn").

    .venv/bin/python bench/bench_lr.py --seeds 0,1,2                    # the defaults, star and demo graphs
    .venv/bin/python bench/bench_lr.py --lrs 1e-4,1e-3,3e-3,1e-2        # a grid
    .venv/bin/python bench/bench_lr.py --graphs demo --methods dpo --lrs 1e-3,3e-3 --size small
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

from audit.measure import evaluate as E
from audit.config import InjectionConfig, UnlearnConfig, apply_options
from audit.models.encoding import QAEncoder
from audit.run.injection import inject, load_injected_model
from audit.run.methods import METHODS, default_unlearn_lr, method_class
from audit.models.load import select_hardware
from audit.run.qa import load_graph_edges, load_refusals
from audit.run.selectors import select
from audit.run.unlearning import Unlearner
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.topology import build_topology
from graphstore import ConnectionSettings, GraphStore
from graphstore.embedded import EmbeddedServer
from graphstore.ingest import write_graph

# The graphs of the issue: the demo's (Barabasi-Albert, 8 nodes, its two highest-degree edges)
# and a 6-node star with one edge forgotten.
GRAPHS = {
    "demo": (dict(family="barabasi_albert", nodes=8, m=2, seed=1), 0.3, "top-degree:2"),
    "star": (dict(family="star", nodes=6, seed=7), 0.0, "edges:0_1"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="star,demo")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="comma-separated; a method's options after a colon: dpo:retain_weight=1;beta=0.2")
    parser.add_argument("--lrs", default="default", help="comma-separated, e.g. 1e-4,1e-3; 'default' = the code's "
                                                          "default for the method (audit.run.methods.default_unlearn_lr)")
    parser.add_argument("--epochs", type=int, default=UnlearnConfig().epochs)
    parser.add_argument("--size", default="tiny")
    parser.add_argument("--seeds", default="0", help="comma-separated unlearning seeds (adapters, data order)")
    args = parser.parse_args()
    hardware = select_hardware("cpu")
    print(f"# bench_lr: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch "
          f"{torch.__version__}, {torch.get_num_threads()} threads, load {os.getloadavg()[0]:.2f}, "
          f"scratch:{args.size}, {args.epochs} epochs")
    print(f"{'graph':6} {'method':7} {'lr':>8} {'seed':>4} {'forget_after':>12} {'retained_after':>14} "
          f"{'forget_prob':>13} {'seconds':>7}  pass")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.setdefault("AUDIT_EMBEDDED_IDLE_TIMEOUT", "300")
        server = EmbeddedServer(root / "store")
        server.ensure_running()
        try:
            with GraphStore.open(ConnectionSettings.resolve(store_dir=root / "store", environ={})) as store:
                for name in args.graphs.split(","):
                    sweep(store, root, name, args, hardware)
        finally:
            server.stop()


def sweep(store, root: Path, name: str, args, hardware) -> None:
    topology, employment, spec = GRAPHS[name]
    path = root / f"{name}.json"
    write_dataset(generate_pistol(build_topology(**topology), seed=1, employment_fraction=employment), path)
    write_graph(store, load_pistol(path, graph=name))
    edges = load_graph_edges(store, name)
    sha = store.read("MATCH (g:Graph {key: $g}) RETURN g.sha256 AS s", g=name)[0]["s"]
    forget = select(store, name, list(edges), spec).edges
    injected = inject(f"scratch:{args.size}", name, sha, edges, InjectionConfig(), hardware, root / "cache")
    forget_qas = [qa for k in forget for qa in edges[k].qas]
    retain_qas = [qa for k in edges if k not in forget for qa in edges[k].qas]
    _, refusals = load_refusals()
    for spec in args.methods.split(","):
        method, _, option_text = spec.partition(":")
        options = dict(item.split("=", 1) for item in option_text.split(";") if item)
        config = apply_options(method_class(method).config_class(), options, f"method {method}")
        for text, seed in [(t, int(s)) for t in args.lrs.split(",") for s in args.seeds.split(",")]:
            lr = default_unlearn_lr(method, f"scratch:{args.size}") if text == "default" else float(text)
            model, tokenizer = load_injected_model(injected, hardware)
            encoder = QAEncoder(tokenizer)
            unlearner = Unlearner(model, encoder, method_class(method)(config), UnlearnConfig(epochs=args.epochs, lr=lr, seed=seed),
                                  hardware.device)
            started = time.perf_counter()
            unlearner.run(forget_qas, retain_qas, refusals, progress=None)
            seconds = time.perf_counter() - started
            after = E.per_edge(E.evaluate(unlearner.model, encoder, forget_qas + retain_qas))
            forget_after = sum(after[k]["rouge1"] for k in forget) / len(forget)
            retained = [after[k]["rouge1"] for k in edges if k not in forget]
            retained_after = sum(retained) / len(retained)
            prob = sum(after[k]["answer_probability"] for k in forget) / len(forget)
            ok = forget_after <= 0.7 and retained_after >= 0.8
            print(f"{name:6} {spec:7} {lr:8.1e} {seed:4} {forget_after:12.3f} {retained_after:14.3f} {prob:13.3f} "
                  f"{seconds:7.1f}  {'yes' if ok else 'no'}", flush=True)


if __name__ == "__main__":
    main()
