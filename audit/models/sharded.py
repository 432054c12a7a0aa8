"""Sharded training (FSDP): a launched run's training loops on a copy of the model whose weights,
gradients and optimizer state are split over the ranks (torch's ``fully_shard``, FSDP2).

Asked for with ``accelerate launch --use_fsdp`` (``ACCELERATE_USE_FSDP``) or, under torchrun,
``AUDIT_FSDP=1``. What it buys: full-parameter training keeps, per weight, the weight, its
gradient and AdamW's two moments, 16 bytes in float32; a 7B model needs 112 GB for them, more
than one GPU has. Sharded over N ranks each holds 1/N of it.

How it fits the driver and its followers (``audit.models.ranks``). The driver keeps its own
model, whole, for everything outside the loops (the measures, the checks, the saving), as in a
data-parallel run. For a loop, every rank holds the *training copy*: the same modules, built on
the meta device (no memory) and sharded; a follower never holds the whole model.

- ``Sharded(...)`` shards the copy and fills it from the driver's model (every weight and
  buffer, scattered from rank 0), once per model;
- ``load_trained`` puts the driver's trained weights into the copy at the start of a loop
  (a reset between edges, a resumed checkpoint);
- ``gather_trained`` puts the copy's trained weights back into the driver's model: before it
  evaluates or saves, and at the end of a loop.

Exactness, as in a data-parallel run: every rank computes its rows' share of the whole batch's
loss; FSDP sums the gradients in its reduce-scatter (it divides by the ranks, which the loops
undo with ``Ranks.gradient_scale``). Every rank must run every forward and backward (they
gather the weights as they go), so a rank without a row of a batch computes one row with weight
zero (``Ranks.take``). AdamW is elementwise, so stepping on the shards is stepping on the whole.
"""

from __future__ import annotations

import copy
import os
from typing import Any, cast

import torch
import torch.distributed as dist

from graphstore.errors import ConfigError

_TRUE = ("1", "true", "yes")
_meshes: dict[str, Any] = {}   # the ranks' device mesh, by device type (built on first use)


def requested() -> bool:
    """Sharded training was asked for (``ACCELERATE_USE_FSDP`` or ``AUDIT_FSDP``)."""
    return any(os.environ.get(v, "").lower() in _TRUE for v in ("ACCELERATE_USE_FSDP", "AUDIT_FSDP"))


def settings() -> dict[str, Any]:
    """The ``fully_shard`` settings from accelerate's FSDP variables, those that apply:

    - ``FSDP_RESHARD_AFTER_FORWARD`` (true, the default, or false), or accelerate's older
      ``FSDP_SHARDING_STRATEGY`` (FULL_SHARD, or SHARD_GRAD_OP: weights kept gathered between
      forward and backward);
    - ``FSDP_TRANSFORMER_CLS_TO_WRAP``: the module classes sharded one by one (default: the
      model's decoder layers, transformers' ``_no_split_modules``).

    Raises:
        ConfigError: a setting this tool does not honour (CPU offload, hybrid or no sharding).
    """
    out: dict[str, Any] = {"reshard_after_forward": True, "wrap": None}
    strategy = os.environ.get("FSDP_SHARDING_STRATEGY", "").upper()
    if strategy in ("2", "SHARD_GRAD_OP"):
        out["reshard_after_forward"] = False
    elif strategy not in ("", "1", "FULL_SHARD"):
        raise ConfigError(f"FSDP_SHARDING_STRATEGY={strategy}: this tool shards with FULL_SHARD or SHARD_GRAD_OP "
                          "(docs/scale.md)")
    reshard = os.environ.get("FSDP_RESHARD_AFTER_FORWARD", "").lower()
    if reshard:
        if reshard not in _TRUE + ("0", "false", "no"):
            raise ConfigError(f"FSDP_RESHARD_AFTER_FORWARD={reshard}: expected true or false")
        out["reshard_after_forward"] = reshard in _TRUE
    if os.environ.get("FSDP_OFFLOAD_PARAMS", "").lower() in _TRUE:
        raise ConfigError("FSDP_OFFLOAD_PARAMS is set: sharded training here keeps the shards on the GPU; "
                          "launch without CPU offload (docs/scale.md)")
    wrap = os.environ.get("FSDP_TRANSFORMER_CLS_TO_WRAP", "")
    if wrap:
        out["wrap"] = {name.strip() for name in wrap.split(",") if name.strip()}
    return out


def forget_meshes() -> None:
    """Drop the cached device meshes (their process group is being destroyed)."""
    _meshes.clear()


def meta_copy(model: torch.nn.Module) -> torch.nn.Module:
    """The same modules as ``model`` with every weight and buffer on the meta device (no
    memory): the driver's training copy before it is sharded. Tied weights stay tied."""
    memo: dict[int, Any] = {}
    for module in _parts(model):
        for sub in module.modules():
            for p in sub._parameters.values():
                if p is not None and id(p) not in memo:
                    memo[id(p)] = torch.nn.Parameter(torch.empty_like(p, device="meta"), requires_grad=p.requires_grad)
            for b in sub._buffers.values():
                if b is not None and id(b) not in memo:
                    memo[id(b)] = torch.empty_like(b, device="meta")
    return copy.deepcopy(model, memo)


