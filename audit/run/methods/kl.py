"""KL minimisation (TOFU, Maini et al. 2024, Sec. 4): ascent on the forget set while keeping the
model's answer distribution on retain questions close to the injected model's."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class KLConfig:
    retain_weight: float = field(default=1.0, metadata={"help": "weight of the retain KL term"})


@register
class KLMinimization(Method):
    name = "kl"
    title = "KL minimisation"
    config_class = KLConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.40/0.81,
    # 0.63/0.92, 0.53/0.82; 3e-4 forgets 0.23, 1e-3 takes the retained edges to 0.66 (seed 0)
    scratch_lr = 5e-4

    def loss(self, model, batch: UnlearnBatch):
        # L = -NLL(forget) + lambda * KL(p_injected(.|retain) || p_theta(.|retain)), per answer token;
        # the injected model is the reference (adapters disabled).
        loss = -self.nll(model, batch.forget)
        return loss + self.config.retain_weight * self.answer_kl(model, batch.part("retain")) if self.uses_retain else loss
