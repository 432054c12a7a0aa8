"""What every training loop here shares: the optimizer and schedule, batching, seeding."""

from __future__ import annotations

import random

import torch
from transformers import get_linear_schedule_with_warmup

from audit.models.encoding import EncodedQA, collate_train


def optimizer_and_schedule(params, lr: float, weight_decay: float, warmup_steps: int,
                           total_steps: int | None):
    """AdamW with a linear warm-up over ``warmup_steps``, then linear decay to 0 at
    ``total_steps``, or a constant rate when ``total_steps`` is None (a loop that stops at an
    unknown step, like injection)."""
    optimizer = torch.optim.AdamW([p for p in params if p.requires_grad], lr=lr, weight_decay=weight_decay)
    if total_steps is None:
        warmup = max(warmup_steps, 1)
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))
    else:
        schedule = get_linear_schedule_with_warmup(optimizer, warmup_steps, max(total_steps, 1))
    return optimizer, schedule


def epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    """The data order of one epoch: a pure function of (seed, epoch), so a resumed run sees
    exactly the order the killed run would have."""
    order = list(range(n))
    random.Random(f"{seed}/{epoch}").shuffle(order)
    return order


def batches(items: list[EncodedQA], order: list[int], size: int, pad_id: int, device) -> list[dict]:
    out = []
    for start in range(0, len(order), size):
        chunk = [items[i] for i in order[start:start + size]]
        out.append({k: v.to(device) for k, v in collate_train(chunk, pad_id).items()})
    return out


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
