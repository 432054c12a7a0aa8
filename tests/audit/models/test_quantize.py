"""Quantization of the unlearned model: the rounding against hand computations, the in-place
context on tiny real models with LoRA adapters (merged, rounded, restored bit for bit), and
bitsandbytes' own rounding where it is installed."""

from __future__ import annotations

import copy
import importlib.util

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

from audit.config import UnlearnConfig
from audit.models.quantize import NF4_LEVELS, quantized, round_bitsandbytes, round_int8, round_nf4
from audit.run.unlearning import add_adapters
from graphstore.errors import ConfigError

# QLoRA (arXiv:2305.14314), appendix "NormalFloat 4-bit data type": the NF4 levels, typed again from the paper.
PUBLISHED_NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                 -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
                 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                 0.7229568362236023, 1.0]


def nearest_level(x: float) -> float:
    return min(PUBLISHED_NF4, key=lambda level: abs(x - level))


# ---------------------------------------------------------------- rounding


def test_int8_rounds_each_output_row_by_hand():
    weight = torch.tensor([[254.0, 127.4, -63.4, 1.2, 0.8],      # absmax 254: a step of 2
                           [0.0, 0.0, 0.0, 0.0, 0.0],            # a zero row stays zero
                           [-1.0, 0.3, 0.25, 0.1, 0.0]])         # absmax 1: a step of 1/127
    expected = [[254.0, 128.0, -64.0, 2.0, 0.0],
                [0.0] * 5,
                [-1.0, 38 / 127, 32 / 127, 13 / 127, 0.0]]       # 127 * 0.3 = 38.1, 31.75, 12.7
    torch.testing.assert_close(round_int8(weight), torch.tensor(expected), rtol=1e-6, atol=1e-7)


def test_int8_matches_the_formula_in_plain_python():
    weight = torch.randn(5, 70, generator=torch.Generator().manual_seed(1)) * 0.05
    weight[3] = 0.0
    expected = []
    for row in weight.tolist():
        absmax = max(abs(x) for x in row)
        expected.append([round(127 * x / absmax) * absmax / 127 if absmax else 0.0 for x in row])
    torch.testing.assert_close(round_int8(weight), torch.tensor(expected), rtol=1e-5, atol=1e-8)


def test_nf4_rounds_blocks_by_hand():
    # flattened: [2, -1, .5, .1] [0, 0, 0, 0] [-.3, .15]: blocks of 4, the last one short, one all zero
    weight = torch.tensor([[2.0, -1.0, 0.5, 0.1, 0.0], [0.0, 0.0, 0.0, -0.3, 0.15]])
    # block 1, absmax 2: 1 -> 1; -0.5 -> -0.5251 (not -0.3949); 0.25 -> 0.2461; 0.05 -> 0.0796 (not 0)
    # block 3, absmax 0.3: -1 -> -1; 0.5 -> 0.4407 (0.0593 away; 0.5626 is 0.0626 away)
    expected = [[2.0, -0.5250730514526367 * 2, 0.24611230194568634 * 2, 0.07958029955625534 * 2, 0.0],
                [0.0, 0.0, 0.0, -0.3, 0.44070982933044434 * 0.3]]
    torch.testing.assert_close(round_nf4(weight, group_size=4), torch.tensor(expected), rtol=1e-6, atol=1e-7)


def test_nf4_with_blocks_of_64_and_a_size_that_is_no_multiple_of_64():
    weight = torch.randn(3, 50, generator=torch.Generator().manual_seed(2)) * 0.05
    flat = weight.reshape(-1)
    flat[64:128] = 0.0                                   # the second block of 64 is all zero
    values = flat.tolist()
    expected = []
    for start in range(0, len(values), 64):              # 150 values: blocks of 64, 64 and 22
        block = values[start:start + 64]
        absmax = max(abs(x) for x in block)
        expected += [nearest_level(x / absmax) * absmax if absmax else 0.0 for x in block]
    rounded = round_nf4(weight)
    assert rounded.shape == weight.shape
    torch.testing.assert_close(rounded.reshape(-1), torch.tensor(expected), rtol=1e-5, atol=1e-8)


