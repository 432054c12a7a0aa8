"""`audit run` end to end: select, inject, measure before, unlearn, measure after, write back.

Two modes:
- joint (default): one unlearning of all selected edges together;
- per-edge (``per_edge=True``): the PISTOL protocol, one unlearning per selected edge, each
  from the same injected model (only the adapters are reset in between).

Every phase writes its results to the graph as soon as it has them, and a run restarted with
the same id skips what is already there (``audit/run/lifecycle.py``, ``audit/results/store.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from audit.config import INT64_MAX, apply_options, as_dict, parse_scratch
from audit.models.defaults import default_unlearn_lr, model_width
from audit.measure import evaluate as E
from audit.measure import metrics as M
from audit.measure.equivalence import Judge, load_judge
from audit.models.encoding import PROMPT_VERSION, QAEncoder
from audit.models.load import Hardware, check_model_path, select_hardware
from audit.results import store as R
from audit.results.schema import Run
from audit.run import readings
from audit.run import summaries as S
from audit.run import training_data as T
from audit.run.injection import InjectionTexts, inject, load_injected_model
from audit.run.lifecycle import RunLifecycle
from audit.run.memorization import UnlearningMemorization
from audit.run.methods import method_class
from audit.run.methods.base import Method
from audit.run.record import RunRecord, environment
from audit.run.qa import load_graph_edges, load_refusals, load_utility, neighbourhood, retain_edges
from audit.run.request import RunOutcome, RunRequest
from audit.run.selectors import select
from audit.run.unlearning import Unlearner
from audit.types import UTILITY_EDGE, Edge, QAExample
from audit.measure.leakage import reading
from audit.results.leakage import run_leakage, write_browser_leakage
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError

log = logging.getLogger(__name__)
RUN_RESURFACING_NAMES = set(Run.names("resurfacing"))

__all__ = ["RunOutcome", "RunRequest", "run_audit"]


@dataclass
class RunContext:
    """What the phases of one run share, fixed before anything runs."""
    store: GraphStore
    run: str
    run_dir: Path
    request: RunRequest
    method: Method
    graph_info: dict
    edges: dict[str, Edge]
    forget: list[str]
    train_retain: list[str]
    utility: list[QAExample]
    refusals: list[str]
    data: T.TrainingData
    sweep_data: dict[str, T.TrainingData]   # per-edge runs on text: each forget edge's own training data
    hardware: Hardware
    judge: Judge | None
    report: Callable[[str], None]
    record: RunRecord                        # the run folder's config, environment, loss log, results


def run_audit(store: GraphStore, request: RunRequest, report: Callable[[str], None] = log.info) -> RunOutcome:
    """Run (or resume) one audit; returns the run's key and summary."""
    # -- everything that can be refused is checked before anything runs or is written
    graph_info = store.graph(request.graph)   # refuses an unknown graph, naming the known ones
    edges = load_graph_edges(store, request.graph)
    selection = select(store, request.graph, list(edges), request.select, request.cypher, request.unlearn.seed)
    method = method_class(request.method)(apply_options(method_class(request.method).config_class(),
                                                        request.method_options, f"method {request.method}"))
    request.unlearn.check()
    request.resurfacing.check()
    request.injection.check(request.model)
    if not 1 <= request.eval_batch_size <= INT64_MAX:
        raise ConfigError(f"--eval-batch-size {request.eval_batch_size}: must be a positive whole number")
    lr_source, given_lr = "given", request.unlearn.lr
    if request.unlearn.lr is None:
        width = model_width(request.model)
        lr_source = f"the default for {method.name} on a model of width {width if width is not None else 'unknown'}"
        request = dataclasses.replace(request, unlearn=dataclasses.replace(
            request.unlearn, lr=default_unlearn_lr(method.name, request.model)))
    forget = selection.edges
    train_retain = retain_edges(edges, forget, request.retain, request.unlearn.seed)
    texts = T.TrainingTexts.load(store, request.graph, graph_info["source"], edges, request.training,
                                 method.uses_refusal)
    data = texts.choose(forget, train_retain, request.retain)
    # a sweep unlearns each edge on its own: each must have training data before anything runs
    sweep_data = {edge: texts.choose([edge], [k for k in train_retain if k != edge], request.retain)
                  for edge in forget} if request.per_edge and request.training.text else {}
    utility = load_utility(request.utility) if request.utility else []
    refusal_version, refusals = load_refusals(request.idk) if method.uses_refusal else (None, [])
    hardware = select_hardware(request.device)
    if parse_scratch(request.model) is None:
        check_model_path(request.model)
    judge = load_judge(request.equivalence) if request.equivalence else None

    settings = {
        "graph": request.graph, "graph_sha256": graph_info["sha256"], "selector": selection.spec,
        "cypher": selection.cypher, "forget_edges": forget, "method": method.name,
        "method_config": as_dict(method.config), "unlearn_config": as_dict(request.unlearn),
        "injection_config": as_dict(request.injection), "model": request.model, "retain": request.retain,
        "utility": str(request.utility) if request.utility else None,
        "utility_sha256": _sha256(request.utility) if request.utility else None,
        "refusals": refusal_version, "per_edge": request.per_edge, "prompt_version": PROMPT_VERSION,
        "equivalence": judge.version if judge else None,
        "memorization_config": request.memorization.identity() if graph_info["source"] == "wikidata" else None,
    }
    if request.training.text:   # QA training keeps the digest it always had, so older runs still resume
        settings["training_config"] = as_dict(request.training)
    if request.resurfacing.checks:   # likewise: a run without checks keeps its digest
        settings["resurfacing_config"] = as_dict(request.resurfacing)
    run = R.run_key(request.run_id, request.graph, method.name)
    life = RunLifecycle(store, run, settings)
    existing = life.finished()
    if existing is not None:
        report(f"run {run} is already complete; nothing to do")
        summary = readings.stored_summary(existing)
        return RunOutcome(run, R.DONE, True, summary, reading(run_leakage(store, run), summary))

    run_dir = request.cache_dir / "runs" / run
    lock_path = run_dir / "run.lock"
    life.claim(lock_path)   # a second process with this run id is refused here
    resumed = life.start({
        "mode": "per-edge" if request.per_edge else "joint", "templates": graph_info.get("templates"),
        "retain_edges": len(train_retain), "seed": request.unlearn.seed,
        "pairing": f"seeded: random.Random('{request.unlearn.seed}/pair/<epoch>/<step>'); "
                   f"log {run_dir / 'pairing.jsonl'}",
        "hardware": hardware.label, "metric_definitions": "metrics.v1", "lock": str(lock_path),
        **data.record(),
        "training_config": settings.get("training_config"), "resurfacing_config": settings.get("resurfacing_config"),
    })
    report(f"{'resuming' if resumed else 'starting'} run {run}: {method.name} on {len(forget)} forget edge(s) "
           f"of {request.graph} ({len(edges)} edges), model {request.model}, lr {request.unlearn.lr:g} ({lr_source}), "
           f"{request.unlearn.epochs} epochs, {hardware.label}")
    if data.kind != "qa":
        report(f"training on {data.kind}: {len(data.forget)} forget and {len(data.retain)} retain text(s)"
               + (f"; {len(data.mixed)} mixed passage(s) state a forget and a retained fact: "
                  f"{ {'forget': 'unlearned', 'retain': 'kept as retain', 'drop': 'left out'}[data.mixed_policy]} "
                  f"(--mixed-passages {data.mixed_policy})" if data.kind == "passages" else ""))
    record = RunRecord(run_dir)
    context = RunContext(store, run, run_dir, request, method, graph_info, edges, forget, train_retain, utility,
                         refusals, data, sweep_data, hardware, judge, report, record)
    with life.running():
        env = environment(store, hardware)
        # the rate as given: a re-run on another model or method takes that one's default again
        record.start(dataclasses.replace(request, run_id=run, unlearn=dataclasses.replace(request.unlearn, lr=given_lr)),
                     as_dict(method.config), env, [] if given_lr is not None else
                     [f"lr: not given; this run used {request.unlearn.lr:g}, {lr_source}"])
        life.update(environment=env)   # the versions on the node too
        summary = _execute(context)
    life.finish(summary)
    record.finish(store, run, summary)
    report(f"run record: {run_dir} (results.json, config.toml, environment.json, loss.jsonl)")
    for line in (readings.redundancy_reading(summary), readings.resurfacing_reading(summary)):
        if line:
            report(line)
    leakage = write_browser_leakage(store, run)
    report("leakage: " + ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in leakage.counts().items())
           + f" (Neo4j Browser: MATCH p = ()-[:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED {{run: '{run}'}}]->() RETURN p)")
    return RunOutcome(run, R.DONE, resumed, summary, reading(leakage, summary))


