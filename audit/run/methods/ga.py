"""GA, gradient ascent on the forget set (Jang et al. 2023, "Knowledge Unlearning for
Mitigating Privacy Risks in Language Models"; the baseline of TOFU and PISTOL)."""

from dataclasses import dataclass

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class GAConfig:
    """Gradient ascent has no settings of its own."""


@register
class GradientAscent(Method):
    name = "ga"
    title = "gradient ascent"
    config_class = GAConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.50/0.82,
    # 0.63/0.92, 0.58/0.83; 3e-4 forgets 0.26, 5e-4 takes the retained edges to 0.51 (seed 0)
    scratch_lr = 4e-4

    def loss(self, model, batch: UnlearnBatch):
        # L = -NLL(forget): maximise the loss of the forget answers.
        return -self.nll(model, batch.forget)