def test_the_nf4_levels_are_the_published_ones_and_the_normal_quantiles():
    assert list(NF4_LEVELS) == PUBLISHED_NF4
    # and, independently, QLoRA's construction (bitsandbytes create_normal_map): 8 positive and 7
    # negative quantiles of N(0, 1) between offset and 1/2, an exact zero, divided by the largest
    from scipy.stats import norm

    offset = 0.9677083
    positive = norm.ppf(torch.linspace(offset, 0.5, 9)[:-1].double().numpy()).tolist()
    negative = (-norm.ppf(torch.linspace(offset, 0.5, 8)[:-1].double().numpy())).tolist()
    levels = sorted(positive + [0.0] + negative)
    assert [x / max(levels) for x in levels] == pytest.approx(PUBLISHED_NF4, abs=1e-6)


def test_every_nf4_value_is_a_level_times_its_blocks_absmax():
    weight = torch.randn(1000, generator=torch.Generator().manual_seed(3)) * 0.02
    rounded = round_nf4(weight)
    levels = torch.tensor(PUBLISHED_NF4)
    for start in range(0, 1000, 64):
        block, out = weight[start:start + 64], rounded[start:start + 64]
        absmax = block.abs().max()
        assert out.abs().max() == absmax                 # the absmax value itself is kept (level +-1)
        ratio = out / absmax
        assert ((ratio.unsqueeze(1) - levels).abs().min(dim=1).values < 1e-6).all()


def test_unknown_scheme_or_backend_lists_the_valid_ones():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4))
    with pytest.raises(ConfigError, match="quantization scheme 'int4' is not known; valid: int8, nf4"):
        with quantized(model, "int4"):
            pass
    with pytest.raises(ConfigError, match="quantization backend 'gptq' is not known; valid: auto, torch, bitsandbytes"):
        with quantized(model, "int8", backend="gptq"):
            pass
    with pytest.raises(ConfigError, match="group size 0: must be a positive integer"):
        with quantized(model, "nf4", group_size=0):
            pass


# ---------------------------------------------------------------- tiny models with LoRA adapters


def tiny_llama(vocab: int = 48) -> LlamaForCausalLM:
    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                        tie_word_embeddings=False)).eval()


def tiny_gpt2() -> GPT2LMHeadModel:
    torch.manual_seed(0)       # GPT-2's layers are transformers Conv1D, weights stored (in, out); lm_head tied
    return GPT2LMHeadModel(GPT2Config(vocab_size=48, n_embd=32, n_layer=2, n_head=2, n_positions=32,
                                      bos_token_id=0, eos_token_id=0)).eval()


# the linear layers the transformer blocks hold, by hand: Llama q, k, v, o, gate, up, down; GPT-2 c_attn, c_proj, c_fc, c_proj
ROUNDED = {"llama": (14, 2 * (4 * 32 * 32 + 3 * 32 * 64)), "gpt2": (8, 2 * (32 * 96 + 32 * 32 + 2 * 32 * 128))}


def unlearned(kind: str):
    """A tiny model wrapped by the run's own add_adapters, its LoRA B matrices made nonzero (as after unlearning)."""
    model = add_adapters(tiny_llama() if kind == "llama" else tiny_gpt2(), UnlearnConfig(lora_r=4, lora_alpha=8))
    generator = torch.Generator().manual_seed(4)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=generator) * 0.05)
    return model.eval()


IDS = torch.tensor([[1, 5, 9, 13, 2, 7, 30], [4, 4, 17, 8, 40, 3, 11]])


def logits(model) -> torch.Tensor:
    with torch.no_grad():
        return model(IDS).logits


