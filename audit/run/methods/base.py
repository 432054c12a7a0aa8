"""What every unlearning method shares: the batch it receives, log-probabilities of answers
under the model being trained and under the reference, and the registry.

The reference model is the injected model itself with the unlearning LoRA adapters disabled
(``model.disable_adapter()``): no second copy of the weights in memory.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn.functional as F

from audit.models.encoding import IGNORE
from audit.models.logits import label_logits, mean_nll
from graphstore.errors import ConfigError


@dataclass
class UnlearnBatch:
    """One step's inputs. Each part is ``{input_ids, attention_mask, labels}`` with labels on
    the answer tokens only.

    - ``forget``: forget questions with their true answers;
    - ``retain``: a paired sample of retain QA pairs (methods with ``uses_retain``);
    - ``refusal``: the forget questions with a refusal as answer (methods with ``uses_refusal``).
    """
    forget: dict
    retain: dict | None = None
    refusal: dict | None = None


class Method:
    """An unlearning method: a name, a config dataclass and a loss."""
    name: ClassVar[str]
    title: ClassVar[str]
    config_class: ClassVar[type]
    uses_refusal: ClassVar[bool] = False

    def __init__(self, config=None):
        self.config = config if config is not None else self.config_class()
        for name in ("retain_weight", "beta"):
            value = getattr(self.config, name, None)
            if value is not None and (value < 0 or (name == "beta" and value == 0)):
                raise ConfigError(f"method {self.name} option {name}={value}: must be "
                                  f"{'positive' if name == 'beta' else 'zero or more'}")

    @property
    def uses_retain(self) -> bool:
        """A method trains on paired retain QA pairs when its config gives them weight."""
        return getattr(self.config, "retain_weight", 0.0) > 0

    def loss(self, model, batch: UnlearnBatch) -> torch.Tensor:
        raise NotImplementedError

    def plus_retain_nll(self, model, batch: UnlearnBatch, loss: torch.Tensor) -> torch.Tensor:
        """``loss + retain_weight * NLL(retain)``: gradient difference's retain term, which
        the NPO paper also adds to NPO ("NPO+RT") and which applies to any forget-only loss."""
        weight = getattr(self.config, "retain_weight", 0.0)
        return loss + weight * self.nll(model, batch.retain) if weight > 0 else loss

    # -- shared pieces -------------------------------------------------------------------------
    @staticmethod
    def nll(model, inputs: dict) -> torch.Tensor:
        """Mean next-token negative log-likelihood over the answer tokens of the batch."""
        return mean_nll(model, inputs)

    @staticmethod
    def answer_logprob(model, inputs: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """Per row: the sum of answer-token log-probabilities, and the number of answer tokens."""
        return sequence_logprob(*label_logits(model, inputs["input_ids"], inputs["attention_mask"], inputs["labels"]))

    @staticmethod
    def reference_logprob(model, inputs: dict) -> torch.Tensor:
        with torch.no_grad(), reference(model):
            return Method.answer_logprob(model, inputs)[0]


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
    return F.kl_div(cur, ref, log_target=True, reduction="batchmean")


@contextlib.contextmanager
def reference(model):
    """The reference model: the same weights with the LoRA adapters switched off."""
    with model.disable_adapter():
        yield
