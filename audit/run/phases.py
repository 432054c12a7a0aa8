"""The phases of one `audit run`, in order; each says from what is written whether it is done,
and does its step, giving back what to write (``audit.run.lifecycle.Writes``).

A joint run: inject, memorization before, measure before, unlearn, measure after, memorization
after, resurfacing. A per-edge sweep: inject, measure before, then one ``SweepEdge`` per forget
edge (adapters reset, the edge unlearned on its own, every edge measured, its checks), then the
damage each edge took from the others' unlearnings. A new phase is a class with ``name``,
``done(state)`` and ``run(context)``, placed in ``phases(context)``.

The lifecycle (``RunLifecycle.advance``) runs the phases that are not done and writes what they
give; a phase writes nothing itself. (The Wikidata memorization measures are written by
``audit.run.memorization.UnlearningMemorization``, which the memorization phases drive.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from audit.measure import evaluate as E
from audit.measure import metrics as M
from audit.models.encoding import QAEncoder
from audit.results.schema import Run, phase_name
from audit.run import readings
from audit.run import resurfacing as C
from audit.run import summaries as S
from audit.run import training_data as T
from audit.run.injection import InjectionTexts, inject, load_injected_model
from audit.run.lifecycle import Phase, RunState, Writes
from audit.run.memorization import UnlearningMemorization
from audit.run.plan import RunPlan
from audit.run.qa import neighbourhood
from audit.run.record import RunRecord
from audit.run.unlearning import Unlearner
from audit.types import UTILITY_EDGE, QAExample
from graphstore import GraphStore
from graphstore import queries as Q

RUN_RESURFACING_NAMES = set(Run.names("resurfacing"))


@dataclass
class RunContext:
    """What the phases of one run share: the plan, and the models once the injection loads them."""
    store: GraphStore
    plan: RunPlan
    report: Callable[[str], None]
    record: RunRecord                        # the run folder's config, environment, loss log, results
    state: Callable[[], RunState]            # what the run has written so far (RunLifecycle.state)
    memorization: UnlearningMemorization | None = None   # Wikidata joint runs: the facts' measures
    model: object = None                     # the injected model (adapters added on it by the unlearner)
    tokenizer: object = None
    encoder: QAEncoder | None = None
    max_tokens: int = 0
    sweep_seconds: dict[str, float] = field(default_factory=dict)   # a sweep's checks: this process's seconds
    sweep_quantization: dict | None = None
    probe_rows: list[dict] | None = None     # the graph's facts for probe questions, read once
    _unlearner: Unlearner | None = None

    @property
    def all_qas(self) -> list[QAExample]:
        return [qa for edge in self.plan.edges.values() for qa in edge.qas]

    @property
    def unlearner(self) -> Unlearner:
        """The adapters on the injected model, added when first asked (after the measures before)."""
        if self._unlearner is None:
            p = self.plan
            self._unlearner = Unlearner(self.model, self.encoder, p.method, p.request.unlearn, p.hardware.device)
        return self._unlearner

    def unlearned(self) -> Unlearner:
        """The unlearned adapters: trained by this process, or loaded from the run folder when an
        earlier one trained them."""
        if not self.unlearner.trained:
            self.unlearner.load(self.plan.run_dir / "adapter")
        return self.unlearner

    def training_set(self, data: T.TrainingData) -> tuple[list[T.TrainItem], list[T.TrainItem]]:
        """The forget and retain sets of ``data``, texts cut to the context."""
        return (T.chunked(data.forget, self.encoder, self.max_tokens),
                T.chunked(data.retain, self.encoder, self.max_tokens))

    def evaluate(self, examples: list[QAExample], label: str) -> list[E.QAScore]:
        # utility questions are outside the graph: no memorization cases, so no judge
        graph_questions = bool(examples) and examples[0].edge != UTILITY_EDGE
        return E.evaluate(self.model, self.encoder, examples, self.plan.request.eval_batch_size, progress=label,
                          judge=self.plan.judge if graph_questions else None)

    def utility_rouge1(self, label: str) -> float | None:
        return S.mean_rouge1(self.evaluate(self.plan.utility, label)) if self.plan.utility else None

    def check_context(self, forget: list[str], rouge1_after: dict[str, float], rows: list[dict],
                      scope: list[str] | None = None) -> C.CheckContext:
        """What the resurfacing checks need of the run, on the unlearned model."""
        p = self.plan
        return C.CheckContext(self.unlearner.model, self.encoder, p.edges, forget, rouge1_after, p.request.resurfacing,
                              p.request.unlearn.lr, p.request.eval_batch_size, rows, self.report, scope=scope)


class Inject:
    """Inject the graph's facts into the model (cached by its key) and load it. Never done: every
    start needs the model; the injection itself is trained once."""
    name = "inject"

    def done(self, state: RunState) -> bool:
        return False

    def run(self, c: RunContext) -> Writes:
        p, request = c.plan, c.plan.request
        texts = (InjectionTexts(p.data.inject, request.training.injects_qa(request.model), request.training.chunk_tokens)
                 if p.data.kind != "qa" else None)
        injected = inject(request.model, request.graph, p.graph_info["sha256"], p.edges, request.injection,
                          p.hardware, request.cache_dir, texts)
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
        c.model, c.tokenizer = load_injected_model(injected, p.hardware, request.unlearn.gradient_checkpointing)
        c.encoder = QAEncoder(c.tokenizer)
        c.max_tokens = T.context_tokens(c.model, request.training.chunk_tokens)
        return Writes(run=dict(injection_key=info["key"], injection_epochs=info["epochs"],
                               injection_reached=info["reached"], injection_min_rouge1=info["min_rouge1"]))


class Memorization:
    """Wikidata joint runs: the memorization measure of the forget subjects' facts, before or after."""

    def __init__(self, memorization: UnlearningMemorization, phase: str):
        self.memorization, self.phase, self.name = memorization, phase, f"memorization {phase}"

    def done(self, state: RunState) -> bool:
        return (len(state.facts) == len(self.memorization.targets)
                and all(phase_name("memorized", self.phase) in r for r in state.facts))

    def run(self, c: RunContext) -> None:
        self.memorization.model = c.unlearned().model if self.phase == "after" else c.model
        self.memorization.tokenizer = c.tokenizer
        self.memorization.measure(self.phase, c.report)


