"""`audit memorization`: measure what a model knows about subjects of a Wikidata graph and
write it back, one ``(:FactResult)`` per (subject, property), under a ``(:Run {kind: "memorization"})``.

The same measure runs inside ``audit run`` on a Wikidata graph, before and after unlearning,
and the selector ``memorized:SUBJECT`` turns a measurement into a forget set.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

from audit import results as R
from audit.canaries import Subject, subjects_from_rows, value_pools
from audit.config import MemorizationConfig, as_dict, parse_scratch
from audit.equivalence import load_judge
from audit.likelihood import SentenceScorer
from audit.memorization import MEASURE_VERSION, FactMeasure, measure_facts
from audit.models import load_model, load_tokenizer, select_hardware
from audit.properties import PropertyRegistry, load_registry
from graphstore import GraphStore
from graphstore import queries as Q
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


def load_subjects(store: GraphStore, graph: str) -> dict[str, Subject]:
    """Every subject of a Wikidata graph with its facts (values grouped by property)."""
    info = store.graph(graph)
    if info["source"] != "wikidata":
        raise ConfigError(f"graph {graph!r} was built from {info['source']} data; the memorization measure "
                          "needs a Wikidata graph (audit build --wikidata FILE)")
    return subjects_from_rows(store.read(Q.WIKIDATA_FACTS, graph=graph))


def resolve_subjects(store: GraphStore, graph: str, names: list[str]) -> list[str]:
    """Q-ids for subjects given by Q-id, entity key or name; an unknown or ambiguous one is refused."""
    out = []
    for name in names:
        found = store.read(Q.SUBJECT_FIND, graph=graph, subject=name)
        if not found:
            raise ConfigError(f"no subject of graph {graph!r} has Q-id, key or name {name!r} "
                              "(audit query \"MATCH (s:Entity {graph: $g})-[:FACT]->() RETURN DISTINCT s.label, s.name\")")
        if len(found) > 1:
            raise ConfigError(f"{name!r} names {len(found)} subjects ({', '.join(r['qid'] for r in found)}); "
                              "give the Q-id instead")
        out.append(found[0]["qid"])
    return list(dict.fromkeys(out))


def targets_for(subjects: dict[str, Subject], qids: list[str], properties: list[str]) -> list[tuple[str, str]]:
    """(qid, pid) of every fact of ``qids`` (of ``properties`` when given), in a fixed order."""
    out = [(q, p) for q in qids for p in sorted(subjects[q].facts) if not properties or p in properties]
    if not out:
        raise ConfigError(f"no fact to measure for {', '.join(qids)}"
                          + (f" with properties {', '.join(properties)}" if properties else ""))
    return out


class Measurer:
    """One model, one registry, one graph's subjects: measures facts on demand. ``audit run``
    keeps one and calls it before and after unlearning."""

    def __init__(self, model, tokenizer, registry: PropertyRegistry, subjects: dict[str, Subject],
                 config: MemorizationConfig):
        config.check()
        self.registry = registry
        self.subjects = subjects
        self.pools = value_pools(subjects)
        self.config = config
        self.scorer = SentenceScorer(model, tokenizer, config.batch_size)
        self.judge = load_judge(config.equivalence) if config.equivalence else None

    def use_model(self, model) -> None:
        """Measure with another model from now on (the unlearned one): its own scorer, so no
        cached likelihood of the old model is reused; the pools and the judge stay."""
        self.scorer = SentenceScorer(model, self.scorer.tokenizer, self.config.batch_size)

    def measure(self, targets: list[tuple[str, str]], progress: str | None = None) -> tuple[list[FactMeasure], dict]:
        """The measures, and throughput figures (sentences scored, seconds, sentences per second)."""
        before = self.scorer.scored
        started = time.perf_counter()
        measures = measure_facts(self.scorer, self.registry, self.subjects, self.pools, targets, self.config,
                                 self.judge, progress)
        seconds = time.perf_counter() - started
        scored = self.scorer.scored - before
        return measures, {"sentences_scored": scored, "score_seconds": round(seconds, 2),
                          "sentences_per_second": round(scored / seconds, 1) if seconds > 0 else None}


def write_fact_results(store: GraphStore, run: str, measures: list[FactMeasure], phase: str | None = None,
                       extra: Callable[[FactMeasure], dict] | None = None) -> None:
    """Merge one FactResult per measure (key ``<run>/<qid>/<pid>``), in one transaction."""
    rows = [{"key": f"{run}/{m.subject}/{m.property}", "subject_key": m.subject_key,
             "props": {k: R.storable(v) for k, v in {"run": run, "graph": run_graph(m), **m.row(phase),
                                                     **(extra(m) if extra else {})}.items()}}
            for m in measures]
    with store.transaction() as tx:
        tx.write_rows(Q.FACT_RESULTS_MERGE, rows, run=run)


def run_graph(measure: FactMeasure) -> str:
    return measure.subject_key.split("/", 1)[0]


def summary(measures: list[FactMeasure], suffix: str = "") -> dict:
    measured = [m for m in measures if m.measured]
    memorized = [m for m in measured if m.memorized]
    return {f"facts{suffix}": len(measures), f"facts_measured{suffix}": len(measured),
            f"facts_memorized{suffix}": len(memorized),
            f"memorization_rate{suffix}": round(len(memorized) / len(measured), 4) if measured else None,
            f"mean_strength{suffix}": round(sum(m.strength for m in measured) / len(measured), 4) if measured else None}


def run_memorization(store: GraphStore, request: MemorizationRequest,
                     report: Callable[[str], None] = log.info) -> tuple[str, dict]:
    """Measure the request's facts with its model and write them back; returns (run key, summary)."""
    from audit.runner import code_version

    request.config.check()
    subjects = load_subjects(store, request.graph)
    qids = resolve_subjects(store, request.graph, request.subjects) if request.subjects else sorted(subjects)
    targets = targets_for(subjects, qids, request.properties)
    if parse_scratch(request.model):
        raise ConfigError(f"--model {request.model}: a scratch model is untrained, so it has memorized nothing; "
                          "give a trained Hugging Face model folder or hub id")
    registry = load_registry(request.registry_file)
    hardware = select_hardware(request.device)
    graph_info = store.read(Q.GRAPH_GET, graph=request.graph)[0]
    settings = {"graph": request.graph, "graph_sha256": graph_info["sha256"], "model": request.model,
                "subjects": qids, "properties": request.properties, "config": as_dict(request.config),
                "registry": registry.version, "measure": MEASURE_VERSION}
    settings_sha256 = R.settings_sha256(settings)
    run = R.run_key(request.run_id, request.graph, KIND)
    existing = R.finished_run(store, run, settings_sha256)
    if existing:
        report(f"run {run} is already complete; nothing to do")
        return run, {k: existing.get(k) for k in summary([]) if k in existing}
    R.start_run(store, run, {**settings, "settings_sha256": settings_sha256, "kind": KIND, "method": KIND,
                             "mode": "measure", "forget_edges": [], "hardware": hardware.label,
                             "code_version": code_version()})
    report(f"measuring {len(targets)} fact(s) of {len(qids)} subject(s) of {request.graph} with {request.model} "
           f"({hardware.label})")
    try:
        tokenizer = load_tokenizer(request.model)
        model = load_model(request.model, hardware)
        measurer = Measurer(model, tokenizer, registry, subjects, request.config)
        measures, speed = measurer.measure(targets, progress="memorization")
        write_fact_results(store, run, measures)
    except KeyboardInterrupt:
        R.update_run(store, run, status=R.INTERRUPTED, ended_at=R.now())
        raise
    except Exception as e:
        R.update_run(store, run, status=R.FAILED, ended_at=R.now(), error=str(e)[:500])
        raise
    result = {**summary(measures), **speed}
    R.update_run(store, run, status=R.DONE, ended_at=R.now(), **result)
    return run, result


