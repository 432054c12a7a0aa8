"""`audit run` end to end: select, inject, measure before, unlearn, measure after, write back.

Two modes:
- joint (default): one unlearning of all selected edges together;
- per-edge (``per_edge=True``): the PISTOL protocol, one unlearning per selected edge, each
  from the same injected model (only the adapters are reset in between).

Every phase writes its results to the graph as soon as it has them, and a run restarted with
the same id skips what is already there (see ``audit/results.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import subprocess
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable

import torch

from audit import evaluate as E
from audit import metrics as M
from audit import results as R
from audit.config import (InjectionConfig, MemorizationConfig, UnlearnConfig, apply_options, as_dict, default_unlearn_lr,
                          model_width, parse_scratch)
from audit.encoding import PROMPT_VERSION, QAEncoder
from audit.equivalence import load_judge
from audit.inject import inject, load_injected_model
from audit.leakage import reading, run_leakage, write_browser_leakage
from audit.memorization_run import UnlearningMemorization
from audit.methods import method_class
from audit.models import check_model_path, select_hardware
from audit.qa import UTILITY_EDGE, Edge, QAExample, load_graph_edges, load_refusals, load_utility, neighbourhood, retain_edges
from audit.selectors import select
from audit.unlearn import Unlearner
from graphstore import GraphStore
from graphstore import queries as Q
from graphstore.errors import ConfigError

log = logging.getLogger(__name__)


@dataclass
class RunRequest:
    """Everything `audit run` needs; the CLI fills it from its options."""
    graph: str
    select: str | None = None
    cypher: str | None = None
    method: str = "npo"
    method_options: dict[str, str] = field(default_factory=dict)
    model: str = "scratch:tiny"
    retain: str = "all"
    utility: Path | None = None
    idk: Path | None = None
    per_edge: bool = False
    run_id: str | None = None
    device: str = "auto"
    eval_batch_size: int = E.DEFAULT_BATCH_SIZE
    equivalence: str | None = "embedding"   # judge of semantically equivalent answers; None: off
    memorization: MemorizationConfig = field(default_factory=MemorizationConfig)  # Wikidata graphs only
    cache_dir: Path = Path(".audit/cache")
    injection: InjectionConfig = field(default_factory=InjectionConfig)
    unlearn: UnlearnConfig = field(default_factory=UnlearnConfig)


@dataclass
class RunOutcome:
    run: str
    status: str
    resumed: bool
    summary: dict
    reading: list[str] = field(default_factory=list)   # the run in words (audit.leakage.reading)


def run_audit(store: GraphStore, request: RunRequest, report: Callable[[str], None] = log.info) -> RunOutcome:
    """Run (or resume) one audit; returns the run's key and summary."""
    # -- everything that can be refused is checked before anything runs or is written
    edges = load_graph_edges(store, request.graph)
    graph_info = store.read(Q.GRAPH_GET, graph=request.graph)[0]
    selection = select(store, request.graph, list(edges), request.select, request.cypher, request.unlearn.seed)
    method = method_class(request.method)(apply_options(method_class(request.method).config_class(),
                                                        request.method_options, f"method {request.method}"))
    request.unlearn.check()
    request.injection.check(request.model)
    lr_source = "given"
    if request.unlearn.lr is None:
        width = model_width(request.model)
        lr_source = f"the default for {method.name} on a model of width {width if width is not None else 'unknown'}"
        request = dataclasses.replace(request, unlearn=dataclasses.replace(
            request.unlearn, lr=default_unlearn_lr(method.name, request.model)))
    forget = selection.edges
    train_retain = retain_edges(edges, forget, request.retain, request.unlearn.seed)
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
        "memorization_config": as_dict(request.memorization) if graph_info["source"] == "wikidata" else None,
    }
    settings_sha256 = R.settings_sha256(settings)
    run = R.run_key(request.run_id, request.graph, method.name)
    existing = R.finished_run(store, run, settings_sha256)
    if existing:
        report(f"run {run} is already complete; nothing to do")
        summary = _summary(existing)
        return RunOutcome(run, R.DONE, True, summary, reading(run_leakage(store, run), summary))

    run_dir = request.cache_dir / "runs" / run
    run_dir.mkdir(parents=True, exist_ok=True)
    props = {
        **{k: v for k, v in settings.items() if v is not None}, "settings_sha256": settings_sha256,
        "mode": "per-edge" if request.per_edge else "joint", "templates": graph_info.get("templates"),
        "retain_edges": len(train_retain), "seed": request.unlearn.seed,
        "pairing": f"seeded: random.Random('{request.unlearn.seed}/pair/<epoch>/<step>'); "
                   f"log {run_dir / 'pairing.jsonl'}",
        "hardware": hardware.label, "code_version": code_version(), "metric_definitions": "metrics.v1",
    }
    resumed = R.start_run(store, run, props) is not None
    report(f"{'resuming' if resumed else 'starting'} run {run}: {method.name} on {len(forget)} forget edge(s) "
           f"of {request.graph} ({len(edges)} edges), model {request.model}, lr {request.unlearn.lr:g} ({lr_source}), "
           f"{request.unlearn.epochs} epochs, {hardware.label}")
    try:
        summary = _execute(store, run, run_dir, request, method, edges, forget, train_retain, utility,
                           refusals, hardware, graph_info, report, judge)
    except KeyboardInterrupt:
        R.update_run(store, run, status=R.INTERRUPTED, ended_at=R.now())
        raise
    except torch.cuda.OutOfMemoryError as e:
        R.update_run(store, run, status=R.FAILED, ended_at=R.now(), error="out of GPU memory")
        raise ConfigError("out of GPU memory; lower --batch-size (and raise --grad-accum to keep the effective "
                          "batch), lower --eval-batch-size, or add --gradient-checkpointing. Re-run with the "
                          f"same --run-id {run} to resume") from e
    except Exception as e:
        R.update_run(store, run, status=R.FAILED, ended_at=R.now(), error=str(e)[:500])
        raise
    R.update_run(store, run, status=R.DONE, ended_at=R.now(), **summary)
    leakage = write_browser_leakage(store, run)
    report("leakage: " + ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in leakage.counts().items())
           + f" (Neo4j Browser: MATCH p = ()-[:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED {{run: '{run}'}}]->() RETURN p)")
    return RunOutcome(run, R.DONE, resumed, summary, reading(leakage, summary))