class MeasureBefore:
    """Every edge (and the utility set) asked of the injected model, before any unlearning."""
    name = "measure before"

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def done(self, state: RunState) -> bool:
        return (state.measured(self.plan.edges, "rouge1_before")
                and not (self.plan.utility and state.run.utility_rouge1_before is None))

    def run(self, c: RunContext) -> Writes:
        forget, qas = set(self.plan.forget), c.all_qas
        scores = c.evaluate(qas, "measure before")
        rows = [{**S.edge_props(self.plan.edges[k], "forget" if k in forget else "retain"), **S.phase_props(v, qa, "before")}
                for k, (v, qa) in S.by_edge(scores).items()]
        utility = c.utility_rouge1("utility before")
        c.report(f"measured before unlearning: {len(qas)} QA pairs on {len(self.plan.edges)} edges")
        return Writes(rows, {"utility_rouge1_before": utility})


class Unlearn:
    """A joint run's one unlearning of every forget edge together; the adapters are saved in the
    run folder. Done when the Run holds its steps (or, for a run from before this phase was
    split off, when every edge is measured after it)."""
    name = "unlearn"

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def done(self, state: RunState) -> bool:
        return state.run.unlearn_steps is not None or state.measured(self.plan.edges, "rouge1_after")

    def run(self, c: RunContext) -> Writes:
        p, unlearner = self.plan, c.unlearner
        forget_items, retain_items = c.training_set(p.data)
        checkpoint = p.run_dir / "checkpoint.pt"
        stats = unlearner.run(forget_items, retain_items, p.refusals, checkpoint=checkpoint,
                              pairing_log=p.run_dir / "pairing.jsonl", progress=f"unlearn ({p.method.name})",
                              loss_log=lambda *epoch: c.record.log_loss("unlearn", *epoch))
        if stats.resumed_from_epoch:
            c.report(f"resumed unlearning after epoch {stats.resumed_from_epoch}")
        unlearner.model.save_pretrained(p.run_dir / "adapter")
        checkpoint.unlink(missing_ok=True)
        return Writes(run=dict(
            train_forget_chunks=len(forget_items), train_retain_chunks=len(retain_items),
            unlearn_steps=stats.steps, unlearn_tokens=stats.tokens, unlearn_seconds=round(stats.seconds, 2),
            unlearn_tokens_per_second=round(stats.tokens_per_second, 1),
            unlearn_forget_pairs_per_second=round(stats.forget_pairs_per_second, 2), final_loss=stats.final_loss))


