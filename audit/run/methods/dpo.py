"""DPO with a refusal as the preferred answer (Rafailov et al. 2023, Eq. 7; used for unlearning
as "IDK" preference optimisation by TOFU, Maini et al. 2024): the forget answer is rejected
in favour of a refusal such as "I don't know."."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class DPOConfig:
    beta: float = field(default=0.1, metadata={"help": "inverse temperature beta of the DPO loss"})
    retain_weight: float = field(default=0.0, metadata={"help": "weight of an added retain NLL (0 = plain DPO)"})


@register
class DirectPreference(Method):
    name = "dpo"
    title = "DPO (refusal preferred)"
    config_class = DPOConfig
    # bench/bench_lr.py, demo graph, scratch:tiny: no rate forgets 0.3 and keeps the retained edges
    # (the refusal spreads to every question; with a retain term nothing is forgotten up to 1e-2).
    # The highest rate keeping them >= 0.8: forget/retained 0.88/0.86, 0.95/0.93, 0.85/0.80
    # (seeds 0-2); 2.5e-3 gives 0.39/0.44 (seed 0)
    scratch_lr = 2e-3
    uses_refusal = True

    def loss(self, model, batch: UnlearnBatch):
        beta = self.config.beta
        chosen, _ = self.answer_logprob(model, batch.part("refusal"))
        rejected, _ = self.answer_logprob(model, batch.forget)
        chosen_ref = self.reference_logprob(model, batch.part("refusal"))
        rejected_ref = self.reference_logprob(model, batch.forget)
        # Eq. 7: -log sigma(beta * [log pi(y_w|x)/pi_ref(y_w|x) - log pi(y_l|x)/pi_ref(y_l|x)])
        margin = beta * ((chosen - chosen_ref) - (rejected - rejected_ref))
        loss = -self.mean_over_rows(self.logsigmoid(margin), batch.forget)
        return self.plus_retain_nll(model, batch, loss)
