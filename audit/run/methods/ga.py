"""GA, gradient ascent on the forget set (Jang et al. 2023, "Knowledge Unlearning for
Mitigating Privacy Risks in Language Models"; the baseline of TOFU and PISTOL)."""

from dataclasses import dataclass

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.registry import register


@dataclass
class GAConfig:
    """Gradient ascent has no settings of its own."""


@register
class GradientAscent(Method):
    name = "ga"
    title = "gradient ascent"
    config_class = GAConfig

    def loss(self, model, batch: UnlearnBatch):
        # L = -NLL(forget): maximise the loss of the forget answers.
        return -self.nll(model, batch.forget)
