"""What each resurfacing check costs, next to the run it follows: one joint `audit run`, batched, no model reload.

A generated PISTOL graph (Barabasi-Albert, m = 2) is written into a fresh embedded store in a
temp folder. The run's own ``inject`` trains the scratch model first (timed here; the run then
finds it cached, or ``--cache-dir`` reuses an earlier one); then ONE ``run_audit`` with the
default method (NPO, default rate and epochs) on the ``--forget`` edges of highest degree and
every check (``--check all``: quantize, relearn, probes, mia). The checks run in the same
process on the unlearned model the run holds (no reload); their seconds are the Run's
``resurfacing_seconds``, the unlearning's its ``unlearn_seconds``.

The measure-before and measure-after phases are timed by wrapping
``audit.measure.evaluate.evaluate`` (and ``membership_scores``) for this process only: each call
is recorded with its progress label, its QA pairs and its seconds; the run's code is unchanged.
Inside each check, the share spent in those evaluation calls is shown too.

The denominators, measured in the same process, after the run:
- unlearning: the run's ``unlearn_seconds``;
- one full evaluation: ``evaluate`` of every QA pair of the graph (generation + teacher-forced
  scoring, no equivalence judge, as the checks evaluate) on the unlearned model (the injected
  model with the run's adapters loaded), the fastest of ``--eval-repeats``.

    nice -n 10 .venv/bin/python bench/bench_robustness.py                   # 16 nodes (29 edges), 4 forget edges
    nice -n 10 .venv/bin/python bench/bench_robustness.py --threads 1    # on a machine shared with other work
    nice -n 10 .venv/bin/python bench/bench_robustness.py --nodes 20 --forget 4 --relearn-steps 20
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The script's own folder is on sys.path when it is run as a script.
from bench_eval import OtherLoad  # noqa: E402

from audit.config import InjectionConfig, ResurfacingConfig  # noqa: E402
from audit.measure import evaluate as E  # noqa: E402
from audit.models.encoding import QAEncoder  # noqa: E402
from audit.models.load import select_hardware  # noqa: E402
from audit.questions.probes import load_probe_templates, probes  # noqa: E402
from audit.results import repository as R  # noqa: E402
from audit.run.injection import inject, load_injected_model  # noqa: E402
from audit.run.methods import default_unlearn_lr, method_class  # noqa: E402
from audit.run.qa import load_graph_edges  # noqa: E402
from audit.run.request import RunRequest  # noqa: E402
from audit.run.runner import run_audit  # noqa: E402
from audit.run.unlearning import Unlearner  # noqa: E402
from extract.pistol.generate import generate_pistol, write_dataset  # noqa: E402
from extract.pistol.load import load_pistol  # noqa: E402
from extract.pistol.topology import build_topology  # noqa: E402
from graphstore import ConnectionSettings, GraphStore  # noqa: E402
from graphstore import queries as Q  # noqa: E402
from graphstore.embedded import EmbeddedServer  # noqa: E402
from graphstore.ingest import write_graph  # noqa: E402

CHECKS = ("quantize", "relearn", "probes", "mia")
GRAPH = "robustness"


class EvaluationClock:
    """Records every ``evaluate`` / ``membership_scores`` call of this process: (label, QA pairs,
    seconds, end time). The wrappers call the originals unchanged."""

    def __init__(self):
        self.calls: list[tuple[str, int, float, float]] = []
        self._originals = {name: getattr(E, name) for name in ("evaluate", "membership_scores")}
        for name, original in self._originals.items():
            setattr(E, name, self._timed(original))

    def _timed(self, original):
        def timed(model, encoder, examples, *args, **kwargs):
            start = time.perf_counter()
            out = original(model, encoder, examples, *args, **kwargs)
            end = time.perf_counter()
            label = kwargs.get("progress") or (args[1] if len(args) > 1 and isinstance(args[1], str) else "?")
            self.calls.append((label, len(examples), end - start, end))
            return out
        return timed

    def restore(self) -> None:
        for name, original in self._originals.items():
            setattr(E, name, original)

    def seconds(self, label: str) -> float | None:
        found = [s for lab, _, s, _ in self.calls if lab == label]
        return sum(found) if found else None

    def between(self, start: float, end: float) -> tuple[float, int]:
        """Seconds and QA pairs of the calls that ended in (start, end]."""
        inside = [(n, s) for _, n, s, t in self.calls if start < t <= end]
        return sum(s for _, s in inside), sum(n for n, _ in inside)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=16, help="Barabasi-Albert nodes (m=2: ~2 edges per node, "
                                                              "20 QA pairs per edge)")
    parser.add_argument("--forget", type=int, default=4, help="forget edges (top-degree:K)")
    parser.add_argument("--seed", type=int, default=0, help="graph and run seed")
    parser.add_argument("--relearn-steps", type=int, default=ResurfacingConfig.relearn_steps,
                        help="optimizer steps of each relearning (the check's default)")
    parser.add_argument("--eval-repeats", type=int, default=2, help="full evaluations timed for the denominator")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="injection cache to reuse (default: a fresh one in the temp folder)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default, one per core); 1 is faster on a busy machine")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    hardware = select_hardware("cpu")
    load_start = os.getloadavg()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {hardware.label}, "
          f"torch {torch.__version__} ({torch.get_num_threads()} threads), Python {platform.python_version()}")
    print(f"load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}")
    folder = Path(tempfile.mkdtemp(prefix="bench_robustness_"))
    cache = args.cache_dir or folder / "cache"
    data = folder / "graph.json"
    write_dataset(generate_pistol(build_topology("barabasi_albert", args.nodes, seed=args.seed, m=2), seed=args.seed,
                                  employment_fraction=0.3), data)
    os.environ.setdefault("AUDIT_EMBEDDED_IDLE_TIMEOUT", "600")
    server = EmbeddedServer(folder / "store")
    server.ensure_running()
    try:
        with GraphStore.open(ConnectionSettings.resolve(store_dir=folder / "store", environ={})) as store:
            write_graph(store, load_pistol(data, graph=GRAPH))
            measure(store, args, hardware, cache, folder)
    finally:
        server.stop()
    load_end = os.getloadavg()
    print(f"load average at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")


def measure(store: GraphStore, args, hardware, cache: Path, folder: Path) -> None:
    edges = load_graph_edges(store, GRAPH)
    sha = store.graph(GRAPH)["sha256"]
    all_qas = [qa for e in edges.values() for qa in e.qas]

    # -- injection, by the run's own code and settings, so that the run finds it cached
    start = time.perf_counter()
    injected = inject("scratch:tiny", GRAPH, sha, edges, InjectionConfig(), hardware, cache)
    inject_seconds = None if injected.cached else time.perf_counter() - start
    print(f"injection: {'cached' if injected.cached else f'{inject_seconds:.1f} s'}, {injected.info['epochs']} epochs, "
          f"min edge recall {injected.info['min_rouge1']:.3f}", flush=True)

    # -- one joint run with every check, the evaluation calls timed
    reports: list[tuple[float, str]] = []

    def report(line: str) -> None:
        reports.append((time.perf_counter(), line))
        print(f"  {line}", flush=True)

    config = ResurfacingConfig(checks=CHECKS, relearn_steps=args.relearn_steps, seed=args.seed)
    request = RunRequest(graph=GRAPH, select=f"top-degree:{args.forget}", model="scratch:tiny", run_id="bench",
                         device="cpu", cache_dir=cache, resurfacing=config)
    request.unlearn.seed = args.seed
    clock = EvaluationClock()
    others = OtherLoad()
    run_start = time.perf_counter()
    try:
        outcome = run_audit(store, request, report)
    finally:
        clock.restore()
    run_seconds = time.perf_counter() - run_start
    others_share = others.share()
    node = R.get_run(store, outcome.run)
    check_seconds = node.resurfacing_seconds   # JSON text on the node
    check_seconds = json.loads(check_seconds) if isinstance(check_seconds, str) else check_seconds
    unlearn_seconds = node.unlearn_seconds
    forget = list(node.forget_edges)

    # each check's evaluation calls: those that ended between the previous check's report and its own
    check_eval: dict[str, tuple[float, int]] = {}
    check_end = {name: t for t, line in reports for name in CHECKS if line.startswith(f"resurfacing check {name}:")}
    previous = check_end[CHECKS[0]] - check_seconds[CHECKS[0]]
    for name in CHECKS:
        check_eval[name] = clock.between(previous, check_end[name])
        previous = check_end[name]

    # -- denominator: one full evaluation of every QA pair on the unlearned model, in this process
    model, tokenizer = load_injected_model(injected, hardware)
    encoder = QAEncoder(tokenizer)
    unlearn_config = request.unlearn
    if unlearn_config.lr is None:
        unlearn_config.lr = default_unlearn_lr("npo", "scratch:tiny")
    unlearner = Unlearner(model, encoder, method_class("npo")(), unlearn_config, hardware.device)
    unlearner.load(cache / "runs" / outcome.run / "adapter")
    unlearner.model.eval()
    full_eval = min(timed(lambda: E.evaluate(unlearner.model, encoder, all_qas, request.eval_batch_size))
                    for _ in range(args.eval_repeats))

    # -- sizes
    found = probes(store.read(Q.FACTS_FOR_PROBES, graph=GRAPH), forget, load_probe_templates())
    forget_pairs = sum(len(edges[k].qas) for k in forget)
    print()
    print(f"graph: {len(edges)} edges, {len(all_qas)} QA pairs; forget {len(forget)} edges ({forget_pairs} QA pairs: "
          f"{', '.join(forget)}); probe questions {len(found)} "
          f"({sum(p.kind == 'paraphrase' for p in found)} paraphrase, {sum(p.kind == 'two_hop' for p in found)} 2-hop); "
          f"MIA non-members {node.mia_nonmembers}; relearn {args.relearn_steps} steps x batch "
          f"{config.relearn_batch_size}; unlearning {node.unlearn_steps} steps")
    print()
    before = clock.seconds("measure before")
    after = clock.seconds("measure after")
    parts = [before, unlearn_seconds, after, sum(check_seconds.values())]
    rows = [("injection (inject, before the run)", inject_seconds, None, None),
            ("measure before (every QA pair, with the judge)", before, None, None),
            ("unlearning (unlearn_seconds)", unlearn_seconds, None, None),
            ("measure after (every QA pair, with the judge)", after, None, None)]
    rows += [(f"check {name}", check_seconds[name], *check_eval[name]) for name in CHECKS]
    rows += [("checks, all four", sum(check_seconds.values()), sum(check_eval[n][0] for n in CHECKS),
              sum(check_eval[n][1] for n in CHECKS)),
             ("rest of the run (store, model load, judge load)", run_seconds - sum(p or 0.0 for p in parts), None, None),
             ("run_audit wall time", run_seconds, None, None),
             ("one full evaluation, no judge (denominator)", full_eval, None, None)]
    print(f"{'phase':<50} {'seconds':>8} {'/ unlearn':>9} {'/ full eval':>11} {'eval s':>7} {'QA evaluated':>12}")
    for label, seconds, eval_s, eval_n in rows:
        if seconds is None:
            print(f"{label:<50} {'cached' if label.startswith('injection') else 'n/a':>8}")
            continue
        print(f"{label:<50} {seconds:>8.1f} {seconds / unlearn_seconds:>8.2f}x {seconds / full_eval:>10.2f}x "
              f"{'' if eval_s is None else f'{eval_s:.1f}':>7} {'' if eval_n is None else eval_n:>12}")
    print("eval s / QA evaluated: seconds and QA pairs of the evaluate and membership_scores calls inside the check "
          "(the rest is rounding the weights, relearning steps, building probes and non-members)")
    print(f"other processes (the embedded store's JVM included) took "
          f"{'n/a' if others_share is None else f'{others_share:.0%}'} of the machine's CPU during the run")
    print()
    print("SUMMARY " + " ".join(f"{n}_s={check_seconds[n]:.2f}" for n in CHECKS)
          + f" unlearn_s={unlearn_seconds:.2f} full_eval_s={full_eval:.2f} run_s={run_seconds:.1f}")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
