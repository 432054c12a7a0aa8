"""Disjoint parameter masks for groups of facts, as LACUNA's masked continual pretraining
draws them (LACUNA (Boglioni et al.), §3.2 and App. C): each group of facts gets its own share
of the attention and MLP projection weights, the masks never overlap, and while a group's facts
are injected only that group's weights receive gradient.

One deliberate deviation: ``share`` is a share of the *eligible* weights (the projection
matrices of the masked decoder layers), not of every parameter. LACUNA measures its 5% against
the whole model, embeddings included, which makes each mask denser inside the projections than
5% (about 6.5-8% for OLMo2 1B); here the number given is the density the masked tensors get.
LACUNA's code also leaves ``lm_head`` eligible by accident of its name filter; it is never
eligible here.

Typical use (injection, then OracleGrad-style unlearning)::

    masks = draw_masks(model, groups=6, share=0.05, skip_layers={-2, -1})
    loss.backward(); restrict_gradients(model, masks, group=facts_group); optimizer.step()
    with restrict_to(model, masks, {0, 2, 4}, others="zero"):
        ...  # every backward inside only reaches the forget groups' weights

(The audit's OracleGrad calls ``restrict_gradients(model, masks, forget, others="zero")`` after
each backward pass; ``restrict_to`` is the same as hooks, for a caller that accumulates several.)
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Literal, cast

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from graphstore.errors import ConfigError

FORMAT = "audit.masks"
VERSION = 1
KINDS = ("element", "structural")
NO_GROUP = -1
_LAYER = re.compile(r"\.layers\.(\d+)\.")
_ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")
_MLP = ("gate_proj", "up_proj", "down_proj")

Kind = Literal["element", "structural"]
Groups = int | set[int] | None


class MaskError(ConfigError, ValueError):
    """Masks cannot be drawn, read or applied as asked (a ValueError too, for callers that
    check arguments generically)."""


def eligible(model: torch.nn.Module, skip_layers: set[int] | None = None) -> dict[str, torch.nn.Parameter]:
    """The weights a mask may hold: the attention and MLP projection matrices of the decoder
    layers, in the model's own parameter order. Never embeddings, norms, ``lm_head`` or biases.

    Args:
        skip_layers: decoder layer indices to leave out; negative ones count from the last layer,
            so ``{-2, -1}`` leaves out the two layers LACUNA keeps for instruction tuning.
    """
    skipped = _resolve(model, skip_layers)
    found = {}
    for name, param in model.named_parameters():
        layer = _LAYER.search(name)
        if (layer and int(layer.group(1)) not in skipped and (".self_attn." in name or ".mlp." in name)
                and name.endswith("_proj.weight")):
            found[name] = param
    return found


def _resolve(model: torch.nn.Module, skip_layers: set[int] | None) -> tuple[int, ...]:
    """``skip_layers`` with negative indices counted back from the number of decoder layers."""
    layers = {int(m.group(1)) for name, _ in model.named_parameters() if (m := _LAYER.search(name))}
    count = max(layers, default=-1) + 1
    bad = sorted(s for s in (skip_layers or set()) if not -count <= s < count)
    if bad:
        raise MaskError(f"skip_layers {bad}: the model has decoder layers 0..{count - 1} (or -{count}..-1)")
    return tuple(sorted({s + count if s < 0 else s for s in (skip_layers or set())}))


@dataclass(eq=False)
class Masks:
    """Which group owns each eligible weight.

    ``group_of[name]`` has the parameter's shape and holds a group id in ``range(groups)`` or
    ``NO_GROUP`` (-1); int8 up to 127 groups, int16 beyond. ``share`` is the share asked for;
    ``shares()`` gives what each group actually got.
    """

    group_of: dict[str, torch.Tensor]
    groups: int
    share: float
    kind: Kind
    seed: int
    skip_layers: tuple[int, ...] = field(default=())
    # a sharded run's: each weight's ids cut as its gradient's shard is (``_ids_like``), once
    shards: dict[str, torch.Tensor] = field(default_factory=dict, init=False, repr=False)

    def mask(self, name: str, group: int | set[int]) -> torch.Tensor:
        """The boolean mask of ``group`` (or of the union of a set of groups) on ``name``."""
        if name not in self.group_of:
            raise MaskError(f"no mask for parameter {name!r}: the masks hold {len(self.group_of)} "
                            f"projection weights, e.g. {next(iter(self.group_of), 'none')!r}")
        return _in_groups(self.group_of[name], _group_ids(group, self.groups))

    def shares(self) -> list[float]:
        """Each group's actual share of the eligible weights (of all tensors in ``group_of``)."""
        counts = torch.zeros(self.groups + 1, dtype=torch.int64)
        for ids in self.group_of.values():
            counts += torch.bincount(ids.flatten().long() + 1, minlength=self.groups + 1).cpu()
        total = int(counts.sum())
        return [int(c) / total for c in counts[1:]]

    def to(self, device: torch.device | str) -> Masks:
        """The same masks on ``device``: move them once beside the model instead of every step."""
        return Masks({n: t.to(device) for n, t in self.group_of.items()}, self.groups, self.share,
                     self.kind, self.seed, self.skip_layers)

    def save(self, path: str | Path) -> None:
        """One safetensors file: a tensor per parameter name, the settings and the model's
        parameter order (safetensors sorts its keys) in its metadata."""
        metadata = {"format": FORMAT, "version": str(VERSION), "kind": self.kind, "share": repr(self.share),
                    "seed": str(self.seed), "groups": str(self.groups), "skip_layers": json.dumps(self.skip_layers),
                    "order": json.dumps(list(self.group_of))}
        save_file({n: t.detach().cpu().contiguous() for n, t in self.group_of.items()}, str(path), metadata)

    @classmethod
    def load(cls, path: str | Path) -> Masks:
        """Read masks written by ``save``.

        Raises:
            MaskError: the file is not a masks file of a version this code reads.
        """
        try:
            with safe_open(str(path), framework="pt") as f:
                meta = f.metadata() or {}
                if meta.get("format") != FORMAT or meta.get("version") != str(VERSION):
                    raise MaskError(f"{path}: not a masks file of version {VERSION} (format "
                                    f"{meta.get('format')!r}, version {meta.get('version')!r})")
                order = json.loads(meta["order"])
                if sorted(order) != sorted(f.keys()):
                    raise MaskError(f"{path}: the tensors do not match the parameter order in the metadata")
                group_of = {name: f.get_tensor(name) for name in order}
        except (OSError, SafetensorError) as e:
            raise MaskError(f"{path}: cannot read masks: {e}") from e
        kind = meta["kind"]
        if kind not in KINDS:
            raise MaskError(f"{path}: mask kind {kind!r} is not one of {', '.join(KINDS)}")
        return cls(group_of, int(meta["groups"]), float(meta["share"]), cast(Kind, kind), int(meta["seed"]),
                   tuple(json.loads(meta["skip_layers"])))

    def check_fits(self, model: torch.nn.Module) -> None:
        """Raise ``MaskError`` naming the first masked parameter the model lacks or shapes otherwise."""
        params = dict(model.named_parameters())
        for name, ids in self.group_of.items():
            if name not in params:
                raise MaskError(f"the masks do not fit this model: it has no parameter {name!r}")
            if tuple(params[name].shape) != tuple(ids.shape):
                raise MaskError(f"the masks do not fit this model: {name} has shape {tuple(params[name].shape)}, "
                                f"the mask {tuple(ids.shape)}")