def _parts(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The modules a model is made of: the trained one first; full-parameter unlearning's
    frozen reference after it (``audit.run.full_weights``: not a sub-module)."""
    reference = getattr(model, "_reference", None)
    return [cast(torch.nn.Module, model.model), reference] if reference is not None else [model]


def _signature(model: torch.nn.Module) -> list[tuple]:
    return [(i, name, tuple(p.shape), str(p.dtype), p.requires_grad)
            for i, part in enumerate(_parts(model)) for name, p in part.named_parameters()]


class Sharded:
    """One model's training copy, sharded over the ranks (see the module docstring).

    Args:
        ranks: this process's place (``audit.models.ranks.Ranks``, sharded).
        skeleton: the model's modules on the meta device: ``meta_copy`` of the driver's model
            on the driver, the same modules built on the meta device on a follower.
        source: the driver's model (None on a follower).
        device: this rank's device.
    """

    def __init__(self, ranks, skeleton: torch.nn.Module, source: torch.nn.Module | None, device: torch.device):
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard

        self.ranks, self.module, self.device = ranks, skeleton, torch.device(device)
        here = _signature(skeleton)
        driver = ranks.share(here)
        # a collective over different modules would hang, not fail: compare names, shapes, dtypes
        if [s[:4] for s in here] != [s[:4] for s in driver]:
            raise RuntimeError(f"rank {ranks.rank}: the model built here is not the driver's "
                               f"({_first_difference(here, driver)})")
        # what the driver trains (frozen outside a masked injection's masks, say) is trained here
        parts = _parts(skeleton)
        for i, name, *_, trained in driver:
            parts[i].get_parameter(name).requires_grad_(trained)
        options = settings()
        mesh = _meshes.get(self.device.type)
        if mesh is None:   # one per run of a process, not one per model: each may hold communicators
            mesh = _meshes[self.device.type] = init_device_mesh(self.device.type, (ranks.world,))
        for part in parts:
            wrap = options["wrap"] or _decoder_layers(part)
            for sub in part.modules():
                if type(sub).__name__ in wrap:
                    fully_shard(sub, mesh=mesh, reshard_after_forward=options["reshard_after_forward"])
            fully_shard(part, mesh=mesh, reshard_after_forward=options["reshard_after_forward"])
            part.to_empty(device=self.device)
        sources = _parts(source) if source is not None else [None] * len(parts)
        with torch.no_grad():
            for part, theirs in zip(parts, sources):
                self._scatter(part.named_parameters(), dict(theirs.named_parameters()) if theirs is not None else None)
                buffers = dict(theirs.named_buffers()) if theirs is not None else {}
                for name, buffer in part.named_buffers():   # not sharded: every rank has them whole
                    if ranks.driver:
                        buffer.copy_(buffers[name])
                    dist.broadcast(buffer, src=0)

    def trained(self) -> dict[str, torch.nn.Parameter]:
        """The copy's trained weights (shards), by name."""
        return {n: p for n, p in _parts(self.module)[0].named_parameters() if p.requires_grad}

    def load_trained(self, source: torch.nn.Module | None) -> None:
        """The driver's trained weights (``source``; None on a follower) into the copy."""
        theirs = _parts(source)[0] if source is not None else None
        with torch.no_grad():
            self._scatter(self.trained().items(), dict(theirs.named_parameters()) if theirs is not None else None)

    def gather_trained(self, target: torch.nn.Module | None) -> None:
        """The copy's trained weights into the driver's model ``target`` (None on a follower).
        Every rank takes part: each weight is gathered whole on every rank, one at a time."""
        mine = dict(_parts(target)[0].named_parameters()) if target is not None else None
        with torch.no_grad():
            for name, p in self.trained().items():
                whole = cast(Any, p).full_tensor()   # a DTensor
                if mine is not None:
                    mine[name].copy_(whole.to(mine[name].device))

    def optimizer_state(self, optimizer) -> dict:
        """The optimizer's whole state (every rank takes part; on the CPU), to checkpoint."""
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

        return get_optimizer_state_dict(_parts(self.module)[0], optimizer,
                                        options=StateDictOptions(full_state_dict=True, cpu_offload=True))

    def load_optimizer_state(self, optimizer, state: dict) -> None:
        """A state ``optimizer_state`` gave, into this rank's shards (every rank reads it whole)."""
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

        set_optimizer_state_dict(_parts(self.module)[0], optimizer, state,
                                 options=StateDictOptions(full_state_dict=True))

    def _scatter(self, params, source: dict[str, torch.Tensor] | None) -> None:
        """Each of ``params`` (shards) from the driver's whole weight of the same name."""
        from torch.distributed.tensor import distribute_tensor

        for name, p in params:
            whole = (source[name].detach().to(self.device, p.dtype) if source is not None
                     else torch.empty(p.shape, dtype=p.dtype, device=self.device))
            p.to_local().copy_(distribute_tensor(whole, p.device_mesh, p.placements, src_data_rank=0).to_local())


def training_copy(ranks, model: torch.nn.Module, device) -> Sharded | None:
    """``model``'s sharded training copy in a sharded run (``model``: the driver's, or on a
    follower the same modules on the meta device, which become the copy); None otherwise."""
    if not ranks.sharded:
        return None
    return Sharded(ranks, meta_copy(model) if ranks.driver else model, model if ranks.driver else None, device)


def _decoder_layers(model: torch.nn.Module) -> set[str]:
    """The classes transformers says are not to be split: a model's decoder layers."""
    for sub in model.modules():
        names = getattr(sub, "_no_split_modules", None)
        if names:
            return set(names)
    return set()


def _first_difference(mine: list[tuple], driver: list[tuple]) -> str:
    for a, b in zip(mine, driver):
        if a != b:
            return f"here {a[1:]}, on the driver {b[1:]}"
    return f"{len(mine)} weights here, {len(driver)} on the driver"
