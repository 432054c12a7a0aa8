"""SimNPO (Fan et al. 2024, "Simplicity Prevails: Rethinking Negative Preference Optimization
for LLM Unlearning", arXiv:2410.07163, Eq. 4): NPO without a reference model, with the
log-likelihood normalised by answer length and a reward margin gamma."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class SimNPOConfig:
    beta: float = field(default=2.5, metadata={"help": "inverse temperature beta (the paper's TOFU setting 2.5)"})
    gamma: float = field(default=0.0, metadata={"help": "reward margin gamma"})
    retain_weight: float = field(default=0.0, metadata={"help": "weight of an added retain NLL"})


@register
class SimpleNegativePreference(Method):
    name = "simnpo"
    title = "SimNPO"
    config_class = SimNPOConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.45/0.87,
    # 0.62/0.95, 0.55/0.90; 3e-4 forgets 0.26, 5e-4 takes the retained edges to 0.67 (seed 0)
    scratch_lr = 4e-4

    def loss(self, model, batch: UnlearnBatch):
        beta, gamma = self.config.beta, self.config.gamma
        logprob, length = self.answer_logprob(model, batch.forget)
        # Eq. 4: L = -(2/beta) * E[log sigma(-(beta/|y|) * log pi_theta(y|x) - gamma)]
        loss = -(2.0 / beta) * self.mean_over_rows(self.logsigmoid(-(beta / length.clamp(min=1)) * logprob - gamma),
                                                   batch.forget)
        return self.plus_retain_nll(model, batch, loss)
