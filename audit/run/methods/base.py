"""What every unlearning method declares and shares: its name, settings and default rate, the
batch it receives, and the loss pieces (``tensors.py``).

A method module imports without torch: the command line offers the methods' names and rates
at once (``audit run --help``, tests/cli/test_startup.py), and the tensor half is imported when
a loss first runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from graphstore.errors import ConfigError

if TYPE_CHECKING:  # losses take and return tensors; the declarations need no torch
    import torch


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

    def part(self, name: str) -> dict:
        """The ``retain`` or ``refusal`` part, which the unlearner pairs only for a method that uses it."""
        value = getattr(self, name)
        if value is None:
            raise ValueError(f"this batch has no {name} part: the method must declare that it uses one")
        return value


class Method:
    """An unlearning method: a name, a config dataclass, a default rate and a loss.

    A loss takes its batch means through ``nll``, ``answer_kl`` and ``mean_over_rows``, never a
    tensor's own mean method: in a run launched over several processes a batch part holds one
    rank's rows, and these give that rank's share of the whole batch's mean (audit.models.ranks;
    tests/audit/run/test_methods.py checks the method modules for it).

    ``scratch_lr`` is the AdamW rate used on a small model (a scratch size, or a model trained
    from one) when ``--lr`` is not given; each module says what chose it, and ``rates.py`` when
    it applies and the criterion (docs/runs.md, section 4).
    """
    name: ClassVar[str]
    title: ClassVar[str]
    config_class: ClassVar[type]
    scratch_lr: ClassVar[float]
    # "forget": the method's gradient is kept only on the forget groups' weights of a masked
    # injection (OracleGrad); None: every trained weight
    gradient_mask: ClassVar[str | None] = None
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
        return loss + weight * self.nll(model, batch.part("retain")) if weight > 0 else loss

    # -- shared pieces (tensors.py) ------------------------------------------------------------
    @staticmethod
    def nll(model, inputs: dict) -> torch.Tensor:
        """Mean next-token negative log-likelihood over the answer tokens of the batch."""
        return _tensors().mean_nll(model, inputs)

    @staticmethod
    def answer_logprob(model, inputs: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """Per row: the sum of answer-token log-probabilities, and the number of answer tokens."""
        return _tensors().answer_logprob(model, inputs)

    @staticmethod
    def reference_logprob(model, inputs: dict) -> torch.Tensor:
        """Per row, the summed answer-token log-probability under the reference (adapters off)."""
        return _tensors().reference_logprob(model, inputs)

    @staticmethod
    def answer_kl(model, inputs: dict) -> torch.Tensor:
        """KL(p_ref || p_theta) per answer token, averaged over the batch's answer tokens."""
        return _tensors().answer_kl(model, inputs)

    @staticmethod
    def logsigmoid(x: torch.Tensor) -> torch.Tensor:
        return _tensors().logsigmoid(x)

    @staticmethod
    def mean_over_rows(values: torch.Tensor, inputs: dict) -> torch.Tensor:
        """The batch mean of per-row values (an example mean: NPO, DPO, SimNPO); ``inputs`` is
        the batch part the rows are of, so that one rank's rows give their share of the mean
        when a run is launched over several processes (audit.models.ranks)."""
        return _tensors().row_mean(values, inputs)


def _tensors():
    # torch (about a second) is loaded with the first loss, not with the declarations: the same
    # reason audit/measure/metrics.py loads rouge_score on first use. No import cycle: tensors.py
    # imports nothing of the methods.
    from audit.run.methods import tensors

    return tensors