def out_in(module, weight):
    return weight.t() if type(module).__name__ == "Conv1D" else weight


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_inside_the_model_is_the_merged_model_rounded_to_int8(kind):
    model = unlearned(kind)
    with model.disable_adapter():
        base = logits(model)
    merged = copy.deepcopy(model).merge_and_unload()          # peft's own merge, on a copy
    reference = logits(merged)
    merged_weights = {name: (module, module.weight.detach()) for name, module in merged.named_modules()
                      if hasattr(module, "weight") and module.weight is not None}
    head = model.get_output_embeddings().weight.detach().clone()
    with quantized(model, "int8") as report:
        inside = logits(model)
        assert (report.scheme, report.backend, report.group_size) == ("int8", "torch", None)
        assert (report.layers, report.parameters) == ROUNDED[kind]
        assert 0 < report.relative_error < 0.01
        rounded = 0
        for name, module in model.get_base_model().named_modules():
            key = name.removesuffix(".base_layer")
            if (type(module).__name__ not in ("Linear", "Conv1D") or key not in merged_weights
                    or ".lora_" in name or hasattr(module, "base_layer")):      # adapters, peft's wrapper
                continue
            original = out_in(module, merged_weights[key][1])
            if key == "lm_head":
                assert torch.equal(module.weight, head)
                continue
            # int8 guarantee: each weight within half a step (absmax_row / 127 / 2) of the merged one
            half_step = original.abs().amax(dim=1, keepdim=True) / 254
            assert ((out_in(module, module.weight) - original).abs() <= half_step * (1 + 1e-5) + 1e-8).all()
            rounded += 1
        assert rounded == ROUNDED[kind][0]
    # the adapters' delta is in (the base model is far), the rounding is small
    assert (inside - reference).abs().max() < 0.05 * (base - reference).abs().max()


def state(model) -> dict[str, torch.Tensor]:
    return {name: p.detach().clone() for name, p in model.state_dict().items()}


def assert_restored(model, before: dict[str, torch.Tensor], before_logits, trainable: set[str]):
    after = model.state_dict()
    assert after.keys() == before.keys()
    assert all(torch.equal(after[name], before[name]) for name in before), "a weight was not restored bit for bit"
    assert all(not m.disable_adapters for m in model.modules() if hasattr(m, "lora_A"))
    assert {name for name, p in model.named_parameters() if p.requires_grad} == trainable
    torch.testing.assert_close(logits(model), before_logits)


@pytest.mark.parametrize("scheme", ["int8", "nf4"])
def test_every_weight_comes_back_bit_for_bit_and_the_adapters_are_on_again(scheme):
    model = unlearned("llama")
    before, before_logits = state(model), logits(model)
    trainable = {name for name, p in model.named_parameters() if p.requires_grad}
    with model.disable_adapter():
        assert not torch.allclose(logits(model), before_logits, atol=1e-3)   # the adapters matter
    with quantized(model, scheme):
        assert not torch.equal(logits(model), before_logits)
    assert_restored(model, before, before_logits, trainable)


def test_the_weights_come_back_when_the_body_raises():
    model = unlearned("gpt2")
    before, before_logits = state(model), logits(model)
    trainable = {name for name, p in model.named_parameters() if p.requires_grad}
    with pytest.raises(RuntimeError, match="measuring failed"):
        with quantized(model, "nf4"):
            raise RuntimeError("measuring failed")
    assert_restored(model, before, before_logits, trainable)


# ---------------------------------------------------------------- int8 changes no answer


