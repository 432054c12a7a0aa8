"""Forward passes that compute the output layer only where a loss or a measure reads it.

A causal LM's output layer maps every position to the whole vocabulary; on Gemma 3 (262,144
words, width 640) that is most of a forward pass. Losses and measures read only the positions
that predict a labelled token (an answer, a sentence after its context). Batches are padded on
the left, so those positions end every row: asking the model for the last ``K`` positions'
logits (transformers' ``logits_to_keep``), with ``K`` the longest labelled tail of the batch,
gives the same numbers for a fraction of the work (docs/benchmarks.md, "Logits where needed").
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from audit.models.encoding import IGNORE
from audit.models.ranks import BATCH_TOKENS


def label_logits(model, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                 labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logits [B, K, V], targets [B, K])``: the logits at the positions that predict
    ``labels[:, -K:]``, and those labels (``IGNORE`` where unlabelled). Position ``t`` predicts
    token ``t + 1``; ``K`` runs from the batch's first labelled position to the end."""
    labelled = (labels != IGNORE).any(0).nonzero()
    first = max(int(labelled[0]) if len(labelled) else labels.shape[1] - 1, 1)
    keep = labels.shape[1] - first + 1   # positions first-1 .. L-1; the last predicts nothing
    # each row's positions count from its first real token, so left padding changes nothing,
    # whatever the model's position encoding
    positions = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
    try:
        logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions,
                       logits_to_keep=keep).logits
    except TypeError:   # a model class without logits_to_keep: the full output, then the tail
        logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=positions).logits[:, -keep:]
    return logits[:, :-1], labels[:, first:]


def mean_nll(model, inputs: dict) -> torch.Tensor:
    """Mean next-token negative log-likelihood over the labelled tokens of the batch (what
    transformers' ``model(**inputs).loss`` computes, on the labelled positions only)."""
    logits, targets = label_logits(model, inputs["input_ids"], inputs["attention_mask"], inputs["labels"])
    logits, targets = logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1)
    if BATCH_TOKENS in inputs:   # one rank's rows of a batch: their share of the batch's mean (audit.models.ranks)
        return F.cross_entropy(logits, targets, ignore_index=IGNORE, reduction="sum") / inputs[BATCH_TOKENS]
    return F.cross_entropy(logits, targets, ignore_index=IGNORE)