class _Phases:
    """The model-side phases of one run: inject, measure before, unlearn, measure after."""

    def __init__(self, c: RunContext):
        self.c = c
        request = c.request
        texts = (InjectionTexts(c.data.inject, request.training.injects_qa(request.model), request.training.chunk_tokens)
                 if c.data.kind != "qa" else None)
        injected = inject(request.model, request.graph, c.graph_info["sha256"], c.edges, request.injection,
                          c.hardware, request.cache_dir, texts)
        info = injected.info
        if info["kind"] == "none":
            c.report("injection off: the model is audited as it is")
        else:
            c.report(f"injection {'(cached) ' if injected.cached else ''}{info['epochs']} epochs: edge ROUGE-1 "
                     f"recall min {info['min_rouge1']:.3f}, mean {info['mean_rouge1']:.3f}"
                     f"{'' if injected.reached else ' — below the target; results will say so'}")
        if info["kind"] != "none" and not c.record.logged("inject"):   # its epochs, once per run
            for line in info.get("loss_log", []):
                c.record.log_loss("inject", line["epoch"], line["loss"], line["seconds"], cached=injected.cached)
        R.update_run(c.store, c.run, injection_key=info["key"], injection_epochs=info["epochs"],
                     injection_reached=info["reached"], injection_min_rouge1=info["min_rouge1"])
        self.model, tokenizer = load_injected_model(injected, c.hardware, request.unlearn.gradient_checkpointing)
        self.tokenizer = tokenizer
        self.encoder = QAEncoder(tokenizer)
        self.all_qas = [qa for edge in c.edges.values() for qa in edge.qas]
        self.max_tokens = T.context_tokens(self.model, request.training.chunk_tokens)

    def training_set(self, data: T.TrainingData) -> tuple[list[T.TrainItem], list[T.TrainItem]]:
        """The forget and retain sets of ``data``, texts cut to the context."""
        return (T.chunked(data.forget, self.encoder, self.max_tokens),
                T.chunked(data.retain, self.encoder, self.max_tokens))

    def evaluate(self, examples: list[QAExample], label: str) -> list[E.QAScore]:
        # utility questions are outside the graph: no memorization cases, so no judge
        graph_questions = bool(examples) and examples[0].edge != UTILITY_EDGE
        return E.evaluate(self.model, self.encoder, examples, self.c.request.eval_batch_size, progress=label,
                          judge=self.c.judge if graph_questions else None)

    def utility_rouge1(self, label: str) -> float | None:
        return S.mean_rouge1(self.evaluate(self.c.utility, label)) if self.c.utility else None


