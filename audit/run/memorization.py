"""`audit memorization`: measure what a model knows about subjects of a Wikidata graph and
write it back, one ``(:FactResult)`` per (subject, property), under a ``(:Run {kind: "memorization"})``.

The same measure runs inside ``audit run`` on a Wikidata graph, before and after unlearning
(``UnlearningMemorization``), and the selector ``memorized:SUBJECT`` turns a measurement into a
forget set. Both go through the one run lifecycle (``audit/run/lifecycle.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

from audit.config import MemorizationConfig, parse_scratch
from audit.measure.memorization.ranking import MEASURE_VERSION, FactMeasure
from audit.measure.memorization.measurer import Measurer
from audit.measure.memorization.protocol import protocol_warnings
from audit.measure.memorization.subjects import load_subjects, resolve_subjects, targets_for
from audit.models.load import check_model_path, load_model, load_tokenizer, select_hardware
from audit.questions.properties import load_registry
from audit.results import repository as R
from audit.results.schema import PHASES, FactResult, phase_name
from audit.run.lifecycle import RunLifecycle, Writes
from graphstore import GraphStore
from graphstore.errors import ConfigError

log = logging.getLogger(__name__)
KIND = "memorization"


@dataclass
class MemorizationRequest:
    """Everything `audit memorization` needs; the CLI fills it from its options."""
    graph: str
    model: str
    subjects: list[str] = field(default_factory=list)   # Q-ids, keys or names; empty: every subject
    properties: list[str] = field(default_factory=list)  # P-ids; empty: every property
    run_id: str | None = None
    device: str = "auto"
    registry_file: Path | None = None
    config: MemorizationConfig = field(default_factory=MemorizationConfig)


def summary(measures: list[FactMeasure]) -> dict:
    """A memorization run's summary: facts measured and memorized, the rate, the mean strength."""
    measured = [m for m in measures if m.measured]
    memorized = [m for m in measured if m.memorized]
    return {"facts": len(measures), "facts_measured": len(measured), "facts_memorized": len(memorized),
            "memorization_rate": len(memorized) / len(measured) if measured else None,
            "mean_strength": sum(m.strength for m in measured) / len(measured) if measured else None}


def fact_rows(measures: list[FactMeasure], phase: str | None = None,
              extra: Callable[[FactMeasure], dict] | None = None) -> list[dict]:
    """FactResult rows of ``measures`` (``audit.results.repository.write_fact_results``); with a phase,
    the measures carry it as a suffix, as an unlearning run stores them."""
    return [{"graph": m.subject_key.split("/", 1)[0], **m.row(phase), **(extra(m) if extra else {})}
            for m in measures]


def run_memorization(store: GraphStore, request: MemorizationRequest,
                     report: Callable[[str], None] = log.info) -> tuple[str, dict]:
    """Measure the request's facts with its model and write them back; returns (run key, summary)."""
    request.config.check()
    graph_info = store.graph(request.graph)
    subjects = load_subjects(store, request.graph, graph_info)
    qids = resolve_subjects(store, request.graph, request.subjects) if request.subjects else sorted(subjects)
    targets = targets_for(subjects, qids, request.properties)
    if parse_scratch(request.model):
        raise ConfigError(f"--model {request.model}: a scratch model is untrained, so it has memorized nothing; "
                          "give a trained Hugging Face model folder or hub id")
    check_model_path(request.model)   # before the run exists, so a bad path leaves no failed run behind
    registry = load_registry(request.registry_file)
    hardware = select_hardware(request.device)
    settings = {"graph": request.graph, "graph_sha256": graph_info["sha256"], "model": request.model,
                "subjects": qids, "properties": request.properties, "config": request.config.identity(),
                "registry": registry.version, "measure": MEASURE_VERSION}
    run = R.run_key(request.run_id, request.graph, KIND)
    life = RunLifecycle(store, run, settings, memory_hint="lower --batch-size (sentences per forward pass)")
    existing = life.finished()
    if existing is not None:
        report(f"run {run} is already complete; nothing to do")
        return run, {k: existing.get(k) for k in summary([]) if k in existing}
    for line in protocol_warnings(registry, subjects, targets, request.config):
        log.warning(line)
    life.start({"kind": KIND, "method": KIND, "mode": "measure", "forget_edges": [], "hardware": hardware.label})
    report(f"measuring {len(targets)} fact(s) of {len(qids)} subject(s) of {request.graph} with {request.model} "
           f"({hardware.label})")
    with life.running():
        tokenizer = load_tokenizer(request.model)
        model = load_model(request.model, hardware)
        measurer = Measurer(model, tokenizer, registry, subjects, request.config)
        measures, speed = measurer.measure(targets, progress="memorization")
        life.write(Writes(facts=fact_rows(measures)))
    result = {**summary(measures), **speed}
    life.finish(result)
    return run, result