def draw_masks(model: torch.nn.Module, groups: int, share: float = 0.05, kind: Kind = "element",
               seed: int = 0, skip_layers: set[int] | None = None) -> Masks:
    """Draw ``groups`` disjoint masks, each over ``share`` of the eligible weights.

    ``element``: LACUNA's banding, one uniform draw u per weight, which belongs to group
    floor(u / share) when that is below ``groups`` (App. C "Random element-wise"); group sizes
    are binomial around ``share``. ``structural``: whole attention heads and MLP neurons (App. C
    "Random structural"); see ``_draw_structural``. The draw is a pure function of the model's
    parameter names and shapes, ``seed`` and the arguments (a seeded CPU ``torch.Generator``).

    Raises:
        MaskError: groups * share > 1, a value out of range, an unknown kind, or (structural)
            a layer whose projections are not the Llama layout.
    """
    if kind not in KINDS:
        raise MaskError(f"mask kind {kind!r} is not one of {', '.join(KINDS)}")
    if not 0 < share <= 1 or not 1 <= groups <= torch.iinfo(torch.int16).max:
        raise MaskError(f"share={share} must be in (0, 1] and groups={groups} in [1, 32767]")
    if groups * share > 1 + 1e-9:
        raise MaskError(f"groups={groups} masks of share={share} do not fit in the eligible weights "
                        f"(groups * share = {groups * share:.4g} > 1): at most {int(1 / share + 1e-9)} groups "
                        f"of this share, or a share of at most {1 / groups:.4g} for {groups} groups")
    params = eligible(model, skip_layers)
    if not params:
        raise MaskError("the model has no eligible weights (no .self_attn./.mlp. *_proj.weight in "
                        "its decoder layers, after skip_layers)")
    dtype = torch.int8 if groups <= torch.iinfo(torch.int8).max else torch.int16
    generator = torch.Generator(device="cpu").manual_seed(seed)
    if kind == "element":
        group_of = {}
        for name, param in params.items():
            band = torch.floor(torch.rand(param.shape, generator=generator) / share)
            group_of[name] = torch.where(band < groups, band, NO_GROUP).to(dtype)
    else:
        group_of = _draw_structural(model, params, groups, share, generator, dtype)
    return Masks(group_of, groups, share, kind, seed, _resolve(model, skip_layers))