def _execute(c: RunContext) -> dict:
    phases = _Phases(c)
    forget_set = set(c.forget)
    memorization = (UnlearningMemorization(c.store, c.run, c.request, phases.model, phases.tokenizer, c.edges, c.forget,
                                           c.graph_info)
                    if c.graph_info["source"] == "wikidata" and not c.request.per_edge else None)

    # -- before: the injected model (written once; a resumed run reuses it)
    stored = {r.edge: r for r in R.read_results(c.store, c.run)}
    run_node = R.get_run(c.store, c.run)
    if memorization is not None:
        memorization.measure("before", c.report)
    if not all(stored.get(k) is not None and stored[k].rouge1_before is not None for k in c.edges) \
            or (c.utility and run_node.utility_rouge1_before is None):
        scores = phases.evaluate(phases.all_qas, "measure before")
        R.write_results(c.store, c.run, [
            {**S.edge_props(c.edges[k], "forget" if k in forget_set else "retain"), **S.phase_props(v, qa, "before")}
            for k, (v, qa) in S.by_edge(scores).items()])
        R.update_run(c.store, c.run, utility_rouge1_before=phases.utility_rouge1("utility before"))
        c.report(f"measured before unlearning: {len(phases.all_qas)} QA pairs on {len(c.edges)} edges")

    unlearner = Unlearner(phases.model, phases.encoder, c.method, c.request.unlearn, c.hardware.device)
    if c.request.per_edge:
        return _sweep(c, phases, unlearner, stored)

    # Writing the before-measures adds no after-measure, so `stored` still says what is done.
    if not all(stored.get(k) is not None and stored[k].rouge1_after is not None for k in c.edges):
        forget_items, retain_items = phases.training_set(c.data)
        R.update_run(c.store, c.run, train_forget_chunks=len(forget_items), train_retain_chunks=len(retain_items))
        stats = unlearner.run(forget_items, retain_items, c.refusals, checkpoint=c.run_dir / "checkpoint.pt",
                              pairing_log=c.run_dir / "pairing.jsonl", progress=f"unlearn ({c.method.name})",
                              loss_log=lambda *epoch: c.record.log_loss("unlearn", *epoch))
        if stats.resumed_from_epoch:
            c.report(f"resumed unlearning after epoch {stats.resumed_from_epoch}")
        unlearner.model.save_pretrained(c.run_dir / "adapter")
        scores = phases.evaluate(phases.all_qas, "measure after")
        R.write_results(c.store, c.run, [{"edge": k, **S.phase_props(v, qa, "after")}
                                         for k, (v, qa) in S.by_edge(scores).items()])
        if memorization is not None:
            memorization.model = unlearner.model
            memorization.measure("after", c.report)
        R.update_run(c.store, c.run, unlearn_steps=stats.steps, unlearn_tokens=stats.tokens,
                     unlearn_seconds=round(stats.seconds, 2), unlearn_tokens_per_second=round(stats.tokens_per_second, 1),
                     unlearn_forget_pairs_per_second=round(stats.forget_pairs_per_second, 2),
                     final_loss=stats.final_loss, utility_rouge1_after=phases.utility_rouge1("utility after"))
        (c.run_dir / "checkpoint.pt").unlink(missing_ok=True)
    summary = S.joint_summary(R.read_results(c.store, c.run), R.get_run(c.store, c.run))
    if memorization is not None:
        summary.update(memorization.summary())
    if c.request.resurfacing.checks:
        summary.update(_resurfacing(c, phases, unlearner))
    return summary


