"""The phases of one `audit run`, in order; each says from what is written whether it is done,
and does its step, giving back what to write (``audit.run.lifecycle.Writes``).

A joint run: inject, memorization before, measure before, unlearn, measure after, memorization
after, resurfacing. A per-edge sweep (PISTOL's protocol) is the same phases over one scope per
forget edge (``audit.run.context.Scope``): inject, measure before, then for each edge unlearn
(the adapters reset, the edge unlearned on its own), measure after (every edge asked again) and
its resurfacing checks; then the damage each edge took from the others' unlearnings. A new phase
is a class with ``name``, ``done(state)`` and ``run(context)``, placed in ``phases(context)``.

The lifecycle (``RunLifecycle.advance``) runs the phases that are not done and writes what they
give, so a run stopped anywhere resumes at the first phase not done; a phase writes nothing to
the graph itself (an unlearning phase saves its adapters in the run folder, for the phases after
it should the run stop there).
"""

from __future__ import annotations

from audit.measure import metrics as M
from audit.models.encoding import QAEncoder
from audit.results.schema import Run, phase_name
from audit.run import readings
from audit.run import resurfacing as C
from audit.run import summaries as S
from audit.run import training_data as T
from audit.run.context import RunContext, Scope
from audit.run.injection import InjectionTexts, inject, load_injected_model
from audit.results.repository import json_value
from audit.run.lifecycle import Phase, RunState, Writes
from audit.run.masked import load_masks
from audit.run.memorization import UnlearningMemorization
from audit.run.plan import RunPlan
from audit.run.precision import Localize
from audit.run.qa import neighbourhood
from graphstore import queries as Q

__all__ = ["Inject", "Memorization", "MeasureBefore", "Unlearn", "MeasureAfter", "Resurfacing", "SweepDamage",
           "RunContext", "Scope", "phases", "summary"]

RUN_RESURFACING_NAMES = set(Run.names("resurfacing"))
RUN_LOCALIZATION_NAMES = Run.names("localization")


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
                          p.hardware, request.cache_dir, texts, p.groups)
        c.injected = injected
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
        c.model, c.tokenizer = load_injected_model(injected, p.training_hardware, request.unlearn.gradient_checkpointing)
        c.encoder = QAEncoder(c.tokenizer)
        c.max_tokens = T.context_tokens(c.model, request.training.chunk_tokens)
        if p.groups is not None:
            c.masks = load_masks(injected.folder)   # on the CPU: only OracleGrad's filter needs them beside the model
            shares = ", ".join(f"{x:.1%}" for x in info["masks"]["shares"][:4])
            c.report(f"masked injection: {p.groups.count} group(s) by {p.groups.by}, each in its own "
                     f"{info['masks']['kind']} mask ({shares}{', ...' if p.groups.count > 4 else ''} of the attention "
                     "and MLP weights)")
        masks = {"mask_groups": p.groups.record(), "injection_masks": info["masks"]} if p.groups is not None else {}
        return Writes(run=dict(injection_key=info["key"], injection_epochs=info["epochs"],
                               injection_reached=info["reached"], injection_min_rouge1=info["min_rouge1"], **masks))


class Memorization:
    """Wikidata joint runs: the memorization measure of the forget subjects' facts, before or after;
    its FactResults are written by the lifecycle like every other result."""

    def __init__(self, memorization: UnlearningMemorization, phase: str):
        self.memorization, self.phase, self.name = memorization, phase, f"memorization {phase}"

    def done(self, state: RunState) -> bool:
        return (len(state.facts) == len(self.memorization.targets)
                and all(phase_name("memorized", self.phase) in r for r in state.facts))

    def run(self, c: RunContext) -> Writes:
        self.memorization.model = c.unlearned(Scope.joint(c.plan)).model if self.phase == "after" else c.model
        self.memorization.tokenizer = c.tokenizer
        return Writes(facts=self.memorization.measure(self.phase, c.report, c.state().facts))


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
        groups = self.plan.groups
        rows = [{**S.edge_props(self.plan.edges[k], "forget" if k in forget else "retain"), **S.phase_props(v, qa, "before"),
                 **({"mask_group": groups.of_edge[k]} if groups is not None else {})}
                for k, (v, qa) in S.by_edge(scores).items()]
        utility = c.utility_rouge1("utility before")
        c.report(f"measured before unlearning: {len(qas)} QA pairs on {len(self.plan.edges)} edges")
        return Writes(rows, {"utility_rouge1_before": utility})