class UnlearningMemorization:
    """Wikidata graphs: the memorization measure of every fact of the subjects the forget set
    touches, before and after unlearning, stored per fact under the run (``_before``/``_after``,
    and ``strength_change``, ``forgotten``)."""

    def __init__(self, store, run, request, model, tokenizer, edges, forget, graph_info: dict | None = None):
        self.store, self.run, self.request = store, run, request
        self.model, self.tokenizer = model, tokenizer
        self.measurer: Measurer | None = None   # built on first use, kept for both phases
        self.subjects = load_subjects(store, request.graph, graph_info)
        self.registry = load_registry()
        forget_set = set(forget)
        qids = sorted({q for q, s in self.subjects.items()
                       for values in s.facts.values() for v in values if v.edge in forget_set})
        self.forget_facts = {(q, p) for q in qids for p, values in self.subjects[q].facts.items()
                             if any(v.edge in forget_set for v in values)}
        self.targets = [(q, p) for q in qids for p in sorted(self.subjects[q].facts)]

    def measure(self, phase: str, report: Callable[[str], None], done: list[FactResult]) -> list[dict]:
        """The FactResult rows of ``phase`` (the lifecycle writes them); ``done`` is what the run
        holds already (the measures before, for the change after)."""
        if self.measurer is None:
            for line in protocol_warnings(self.registry, self.subjects, self.targets, self.request.memorization):
                log.warning(line)
            self.measurer = Measurer(self.model, self.tokenizer, self.registry, self.subjects, self.request.memorization)
        elif self.measurer.scorer.model is not self.model:
            self.measurer.use_model(self.model)
        measures, speed = self.measurer.measure(self.targets, progress=f"memorization {phase}")
        by_key = {r.key: r for r in done}

        def extra(m) -> dict:
            out: dict[str, Any] = {"role": "forget" if (m.subject, m.property) in self.forget_facts else "retain"}
            before = by_key.get(R.fact_result_key(self.run, m.subject, m.property))
            if phase == "after" and before is not None and before.strength_before is not None:
                out["strength_change"] = m.strength - before.strength_before
                out["forgotten"] = bool(before.memorized_before) and not m.memorized
            return out

        report(f"memorization {phase}: {sum(m.memorized for m in measures)} of {len(measures)} facts of "
               f"{len({q for q, _ in self.targets})} subject(s) memorized ({speed['sentences_per_second']} sentences/s)")
        return fact_rows(measures, phase, extra)

    def summary(self) -> dict:
        results = R.read_fact_results(self.store, self.run)
        forget = [r for r in results if r.role == "forget"]
        kept = [r for r in results if r.role == "retain"]
        out = {phase_name(f"{role}_facts_memorized", phase): sum(bool(r.get(phase_name("memorized", phase))) for r in rows)
               for role, rows in (("forget", forget), ("subject_retain", kept)) for phase in PHASES}
        return {**out, "forget_facts": len(forget), "subject_retain_facts": len(kept)}


