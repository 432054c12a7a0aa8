"""The loss pieces the methods share, on tensors: log-probabilities of answers under the model
being trained and under the reference, the answer tokens' KL, log-sigmoid.

The reference model is the injected model itself with the unlearning LoRA adapters disabled
(``model.disable_adapter()``): no second copy of the weights in memory.

This is the half of the methods that needs torch. ``base.Method`` imports it when a loss first
runs, so that the methods' names, settings and default rates are read without torch.
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from audit.models.encoding import IGNORE
from audit.models.logits import label_logits, mean_nll
from audit.models.ranks import BATCH_ROWS, BATCH_TOKENS

__all__ = ["answer_kl", "answer_logprob", "logsigmoid", "mean_nll", "reference", "reference_logprob",
           "row_mean", "sequence_logprob"]


def answer_logprob(model, inputs: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row: the sum of answer-token log-probabilities, and the number of answer tokens."""
    return sequence_logprob(*label_logits(model, inputs["input_ids"], inputs["attention_mask"], inputs["labels"]))


def reference_logprob(model, inputs: dict) -> torch.Tensor:
    """Per row, the summed answer-token log-probability under the reference model (no gradient)."""
    with torch.no_grad(), reference(model):
        return answer_logprob(model, inputs)[0]


def sequence_logprob(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row, the summed log-probability of the labelled tokens and their number; ``logits``
    and ``labels`` already aligned (``label_logits``: position t of one scores position t of
    the other)."""
    logits = logits.float()
    mask = labels != IGNORE
    token_logprobs = torch.log_softmax(logits, -1).gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return (token_logprobs * mask).sum(-1), mask.sum(-1)


def answer_kl(model, inputs: dict) -> torch.Tensor:
    """KL(p_ref || p_theta) per answer token, averaged over the batch's answer tokens."""
    args = inputs["input_ids"], inputs["attention_mask"], inputs["labels"]
    with torch.no_grad(), reference(model):
        ref_logits, _ = label_logits(model, *args)
    logits, targets = label_logits(model, *args)
    mask = targets != IGNORE
    ref = torch.log_softmax(ref_logits.float(), -1)[mask]
    cur = torch.log_softmax(logits.float(), -1)[mask]
    if BATCH_TOKENS in inputs:   # one rank's rows: their share of the batch's mean (audit.models.ranks)
        return F.kl_div(cur, ref, log_target=True, reduction="sum") / inputs[BATCH_TOKENS]
    return F.kl_div(cur, ref, log_target=True, reduction="batchmean")


def row_mean(values: torch.Tensor, inputs: dict) -> torch.Tensor:
    """The mean of per-row values over the batch of ``inputs``; on one rank's rows of a batch,
    their share of that mean (summed over the ranks, the batch's mean: audit.models.ranks)."""
    if BATCH_ROWS in inputs:
        return values.sum() / inputs[BATCH_ROWS]
    return values.mean()


def logsigmoid(x: torch.Tensor) -> torch.Tensor:
    """log sigma(x), stable for large |x|."""
    return F.logsigmoid(x)


@contextlib.contextmanager
def reference(model):
    """The reference model: the same weights with the LoRA adapters switched off."""
    with model.disable_adapter():
        yield