def greedy(model, prompts: torch.Tensor, new_tokens: int) -> torch.Tensor:
    ids = prompts
    with torch.no_grad():
        for _ in range(new_tokens):
            ids = torch.cat([ids, model(ids).logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return ids[:, prompts.shape[1]:]


def test_int8_rounding_of_a_model_with_small_weights_changes_no_answer():
    # A tiny model trained to recite 4 sequences: its answers are confident, so rounding (a
    # relative change of at most 1/254 per weight) cannot flip one. Asserted with the margin,
    # not hoped for: at every answer position, the top-1 logit leads by more than twice the
    # largest change rounding makes to any logit.
    model = tiny_llama(vocab=32).train()
    sequences = torch.randint(3, 32, (4, 9), generator=torch.Generator().manual_seed(5))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(60):
        model(sequences, labels=sequences).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    assert max(p.abs().max().item() for p in model.parameters()) < 2.0          # small weights
    prompts, answers = sequences[:, :3], greedy(model, sequences[:, :3], 6)
    path = torch.cat([prompts, answers], dim=1)[:, :-1]
    with torch.no_grad():
        full = model(path).logits[:, 2:]                                          # the 6 answer positions
    top2 = full.topk(2, dim=-1).values
    margin = (top2[..., 0] - top2[..., 1]).min()
    before = state(model)
    with quantized(model, "int8") as report:
        assert report.layers == 14
        inside = greedy(model, prompts, 6)
        with torch.no_grad():
            change = (model(path).logits[:, 2:] - full).abs().max()
    assert margin > 1.0 and change < 0.1 and margin > 2 * change, (margin, change)
    assert torch.equal(inside, answers)
    assert all(torch.equal(p, before[name]) for name, p in model.state_dict().items())


# ---------------------------------------------------------------- bitsandbytes


@pytest.mark.skipif(importlib.util.find_spec("bitsandbytes") is not None, reason="bitsandbytes is installed")
def test_without_bitsandbytes_its_backend_is_a_clear_error():
    with pytest.raises(ConfigError, match="backend 'bitsandbytes': the bitsandbytes package cannot be imported"):
        with quantized(torch.nn.Sequential(torch.nn.Linear(4, 4)), "nf4", backend="bitsandbytes"):
            pass
    with quantized(torch.nn.Sequential(torch.nn.Linear(4, 4)), "nf4") as report:
        assert report.backend == "torch"                 # auto, on the CPU


def test_torch_rounding_equals_bitsandbytes_on_the_cpu():
    pytest.importorskip("bitsandbytes.functional")
    generator = torch.Generator().manual_seed(6)
    weight = torch.randn(96, 70, generator=generator) * 0.02        # 6720 values: 105 blocks of 64
    weight.view(-1)[128:192] = 0.0                                  # an all-zero block
    weight[5] = 0.0                                                 # a zero row for int8
    assert torch.equal(round_nf4(weight), round_bitsandbytes(weight, "nf4"))
    half = weight.half().float()          # bitsandbytes' int8 takes float16: compare on fp16-exact values
    torch.testing.assert_close(round_int8(half), round_bitsandbytes(half, "int8"), rtol=1e-6, atol=0)
    model = unlearned("llama")
    with quantized(model, "nf4") as ours:
        expected = logits(model)
    with quantized(model, "nf4", backend="bitsandbytes") as theirs:
        assert theirs.backend == "bitsandbytes" and theirs.parameters == ours.parameters
        assert torch.equal(logits(model), expected)


@pytest.mark.parametrize("scheme", ["int8", "nf4"])
def test_same_as_injected_counts_the_weights_rounding_puts_back(scheme):
    # fresh adapters (B = 0): the merged weights are the injected ones, every rounded value is the same
    fresh = add_adapters(tiny_llama(), UnlearnConfig(lora_r=4, lora_alpha=8)).eval()
    with quantized(fresh, scheme) as report:
        assert report.same_as_injected == 1.0
    # an unlearning-sized change: some weights round elsewhere, not all
    model = unlearned("llama")
    with quantized(model, scheme) as report:
        assert 0.0 < report.same_as_injected < 1.0
    # a plain model has no injected weights to compare with
    with quantized(tiny_llama(), scheme) as report:
        assert report.same_as_injected is None


@pytest.mark.parametrize("scheme", ["int8", "nf4"])
def test_a_change_far_below_a_rounding_step_leaves_nearly_every_weight_at_its_level(scheme):
    """A LoRA delta ~1e-6 (a rounding step here is ~1e-4) moves a row's absmax, so nearly every
    dequantized value differs in its last bits; the levels do not. Counting equal values reported
    ~1 % here (and 0.05 for a pretrained model unlearned at lr 1e-5); levels report what rounding keeps."""
    model = add_adapters(tiny_llama(), UnlearnConfig(lora_r=4, lora_alpha=8)).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.fill_(1e-6)
    with quantized(model, scheme) as report:
        assert report.same_as_injected > 0.99