def _execute(store, run, run_dir, request, method, edges, forget, train_retain, utility, refusals,
             hardware, graph_info, report, judge) -> dict:
    injected = inject(request.model, request.graph, graph_info["sha256"], edges, request.injection,
                      hardware, request.cache_dir)
    info = injected.info
    if info["kind"] == "none":
        report("injection off: the model is audited as it is")
    else:
        report(f"injection {'(cached) ' if injected.cached else ''}{info['epochs']} epochs: edge ROUGE-1 recall "
               f"min {info['min_rouge1']:.3f}, mean {info['mean_rouge1']:.3f}"
               f"{'' if injected.reached else ' — below the target; results will say so'}")
    R.update_run(store, run, injection_key=info["key"], injection_epochs=info["epochs"],
                 injection_reached=info["reached"], injection_min_rouge1=info["min_rouge1"])

    model, tokenizer = load_injected_model(injected, hardware, request.unlearn.gradient_checkpointing)
    encoder = QAEncoder(tokenizer)
    forget_set = set(forget)
    all_qas = [qa for edge in edges.values() for qa in edge.qas]

    def evaluate(examples: list[QAExample], label: str) -> list[E.QAScore]:
        scores = E.evaluate(model, encoder, examples, request.eval_batch_size, progress=label)
        if judge is not None and examples and examples[0].edge != UTILITY_EDGE:
            references = {(qa.edge, qa.index): qa.answer for qa in examples}
            verdicts = judge.equivalent([(s.generated, references[(s.edge, s.index)]) for s in scores])
            for score, same in zip(scores, verdicts):
                score.values["semantic_match"] = float(same)
        return scores

    memorization = (UnlearningMemorization(store, run, request, model, tokenizer, edges, forget)
                    if graph_info["source"] == "wikidata" and not request.per_edge else None)

    # -- before: the injected model (written once; a resumed run reuses it)
    stored = {r["edge"]: r for r in R.read_results(store, run)}
    run_node = R.get_run(store, run)
    if memorization is not None:
        memorization.measure("before", report)
    if not all("rouge1_before" in stored.get(k, {}) for k in edges) or "utility_rouge1_before" not in run_node:
        scores = evaluate(all_qas, "measure before")
        R.write_results(store, run, [
            {**_edge_props(edges[k], "forget" if k in forget_set else "retain"), **_phase(v, qa, "before")}
            for k, (v, qa) in _by_edge(scores).items()])
        utility_before = _mean_rouge1(evaluate(utility, "utility before")) if utility else None
        R.update_run(store, run, utility_rouge1_before=utility_before)
        report(f"measured before unlearning: {len(all_qas)} QA pairs on {len(edges)} edges")

    unlearner = Unlearner(model, encoder, method, request.unlearn, hardware.device)
    retain_qas = [qa for k in train_retain for qa in edges[k].qas]
    # Writing the before-measures adds no after-measure, so `stored` still says what is done.
    if not request.per_edge:
        if not all("rouge1_after" in stored.get(k, {}) for k in edges):
            forget_qas = [qa for k in forget for qa in edges[k].qas]
            stats = unlearner.run(forget_qas, retain_qas, refusals, checkpoint=run_dir / "checkpoint.pt",
                                  pairing_log=run_dir / "pairing.jsonl", progress=f"unlearn ({method.name})")
            if stats.resumed_from_epoch:
                report(f"resumed unlearning after epoch {stats.resumed_from_epoch}")
            unlearner.model.save_pretrained(run_dir / "adapter")
            scores = evaluate(all_qas, "measure after")
            R.write_results(store, run, [{"edge": k, **_phase(v, qa, "after")} for k, (v, qa) in _by_edge(scores).items()])
            if memorization is not None:
                memorization.model = unlearner.model
                memorization.measure("after", report)
            R.update_run(store, run, unlearn_steps=stats.steps, unlearn_tokens=stats.tokens,
                         unlearn_seconds=round(stats.seconds, 2), unlearn_tokens_per_second=round(stats.tokens_per_second, 1),
                         unlearn_forget_pairs_per_second=round(stats.forget_pairs_per_second, 2),
                         final_loss=stats.final_loss,
                         utility_rouge1_after=_mean_rouge1(evaluate(utility, "utility after")) if utility else None)
            (run_dir / "checkpoint.pt").unlink(missing_ok=True)
        summary = _joint_summary(R.read_results(store, run), R.get_run(store, run))
        if memorization is not None:
            summary.update(memorization.summary())
        return summary

    # -- per-edge sweep: one unlearning per forget edge, adapters reset in between
    for position, edge in enumerate(forget, 1):
        if "rouge1_after" in stored.get(edge, {}):
            continue
        unlearner.reset()
        checkpoint = run_dir / f"checkpoint-{edge.replace('/', '_')}.pt"
        stats = unlearner.run(list(edges[edge].qas), [qa for qa in retain_qas if qa.edge != edge]
                              or [qa for qa in all_qas if qa.edge != edge], refusals,
                              checkpoint=checkpoint, pairing_log=run_dir / "pairing.jsonl",
                              progress=f"unlearn {position}/{len(forget)} ({method.name})")
        scores = _by_edge(evaluate(all_qas, f"measure {position}/{len(forget)}"))
        own, own_qas = scores[edge]
        others = [s for k, (_, qas) in scores.items() if k != edge for s in qas]
        near = set(neighbourhood(edges, [edge]))
        near_scores = [s for k, (_, qas) in scores.items() if k in near for s in qas]
        retain_rouge1 = _mean_rouge1(others)
        R.write_results(store, run, [{
            "edge": edge, **_phase(own, own_qas, "after"),
            "retain_rouge1_after": retain_rouge1,
            "neighbour_rouge1_after": _mean_rouge1(near_scores) if near_scores else None,
            "deviation_score": M.deviation_score(own["rouge1"], retain_rouge1 if retain_rouge1 is not None else 1.0),
            "retain_edges_after": [k for k in scores if k != edge],
            "retain_rouge1_by_edge": [scores[k][0]["rouge1"] for k in scores if k != edge],
            "utility_rouge1_after": _mean_rouge1(evaluate(utility, "utility after")) if utility else None,
            "unlearn_seconds": round(stats.seconds, 2), "unlearn_tokens": stats.tokens,
        }])
        checkpoint.unlink(missing_ok=True)
        report(f"edge {position}/{len(forget)} {edge}: ROUGE-1 {own['rouge1']:.3f}, "
               f"retained {retain_rouge1 if retain_rouge1 is not None else float('nan'):.3f}")
    results = R.read_results(store, run)
    R.write_results(store, run, _damage_per_edge(results))
    return _sweep_summary(results)


