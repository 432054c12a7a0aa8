"""The measures of an audit, registered with what they mean.

Every measure is defined exactly in ``docs/metrics.md`` with its source. Per-QA values are
computed here from plain tensors or strings; ``audit/measure/evaluate.py`` produces those inputs in
batches, and per-edge values are the mean over the edge's QA pairs.

Direction: for the knowledge measures, *higher means the model still knows the answer*. On a
forget edge a lower value is the goal; on a retained edge a higher one. ``Metric.higher_is_better``
says which way is good for the measure as a run-level score (only the deviation score is not a
knowledge measure).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.measure.measures import Measure, summary_measures
from graphstore.registry import Registry

if TYPE_CHECKING:  # the per-QA functions take tensors, but this module must import without
    import torch    # torch: `audit edges` and the other commands that need no model use its table


INPUTS = ("answer", "ranks", "logprobs", "judge", "sets", "membership")


@dataclass(frozen=True)
class Metric:
    """A measure, registered once with what it means and the function that computes it.

    ``input`` says what ``compute`` takes: ``answer`` (generated text, ground truth), ``ranks``
    (1-based ranks of the answer tokens, teacher-forced), ``logprobs`` (their log-probabilities),
    ``judge`` (an equivalence judge and (generated, ground truth) pairs: one value per pair),
    ``sets`` (the forget and retained set means: a run-level score), ``membership`` (the answer
    tokens' statistics, ``audit.measure.membership.TokenStats``: a membership-inference score,
    higher = more likely seen in training; not one of ``QA_MEASURES``).
    """
    name: str
    description: str
    higher_is_better: bool
    input: str
    compute: Callable
    aggregate: str = "mean"          # how per-QA values become per-edge and per-set values
    knowledge: bool = True           # True: measures what the model knows (goal: low on forget)


METRICS: Registry[Metric] = Registry("metric")


def register_metric(name: str, description: str, *, higher_is_better: bool, input: str, aggregate: str = "mean",
                    knowledge: bool = True) -> Callable[[Callable], Callable]:
    """Decorator: register the function as the metric ``name`` (lm-evaluation-harness style)."""
    assert input in INPUTS, input

    def add(compute: Callable) -> Callable:
        METRICS.register(Metric(name, description, higher_is_better, input, compute, aggregate, knowledge))
        return compute
    return add


TOP_K = 100


@functools.cache
def _rouge_scorer():
    # rouge_score pulls in nltk (~0.3 s): loaded on the first answer scored, not on import.
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)


def metric(name: str) -> Metric:
    """Look a metric up by name; an unknown name lists the valid ones."""
    return METRICS.get(name)


def metrics_for(input: str) -> list[Metric]:
    """The registered metrics computed from one kind of input, in registration order."""
    return [m for m in METRICS.values() if m.input == input]


@register_metric("rouge1", "ROUGE-1 recall of the greedy answer against the ground truth (Porter stemming)",
                 higher_is_better=True, input="answer")
def rouge1_recall(prediction: str, reference: str) -> float:
    """ROUGE-1 recall as the TOFU/PISTOL evaluations compute it: ``rouge_score`` with Porter
    stemming, the reference (ground truth) as target and the generated answer as prediction."""
    return _rouge_scorer().score(reference, prediction)["rouge1"].recall


def token_ranks(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """1-based rank of each target token among the vocabulary (1 = the model's top choice).

    Args:
        logits: ``[n, vocab]`` scores at the positions that predict ``targets``.
        targets: ``[n]`` token ids.
    Ties count in the target's favour: the rank is 1 + the number of strictly larger scores.
    """
    target_scores = logits.gather(-1, targets.unsqueeze(-1))
    return (logits > target_scores).sum(-1) + 1


@register_metric("mrr", "mean reciprocal rank of the ground-truth answer tokens, teacher-forced",
                 higher_is_better=True, input="ranks")
def mean_reciprocal_rank(ranks: torch.Tensor) -> float:
    return float((1.0 / ranks.double()).mean()) if ranks.numel() else 0.0


@register_metric("top100", "share of ground-truth answer tokens ranked in the top 100, teacher-forced",
                 higher_is_better=True, input="ranks")
def top_k_hit(ranks: torch.Tensor, k: int = TOP_K) -> float:
    return float((ranks <= k).double().mean()) if ranks.numel() else 0.0


@register_metric("exact_memorization", "share of answer tokens the model predicts exactly, teacher-forced",
                 higher_is_better=True, input="ranks")
def exact_memorization(ranks: torch.Tensor) -> float:
    """Tirumala et al. 2022: the share of answer tokens that are the argmax prediction."""
    return float((ranks == 1).double().mean()) if ranks.numel() else 0.0


@register_metric("extraction_strength", "1 - (shortest answer prefix from which greedy decoding "
                 "completes the answer) / answer length", higher_is_better=True, input="ranks")
def extraction_strength(ranks: torch.Tensor) -> float:
    """Carlini et al. 2021, as used by Wang et al. 2025 (arXiv:2406.09179):
    ``ES = 1 - k/|y|`` with ``k`` the shortest answer prefix from which greedy decoding
    reproduces the rest of the answer.

    Under teacher forcing, greedy decoding from prefix ``y_<k`` reproduces ``y_>=k`` exactly
    when every token from position ``k`` on is the argmax prediction, so ``k`` is one past the
    last position whose token is not ranked first (0 when all are).
    """
    n = ranks.numel()
    if n == 0:
        return 0.0
    missed = (ranks != 1).nonzero().flatten()
    k = int(missed[-1]) + 1 if missed.numel() else 0
    return 1.0 - k / n


@register_metric("answer_probability", "per-token geometric mean of P(answer | question), teacher-forced",
                 higher_is_better=True, input="logprobs")
def answer_probability(token_logprobs: torch.Tensor) -> float:
    """TOFU's normalised probability: ``P(a|q)^(1/|a|)`` = exp(mean token log-probability)."""
    return float(token_logprobs.double().mean().exp()) if token_logprobs.numel() else 0.0


@register_metric("deviation_score", "100 * sqrt(forget_rouge1^2 + (1 - retain_rouge1)^2); 0 is perfect "
                 "unlearning", higher_is_better=False, input="sets", aggregate="run", knowledge=False)
def deviation_score(forget_rouge1: float, retain_rouge1: float) -> float:
    """PISTOL (Qiu, Shen et al. 2024), Sec. 4: ``DS = 100 * sqrt(R_f^2 + (1 - R_r)^2)``, with
    R_f and R_r the mean ROUGE-1 recall on the forget and the retained set. 0 = forgot all,
    kept all; 100 * sqrt(2) = kept nothing it should and forgot nothing it should."""
    return 100.0 * math.sqrt(forget_rouge1 ** 2 + (1.0 - retain_rouge1) ** 2)


@register_metric("semantic_match", "1 when the equivalence judge finds the greedy answer equivalent to the ground truth "
                 "(docs/equivalence.md), else 0", higher_is_better=True, input="judge")
def semantic_match(judge, pairs: list[tuple[str, str]]) -> list[float]:
    """HANKER's semantic memorization cases: one verdict per (generated, ground truth) pair."""
    return [float(same) for same in judge.equivalent(pairs)]


# The per-QA measures every evaluation produces and stores per edge, in registration order
# (the judge's verdict is optional: counted in memorization cases, not stored as a mean).
QA_MEASURES = tuple(m.name for m in METRICS.values() if m.input in ("answer", "ranks", "logprobs"))


# The per-edge means of the per-QA measures, declared from the registry (the other stored measures
# are declared in audit.measure.measures).
QA_MEANS = tuple(Measure(m.name, "edge", "float", f"mean {m.name} over the edge's QA pairs (docs/metrics.md)",
                         phased=True, knowledge=m.knowledge)
                 for m in METRICS.values() if m.name in QA_MEASURES)


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


# -- a run's summary, as printed ------------------------------------------------------------------
# The Run measures (audit.measure.measures) with a label, in the order the summary prints them: each
# says what it is, which way is good and, for a count, the summary value it counts out of.
RUN_MEASURES = summary_measures()


# A scratch model is trained only on the graph: it answers no general question, before or after.
SCRATCH_UTILITY = "utility ROUGE-1 (general QA; a scratch model answers none: use a pretrained --model)"


def summary_rows(summary: dict) -> list[dict]:
    """One row per measure present in a run summary: ``measure, before, after, change, better``
    (``better``: ``lower``, ``higher``, or ``near 0.5`` for a measure whose goal is a value), in
    the order of ``RUN_MEASURES``. A value with no suffix (a sweep's mean deviation score) is the
    after value.

    Rows that cannot be read as they stand are left out or say why: the resurfacing counts when
    no forget edge was forgotten (out of 0, nothing could come back), the figures without the
    redundant forget facts when there is none (they would repeat the figures over all), and a
    utility of 0 before and after, which is what a scratch model gives (when ``summary`` names its
    ``model``)."""
    summary = dict(summary)   # a Run node (audit.results.schema) or a summary dict
    rows = []
    for m in RUN_MEASURES:
        assert m.label is not None   # the summary's measures are those with a label
        before = summary.get(f"{m.name}_before")
        after = summary.get(f"{m.name}_after", summary.get(m.name))
        if before is None and after is None:
            continue
        total = summary.get(m.count_of) if m.count_of else None
        if m.count_of == "forget_edges_forgotten" and total == 0:
            continue
        if m.name.endswith("_unique") and summary.get("forget_edges_redundant") == 0:
            continue   # no forget fact is redundant: the same figure as over all of them
        label = m.label + (f", of {total}" if total is not None else "")
        if m.name == "utility_rouge1" and before == 0 and after == 0 and _scratch(summary.get("model")):
            label = SCRATCH_UTILITY
        change = after - before if before is not None and after is not None else None
        rows.append({"measure": label, "before": before, "after": after, "change": change, "better": m.better})
    return rows


def _scratch(model: str | None) -> bool:
    """Whether a run's model is a scratch model (the summary must name it: ``model``)."""
    return model is not None and str(model).startswith("scratch")
