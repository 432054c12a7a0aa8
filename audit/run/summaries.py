"""The rows a run writes per edge, and the summaries it writes on its Run node.

Property names come from the result schema (``audit/results/schema.py``): a measure taken in a
phase is ``phase_name(measure, phase)``, and the store refuses any name the schema lacks.
"""

from __future__ import annotations

from collections.abc import Iterable

from audit.measure import evaluate as E
from audit.measure import metrics as M
from audit.results.schema import PHASES, EdgeResult, Run, phase_name
from audit.types import Edge


def edge_props(edge: Edge, role: str) -> dict:
    """The identity of an edge's result: the edge, its role and its structure at run time."""
    return {"edge": edge.key, "graph": edge.key.split("/", 1)[0], "head_key": edge.head_key,
            "tail_key": edge.tail_key, "role": role, "domain": edge.domain, "edge_degree": edge.edge_degree,
            "component": edge.component, "component_density": edge.component_density, "redundant": edge.redundant}


def by_edge(scores: list[E.QAScore]) -> dict[str, tuple[dict, list[E.QAScore]]]:
    """Per edge: its mean measures, and its QA scores in QA order."""
    return {k: (E.edge_means(v), sorted(v, key=lambda s: s.index)) for k, v in E.group_by_edge(scores).items()}


def phase_props(means: dict, qas: list[E.QAScore], phase: str) -> dict:
    """One edge's measures of one phase: the mean of every QA measure, the answers, the
    per-QA ROUGE-1 and the memorization cases."""
    return {**{phase_name(name, phase): means[name] for name in M.QA_MEASURES},
            phase_name("answers", phase): [s.generated for s in qas],
            phase_name("rouge1_qa", phase): [s.values["rouge1"] for s in qas],
            **memorization_cases(qas, phase)}


def memorization_cases(qas: list[E.QAScore], phase: str) -> dict:
    """Knowledge memorization cases of one edge (HANKER): answers with ROUGE-1 recall 1, answers
    the equivalence judge finds semantically equivalent, and answers that are either."""
    exact = [s.values["rouge1"] >= 1.0 for s in qas]
    out = {phase_name("memorized_rouge1", phase): sum(exact)}
    if qas and "semantic_match" in qas[0].values:
        semantic = [s.values["semantic_match"] >= 1.0 for s in qas]
        out[phase_name("memorized_semantic", phase)] = sum(semantic)
        out[phase_name("memorized", phase)] = sum(a or b for a, b in zip(exact, semantic))
    else:
        out[phase_name("memorized", phase)] = sum(exact)
    return out


def mean_rouge1(scores: list[E.QAScore]) -> float | None:
    return M.mean(s.values["rouge1"] for s in scores)


def _qa_mean(results: list[EdgeResult], role: str, name: str) -> float | None:
    return M.mean(v for r in results if r.role == role for v in (r.get(name) or []))


def joint_summary(results: list[EdgeResult], run: Run) -> dict:
    """A joint run's summary: forget and retained means before and after, their deviation
    scores, and the memorization cases of the forget edges."""
    out = {}
    for phase in PHASES:
        forget = _qa_mean(results, "forget", phase_name("rouge1_qa", phase))
        retain = _qa_mean(results, "retain", phase_name("rouge1_qa", phase))
        out[phase_name("forget_rouge1", phase)] = forget
        out[phase_name("retain_rouge1", phase)] = retain
        out[phase_name("deviation_score", phase)] = M.deviation_score(forget, retain if retain is not None else 1.0)
        out[phase_name("forget_memorized", phase)] = sum(r.get(phase_name("memorized", phase)) or 0 for r in results
                                                         if r.role == "forget")
    out["deviation_score"] = out["deviation_score_after"]   # the run's score, as a sweep stores it too
    out["forget_qa_pairs"] = _qa_pairs(r for r in results if r.role == "forget")
    out.update(redundancy_summary(results))
    for name in ("utility_rouge1_before", "utility_rouge1_after"):
        if run.get(name) is not None:
            out[name] = run[name]
    return out


def _qa_pairs(results: Iterable[EdgeResult]) -> int:
    """QA pairs asked of the edges (every phase asks the same)."""
    return sum(len(r.rouge1_qa_before or []) for r in results)


def _memorized(results: list[EdgeResult], name: str, phase: str) -> int | None:
    """The edges' memorization cases of one kind summed; None when an edge lacks the count
    (``memorized_semantic`` when the judge was off)."""
    counts = [r.get(phase_name(name, phase)) for r in results]
    return None if any(c is None for c in counts) else sum(counts)


def _semantic_rate(results: list[EdgeResult], phase: str) -> float | None:
    pairs = _qa_pairs(results)
    count = _memorized(results, "memorized_semantic", phase)
    return None if not pairs or count is None else count / pairs   # None: the judge was off


def relative_inflation(everything: float | None, unique: float | None) -> float | None:
    """HANKER's inflation of a score by the redundant facts, relative to the deduplicated score:
    ``(everything - unique) / unique``; None when either is missing or ``unique`` is 0."""
    return None if everything is None or not unique else (everything - unique) / unique


def relative_drop(everything: int | None, unique: int | None) -> float | None:
    """HANKER's drop of the memorization cases when the redundant facts go:
    ``(everything - unique) / everything``; None when either is missing or ``everything`` is 0."""
    return None if unique is None or not everything else (everything - unique) / everything


