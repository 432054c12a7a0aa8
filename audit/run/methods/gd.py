"""GD, gradient difference (Liu et al. 2022, "Continual learning and private unlearning";
TOFU, Maini et al. 2024, Sec. 4): ascent on the forget set, descent on a paired retain sample."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class GDConfig:
    retain_weight: float = field(default=1.0, metadata={"help": "weight of the retain NLL"})


@register
class GradientDifference(Method):
    name = "gd"
    title = "gradient difference"
    config_class = GDConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.53/0.84,
    # 0.64/0.93, 0.55/0.85; 3e-4 forgets 0.18, 1e-3 takes the retained edges to 0.63 (seed 0)
    scratch_lr = 5e-4

    def loss(self, model, batch: UnlearnBatch):
        # L = -NLL(forget) + lambda * NLL(retain)
        return self.plus_retain_nll(model, batch, -self.nll(model, batch.forget))
