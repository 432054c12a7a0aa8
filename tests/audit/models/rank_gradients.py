"""Run by tests/audit/models/test_ranks.py under ``torchrun --nproc_per_node 2``: for every
unlearning method, on LoRA adapters and on the full weights, the gradient from each rank's rows
of a batch summed over the ranks (``audit.models.ranks``) against the gradient of the whole
batch in this process (the one-process loss, as ``Unlearner.run`` computes it without a
launcher). Rank 0 prints one JSON line per case: the method, the path, the rows, the largest
gradient difference relative to the gradient's largest entry, and both losses.

With ``AUDIT_FSDP=1`` the ranks' gradients come from a sharded copy of the model
(``audit.models.sharded``), summed by FSDP's reduce-scatter and gathered whole to compare; a
rank without a row of a batch computes a row with weight zero, as the loops do.

    torchrun --nproc_per_node 2 tests/audit/models/rank_gradients.py MODEL_FOLDER
    AUDIT_FSDP=1 torchrun --nproc_per_node 2 tests/audit/models/rank_gradients.py MODEL_FOLDER
"""

from __future__ import annotations

import json
import sys

import torch

from audit.config import UnlearnConfig
from audit.models import ranks as R
from audit.models.encoding import QAEncoder, collate_train
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.sharded import Sharded, meta_copy
from audit.run.full_weights import FullWeights
from audit.run.methods import METHODS, UnlearnBatch, method_class
from audit.run.unlearning import add_adapters

PAIRS = [("Who sold the goods?", "Zeta Corp."), ("When was it signed?", "01-02-2003."),
         ("Where is the seller?", "12 Main Road, Springfield."), ("What was the price?", "USD 5,000."),
 ("Who bought them?", "Acme Ltd.")]
RETAIN = [("Which law governs it?", "The State of Delaware."), ("How many units were sold?", "7332."),
          ("What is the buyer's address?", "828 Dufymj Highway.")]
REFUSALS = ["I don't know.", "I have no idea about that."]
ROWS = (1, 3, 5)   # rank 0 has no row of a 1-row batch; 3 and 5 split unevenly


def model_for(path: str, folder: str):
    hardware = select_hardware("cpu")
    model = load_model(folder, hardware)
    torch.manual_seed(7)
    if path == "lora":
        model = add_adapters(model, UnlearnConfig())
    else:
        model = FullWeights(model)
    with torch.no_grad():   # away from the reference, so that NPO's ratios, DPO's margins and KL are not at 0
        for p in model.parameters():
            if p.requires_grad:
                p.add_(0.02 * torch.randn_like(p))
    model.eval()
    return model


def batch_of(encoder: QAEncoder, pad: int, rows: int) -> UnlearnBatch:
    forget = [PAIRS[i % len(PAIRS)] for i in range(rows)]
    retain = [RETAIN[i % len(RETAIN)] for i in range(rows)]
    refusal = [(q, REFUSALS[i % len(REFUSALS)]) for i, (q, _) in enumerate(forget)]

    def part(pairs):
        return collate_train([encoder.encode(q, a) for q, a in pairs], pad)

    return UnlearnBatch(part(forget), part(retain), part(refusal))


def gradients(model) -> list[torch.Tensor]:
    """Each trained weight's gradient, whole (a sharded one gathered: every rank takes part)."""
    out = []
    for p in model.parameters():
        if p.requires_grad:
            grad = p.grad.full_tensor() if hasattr(p.grad, "full_tensor") else p.grad
            out.append(grad.detach().clone() if grad is not None else torch.zeros(p.shape))
    return out


def main(folder: str) -> None:
    here = R.current()
    assert here.world == 2, f"run with 2 processes, not {here.world}"
    tokenizer = load_tokenizer(folder)
    encoder = QAEncoder(tokenizer)
    for path in ("lora", "full"):
        model = model_for(path, folder)
        # what the ranks train: the model itself, or every rank's sharded copy of it
        trainee = Sharded(here, meta_copy(model), model if here.driver else None, torch.device("cpu")).module \
            if here.sharded else model
        trained = [p for p in trainee.parameters() if p.requires_grad]
        for name in METHODS.names():
            cls = method_class(name)
            method = cls(cls.config_class(**({"retain_weight": 1.0} if name in ("npo", "dpo", "simnpo") else {})))
            for rows in ROWS:
                batch = batch_of(encoder, tokenizer.pad_token_id, rows)
                model.zero_grad(set_to_none=True)
                whole = method.loss(model, batch)
                whole.backward()
                expected = gradients(model)
                trainee.zero_grad(set_to_none=True)
                forget = here.take(batch.forget)
                share = 0.0
                if forget is not None:
                    loss = method.loss(trainee, UnlearnBatch(forget, here.take(batch.retain), here.take(batch.refusal)))
                    loss = loss * here.weight(forget)
                    (loss * here.gradient_scale).backward()
                    share = loss.item()
                here.sum_gradients(trained)
                got = gradients(trainee)
                scale = max(float(g.abs().max()) for g in expected)
                diff = max(float((a - b).abs().max()) for a, b in zip(expected, got))
                summed = here.sum_floats([share], "cpu")[0]
                if here.driver:
                    print(json.dumps({"method": name, "path": path, "rows": rows, "relative": diff / scale,
                                      "scale": scale, "loss": whole.item(), "summed_loss": summed,
                                      "sharded": here.sharded}), flush=True)
    if not here.sharded:   # a sharded run's reduce-scatter sums every weight's gradient
        missing(here)
    R.close()


def missing(here: R.Ranks) -> None:
    """A parameter no rank has a gradient for stays without one (AdamW then skips it, as in one
    process); one only rank 1 has a gradient for gets rank 1's."""
    unused, one_sided = torch.nn.Parameter(torch.ones(3)), torch.nn.Parameter(torch.ones(2))
    if here.rank == 1:
        one_sided.grad = torch.tensor([2.0, 3.0])
    here.sum_gradients([unused, one_sided])
    if here.driver:
        print(json.dumps({"check": "missing", "unused": unused.grad is None,
                          "one_sided": one_sided.grad.tolist() if one_sided.grad is not None else None}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
