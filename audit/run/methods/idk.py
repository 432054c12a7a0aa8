"""PISTOL's "DPO" (Qiu, Shen et al., appendix F, Eq. 6), TOFU's "IDK" fine-tuning (Maini et al.
2024, Sec. 4): the forget questions are trained to be answered with a refusal ("I don't know."),
while the retain set is trained as it was. No ascent and no reference model:

    L = L(D_r) + L(D_f,idk)        (Eq. 6; L = mean answer-token NLL, Eq. 3)

Rafailov et al.'s contrastive loss, with the refusal preferred over the true answer, is `dpo`."""

from dataclasses import dataclass, field

from audit.run.methods.base import Method, UnlearnBatch
from audit.run.methods.catalog import register


@dataclass
class IdkConfig:
    retain_weight: float = field(default=1.0, metadata={"help": "weight of the retain NLL (Eq. 6: 1)"})


@register
class RefusalNLL(Method):
    name = "idk"
    title = "refusal fine-tuning (PISTOL's DPO, Eq. 6)"
    config_class = IdkConfig
    # bench/bench_lr.py, demo graph, scratch:tiny, seeds 0-2: forget/retained ROUGE-1 0.40/0.99,
    # 0.40/0.99, 0.48/1.00; every rate from 4e-3 up passes, and 1.6e-2 forgets no more
    scratch_lr = 8e-3
    uses_refusal = True

    def loss(self, model, batch: UnlearnBatch):
        # Eq. 6: L(D_f,idk) + retain_weight * L(D_r)
        return self.plus_retain_nll(model, batch, self.nll(model, batch.part("refusal")))
