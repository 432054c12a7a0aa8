"""Weight-only quantization of the unlearned model, in place: does rounding bring forgotten facts back?

Zhang et al., "Catastrophic Failure of LLM Unlearning via Quantization" (ICLR 2025,
arXiv:2410.16454): an unlearned model whose weights are rounded to 4 bits answers much of
what unlearning hid, because the small weight changes of unlearning fall inside one rounding
step. ``quantized(model, scheme)`` makes the model compute with its merged weights (base +
LoRA delta) rounded, and puts everything back on exit; the run measures every edge inside.

Rounding is "fake quantization": each weight is rounded and dequantized back to its dtype,
which is what a quantized model computes with (the kernels dequantize before the matmul).

- ``int8``: symmetric absmax per output row, LLM.int8()'s vector-wise weight quantization
  (Dettmers et al. 2022, arXiv:2208.07339): q = round(127 w / absmax_row), w' = q absmax_row / 127.
- ``nf4``: 4-bit NormalFloat (QLoRA, Dettmers et al. 2023, arXiv:2305.14314): the flattened
  weight in blocks of ``group_size`` values, each divided by its block's absmax, mapped to the
  nearest of 16 levels (quantiles of N(0, 1) scaled to [-1, 1]), times the absmax.

Which layers: every linear layer of the transformer blocks (GPT-2's ``Conv1D`` included). The
input embeddings and the output layer (``lm_head``, often tied to them) stay in their precision,
as transformers' bitsandbytes loading does by default (it keeps the output layer and tied
weights, ``get_keys_to_not_convert`` / ``llm_int8_skip_modules``, and replaces only linear
layers) and as weight-only quantization usually does (GPTQ, AWQ): they are a small part of the
weights and the most sensitive to rounding. Biases are not rounded either. A LoRA adapter on a
kept layer is merged without rounding.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import torch
from peft import PeftModel
from peft.tuners.lora import LoraLayer
from transformers.pytorch_utils import Conv1D

from graphstore.errors import ConfigError

SCHEMES = ("int8", "nf4")
BACKENDS = ("auto", "torch", "bitsandbytes")

# The 16 NF4 levels as published with QLoRA (arXiv:2305.14314, appendix "NormalFloat 4-bit
# data type") and used by bitsandbytes (functional.get_4bit_type("nf4")): quantiles of
# N(0, 1), normalised to [-1, 1], with an exact zero.
NF4_LEVELS = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)

_CHUNK = 1 << 20      # values compared with the 16 levels at once: bounds the temporary to 64 MiB


@dataclass(frozen=True)
class QuantizationReport:
    """What ``quantized`` did; the run records it beside the measures taken inside."""
    scheme: str                 # int8 | nf4
    backend: str                # torch | bitsandbytes (bitsandbytes+torch when weights are on both kinds of device)
    group_size: int | None      # nf4 block size; None for int8 (one scale per output row)
    layers: int                 # linear layers rounded
    parameters: int             # weights rounded (biases, embeddings and lm_head excluded)
    relative_error: float       # mean |w' - w| / mean |w| over those weights (w: merged weight)
    # Of the rounded weights of layers with a LoRA delta, the share that round to the same level
    # (int8 integer, NF4 level index) as the injected (pre-unlearning) weight: where rounding erases
    # what unlearning changed, the mechanism Zhang et al. describe. Levels, not dequantized values:
    # a row's (block's) scale moves with any change to its largest weight, so the dequantized
    # values of a whole row differ even where no weight crossed a rounding boundary. None without
    # adapters.
    same_as_injected: float | None = None


def round_int8(weight: torch.Tensor) -> torch.Tensor:
    """Symmetric int8 rounding per output row of a (out, in) weight, dequantized to float32.

    Rows of zeros stay zero. The order of the float operations is bitsandbytes' own
    (``int8_vectorwise_quant``): w * (127 / absmax), then q * absmax / 127.
    """
    q, scale = int8_codes(weight)
    return q * scale / 127.0


def int8_codes(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The integer levels ``q`` (|q| <= 127) of ``round_int8``, and each row's absmax scale."""
    w = weight.float()
    absmax = w.abs().amax(dim=-1, keepdim=True)
    scale = torch.where(absmax > 0, absmax, torch.ones_like(absmax))
    return torch.round(w * (127.0 / scale)), scale   # LLM.int8() vector-wise


def round_nf4(weight: torch.Tensor, group_size: int = 64) -> torch.Tensor:
    """4-bit NormalFloat rounding in blocks of ``group_size`` consecutive values of the flattened
    weight (the last block may be shorter), dequantized to float32.

    Each value becomes level × absmax of its block, the level being the nearest NF4 level to
    value / absmax (the lower one on a tie, as bitsandbytes' torch backend). All-zero blocks stay zero.
    """
    index, scale = nf4_codes(weight, group_size)
    levels = torch.tensor(NF4_LEVELS, dtype=torch.float32, device=index.device)
    n = weight.numel()
    return (levels[index].view(-1, group_size) * scale).view(-1)[:n].view(weight.shape)