class MeasureAfter:
    """Every edge (and the utility set) asked of the unlearned model."""
    name = "measure after"

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def done(self, state: RunState) -> bool:
        return state.measured(self.plan.edges, "rouge1_after")

    def run(self, c: RunContext) -> Writes:
        c.unlearned()
        scores = c.evaluate(c.all_qas, "measure after")
        rows = [{"edge": k, **S.phase_props(v, qa, "after")} for k, (v, qa) in S.by_edge(scores).items()]
        return Writes(rows, {"utility_rouge1_after": c.utility_rouge1("utility after")})


class Resurfacing:
    """A joint run's resurfacing checks on the unlearned model (``audit.run.resurfacing``), per
    edge and on the Run. Done when the Run holds their seconds."""
    name = "resurfacing"

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def done(self, state: RunState) -> bool:
        return state.run.resurfacing_seconds is not None

    def run(self, c: RunContext) -> Writes:
        c.unlearned()
        rouge1_after = {k: r.rouge1_after for k, r in c.state().results.items()}
        rows = c.store.read(Q.FACTS_FOR_PROBES, graph=self.plan.request.graph)
        per_edge, run_props = C.run_checks(c.check_context(self.plan.forget, rouge1_after, rows))
        return Writes([{"edge": k, **v} for k, v in per_edge.items()], run_props)