class Unlearn:
    """The unlearning of a scope's forget edges: every forget edge together (a joint run; the
    Run holds its steps) or one edge on its own, from the injected model (a sweep; its EdgeResult
    holds its seconds). The adapters are saved in the run folder. A joint run from before this
    phase was split off is done when every edge is measured after it."""

    def __init__(self, plan: RunPlan, scope: Scope):
        self.plan, self.scope, self.name = plan, scope, scope.named("unlearn")

    def done(self, state: RunState) -> bool:
        if self.scope.swept:
            return state.measured(self.scope.forget, "unlearn_seconds")
        return state.run.unlearn_steps is not None or state.measured(self.plan.edges, "rouge1_after")

    def training_set(self, c: RunContext) -> tuple[list, list]:
        """The scope's forget and retain sets. A swept edge's: its own forget set, and the training
        retain set without it (every other edge's, when that leaves nothing)."""
        p, edge = self.plan, self.scope.edge
        if edge is None:
            return c.training_set(p.data)
        if p.data.kind == "qa":
            retain = [qa for k in p.train_retain if k != edge for qa in p.edges[k].qas]
            return list(p.edges[edge].qas), retain or [qa for qa in c.all_qas if qa.edge != edge]
        return c.training_set(p.sweep_data[edge])

    def run(self, c: RunContext) -> Writes:
        p, scope, unlearner = self.plan, self.scope, c.unlearner
        if scope.swept:
            unlearner.reset()   # each edge from the injected model
        unlearner.gradient_filter = c.gradient_filter(scope)
        forget_items, retain_items = self.training_set(c)
        checkpoint = scope.checkpoint(p.run_dir)
        stats = unlearner.run(forget_items, retain_items, p.refusals, checkpoint=checkpoint,
                              pairing_log=p.run_dir / "pairing.jsonl",
                              progress=f"{scope.progress('unlearn')} ({p.method.name})",
                              loss_log=lambda *epoch: c.record.log_loss(scope.named("unlearn"), *epoch))
        if stats.resumed_from_epoch:
            c.report(f"resumed unlearning after epoch {stats.resumed_from_epoch}")
        c.save_unlearned(scope)
        checkpoint.unlink(missing_ok=True)
        if scope.swept:
            return Writes([{"edge": scope.edge, "unlearn_seconds": round(stats.seconds, 2),
                            "unlearn_tokens": stats.tokens}])
        return Writes(run=dict(
            train_forget_chunks=len(forget_items), train_retain_chunks=len(retain_items),
            unlearn_steps=stats.steps, unlearn_tokens=stats.tokens, unlearn_seconds=round(stats.seconds, 2),
            unlearn_tokens_per_second=round(stats.tokens_per_second, 1),
            unlearn_forget_pairs_per_second=round(stats.forget_pairs_per_second, 2), final_loss=stats.final_loss))


class MeasureAfter:
    """Every edge (and the utility set) asked of the model unlearned in a scope. A joint run
    stores each edge's measures; a swept edge stores its own, with how every other edge (and its
    graph neighbours) fared under its unlearning."""

    def __init__(self, plan: RunPlan, scope: Scope):
        self.plan, self.scope, self.name = plan, scope, scope.named("measure after")

    def done(self, state: RunState) -> bool:
        return state.measured(self.scope.forget if self.scope.swept else self.plan.edges, "rouge1_after")

    def run(self, c: RunContext) -> Writes:
        c.unlearned(self.scope)
        scores = S.by_edge(c.evaluate(c.all_qas, self.scope.progress("measure after")))
        if self.scope.edge is None:
            rows = [{"edge": k, **S.phase_props(v, qa, "after")} for k, (v, qa) in scores.items()]
            return Writes(rows, {"utility_rouge1_after": c.utility_rouge1("utility after")})
        edge = self.scope.edge
        own, own_qas = scores[edge]
        others = [s for k, (_, qas) in scores.items() if k != edge for s in qas]
        near = set(neighbourhood(self.plan.edges, [edge]))
        near_scores = [s for k, (_, qas) in scores.items() if k in near for s in qas]
        retain_rouge1 = S.mean_rouge1(others)
        c.report(f"edge {self.scope.position}/{self.scope.total} {edge}: ROUGE-1 {own['rouge1']:.3f}, "
                 f"retained {retain_rouge1 if retain_rouge1 is not None else float('nan'):.3f}")
        return Writes([{
            "edge": edge, **S.phase_props(own, own_qas, "after"),
            "retain_rouge1_after": retain_rouge1,
            "neighbour_rouge1_after": S.mean_rouge1(near_scores) if near_scores else None,
            "deviation_score": M.deviation_score(own["rouge1"], retain_rouge1 if retain_rouge1 is not None else 1.0),
            "retain_edges_after": [k for k in scores if k != edge],
            "retain_rouge1_by_edge": [scores[k][0]["rouge1"] for k in scores if k != edge],
            "utility_rouge1_after": c.utility_rouge1("utility after"),
        }])


