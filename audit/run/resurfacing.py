"""Resurfacing checks: does what unlearning hid come back? Run after unlearning, on the same model.

Output-level forgetting is not erasure. Each check measures the edges again under a pressure the
unlearning did not train against, and writes per edge onto the run's EdgeResults (names in
``audit/results/schema.py``, group ``resurfacing``); docs/robustness.md has the definitions,
formulas, sources and costs.

- ``quantize``: the adapters merged and every linear weight rounded to int8 or 4-bit NF4
  (Zhang et al., ICLR 2025, arXiv:2410.16454); every edge measured again.
- ``relearn``: a few steps of fine-tuning on the QA pairs of the forget edge's 1-hop neighbours
  (retained edges sharing an entity), the edge measured again; the control: the same steps on as
  many QA pairs of retained edges that are not neighbours ("Jogging the Memory", arXiv:2406.13356).
- ``probes``: paraphrased and 2-hop questions of the forget edges (``audit/questions/probes.py``),
  before (adapters off: the injected model) and after.
- ``mia``: membership-inference scores of every edge's QA pairs against matched non-members
  (``audit/measure/membership.py``), before and after, with AUC per edge, per role and per run.

A forget edge is *resurfaced* by a check when unlearning left it forgotten (ROUGE-1 after at or
below the leakage threshold ``forgotten``, docs/leakage.md) and under the check its ROUGE-1 is
above that threshold.
"""

from __future__ import annotations

import dataclasses
import random
import re
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable

import torch

from audit.config import ResurfacingConfig
from audit.measure import evaluate as E
from audit.models.logits import mean_nll
from audit.measure import metrics as M
from audit.models.encoding import QAEncoder
from audit.models.training import batches, epoch_order, optimizer_and_schedule
from audit.questions.probes import KINDS, llm_paraphrases, load_probe_templates, probes
from audit.results.resurfaced import QUANT_SCHEMES
from audit.results.schema import phase_name
from audit.run.qa import neighbourhood
from audit.types import Edge, QAExample
from audit.measure.leakage import LeakageThresholds


@dataclass
class CheckContext:
    """What the checks share: the unlearned model (a peft model: adapters off = the injected
    model), the graph's edges and the forget set, and how to evaluate."""
    model: Any                              # a peft model (transformers' generate and peft's adapters)
    encoder: QAEncoder
    edges: dict[str, Edge]
    forget: list[str]
    rouge1_after: dict[str, float]          # every edge's ROUGE-1 after unlearning
    config: ResurfacingConfig
    lr: float                               # the unlearning rate (relearning's default)
    batch_size: int                         # evaluation batch size
    probe_rows: list[dict]                  # graphstore.queries.FACTS_FOR_PROBES of the graph
    report: Callable[[str], None]
    thresholds: LeakageThresholds = LeakageThresholds()
    scope: list[str] | None = None          # the edges quantization and MIA measure (None: every edge)

    @property
    def measured(self) -> list[str]:
        return self.scope if self.scope is not None else list(self.edges)

    def evaluate(self, examples: list[QAExample], label: str) -> dict[str, float]:
        """Mean ROUGE-1 per edge of ``examples`` under the model as it is now."""
        scores = E.evaluate(self.model, self.encoder, examples, self.batch_size, progress=label)
        # every group holds a score at least, so each mean is a number
        return {k: sum(s.values["rouge1"] for s in v) / len(v) for k, v in E.group_by_edge(scores).items()}

    def forgotten(self, edge: str) -> bool:
        return self.rouge1_after[edge] <= self.thresholds.forgotten

    def resurfaced(self, edge: str, rouge1: float | None) -> bool | None:
        return None if rouge1 is None else self.forgotten(edge) and rouge1 > self.thresholds.forgotten

    def adapters_off(self):
        """The injected model: the unlearning adapters disabled for the body of the ``with``."""
        disable = getattr(self.model, "disable_adapter", None)
        return disable() if disable is not None else nullcontext()


def run_checks(c: CheckContext) -> tuple[dict[str, dict], dict]:
    """Every configured check: (per-edge properties by edge key, the Run properties that the
    per-edge ones do not give: reports, pooled membership AUCs, seconds). The Run's means and
    counts are ``summary`` of the EdgeResults once these are written."""
    per_edge: dict[str, dict] = {k: {} for k in c.measured}
    run: dict = {}
    seconds = {}
    for name, check in (("quantize", quantization), ("relearn", relearning), ("probes", probe_questions),
                        ("mia", membership)):
        if name not in c.config.checks:
            continue
        start = time.perf_counter()
        edge_props, run_props = check(c)
        seconds[name] = round(time.perf_counter() - start, 2)
        for k, props in edge_props.items():
            per_edge[k].update(props)
        run.update(run_props)
        c.report(f"resurfacing check {name}: {seconds[name]:.1f} s")
    run["resurfacing_seconds"] = seconds
    return {k: v for k, v in per_edge.items() if v}, run