def redundancy_summary(results: list[EdgeResult]) -> dict:
    """HANKER's redundancy analysis (arXiv:2502.18810, Sec. 4.4): the forget measures over every
    forget edge and over those the retain corpus does not also state. A fact the retain text
    restates is still learned from it, so counting it makes forgetting look worse than it is.

    HANKER states the effect relatively, one value per unlearning method ("w/o unlearn" among
    them): ROUGE over the full audit set exceeds ROUGE over the deduplicated one by 19.7 % to
    26.1 % of the latter, entailment by 32.4 % to 35.2 % (LLaMA2-7B, MUSE News; 54.0-109.6 % and
    84.6-197.7 % on Llama3-8B, its A.5). So ``forget_rouge1_inflation`` and
    ``forget_semantic_rate_inflation`` are ``(all - unique) / unique`` per phase; the before value
    is HANKER's "w/o unlearn", the gap the injected model already had. HANKER's memorization
    cases (ROUGE-1 recall 1; entailment, here the equivalence judge) fall by 71.3-73.3 % and
    58.3-59.2 % without the redundant facts, while the cases asked fall by 44.9 % (126,224 ->
    69,609): ``forget_memorized_*_drop`` is ``(all - unique) / all``, to read beside
    ``forget_qa_pairs_redundant_share``. A drop larger than the share means the redundant facts
    are memorized more often than the others.

    Empty for graphs without the redundancy flag (PISTOL, Wikidata)."""
    forget = [r for r in results if r.role == "forget"]
    if not forget or all(r.redundant is None for r in forget):
        return {}
    unique = [r for r in forget if not r.redundant]
    pairs = _qa_pairs(forget)
    out: dict = {"forget_edges_redundant": len(forget) - len(unique),
                 "forget_qa_pairs_redundant_share": (pairs - _qa_pairs(unique)) / pairs if pairs else None}
    for phase in PHASES:
        rouge1 = _qa_mean(forget, "forget", phase_name("rouge1_qa", phase))   # forget_rouge1, as joint_summary has it
        rouge1_unique = _qa_mean(unique, "forget", phase_name("rouge1_qa", phase))
        out[phase_name("forget_rouge1_unique", phase)] = rouge1_unique
        out[phase_name("forget_rouge1_inflation", phase)] = relative_inflation(rouge1, rouge1_unique)
        out[phase_name("forget_memorized_unique", phase)] = sum(r.get(phase_name("memorized", phase)) or 0
                                                                for r in unique)
        semantic, semantic_unique = _semantic_rate(forget, phase), _semantic_rate(unique, phase)
        out[phase_name("forget_semantic_rate", phase)] = semantic
        out[phase_name("forget_semantic_rate_unique", phase)] = semantic_unique
        out[phase_name("forget_semantic_rate_inflation", phase)] = relative_inflation(semantic, semantic_unique)
        for criterion in ("rouge1", "semantic"):   # HANKER's two criteria of a memorization case
            name = f"memorized_{criterion}"
            everything = _memorized(forget, name, phase)
            kept = None if everything is None else _memorized(unique, name, phase)   # None: the judge was off
            out[phase_name(f"forget_{name}", phase)] = everything
            out[phase_name(f"forget_{name}_unique", phase)] = kept
            out[phase_name(f"forget_{name}_drop", phase)] = relative_drop(everything, kept)
    return out


def damage_per_edge(results: list[EdgeResult]) -> list[dict]:
    """For every edge, its ROUGE-1 averaged over the sweep's unlearnings of *other* edges:
    where the damage to retained facts fell. Read from the stored per-unlearning lists, so a
    resumed sweep gives the same answer."""
    seen: dict[str, list[float]] = {}
    for r in results:
        for edge, value in zip(r.retain_edges_after or [], r.retain_rouge1_by_edge or []):
            seen.setdefault(edge, []).append(value)
    return [{"edge": edge, "retained_rouge1_after": M.mean(values), "retained_in_unlearnings": len(values)}
            for edge, values in seen.items()]


def sweep_summary(results: list[EdgeResult]) -> dict:
    """A per-edge run's summary; both forget means over the QA pairs of the swept edges, so
    before and after compare."""
    swept = [r for r in results if r.role == "forget" and r.rouge1_after is not None]
    return {
        "forget_rouge1_before": _qa_mean(swept, "forget", "rouge1_qa_before"),
        "forget_rouge1_after": _qa_mean(swept, "forget", "rouge1_qa_after"),
        "retain_rouge1_after": M.mean(r.retain_rouge1_after for r in swept),
        "deviation_score": M.mean(r.deviation_score for r in swept),
        "swept_edges": len(swept),
    }


# a sweep's localization on the Run: the mean over the swept edges of each one's figure
_SWEPT_LOCALIZATION = ("localization_auc_magnitude", "localization_auc", "localization_auc_unified", "localization_auc_unified_magnitude",
                       "localization_auc_composite", "localization_auc_composite_unified", "localization_auc_others")


def sweep_localization(results: list[EdgeResult]) -> dict:
    """A per-edge run's localization precision: each AUC's mean over the swept edges (each edge's
    own unlearning against its own groups' mask), and the seconds they took together."""
    swept = [r for r in results if r.role == "forget" and r.localization_seconds is not None]
    out: dict = {name: M.mean(r.get(name) for r in swept) for name in _SWEPT_LOCALIZATION}
    out["localization_seconds"] = round(sum(r.localization_seconds or 0.0 for r in swept), 2)
    return {k: v for k, v in out.items() if v is not None}