# -- rows and summaries ------------------------------------------------------------------------
def _edge_props(edge: Edge, role: str) -> dict:
    return {"edge": edge.key, "graph": edge.key.split("/", 1)[0], "head_key": edge.head_key,
            "tail_key": edge.tail_key, "role": role, "domain": edge.domain, "edge_degree": edge.edge_degree,
            "component": edge.component, "component_density": edge.component_density}


def _by_edge(scores: list[E.QAScore]) -> dict[str, tuple[dict, list[E.QAScore]]]:
    """Per edge: its mean measures, and its QA scores in QA order."""
    return {k: (E.edge_means(v), sorted(v, key=lambda s: s.index)) for k, v in E.group_by_edge(scores).items()}


def _phase(means: dict, qas: list[E.QAScore], phase: str) -> dict:
    return {**{f"{name}_{phase}": means[name] for name in M.QA_MEASURES},
            f"answers_{phase}": [s.generated for s in qas],
            f"rouge1_qa_{phase}": [s.values["rouge1"] for s in qas],
            **_memorization(qas, phase)}


def _memorization(qas: list[E.QAScore], phase: str) -> dict:
    """Knowledge memorization cases of one edge (HANKER): answers with ROUGE-1 recall 1, answers
    the equivalence judge finds semantically equivalent, and answers that are either."""
    exact = [s.values["rouge1"] >= 1.0 for s in qas]
    out = {f"memorized_rouge1_{phase}": sum(exact)}
    if qas and "semantic_match" in qas[0].values:
        semantic = [s.values["semantic_match"] >= 1.0 for s in qas]
        out[f"memorized_semantic_{phase}"] = sum(semantic)
        out[f"memorized_{phase}"] = sum(a or b for a, b in zip(exact, semantic))
    else:
        out[f"memorized_{phase}"] = sum(exact)
    return out


