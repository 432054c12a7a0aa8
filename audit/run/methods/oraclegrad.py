"""OracleGrad (LACUNA, Boglioni et al., §4.1 and App. D): gradient difference whose updates are
restricted to the ground-truth forget mask of a masked injection. It knows where the forgotten
facts live, so it is the ceiling of localization precision (LACUNA: AUC 0.915 on OLMo2 1B, where
the other methods sit near 0.5). It needs ``--mask-groups`` and full-parameter unlearning
(``--adapter full``): the unlearner zeroes every gradient outside the forget groups' weights
after each backward pass (``gradient_mask = "forget"``), embeddings, norms and output layer
included, and trains without weight decay, as LACUNA's does (weight_decay 0.0).

LACUNA weighs the forget term 5 and the retain term 1 on OLMo2 1B (Tab. 5); the defaults here
are gradient difference's own (1 and 1), so that OracleGrad and ``gd`` differ by the mask and the
weight decay only (``gd`` keeps the run's, 0.01 by default; on the demo graph GD's localization
AUC is 0.5029 without it and 0.5035 with it).
"""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class OracleGradConfig:
    forget_weight: float = field(default=1.0, metadata={"help": "weight of the forget term (LACUNA's gamma)"})
    retain_weight: float = field(default=1.0, metadata={"help": "weight of the retain NLL (LACUNA's alpha)"})


@register
class OracleGrad(Method):
    name = "oraclegrad"
    title = "gradient difference inside the forget mask (LACUNA)"
    config_class = OracleGradConfig
    gradient_mask = "forget"
    # gd's rate: the two differ only by the mask (not measured by bench/bench_lr.py)
    scratch_lr = 5e-4

    def loss(self, model, batch: UnlearnBatch):
        # LACUNA App. D: L = -gamma * NLL(forget) + alpha * NLL(retain), the gradient masked to m^F
        return self.plus_retain_nll(model, batch, -self.config.forget_weight * self.nll(model, batch.forget))