def pooled(means: dict[str, float | None], counts: dict[str, int]) -> float | None:
    """The mean over every item of per-edge ``means`` of ``counts[edge]`` items each."""
    pairs = [(v, counts[k]) for k, v in means.items() if v is not None and counts.get(k)]
    total = sum(n for _, n in pairs)
    return sum(v * n for v, n in pairs) / total if total else None


# -- quantization ---------------------------------------------------------------------------------
def quantization(c: CheckContext) -> tuple[dict, dict]:
    from audit.models.quantize import quantized

    examples = [qa for k in c.measured for qa in c.edges[k].qas]
    per_edge: dict[str, dict] = {k: {} for k in c.measured}
    run: dict = {"quantization": {}}
    for scheme in c.config.schemes:
        with quantized(c.model, scheme, group_size=c.config.group_size, backend=c.config.backend) as report:
            values = c.evaluate(examples, f"measure {scheme}")
        run["quantization"][scheme] = _report_dict(report)
        for k, v in values.items():
            per_edge[k][f"rouge1_{scheme}"] = v
            if k in c.forget:
                per_edge[k][f"resurfaced_{scheme}"] = c.resurfaced(k, v)
    return per_edge, run


def _report_dict(report) -> dict:
    if dataclasses.is_dataclass(report) and not isinstance(report, type):
        return dataclasses.asdict(report)
    return dict(report)


# -- relearning from neighbours -------------------------------------------------------------------
def relearn_sets(edges: dict[str, Edge], forget: list[str], edge: str, seed: int) -> tuple[list, list]:
    """The QA pairs one forget edge is relearned from, and its control: the pairs of its 1-hop
    neighbours (edges sharing an entity with it, forget edges excluded) and as many pairs of the
    retained edges that are not neighbours, both drawn with ``seed``; equal in number (the
    smaller of the two pools), both empty when either pool is."""
    near = set(neighbourhood(edges, [edge])) - set(forget)
    near_pairs = [qa for k in sorted(near) for qa in edges[k].qas]
    far_pairs = [qa for k, e in edges.items() if k not in near and k not in forget for qa in e.qas]
    n = min(len(near_pairs), len(far_pairs))
    rng = random.Random(f"{seed}/relearn/{edge}")
    return rng.sample(near_pairs, n), rng.sample(far_pairs, n)


def relearning(c: CheckContext) -> tuple[dict, dict]:
    per_edge: dict[str, dict[str, float | int | bool | None]] = {}
    for position, edge in enumerate(c.forget, 1):
        near_pairs, far_pairs = relearn_sets(c.edges, c.forget, edge, c.config.seed)
        n = len(near_pairs)
        if n == 0:
            per_edge[edge] = {"relearn_pairs": 0}
            continue
        own = list(c.edges[edge].qas)
        label = f"relearn {position}/{len(c.forget)}"
        relearned = _relearned_rouge1(c, near_pairs, own, f"{label} (neighbours)")
        control = _relearned_rouge1(c, far_pairs, own, f"{label} (control)")
        per_edge[edge] = {"relearn_rouge1": relearned, "relearn_control_rouge1": control,
                          "relearn_gain": relearned - control, "relearn_pairs": n,
                          "resurfaced_relearn": c.resurfaced(edge, relearned)}
    return per_edge, {}


def _relearned_rouge1(c: CheckContext, pairs: list[QAExample], own: list[QAExample], label: str) -> float:
    """The edge's ROUGE-1 after ``relearn_steps`` steps of plain fine-tuning (answer NLL) of the
    unlearning adapters on ``pairs``; the adapters are put back exactly afterwards."""
    trainable = {n: p for n, p in c.model.named_parameters() if p.requires_grad}
    saved = {n: p.detach().clone() for n, p in trainable.items()}
    encoded = [c.encoder.encode(qa.question, qa.answer) for qa in pairs]
    device = next(c.model.parameters()).device
    lr = c.config.relearn_lr if c.config.relearn_lr is not None else c.lr
    optimizer, schedule = optimizer_and_schedule(trainable.values(), lr, 0.0, 0, None)
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(c.config.seed)   # LoRA dropout, when on, draws the same masks every time
        return _relearn_steps(c, trainable, saved, encoded, optimizer, schedule, device, own, label)


