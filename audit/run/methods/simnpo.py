"""SimNPO (Fan et al. 2024, "Simplicity Prevails: Rethinking Negative Preference Optimization
for LLM Unlearning", arXiv:2410.07163, Eq. 4): NPO without a reference model, with the
log-likelihood normalised by answer length and a reward margin gamma."""

from dataclasses import dataclass, field

import torch.nn.functional as F

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.registry import register


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

    def loss(self, model, batch: UnlearnBatch):
        beta, gamma = self.config.beta, self.config.gamma
        logprob, length = self.answer_logprob(model, batch.forget)
        # Eq. 4: L = -(2/beta) * E[log sigma(-(beta/|y|) * log pi_theta(y|x) - gamma)]
        loss = -(2.0 / beta) * F.logsigmoid(-(beta / length.clamp(min=1)) * logprob - gamma).mean()
        return self.plus_retain_nll(model, batch, loss)