class Resurfacing:
    """The resurfacing checks (``audit.run.resurfacing``) on the model unlearned in a scope: a
    joint run's on every edge, done when the Run holds their seconds; a swept edge's on that edge
    (quantization and membership inference measure it; relearning and probes as in a joint run,
    with the one edge as the forget set), done when its EdgeResult holds them."""

    def __init__(self, plan: RunPlan, scope: Scope):
        self.plan, self.scope, self.name = plan, scope, scope.named("resurfacing")

    def done(self, state: RunState) -> bool:
        if self.scope.swept:
            return state.measured(self.scope.forget, "resurfacing_seconds")
        return state.run.resurfacing_seconds is not None

    def run(self, c: RunContext) -> Writes:
        c.unlearned(self.scope)
        if c.probe_rows is None:
            c.probe_rows = c.store.read(Q.FACTS_FOR_PROBES, graph=self.plan.request.graph)
        state = c.state()
        results = state.results
        edge = self.scope.edge
        if edge is None:
            rouge1_after = {k: r.rouge1_after for k, r in results.items() if r.rouge1_after is not None}
            per_edge, run_props = C.run_checks(c.check_context(self.plan.forget, rouge1_after, c.probe_rows))
            return Writes([{"edge": k, **v} for k, v in per_edge.items()], run_props)
        own = results[edge].rouge1_after
        assert own is not None, "measured after before its checks"
        per_edge, run_props = C.run_checks(c.check_context([edge], {edge: own}, c.probe_rows, scope=[edge]))
        first = state.run.quantization is None
        return Writes([{"edge": edge, **per_edge.get(edge, {}), "resurfacing_seconds": run_props["resurfacing_seconds"]}],
                      {"quantization": run_props["quantization"]} if first and "quantization" in run_props else {})


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
    checks = bool(p.request.resurfacing.checks)

    def unlearning(scope: Scope) -> list[Phase]:
        unlearn = Unlearn(p, scope)
        located = [Localize(p, scope, unlearn.training_set)] if p.request.localization.enabled else []
        return [unlearn, MeasureAfter(p, scope), *located, *([Resurfacing(p, scope)] if checks else [])]

    if p.request.per_edge:
        return [Inject(), MeasureBefore(p), *(s for scope in Scope.sweep(p) for s in unlearning(scope)), SweepDamage()]
    joint = Scope.joint(p)
    if c.memorization is None:
        return [Inject(), MeasureBefore(p), *unlearning(joint)]
    before, after = Memorization(c.memorization, "before"), Memorization(c.memorization, "after")
    return [Inject(), before, MeasureBefore(p), *unlearning(joint)[:2], after, *unlearning(joint)[2:]]


def summary(c: RunContext, state: RunState) -> dict:
    """The run's summary, from what it wrote (``state``)."""
    results = list(state.results.values())
    if c.plan.request.per_edge:
        out = S.sweep_summary(results)
        if c.plan.request.localization.enabled:
            out.update(S.sweep_localization(results))
        if c.plan.request.resurfacing.checks:
            out.update(C.summary(results))
            seconds: dict[str, float] = {}   # every edge's checks, whichever process ran them
            for r in results:
                for name, value in (json_value(r.resurfacing_seconds) or {}).items():
                    seconds[name] = round(seconds.get(name, 0.0) + value, 2)
            out["resurfacing_seconds"] = seconds
            if state.run.quantization is not None:
                out["quantization"] = state.run.quantization
        return out
    out = S.joint_summary(results, state.run)
    if c.plan.request.localization.enabled:
        out.update({k: v for k in RUN_LOCALIZATION_NAMES if (v := state.run.get(k)) is not None})
    if c.memorization is not None:
        out.update(c.memorization.summary())
    if c.plan.request.resurfacing.checks:
        out.update({k: v for k, v in readings.stored_summary(state.run).items() if k in RUN_RESURFACING_NAMES})
        out.update(C.summary(results))
    return out