def _resurfacing(c: RunContext, phases: _Phases, unlearner: Unlearner) -> dict:
    """The resurfacing checks on the unlearned model, written per edge and on the Run; a resumed
    run whose checks finished reads them back, one interrupted in them reloads the adapters."""
    from audit.run.resurfacing import run_checks, summary

    node = R.get_run(c.store, c.run)
    if node.resurfacing_seconds is not None:
        return {k: v for k, v in readings.stored_summary(node).items() if k in RUN_RESURFACING_NAMES}
    if not unlearner.trained:
        unlearner.load(c.run_dir / "adapter")
    results = R.read_results(c.store, c.run)
    rows = c.store.read(Q.FACTS_FOR_PROBES, graph=c.request.graph)
    per_edge, run_props = run_checks(_check_context(c, phases, unlearner, c.forget,
                                                    {r.edge: r.rouge1_after for r in results}, rows))
    R.write_results(c.store, c.run, [{"edge": k, **v} for k, v in per_edge.items()])
    run_props.update(summary(R.read_results(c.store, c.run)))
    R.update_run(c.store, c.run, **run_props)
    return run_props


def _check_context(c: RunContext, phases: _Phases, unlearner: Unlearner, forget: list[str],
                   rouge1_after: dict[str, float], rows: list[dict], scope: list[str] | None = None):
    """What the resurfacing checks need of a run (``audit.run.resurfacing.CheckContext``)."""
    from audit.run.resurfacing import CheckContext

    return CheckContext(unlearner.model, phases.encoder, c.edges, forget, rouge1_after, c.request.resurfacing,
                        c.request.unlearn.lr, c.request.eval_batch_size, rows, c.report, scope=scope)


def _sweep_data(c: RunContext, phases: _Phases, edge: str) -> tuple[list, list]:
    """One sweep step's forget and retain sets: the edge's own, and the training retain set
    without it (every other edge's, when that leaves nothing)."""
    if c.data.kind == "qa":
        retain = [qa for k in c.train_retain if k != edge for qa in c.edges[k].qas]
        return list(c.edges[edge].qas), retain or [qa for qa in phases.all_qas if qa.edge != edge]
    return phases.training_set(c.sweep_data[edge])