class SweepEdge:
    """One step of a per-edge sweep: the adapters reset, ``edge`` unlearned on its own, every edge
    asked again, the checks of this unlearning on the edge; written together, so a resumed sweep
    skips an edge only when all are there."""

    def __init__(self, plan: RunPlan, edge: str, position: int):
        self.plan, self.edge, self.position = plan, edge, position
        self.name = f"unlearn {edge}"

    def done(self, state: RunState) -> bool:
        return state.measured([self.edge], "rouge1_after")

    def training_set(self, c: RunContext) -> tuple[list, list]:
        """The edge's own forget set, and the training retain set without it (every other edge's,
        when that leaves nothing)."""
        p, edge = self.plan, self.edge
        if p.data.kind == "qa":
            retain = [qa for k in p.train_retain if k != edge for qa in p.edges[k].qas]
            return list(p.edges[edge].qas), retain or [qa for qa in c.all_qas if qa.edge != edge]
        return c.training_set(p.sweep_data[edge])

    def run(self, c: RunContext) -> Writes:
        p, edge, unlearner = self.plan, self.edge, c.unlearner
        of = f"{self.position}/{len(p.forget)}"
        unlearner.reset()
        checkpoint = p.run_dir / f"checkpoint-{edge.replace('/', '_')}.pt"
        forget_items, retain_items = self.training_set(c)
        stats = unlearner.run(forget_items, retain_items, p.refusals, checkpoint=checkpoint,
                              pairing_log=p.run_dir / "pairing.jsonl", progress=f"unlearn {of} ({p.method.name})",
                              loss_log=lambda *epoch: c.record.log_loss(f"unlearn {edge}", *epoch))
        scores = S.by_edge(c.evaluate(c.all_qas, f"measure {of}"))
        own, own_qas = scores[edge]
        others = [s for k, (_, qas) in scores.items() if k != edge for s in qas]
        near = set(neighbourhood(p.edges, [edge]))
        near_scores = [s for k, (_, qas) in scores.items() if k in near for s in qas]
        retain_rouge1 = S.mean_rouge1(others)
        checks = self.checks(c, own["rouge1"]) if p.request.resurfacing.checks else {}
        row = {
            "edge": edge, **S.phase_props(own, own_qas, "after"), **checks,
            "retain_rouge1_after": retain_rouge1,
            "neighbour_rouge1_after": S.mean_rouge1(near_scores) if near_scores else None,
            "deviation_score": M.deviation_score(own["rouge1"], retain_rouge1 if retain_rouge1 is not None else 1.0),
            "retain_edges_after": [k for k in scores if k != edge],
            "retain_rouge1_by_edge": [scores[k][0]["rouge1"] for k in scores if k != edge],
            "utility_rouge1_after": c.utility_rouge1("utility after"),
            "unlearn_seconds": round(stats.seconds, 2), "unlearn_tokens": stats.tokens,
        }
        checkpoint.unlink(missing_ok=True)
        c.report(f"edge {of} {edge}: ROUGE-1 {own['rouge1']:.3f}, "
                 f"retained {retain_rouge1 if retain_rouge1 is not None else float('nan'):.3f}")
        return Writes([row])

    def checks(self, c: RunContext, rouge1_after: float) -> dict:
        """The resurfacing checks of this edge's unlearning, on the edge (quantization and membership
        inference measure the edge itself; relearning and probes as in a joint run, with the one
        edge as the forget set); their seconds add up on the context for the run's summary."""
        if c.probe_rows is None:
            c.probe_rows = c.store.read(Q.FACTS_FOR_PROBES, graph=self.plan.request.graph)
        per_edge, run = C.run_checks(c.check_context([self.edge], {self.edge: rouge1_after}, c.probe_rows,
                                                     scope=[self.edge]))
        for name, seconds in run["resurfacing_seconds"].items():
            c.sweep_seconds[name] = round(c.sweep_seconds.get(name, 0.0) + seconds, 2)
        c.sweep_quantization = c.sweep_quantization or run.get("quantization")
        return per_edge.get(self.edge, {})


class SweepDamage:
    """After a sweep: every edge's ROUGE-1 averaged over the unlearnings of the other edges, from
    the stored lists. Never done: a cheap reading of what is written."""
    name = "damage"

    def done(self, state: RunState) -> bool:
        return False

    def run(self, c: RunContext) -> Writes:
        return Writes(S.damage_per_edge(list(c.state().results.values())))


def phases(c: RunContext) -> list[Phase]:
    """The phases of the run of ``c``, in order."""
    p = c.plan
    if p.request.per_edge:
        return [Inject(), MeasureBefore(p), *(SweepEdge(p, edge, i) for i, edge in enumerate(p.forget, 1)),
                SweepDamage()]
    before, after = ((Memorization(c.memorization, "before"), Memorization(c.memorization, "after"))
                     if c.memorization is not None else (None, None))
    steps = [Inject(), before, MeasureBefore(p), Unlearn(p), MeasureAfter(p), after,
             Resurfacing(p) if p.request.resurfacing.checks else None]
    return [s for s in steps if s is not None]


def summary(c: RunContext, state: RunState) -> dict:
    """The run's summary, from what it wrote (``state``) and, for a sweep's checks, the seconds
    this process spent on them."""
    results = list(state.results.values())
    if c.plan.request.per_edge:
        out = S.sweep_summary(results)
        if c.plan.request.resurfacing.checks:
            out.update(C.summary(results))
            if c.sweep_seconds:   # this process's share (a resumed sweep times only the edges it ran)
                out["resurfacing_seconds"] = c.sweep_seconds
            if c.sweep_quantization:
                out["quantization"] = c.sweep_quantization
        return out
    out = S.joint_summary(results, state.run)
    if c.memorization is not None:
        out.update(c.memorization.summary())
    if c.plan.request.resurfacing.checks:
        out.update({k: v for k, v in readings.stored_summary(state.run).items() if k in RUN_RESURFACING_NAMES})
        out.update(C.summary(results))
    return out
