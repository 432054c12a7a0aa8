"""Masked injection (LACUNA's masked continual pretraining, Boglioni et al., §3.2 and Alg. 1):
each group of edges (``audit.run.groups``) is trained into its own disjoint share of the
attention and MLP weights, so that where each fact lives is known by construction.

Per batch, all of one group: after the backward pass the gradient of every attention and MLP
weight outside that group's mask is zeroed (``audit.models.masks.restrict_gradients``), and
AdamW runs without weight decay, so a weight outside every mask never moves and a weight of
group A moves only on A's batches (Adam's momentum from A's own steps aside). LACUNA also trains
unmasked general text on every weight; a graph's injection has none, so the weights that are
in no mask, the embeddings, norms and output layer keep the values they had before injection:
facts live only in the masks. The weights before injection (``pre.safetensors``) and the masks
(``masks.safetensors``) are kept beside the injected model: localization needs both.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from audit.models.masks import Kind, Masks, draw_masks, eligible
from audit.models.training import batches
from audit.run.groups import EdgeGroups

MASKS_FILE, PRE_FILE = "masks.safetensors", "pre.safetensors"


def groups_identity(groups: EdgeGroups) -> str:
    """What the injection's cache key counts of the groups: how chosen, and each edge's group."""
    return hashlib.sha256(json.dumps([groups.by, groups.names, sorted(groups.of_edge.items())]).encode()).hexdigest()


def prepare(model: torch.nn.Module, groups: EdgeGroups, share: float, kind: str, seed: int,
            out: Path | None) -> Masks:
    """Before masked training: keep the weights as they are (``pre.safetensors``), draw the
    groups' masks and save them, and freeze every weight that is in no mask's reach. ``out``
    None saves nothing (a follower rank of a launched run: the driver saves; the masks are seeded)."""
    weights = eligible(model)
    if out is not None:
        save_file({name: p.detach().to("cpu").contiguous() for name, p in weights.items()}, out / PRE_FILE)
    kinds: dict[str, Kind] = {"element": "element", "structural": "structural"}
    masks = draw_masks(model, groups.count, share=share, kind=kinds[kind], seed=seed)
    if out is not None:
        masks.save(out / MASKS_FILE)
    for name, p in model.named_parameters():
        p.requires_grad_(name in weights)
    return masks.to(next(model.parameters()).device)


def group_batches(encoded: list, edge_of: list[str], groups: EdgeGroups, seed: int, epoch: int, size: int,
                  pad_id: int, device) -> list[tuple[int, dict]]:
    """One epoch's batches, each of one group's examples, in a seeded order: ``(group, batch)``."""
    members: dict[int, list[int]] = {}
    for i, edge in enumerate(edge_of):
        members.setdefault(groups.of_edge[edge], []).append(i)
    rng = random.Random(f"{seed}/masked/{epoch}")
    out = []
    for group in sorted(members):
        order = members[group][:]
        rng.shuffle(order)
        out += [(group, batch) for batch in batches(encoded, order, size, pad_id, device)]
    rng.shuffle(out)
    return out


def load_masks(folder: Path) -> Masks | None:
    """The masks of an injected model's folder (on the CPU), or None for an unmasked injection."""
    path = folder / MASKS_FILE
    return Masks.load(path) if path.exists() else None


def load_pre(folder: Path) -> dict[str, torch.Tensor]:
    """The attention and MLP weights as they were before the masked injection."""
    return load_file(str(folder / PRE_FILE))