def _mean_rouge1(scores: list[E.QAScore]) -> float | None:
    return M.mean(s.values["rouge1"] for s in scores)


def _qa_mean(results: list[dict], role: str, key: str) -> float | None:
    return M.mean(v for r in results if r.get("role") == role for v in (r.get(key) or []))


def _joint_summary(results: list[dict], run: dict) -> dict:
    out = {}
    for phase in ("before", "after"):
        forget = _qa_mean(results, "forget", f"rouge1_qa_{phase}")
        retain = _qa_mean(results, "retain", f"rouge1_qa_{phase}")
        out[f"forget_rouge1_{phase}"] = forget
        out[f"retain_rouge1_{phase}"] = retain
        out[f"deviation_score_{phase}"] = M.deviation_score(forget, retain if retain is not None else 1.0)
        out[f"forget_memorized_{phase}"] = sum(r.get(f"memorized_{phase}") or 0 for r in results
                                               if r.get("role") == "forget")
    out["deviation_score"] = out["deviation_score_after"]   # the run's score, as a sweep stores it too
    out["forget_qa_pairs"] = sum(len(r.get("rouge1_qa_before") or []) for r in results if r.get("role") == "forget")
    for key in ("utility_rouge1_before", "utility_rouge1_after"):
        if run.get(key) is not None:
            out[key] = run[key]
    return out


def _damage_per_edge(results: list[dict]) -> list[dict]:
    """For every edge, its ROUGE-1 averaged over the sweep's unlearnings of *other* edges:
    where the damage to retained facts fell. Read from the stored per-unlearning lists, so a
    resumed sweep gives the same answer."""
    seen: dict[str, list[float]] = {}
    for r in results:
        for edge, value in zip(r.get("retain_edges_after") or [], r.get("retain_rouge1_by_edge") or []):
            seen.setdefault(edge, []).append(value)
    return [{"edge": edge, "retained_rouge1_after": M.mean(values), "retained_in_unlearnings": len(values)}
            for edge, values in seen.items()]


def _sweep_summary(results: list[dict]) -> dict:
    # Both forget means over the QA pairs of the swept edges, so before and after compare.
    swept = [r for r in results if r.get("role") == "forget" and "rouge1_after" in r]
    return {
        "forget_rouge1_before": _qa_mean(swept, "forget", "rouge1_qa_before"),
        "forget_rouge1_after": _qa_mean(swept, "forget", "rouge1_qa_after"),
        "retain_rouge1_after": M.mean(r.get("retain_rouge1_after") for r in swept),
        "deviation_score": M.mean(r.get("deviation_score") for r in swept),
        "swept_edges": len(swept),
    }


def _summary(run: dict) -> dict:
    keys = ("forget_rouge1_before", "forget_rouge1_after", "retain_rouge1_before", "retain_rouge1_after",
            "deviation_score_before", "deviation_score_after", "forget_qa_pairs", "forget_facts", "subject_retain_facts",
            "forget_memorized_before", "forget_memorized_after", "forget_facts_memorized_before",
            "forget_facts_memorized_after", "subject_retain_facts_memorized_before",
            "subject_retain_facts_memorized_after", "deviation_score", "utility_rouge1_before", "utility_rouge1_after", "swept_edges")
    return {k: run[k] for k in keys if run.get(k) is not None}


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def code_version() -> str:
    """Package version, plus the git commit when running from a checkout."""
    try:
        version = metadata.version("kg-unlearning-audit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{version}+{commit}" if commit else version
