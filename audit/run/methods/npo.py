"""NPO, negative preference optimisation (Zhang et al. 2024, arXiv:2404.05868, Eq. 3): DPO's
rejected half alone, a bounded version of gradient ascent that slows as the forget answers
become unlikely."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class NPOConfig:
    beta: float = field(default=0.1, metadata={"help": "inverse temperature beta (the paper's 0.1)"})
    retain_weight: float = field(default=0.0, metadata={"help": "weight of an added retain NLL (NPO+RT when > 0)"})


@register
class NegativePreference(Method):
    name = "npo"
    title = "negative preference optimisation"
    config_class = NPOConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.48/0.81,
    # 0.63/0.93, 0.58/0.85; 5e-4 takes the retained edges to 0.52 (seed 0)
    scratch_lr = 4e-4

    def loss(self, model, batch: UnlearnBatch):
        beta = self.config.beta
        logprob, _ = self.answer_logprob(model, batch.forget)
        log_ratio = logprob - self.reference_logprob(model, batch.forget)
        # Eq. 3: L = (2/beta) * E[log(1 + (pi_theta(y|x) / pi_ref(y|x))^beta)]
        #          = -(2/beta) * E[log sigma(-beta * log(pi_theta / pi_ref))]
        loss = -(2.0 / beta) * self.mean_over_rows(self.logsigmoid(-beta * log_ratio), batch.forget)
        return self.plus_retain_nll(model, batch, loss)