def _relearn_steps(c: CheckContext, trainable: dict, saved: dict, encoded: list, optimizer, schedule, device,
                   own: list[QAExample], label: str) -> float:
    try:
        c.model.train()
        steps, epoch = 0, 0
        while steps < c.config.relearn_steps:
            for batch in batches(encoded, epoch_order(len(encoded), c.config.seed, epoch), c.config.relearn_batch_size,
                                 c.encoder.pad_id, device):
                loss = mean_nll(c.model, batch)
                loss.backward()
                optimizer.step()
                schedule.step()
                optimizer.zero_grad(set_to_none=True)
                steps += 1
                if steps == c.config.relearn_steps:
                    break
            epoch += 1
        return c.evaluate(own, label)[own[0].edge]
    finally:
        with torch.no_grad():
            for n, p in trainable.items():
                p.copy_(saved[n])
        c.model.eval()


# -- probes ---------------------------------------------------------------------------------------
def probe_questions(c: CheckContext) -> tuple[dict, dict]:
    found = probes(c.probe_rows, c.forget, load_probe_templates())
    if c.config.paraphrase_llm:
        found += llm_paraphrases(c.probe_rows, c.forget, _backend(c.config), c.config.paraphrases, c.report)
    if not found:
        c.report("probes: no probe questions for these facts (templates: PISTOL contracts; text facts: "
                 "with --check-option paraphrase_llm=URL|PATH)")
        return {}, {}
    per_edge: dict[str, dict] = {}
    run: dict = {"probe_templates": ", ".join(sorted({p.template if p.template.startswith("llm:")
                                                      else p.template.split(":")[0] for p in found}))}
    for kind in KINDS:
        of_kind = [p for p in found if p.kind == kind]
        if not of_kind:
            continue
        examples = [QAExample(p.edge, i, p.question, p.answer) for i, p in enumerate(of_kind)]
        with c.adapters_off():
            before = c.evaluate(examples, f"{kind} probes before")
        after = c.evaluate(examples, f"{kind} probes after")
        for k in before:
            per_edge.setdefault(k, {}).update({
                phase_name(f"{kind}_rouge1", "before"): before[k], phase_name(f"{kind}_rouge1", "after"): after[k],
                f"{kind}_questions": sum(p.edge == k for p in of_kind),
                f"resurfaced_{kind}": c.resurfaced(k, after[k])})
    return per_edge, run


def _backend(config: ResurfacingConfig):
    from audit.questions.llm import OpenAICompatibleBackend, TransformersBackend

    source = config.paraphrase_llm
    return (OpenAICompatibleBackend(source, config.llm_model) if source.startswith(("http://", "https://"))
            else TransformersBackend(source))


# -- membership inference -------------------------------------------------------------------------
def nonmembers(c: CheckContext) -> dict[tuple[str, int], QAExample]:
    """A matched non-member for each QA pair that has one: the same question with the answer
    another edge gives to the same template (same domain and ``qa_attributes`` entry), drawn
    with the seed. The pair (question, that answer) is a generated edge the model never saw; its
    answer is a string the model did see, elsewhere, so the comparison is not confounded by
    unfamiliar answer text. A candidate is refused when it is true: equal, case and punctuation
    aside, to this pair's answer, or to any QA pair of the graph with the same question (a
    subject with two values of one relation asks both the same question)."""
    attributes = {row["key"]: row["props"].get("qa_attributes") or [] for row in c.probe_rows}
    pool: dict[tuple[str, str], list[str]] = {}
    truths: dict[str, set[str]] = {}     # question -> every answer the graph gives it
    for e in c.edges.values():
        for qa, attr in zip(e.qas, attributes.get(e.key, [])):
            pool.setdefault((e.domain, attr), []).append(qa.answer)
        for qa in e.qas:
            truths.setdefault(_plain(qa.question), set()).add(_plain(qa.answer))
    out = {}
    for e in (c.edges[k] for k in c.measured):
        for qa, attr in zip(e.qas, attributes.get(e.key, [])):
            true = truths[_plain(qa.question)]
            others = sorted({a for a in pool[(e.domain, attr)] if _plain(a) not in true})
            if others:
                answer = random.Random(f"{c.config.seed}/mia/{e.key}/{qa.index}").choice(others)
                out[(e.key, qa.index)] = QAExample(e.key, qa.index, qa.question, answer)
    return out


def _plain(text: str) -> str:
    """Case, spacing and punctuation aside ("Customer." is "customer")."""
    return re.sub(r"\W+", "", text.casefold())