def nf4_codes(weight: torch.Tensor, group_size: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    """The NF4 level indices (0-15) of ``round_nf4``, flattened and padded to whole blocks, and
    each block's absmax scale."""
    flat = weight.float().reshape(-1)
    n = flat.numel()
    blocks = torch.nn.functional.pad(flat, (0, -n % group_size)).view(-1, group_size)
    absmax = blocks.abs().amax(dim=1, keepdim=True)      # padding zeros do not change a block's absmax
    scale = torch.where(absmax > 0, absmax, torch.ones_like(absmax))
    normalised = (blocks * (1.0 / scale)).clamp(-1.0, 1.0).view(-1)
    levels = torch.tensor(NF4_LEVELS, dtype=torch.float32, device=flat.device)
    index = torch.empty(normalised.shape, dtype=torch.long, device=flat.device)
    for start in range(0, normalised.numel(), _CHUNK):
        part = normalised[start:start + _CHUNK]
        index[start:start + _CHUNK] = (part.unsqueeze(1) - levels).abs().argmin(dim=1)
    return index, scale


def round_bitsandbytes(weight: torch.Tensor, scheme: str, group_size: int = 64) -> torch.Tensor:
    """The same rounding done by bitsandbytes' own quantize/dequantize functions, in float32.

    int8 goes through float16, the input dtype of bitsandbytes' CUDA int8 kernel (LLM.int8()
    holds fp16 weights). Raises ConfigError when bitsandbytes cannot be imported or refuses the tensor.
    """
    functional = _require_bitsandbytes()
    w = weight.float()
    try:
        if scheme == "nf4":
            packed, state = functional.quantize_4bit(w, blocksize=group_size, quant_type="nf4")
            return functional.dequantize_4bit(packed, state).float().view(weight.shape)
        q, row_absmax, _ = functional.int8_vectorwise_quant(w.half())
        return functional.int8_vectorwise_dequant(q, row_absmax).float()
    except (RuntimeError, ValueError, NotImplementedError) as e:
        raise ConfigError(f"bitsandbytes could not round a {tuple(weight.shape)} {weight.dtype} weight on "
                          f"{weight.device} to {scheme} (group size {group_size}): {e}; "
                          "choose the torch backend") from e


@contextmanager
def quantized(model, scheme: str, *, group_size: int = 64, backend: str = "auto"):
    """Inside the ``with``, ``model`` computes with its merged weights rounded to ``scheme``.

    In place, one layer at a time (a 7B model is never copied whole on the GPU): each linear layer's
    weight plus its active LoRA delta (``get_delta_weight``, scaling included) is rounded and
    written into the base layer, and the adapters are disabled. On exit, also when the body
    raises, every weight gets back its original bits (kept on the CPU) and the adapters are on
    again. ``model`` is a peft ``PeftModel`` with LoRA adapters or a plain model.

    Args:
        scheme: ``int8`` or ``nf4``.
        group_size: values per NF4 block (64, as QLoRA and bitsandbytes).
        backend: ``torch`` (any device), ``bitsandbytes``, or ``auto``: bitsandbytes for weights on
            CUDA when it can be imported, torch otherwise.

    Yields: a ``QuantizationReport``.

    Example::

        with quantized(model, "nf4") as report:
            answers = measure(model)
    """
    _check(scheme, group_size, backend)
    layers = _layers(model)
    requires_grad = {name: p.requires_grad for name, p in model.named_parameters()}
    saved: list[tuple[torch.Tensor, torch.Tensor]] = []
    used, count, parameters, error, magnitude, same, compared = set(), 0, 0, 0.0, 0.0, 0, 0
    try:
        with torch.no_grad():
            for module, lora, rounds in layers:
                weight = _weight(module)
                saved.append((weight, weight.detach().to("cpu", copy=True)))
                merged = weight.detach().float()
                # the injected weight, for same_as_injected: `merged` may share its storage (float32)
                injected = merged.clone() if rounds and lora is not None and _active(lora) else None
                if lora is not None:
                    for adapter in _active(lora):
                        # peft declares get_delta_weight on each concrete LoRA layer, not on LoraLayer
                        merged += lora.get_delta_weight(adapter).float()  # type: ignore[attr-defined]
                new = merged
                if rounds:
                    chosen = _choose(backend, weight)
                    used.add(chosen)
                    # The rows of a transformers Conv1D (GPT-2) weight are its inputs: round its (out, in) view.
                    def rounding(w: torch.Tensor) -> torch.Tensor:
                        rows_out = w.t() if isinstance(module, Conv1D) else w
                        out = (round_bitsandbytes(rows_out, scheme, group_size) if chosen == "bitsandbytes"
                               else round_int8(rows_out) if scheme == "int8" else round_nf4(rows_out, group_size))
                        return out.t() if isinstance(module, Conv1D) else out

                    new = rounding(merged)
                    if injected is not None:
                        same += _same_codes(merged, injected, scheme, group_size, isinstance(module, Conv1D))
                        compared += new.numel()
                        del injected
                    count, parameters = count + 1, parameters + new.numel()
                    error += float((new - merged).abs().sum())
                    magnitude += float(merged.abs().sum())
                weight.copy_(new.to(weight.dtype))
        report = QuantizationReport(scheme, "+".join(sorted(used)) or "torch", group_size if scheme == "nf4" else None,
                                    count, parameters, error / magnitude if magnitude else 0.0,
                                    same / compared if compared else None)
        with model.disable_adapter() if isinstance(model, PeftModel) else nullcontext():
            yield report
    finally:
        with torch.no_grad():
            for weight, original in reversed(saved):      # reversed: a shared weight gets its first copy back
                weight.copy_(original)
        for name, p in model.named_parameters():          # peft's enable_adapter_layers sets requires_grad
            p.requires_grad_(requires_grad[name])


def _same_codes(merged: torch.Tensor, injected: torch.Tensor, scheme: str, group_size: int, conv1d: bool) -> int:
    """How many weights of ``merged`` round to the same level as in ``injected``."""
    if conv1d:
        merged, injected = merged.t(), injected.t()
    if scheme == "int8":
        return int((int8_codes(merged)[0] == int8_codes(injected)[0]).sum())
    n = merged.numel()   # the padding of the last block is not a weight
    return int((nf4_codes(merged, group_size)[0][:n] == nf4_codes(injected, group_size)[0][:n]).sum())


def _check(scheme: str, group_size: int, backend: str) -> None:
    if scheme not in SCHEMES:
        raise ConfigError(f"quantization scheme {scheme!r} is not known; valid: {', '.join(SCHEMES)}")
    if backend not in BACKENDS:
        raise ConfigError(f"quantization backend {backend!r} is not known; valid: {', '.join(BACKENDS)}")
    if not isinstance(group_size, int) or group_size < 1:
        raise ConfigError(f"quantization group size {group_size!r}: must be a positive integer (QLoRA uses 64)")
    if backend == "bitsandbytes":
        _require_bitsandbytes()


def _layers(model) -> list[tuple[torch.nn.Module, LoraLayer | None, bool]]:
    """(module holding a weight, its LoRA layer or None, whether it is rounded) for every linear
    layer and every LoRA-adapted layer. Embeddings and the output layer are kept (merged, unrounded)."""
    loras = [m for m in model.modules() if isinstance(m, LoraLayer)]
    adapter_parts = {id(part) for lora in loras
                     for holder in (lora.lora_A, lora.lora_B) for part in holder.modules()}
    lora_of = {id(lora.get_base_layer()): lora for lora in loras}
    ends = [getattr(model, f"get_{side}_embeddings", lambda: None)() for side in ("input", "output")]
    kept = [m.get_base_layer() if isinstance(m, LoraLayer) else m for m in ends if m is not None]
    kept_weights = {_weight(m).data_ptr() for m in kept}             # tied embeddings share one tensor
    out = []
    for module in model.modules():
        if isinstance(module, LoraLayer) or id(module) in adapter_parts:
            continue
        lora = lora_of.get(id(module))
        rounds = isinstance(module, (torch.nn.Linear, Conv1D)) and module.weight.data_ptr() not in kept_weights
        if rounds or lora is not None:
            out.append((module, lora, rounds))
    return out


def _weight(module: torch.nn.Module) -> torch.Tensor:
    """The weight of a linear layer, an embedding or a LoRA-adapted layer."""
    weight = module.weight
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"{type(module).__name__}.weight is not a tensor")
    return weight