def _sweep(c: RunContext, phases: _Phases, unlearner: Unlearner, stored: dict) -> dict:
    """The per-edge sweep: one unlearning per forget edge, adapters reset in between."""
    sweep_checks = _SweepChecks(c, phases) if c.request.resurfacing.checks else None
    for position, edge in enumerate(c.forget, 1):
        if stored.get(edge) is not None and stored[edge].rouge1_after is not None:
            continue
        unlearner.reset()
        checkpoint = c.run_dir / f"checkpoint-{edge.replace('/', '_')}.pt"
        forget_items, retain_items = _sweep_data(c, phases, edge)
        stats = unlearner.run(forget_items, retain_items, c.refusals,
                              checkpoint=checkpoint, pairing_log=c.run_dir / "pairing.jsonl",
                              progress=f"unlearn {position}/{len(c.forget)} ({c.method.name})",
                              loss_log=lambda *epoch: c.record.log_loss(f"unlearn {edge}", *epoch))
        scores = S.by_edge(phases.evaluate(phases.all_qas, f"measure {position}/{len(c.forget)}"))
        own, own_qas = scores[edge]
        others = [s for k, (_, qas) in scores.items() if k != edge for s in qas]
        near = set(neighbourhood(c.edges, [edge]))
        near_scores = [s for k, (_, qas) in scores.items() if k in near for s in qas]
        retain_rouge1 = S.mean_rouge1(others)
        # the checks of this edge's unlearning, written with its measures (a resumed sweep skips
        # an edge only when both are there)
        checks = sweep_checks.edge(unlearner, edge, own["rouge1"]) if sweep_checks else {}
        R.write_results(c.store, c.run, [{
            "edge": edge, **S.phase_props(own, own_qas, "after"), **checks,
            "retain_rouge1_after": retain_rouge1,
            "neighbour_rouge1_after": S.mean_rouge1(near_scores) if near_scores else None,
            "deviation_score": M.deviation_score(own["rouge1"], retain_rouge1 if retain_rouge1 is not None else 1.0),
            "retain_edges_after": [k for k in scores if k != edge],
            "retain_rouge1_by_edge": [scores[k][0]["rouge1"] for k in scores if k != edge],
            "utility_rouge1_after": phases.utility_rouge1("utility after"),
            "unlearn_seconds": round(stats.seconds, 2), "unlearn_tokens": stats.tokens,
        }])
        checkpoint.unlink(missing_ok=True)
        c.report(f"edge {position}/{len(c.forget)} {edge}: ROUGE-1 {own['rouge1']:.3f}, "
                 f"retained {retain_rouge1 if retain_rouge1 is not None else float('nan'):.3f}")
    results = R.read_results(c.store, c.run)
    R.write_results(c.store, c.run, S.damage_per_edge(results))
    summary = S.sweep_summary(results)
    if sweep_checks:
        summary.update(sweep_checks.summary(results))
    return summary


class _SweepChecks:
    """The resurfacing checks of a per-edge sweep: after each edge's unlearning, on that edge
    (quantization and membership inference measure the edge itself; relearning and probes as in
    a joint run, with the one edge as the forget set)."""

    def __init__(self, c: RunContext, phases: _Phases):
        self.c, self.phases = c, phases
        self.rows = c.store.read(Q.FACTS_FOR_PROBES, graph=c.request.graph)
        self.seconds: dict[str, float] = {}
        self.quantization = None

    def edge(self, unlearner: Unlearner, edge: str, rouge1_after: float) -> dict:
        from audit.run.resurfacing import run_checks

        per_edge, run = run_checks(_check_context(self.c, self.phases, unlearner, [edge], {edge: rouge1_after},
                                                  self.rows, scope=[edge]))
        for name, seconds in run["resurfacing_seconds"].items():
            self.seconds[name] = round(self.seconds.get(name, 0.0) + seconds, 2)
        self.quantization = self.quantization or run.get("quantization")
        return per_edge.get(edge, {})

    def summary(self, results) -> dict:
        from audit.run.resurfacing import summary

        out = summary(results)
        if self.seconds:   # this process's share (a resumed sweep times only the edges it ran)
            out["resurfacing_seconds"] = self.seconds
        if self.quantization:
            out["quantization"] = self.quantization
        R.update_run(self.c.store, self.c.run, **out)
        return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
