"""Batched evaluation: greedy answers and teacher-forced scores for many QA pairs at once.

Generation: prompts left-padded (every row ends where its prompt ends), greedy, one fixed
``max_new_tokens`` for the whole set so a QA pair's answer never depends on which batch it
fell in, stopping at end of sequence; the answer is the first line (a pretrained base model
writes on past its answer). Scoring: prompt+answer left-padded, one forward pass per batch,
the output layer on the answer tail only (``audit.models.logits``), measures over the answer
tokens (the end-of-sequence token excluded).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from audit.measure import membership as MI
from audit.measure import metrics as M
from audit.config import EVAL_BATCH_SIZE
from audit.models.encoding import IGNORE, QAEncoder, collate_prompts, collate_train
from audit.models.logits import label_logits
from audit.types import QAExample
from graphstore.progress import Progress

DEFAULT_BATCH_SIZE = EVAL_BATCH_SIZE
GENERATION_MARGIN = 16      # tokens beyond the longest ground-truth answer
GENERATION_CAP = 128


@dataclass
class QAScore:
    edge: str
    index: int
    generated: str
    values: dict[str, float] = field(default_factory=dict)   # one per metrics.QA_MEASURES


def _order_by_length(lengths: list[int]) -> list[int]:
    # Similar lengths in one batch waste less padding; results are put back in input order.
    return sorted(range(len(lengths)), key=lambda i: lengths[i])


@torch.no_grad()
def generate_answers(model, encoder: QAEncoder, prompts: list[list[int]], max_new_tokens: int,
                     batch_size: int, progress: str | None = None) -> list[str]:
    """Greedy answers for already-encoded prompts, in the order given."""
    device = next(model.parameters()).device
    order = _order_by_length([len(p) for p in prompts])
    answers: list[str] = [""] * len(prompts)
    tokenizer = encoder.tokenizer
    with Progress(progress, total=len(prompts), unit="QA pairs") as bar:
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            batch = {k: v.to(device) for k, v in collate_prompts([prompts[i] for i in rows], encoder.pad_id).items()}
            out = model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=encoder.pad_id, eos_token_id=encoder.eos_id)
            new_tokens = out[:, batch["input_ids"].shape[1]:].tolist()
            for row, tokens in zip(rows, new_tokens):
                if encoder.eos_id in tokens:
                    tokens = tokens[:tokens.index(encoder.eos_id)]
                # an answer is one line: a pretrained base model goes on past it ("Ulm.\nQuestion: ...")
                answers[row] = tokenizer.decode(tokens, skip_special_tokens=True).strip().split("\n", 1)[0].strip()
            bar.update(len(rows))
    return answers


def _teacher_forced(model, encoder: QAEncoder, encoded: list, batch_size: int, progress: str | None):
    """Yield ``(index, logits [n, V] float32, targets [n])`` for every QA pair: the logits at the
    positions that predict its answer tokens (the end-of-sequence token excluded), one forward
    pass per batch of similar lengths."""
    device = next(model.parameters()).device
    order = _order_by_length([len(e.prompt_ids) + len(e.answer_ids) for e in encoded])
    with Progress(progress, total=len(encoded), unit="QA pairs") as bar:
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            batch = {k: v.to(device) for k, v in collate_train([encoded[i] for i in rows], encoder.pad_id).items()}
            with torch.no_grad():   # aligned: position t of logits scores token t of labels
                logits, labels = label_logits(model, batch["input_ids"], batch["attention_mask"], batch["labels"])
            for b, row in enumerate(rows):
                mask = (labels[b] != IGNORE) & (labels[b] != encoder.eos_id)
                # float32 for the answer positions only: a batch's full-width copy is never made.
                yield row, logits[b][mask].float(), labels[b][mask]
            bar.update(len(rows))


def _membership_values(encoder: QAEncoder, logits: torch.Tensor, targets: torch.Tensor,
                       k: float = MI.MIN_K) -> tuple[dict, torch.Tensor]:
    """Every membership metric of one QA pair, and its answer tokens' log-probabilities. The
    zlib attack's text is the answer the scored tokens spell (the prompt format's leading space
    stripped)."""
    text = encoder.tokenizer.decode(targets.tolist(), skip_special_tokens=True).strip()
    stats = MI.token_stats(logits, targets, text, k)
    return {m.name: m.compute(stats) for m in M.metrics_for("membership")}, stats.logprobs


@torch.no_grad()
def score_answers(model, encoder: QAEncoder, encoded: list, batch_size: int,
                  progress: str | None = None, *, membership: bool = False) -> list[dict[str, float]]:
    """Teacher-forced measures per QA pair: every registered metric of the answer tokens' ranks
    or log-probabilities (MRR, top-100 hit, exact memorization, extraction strength, answer
    probability; see docs/metrics.md). With ``membership``, the membership-inference scores too
    (``audit.measure.membership``: LOSS, zlib, Min-K%, Min-K%++), from the same forward pass."""
    ranked, by_logprob = M.metrics_for("ranks"), M.metrics_for("logprobs")
    results: list[dict[str, float]] = [{} for _ in encoded]
    for row, logits, targets in _teacher_forced(model, encoder, encoded, batch_size, progress):
        ranks = M.token_ranks(logits, targets)
        if membership:
            inferred, logprobs = _membership_values(encoder, logits, targets)
        else:
            inferred = {}
            logprobs = torch.log_softmax(logits, -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        results[row] = {**{m.name: m.compute(ranks) for m in ranked},
                        **{m.name: m.compute(logprobs) for m in by_logprob}, **inferred}
    return results


@torch.no_grad()
def membership_scores(model, encoder: QAEncoder, examples: list[QAExample], batch_size: int,
                      progress: str | None = None, k: float = MI.MIN_K) -> list[dict[str, float]]:
    """The membership-inference scores (every metric of input ``membership``) of each example's
    answer given its question, teacher-forced, in input order; no generation; ``k``: the share
    of lowest-scored tokens of Min-K% and Min-K%++. ``model`` is put in eval mode and left there."""
    model.eval()
    encoded = [encoder.encode(e.question, e.answer) for e in examples]
    results: list[dict[str, float]] = [{} for _ in encoded]
    for row, logits, targets in _teacher_forced(model, encoder, encoded, batch_size, progress):
        results[row] = _membership_values(encoder, logits, targets, k)[0]
    return results


def max_new_tokens_for(encoded: list) -> int:
    longest = max((len(e.answer_ids) for e in encoded), default=0)
    return min(GENERATION_CAP, longest + GENERATION_MARGIN)


def evaluate(model, encoder: QAEncoder, examples: list[QAExample], batch_size: int = DEFAULT_BATCH_SIZE,
             max_new_tokens: int | None = None, progress: str | None = None, judge=None) -> list[QAScore]:
    """All measures for every example, batched. ``model`` is put in eval mode and left there.
    With an equivalence ``judge`` (``audit.measure.equivalence``), the judge metrics too."""
    if not examples:
        return []
    model.eval()
    encoded = [encoder.encode(e.question, e.answer) for e in examples]
    max_new = max_new_tokens if max_new_tokens is not None else max_new_tokens_for(encoded)
    answers = generate_answers(model, encoder, [e.prompt_ids for e in encoded], max_new, batch_size,
                               progress and f"{progress}: generate")
    scores = score_answers(model, encoder, encoded, batch_size, progress and f"{progress}: score")
    out = []
    for example, answer, values in zip(examples, answers, scores):
        values = {**{m.name: m.compute(answer, example.answer) for m in M.metrics_for("answer")}, **values}
        out.append(QAScore(example.edge, example.index, answer, values))
    if judge is not None:
        pairs = [(s.generated, e.answer) for s, e in zip(out, examples)]
        for m in M.metrics_for("judge"):
            for score, value in zip(out, m.compute(judge, pairs)):
                score.values[m.name] = value
    return out


def group_by_edge(scores: list[QAScore]) -> dict[str, list[QAScore]]:
    grouped: dict[str, list[QAScore]] = {}
    for s in scores:
        grouped.setdefault(s.edge, []).append(s)
    return grouped


def edge_means(items: list[QAScore]) -> dict[str, float]:
    """Mean of every measure over one edge's QA pairs (at least one: ``group_by_edge`` gives them)."""
    return {name: sum(s.values[name] for s in items) / len(items) for name in M.QA_MEASURES}


def per_edge(scores: list[QAScore]) -> dict[str, dict[str, float]]:
    """Mean of every measure over each edge's QA pairs."""
    return {edge: edge_means(items) for edge, items in group_by_edge(scores).items()}