def _draw_structural(model: torch.nn.Module, params: dict[str, torch.nn.Parameter], groups: int, share: float,
                     generator: torch.Generator, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Whole heads and neurons, LACUNA (Boglioni et al.), App. C "Random structural".

    A head h is its d rows of q_proj and the same d columns of o_proj; under GQA the d rows of
    k_proj and v_proj of its KV head go, as a unit, with the KV head's *first* query head (so
    that head's unit is larger; LACUNA's code instead splits KV rows 1/heads_per_kv per head
    for budgeting only). A neuron n is row n of gate_proj and up_proj and column n of
    down_proj. Heads and neurons are shuffled separately (seeded) and dealt greedily, each group
    taking the next unit that keeps it within half a unit of its target; the targets are
    share * (all head weights) and share * (all neuron weights), which splits each group's
    budget between heads and neurons in proportion to their parameter counts. Shares are then
    off by less than one unit; ``Masks.shares()`` reports them.
    """
    config = getattr(model, "config", None)
    if config is None:
        raise MaskError("structural masks need the model's config (num_attention_heads, num_key_value_heads)")
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    heads = int(text.num_attention_heads)
    kv_heads = int(getattr(text, "num_key_value_heads", None) or heads)
    layers: dict[str, dict[str, tuple[str, torch.Size]]] = {}   # layer -> projection -> (name, shape)
    for name, param in params.items():
        layer, _, proj, _ = name.rsplit(".", 3)         # model.layers.0 | self_attn | q_proj | weight
        layers.setdefault(layer, {})[proj] = (name, param.shape)
    head_sizes: list[int] = []
    neuron_sizes: list[int] = []
    for layer, projs in layers.items():
        missing = [p for p in _ATTENTION + _MLP if p not in projs]
        if missing:
            raise MaskError(f"structural masks need {', '.join(_ATTENTION + _MLP)} in every masked layer; "
                            f"{layer} lacks {', '.join(missing)}")
        q, k, v, o = (projs[p][1] for p in _ATTENTION)
        head_dim = q[0] // heads
        if q[0] != heads * head_dim or k[0] != kv_heads * head_dim or heads % kv_heads:
            raise MaskError(f"{layer}: q_proj {tuple(q)} and k_proj {tuple(k)} do not split into "
                            f"{heads} query and {kv_heads} key/value heads of one size")
        kv_size = head_dim * (k[1] + v[1])
        head_sizes += [head_dim * (q[1] + o[0]) + (kv_size if h % (heads // kv_heads) == 0 else 0)
                       for h in range(heads)]
        gate, up, down = (projs[p][1] for p in _MLP)
        neuron_sizes += [gate[1] + up[1] + down[0]] * gate[0]
    head_group = torch.tensor(_deal(head_sizes, groups, share, generator), dtype=dtype).split(heads)
    neuron_group = torch.tensor(_deal(neuron_sizes, groups, share, generator), dtype=dtype)
    neuron_group_by_layer = neuron_group.split([projs["gate_proj"][1][0] for projs in layers.values()])

    group_of = {}
    for projs, per_head, per_neuron in zip(layers.values(), head_group, neuron_group_by_layer):
        head_dim = projs["q_proj"][1][0] // heads
        rows = per_head.repeat_interleave(head_dim)                          # one id per q row / o column
        kv_rows = per_head[:: heads // kv_heads].repeat_interleave(head_dim)  # KV head -> its first query head
        parts = {"q_proj": rows[:, None], "k_proj": kv_rows[:, None], "v_proj": kv_rows[:, None],
                 "o_proj": rows[None, :], "gate_proj": per_neuron[:, None], "up_proj": per_neuron[:, None],
                 "down_proj": per_neuron[None, :]}
        for proj, ids in parts.items():
            name, shape = projs[proj]
            group_of[name] = ids.expand(shape).clone()
    return {name: group_of[name] for name in params}     # the model's parameter order


def _deal(sizes: list[int], groups: int, share: float, generator: torch.Generator) -> list[int]:
    """Shuffle units and give each, in turn, to the first group it keeps within half a unit
    of its target ``share * sum(sizes)``; units that fit no group stay ``NO_GROUP``."""
    target = share * sum(sizes)
    filled = [0] * groups
    out = [NO_GROUP] * len(sizes)
    for i in torch.randperm(len(sizes), generator=generator).tolist():
        for g in range(groups):
            if filled[g] + sizes[i] / 2 <= target:
                filled[g] += sizes[i]
                out[i] = g
                break
    return out


def _group_ids(group: int | set[int], groups: int) -> list[int]:
    ids = sorted({group} if isinstance(group, int) else set(group))
    bad = [g for g in ids if not 0 <= g < groups]
    if bad or not ids:
        raise MaskError(f"group(s) {bad or ids} are not mask groups: the masks have groups 0..{groups - 1}")
    return ids


def _in_groups(ids: torch.Tensor, wanted: list[int]) -> torch.Tensor:
    if len(wanted) == 1:
        return ids == wanted[0]
    return torch.isin(ids, torch.tensor(wanted, dtype=ids.dtype, device=ids.device))


def _check_others(others: str) -> None:
    if others not in ("keep", "zero"):
        raise MaskError(f"others={others!r}: expected 'keep' (leave non-masked parameters' gradients alone) "
                        "or 'zero'")


def _ids_like(masks: Masks, name: str, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``name``'s group ids and the gradient to mask, as ``grad`` holds them: a sharded run's
    gradient (a DTensor, audit.models.sharded) holds its rank's shard, so the ids are cut the
    same way, once per weight (every rank has them whole: no communication), and the shard is
    masked in place."""
    from torch.distributed.tensor import DTensor, distribute_tensor

    if not isinstance(grad, DTensor):
        return masks.group_of[name].to(grad.device), grad
    local = masks.shards.get(name)
    if local is None:
        local = masks.shards[name] = distribute_tensor(masks.group_of[name].to(grad.device), grad.device_mesh,
                                                       grad.placements, src_data_rank=None).to_local()
    return local, grad.to_local()