def _active(lora: LoraLayer) -> list[str]:
    """The adapters whose delta the layer adds in its forward pass."""
    if lora.disable_adapters:
        return []
    if lora.merged:
        raise ConfigError("the LoRA adapters are merged into the weights already (peft merge_adapter); "
                          "unmerge them before quantizing, which merges them itself")
    active = [a for a in lora.active_adapters if a in lora.scaling]
    for adapter in active:
        if getattr(lora, "lora_variant", {}).get(adapter) is not None or getattr(lora, "lora_bias", {}).get(adapter):
            raise ConfigError(f"adapter {adapter!r} is a DoRA or LoRA-bias adapter; quantization merges plain "
                              "LoRA adapters only (W + B A * scaling)")
    return active


def _choose(backend: str, weight: torch.Tensor) -> str:
    if backend == "auto":
        return "bitsandbytes" if weight.is_cuda and _bitsandbytes() is not None else "torch"
    return backend


_BITSANDBYTES: list = []


def _bitsandbytes():
    """bitsandbytes.functional, or None when it cannot be imported (it is an optional dependency)."""
    if not _BITSANDBYTES:
        try:
            import bitsandbytes.functional as functional
        except (ImportError, RuntimeError, OSError):
            functional = None
        _BITSANDBYTES.append(functional)
    return _BITSANDBYTES[0]


def _require_bitsandbytes():
    functional = _bitsandbytes()
    if functional is None:
        raise ConfigError("quantization backend 'bitsandbytes': the bitsandbytes package cannot be imported; "
                          f"install it or choose another backend ({', '.join(BACKENDS)})")
    return functional