def membership(c: CheckContext) -> tuple[dict, dict]:
    from audit.measure.evaluate import membership_scores
    from audit.measure.membership import auc

    members = [qa for k in c.measured for qa in c.edges[k].qas]
    matched = nonmembers(c)
    outsiders = list(matched.values())
    attacks = [m.name for m in M.metrics_for("membership")]
    per_edge: dict[str, dict] = {k: {} for k in c.measured}
    run: dict = {"mia_nonmembers": len(outsiders)}
    for phase in ("before", "after"):
        with c.adapters_off() if phase == "before" else nullcontext():
            inside = membership_scores(c.model, c.encoder, members, c.batch_size, f"membership {phase}", c.config.mia_k)
            outside = membership_scores(c.model, c.encoder, outsiders, c.batch_size, f"non-members {phase}",
                                        c.config.mia_k)
        score_in = {(qa.edge, qa.index): s for qa, s in zip(members, inside)}
        score_out = {(qa.edge, qa.index): s for qa, s in zip(outsiders, outside)}
        for attack in attacks:
            for k, e in ((k, c.edges[k]) for k in c.measured):
                own = [score_in[(k, qa.index)][attack] for qa in e.qas]
                theirs = [score_out[(k, qa.index)][attack] for qa in e.qas if (k, qa.index) in score_out]
                per_edge[k][phase_name(attack, phase)] = M.mean(own)
                per_edge[k][phase_name(f"{attack}_auc", phase)] = _auc(auc, own, theirs)
            for role, keys in (("forget", set(c.forget)), ("retain", set(c.measured) - set(c.forget))):
                own = [v[attack] for (k, _), v in score_in.items() if k in keys]
                theirs = [v[attack] for (k, _), v in score_out.items() if k in keys]
                run[phase_name(f"{attack}_auc_{role}", phase)] = _auc(auc, own, theirs)
    return per_edge, run


def summary(results, thresholds: LeakageThresholds = LeakageThresholds()) -> dict:
    """The Run's means and counts of the checks, from its EdgeResults (joint runs and sweeps
    alike): means over QA pairs (or probe questions), as ``forget_rouge1_after`` is, and how many
    forgotten forget edges each check resurfaced. The retained means under rounding exist where
    the retained edges were measured (a joint run)."""
    done = [r for r in results if r.rouge1_after is not None]
    forget = [r for r in done if r.role == "forget"]
    retained = [r for r in done if r.role != "forget"]
    forgotten = [r for r in forget if r.rouge1_after <= thresholds.forgotten]
    out: dict = {"forget_edges_forgotten": len(forgotten)}
    qa_pairs = {r.edge: len(r.rouge1_qa_after or []) for r in done}

    def mean_of(rows, name, counts=qa_pairs):
        return pooled({r.edge: r.get(name) for r in rows}, counts)

    def measured(name):
        return any(r.get(name) is not None for r in forget)

    for scheme in QUANT_SCHEMES:
        if measured(f"rouge1_{scheme}"):
            out[f"forget_rouge1_{scheme}"] = mean_of(forget, f"rouge1_{scheme}")
            out[f"resurfaced_{scheme}"] = sum(bool(r.get(f"resurfaced_{scheme}")) for r in forget)
            if any(r.get(f"rouge1_{scheme}") is not None for r in retained):
                out[f"retain_rouge1_{scheme}"] = mean_of(retained, f"rouge1_{scheme}")
    if measured("relearn_rouge1"):
        out.update({name: mean_of(forget, name) for name in ("relearn_rouge1", "relearn_control_rouge1",
                                                             "relearn_gain")})
        out["resurfaced_relearn"] = sum(bool(r.resurfaced_relearn) for r in forget)
        out["resurfaced_relearn_control"] = sum(r.relearn_control_rouge1 is not None
                                                and r.relearn_control_rouge1 > thresholds.forgotten for r in forgotten)
    for kind in KINDS:
        asked = {r.edge: r.get(f"{kind}_questions") or 0 for r in forget}
        for phase in ("before", "after"):
            if measured(phase_name(f"{kind}_rouge1", phase)):
                out[f"forget_{kind}_rouge1_{phase}"] = mean_of(forget, phase_name(f"{kind}_rouge1", phase), asked)
        if measured(f"resurfaced_{kind}"):
            out[f"resurfaced_{kind}"] = sum(bool(r.get(f"resurfaced_{kind}")) for r in forget)
    return out


def _auc(auc, members: list[float], nonmembers: list[float]) -> float | None:
    """The AUC, or None when a side has no finite score (no non-member, or NaN scores)."""
    try:
        return auc(members, nonmembers)
    except ValueError:
        return None