def restrict_gradients(model: torch.nn.Module, masks: Masks, group: Groups,
                       others: Literal["keep", "zero"] = "keep") -> None:
    """Zero, in place, every masked parameter's ``.grad`` outside ``group``'s mask (a set of
    groups: outside their union). Call after ``loss.backward()`` and before ``optimizer.step()``.

    ``group=None`` restricts nothing (LACUNA's neutral samples update every weight, §3.2).
    Parameters without a mask (embeddings, norms, ``lm_head``, skipped layers) keep their
    gradient unless ``others="zero"``.

    The gradient is exact zero outside the mask, so SGD and AdamW with weight_decay=0 leave
    those weights bit for bit unchanged on a step. Two things still move them, and the caller
    must rule them out where that matters: AdamW's decoupled weight decay (give the masked
    parameters a weight_decay=0 group), and Adam moments left by earlier steps on other groups.
    ``.grad`` holds the sum of every backward since it was last zeroed: to mask per sample, as
    LACUNA's Alg. 1 does, restrict each sample's gradient before it is summed with another
    group's (or use ``restrict_to``, whose hooks mask each backward's contribution).
    """
    _check_others(others)
    masks.check_fits(model)
    wanted = None if group is None else _group_ids(group, masks.groups)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.grad is None:
                continue
            if name in masks.group_of:
                if wanted is not None:
                    ids, grad = _ids_like(masks, name, param.grad)
                    grad.masked_fill_(~_in_groups(ids, wanted), 0)
            elif others == "zero":
                param.grad.zero_()


@contextmanager
def restrict_to(model: torch.nn.Module, masks: Masks, groups: Groups,
                others: Literal["keep", "zero"]) -> Iterator[None]:
    """Inside the block, every backward pass gives masked parameters gradient only inside
    ``groups``' masks, and (``others="zero"``) every other parameter none: OracleGrad, which
    "restricts the edits of its unlearning objective" to the ground-truth forget mask
    (LACUNA (Boglioni et al.), §4.1). Gradient hooks do the masking, so a trainer that owns
    backward and step needs no change; they are removed on exit. The optimizer caveats of
    ``restrict_gradients`` hold here too: LACUNA's OracleGrad runs with weight_decay 0.

    Example::

        with restrict_to(model, masks, {0, 2, 4}, others="zero"):
            trainer.train()
    """
    _check_others(others)
    masks.check_fits(model)
    wanted = None if groups is None else _group_ids(groups, masks.groups)
    handles = []
    try:
        for name, param in model.named_parameters():
            if not param.requires_grad:
                continue
            if name in masks.group_of and wanted is not None:
                drop = ~_in_groups(masks.group_of[name].to(param.device), wanted)
                handles.append(param.register_hook(lambda grad, drop=drop: grad.masked_fill(drop, 0)))
            elif name not in masks.group_of and others == "zero":
                handles.append(param.register_hook(torch.zeros_like))
        yield
    finally:
        for handle in handles:
            handle.remove()
