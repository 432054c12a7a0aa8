"""KL minimisation (TOFU, Maini et al. 2024, Sec. 4): ascent on the forget set while keeping the
model's answer distribution on retain questions close to the injected model's."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch, answer_kl
from audit.run.methods.registry import register


@dataclass
class KLConfig:
    retain_weight: float = field(default=1.0, metadata={"help": "weight of the retain KL term"})


@register
class KLMinimization(Method):
    name = "kl"
    title = "KL minimisation"
    config_class = KLConfig

    def loss(self, model, batch: UnlearnBatch):
        # L = -NLL(forget) + lambda * KL(p_injected(.|retain) || p_theta(.|retain)), per answer token;
        # the injected model is the reference (adapters disabled).
        loss = -self.nll(model, batch.forget)
        return loss + self.config.retain_weight * answer_kl(model, batch.retain) if self.uses_retain else loss