class UnlearningMemorization:
    """Wikidata graphs: the memorization measure of every fact of the subjects the forget set
    touches, before and after unlearning, stored per fact under the run (``_before``/``_after``,
    and ``strength_change``, ``forgotten``)."""

    def __init__(self, store, run, request, model, tokenizer, edges, forget):
        self.store, self.run, self.request = store, run, request
        self.model, self.tokenizer = model, tokenizer
        self.measurer: Measurer | None = None   # built on first use, kept for both phases
        self.subjects = load_subjects(store, request.graph)
        self.registry = load_registry()
        forget_set = set(forget)
        qids = sorted({q for q, s in self.subjects.items()
                       for values in s.facts.values() for v in values if v.edge in forget_set})
        self.forget_facts = {(q, p) for q in qids for p, values in self.subjects[q].facts.items()
                             if any(v.edge in forget_set for v in values)}
        self.targets = [(q, p) for q in qids for p in sorted(self.subjects[q].facts)]

    def measure(self, phase: str, report) -> None:
        done = read_fact_results(self.store, self.run)
        if len(done) == len(self.targets) and all(f"memorized_{phase}" in r for r in done):
            return
        if self.measurer is None:
            self.measurer = Measurer(self.model, self.tokenizer, self.registry, self.subjects, self.request.memorization)
        elif self.measurer.scorer.model is not self.model:
            self.measurer.use_model(self.model)
        measures, speed = self.measurer.measure(self.targets, progress=f"memorization {phase}")
        by_key = {r["key"]: r for r in done}

        def extra(m) -> dict:
            out = {"role": "forget" if (m.subject, m.property) in self.forget_facts else "retain"}
            before = by_key.get(f"{self.run}/{m.subject}/{m.property}", {})
            if phase == "after" and "strength_before" in before:
                out["strength_change"] = m.strength - before["strength_before"]
                out["forgotten"] = bool(before["memorized_before"]) and not m.memorized
            return out

        write_fact_results(self.store, self.run, measures, phase, extra)
        report(f"memorization {phase}: {sum(m.memorized for m in measures)} of {len(measures)} facts of "
               f"{len({q for q, _ in self.targets})} subject(s) memorized ({speed['sentences_per_second']} sentences/s)")

    def summary(self) -> dict:
        results = read_fact_results(self.store, self.run)
        forget = [r for r in results if r.get("role") == "forget"]
        kept = [r for r in results if r.get("role") == "retain"]
        out = {f"{role}_facts_memorized_{phase}": sum(bool(r.get(f"memorized_{phase}")) for r in rows)
               for role, rows in (("forget", forget), ("subject_retain", kept)) for phase in ("before", "after")}
        return {**out, "forget_facts": len(forget), "subject_retain_facts": len(kept)}


def read_fact_results(store: GraphStore, run: str) -> list[dict]:
    return [dict(r["result"]) for r in store.read(Q.FACT_RESULTS_FOR_RUN, run=run)]
