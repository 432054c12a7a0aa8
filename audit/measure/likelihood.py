"""Negative log-likelihood of sentences, many at once.

A sentence may follow a context (other sentences it is read after); the NLL covers the
sentence's tokens only, teacher-forced, summed (a sum, not a mean: the calibrations of the
memorization measure subtract NLLs of the same value in other sentences, which removes the
value's own length and prior). Every distinct (context, sentence) is scored once: the generic
subject's sentences repeat across subjects, and a cache keeps them.

Batches are formed from sentences of similar length (less padding) and run as one forward
pass each; the loss is reduced per row with ``cross_entropy(reduction="none")``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from audit.models.encoding import IGNORE
from audit.models.logits import label_logits
from graphstore.progress import Progress

DEFAULT_BATCH_SIZE = 64


class SentenceScorer:
    """NLL of ``(context, sentence)`` pairs under one causal LM, with a cache of what it scored."""

    def __init__(self, model, tokenizer, batch_size: int = DEFAULT_BATCH_SIZE):
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        # The first token of a sentence is predicted from the beginning-of-sequence token, or,
        # for tokenizers without one (GPT-2 style), from end-of-sequence, as those models are trained.
        start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        self.start = [start] if start is not None else []
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        self.cache: dict[tuple[str, str], float] = {}
        self.scored = 0          # forward-pass rows actually computed (cache misses)

    def encode(self, context: str, sentence: str) -> tuple[list[int], list[int]]:
        """Token ids of the context (with the start token) and of the sentence, tokenized apart
        so the boundary is exact; the sentence gets a leading space after a context."""
        prefix = self.start + (self.tokenizer(context, add_special_tokens=False)["input_ids"] if context else [])
        target = self.tokenizer((" " + sentence) if context else sentence, add_special_tokens=False)["input_ids"]
        return prefix, target

    @torch.no_grad()
    def nll(self, items: list[tuple[str, str]], progress: str | None = None) -> list[float]:
        """Summed NLL (nats) of each sentence given its context, in the order given."""
        todo = list(dict.fromkeys(i for i in items if i not in self.cache))
        if todo:
            self._score(todo, progress)
        return [self.cache[i] for i in items]

    def _score(self, items: list[tuple[str, str]], progress: str | None) -> None:
        self.model.eval()
        device = next(self.model.parameters()).device
        encoded = [self.encode(c, s) for c, s in items]
        order = sorted(range(len(items)), key=lambda i: len(encoded[i][0]) + len(encoded[i][1]))
        with Progress(progress, total=len(items), unit="sentences") as bar:
            for start in range(0, len(order), self.batch_size):
                rows = order[start:start + self.batch_size]
                input_ids, attention, labels = self._collate([encoded[i] for i in rows])
                logits, targets = label_logits(self.model, input_ids.to(device), attention.to(device),
                                               labels.to(device))   # aligned: t scores t
                logits = logits.float()
                losses = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                         ignore_index=IGNORE, reduction="none").view(targets.shape).sum(1)
                for row, value in zip(rows, losses.tolist()):
                    self.cache[items[row]] = value
                self.scored += len(rows)
                bar.update(len(rows))

    def _collate(self, pairs: list[tuple[list[int], list[int]]]):
        length = max(len(p) + len(t) for p, t in pairs)
        input_ids = torch.full((len(pairs), length), self.pad_id, dtype=torch.long)
        labels = torch.full((len(pairs), length), IGNORE, dtype=torch.long)
        attention = torch.zeros((len(pairs), length), dtype=torch.long)
        for row, (prefix, target) in enumerate(pairs):   # padded on the left, as every batch here:
            ids = prefix + target                          # the scored sentences end every row
            input_ids[row, length - len(ids):] = torch.tensor(ids)
            labels[row, length - len(target):] = torch.tensor(target)
            attention[row, length - len(ids):] = 1
        return input_ids, attention, labels
