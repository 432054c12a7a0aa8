"""LACUNA-style disjoint parameter masks on real tiny Llama models (GQA: 4 query heads, 2 KV
heads): which weights are eligible, the masks' shares and units, their file round trip, and the
guarantee the injection relies on, that a masked training step moves no weight outside the
group's mask, bit for bit. Expected counts and shapes are written by hand from the config."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM

from audit.models.masks import MaskError, Masks, draw_masks, eligible, restrict_gradients, restrict_to
from graphstore.errors import ConfigError

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 32, 4, 2, 8, 64

# Shapes of the tiny config's projections, by hand: q/o are 4 heads x 8 dims, k/v 2 KV heads x 8.
PROJECTIONS = {"self_attn.q_proj": (32, 32), "self_attn.k_proj": (16, 32), "self_attn.v_proj": (16, 32),
               "self_attn.o_proj": (32, 32), "mlp.gate_proj": (64, 32), "mlp.up_proj": (64, 32),
               "mlp.down_proj": (32, 64)}
ELIGIBLE = {f"model.layers.{layer}.{proj}.weight": shape for layer in (0, 1) for proj, shape in PROJECTIONS.items()}
ATTENTION_WEIGHTS = 2 * (1024 + 512 + 512 + 1024)   # 6144
MLP_WEIGHTS = 2 * 3 * 2048                            # 12288
TOTAL = ATTENTION_WEIGHTS + MLP_WEIGHTS               # 18432
# A head's unit: 8 q rows + 8 o columns (2 * 8 * 32), plus 8 k and 8 v rows for a KV head's first head.
LARGEST_HEAD, NEURON = 4 * 8 * 32, 3 * 32


def tiny(seed: int = 0, **overrides) -> LlamaForCausalLM:
    options = dict(vocab_size=100, hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=HEADS,
                   num_key_value_heads=KV_HEADS, intermediate_size=INTERMEDIATE, max_position_embeddings=64,
                   tie_word_embeddings=False)
    torch.manual_seed(seed)
    return LlamaForCausalLM(LlamaConfig(**(options | overrides)))


def members(masks: Masks, group: int) -> int:
    return sum(int(masks.mask(name, group).sum()) for name in masks.group_of)


# ---------------------------------------------------------------- eligible weights


def test_eligible_is_exactly_the_projection_matrices():
    found = eligible(tiny())
    assert list(found) == list(ELIGIBLE)     # the model's order: q, k, v, o, gate, up, down per layer
    assert {name: tuple(p.shape) for name, p in found.items()} == ELIGIBLE


def test_biases_are_never_eligible():
    model = tiny(attention_bias=True, mlp_bias=True)
    assert any(name.endswith("q_proj.bias") for name, _ in model.named_parameters())
    assert list(eligible(model)) == list(ELIGIBLE)


def test_skip_layers_counts_negative_indices_from_the_end():
    model = tiny()
    layer0 = [name for name in ELIGIBLE if ".layers.0." in name]
    assert list(eligible(model, {1})) == layer0 and list(eligible(model, {-1})) == layer0
    masks = draw_masks(model, groups=2, share=0.1, skip_layers={-1})
    assert list(masks.group_of) == layer0 and masks.skip_layers == (1,)
    with pytest.raises(MaskError, match="no eligible weights"):
        draw_masks(model, groups=2, share=0.1, skip_layers={-2, -1})
    with pytest.raises(MaskError, match=r"skip_layers \[2\]: the model has decoder layers 0..1"):
        eligible(model, {2})


# ---------------------------------------------------------------- drawing


@pytest.mark.parametrize("kind", ["element", "structural"])
def test_masks_are_disjoint_and_cover_only_eligible_weights(kind):
    masks = draw_masks(tiny(), groups=3, share=0.2, kind=kind, seed=0)
    assert {name: tuple(t.shape) for name, t in masks.group_of.items()} == ELIGIBLE
    for name in ELIGIBLE:
        owners = torch.stack([masks.mask(name, g) for g in range(3)]).sum(0)
        assert int(owners.max()) <= 1                    # no weight in two groups
        assert masks.group_of[name].dtype == torch.int8
    assert int(sum(owners.sum() for owners in [masks.mask(n, {0, 1, 2}) for n in ELIGIBLE])) == sum(
        members(masks, g) for g in range(3))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_element_shares_are_binomial_around_share(seed):
    masks = draw_masks(tiny(), groups=6, share=0.05, kind="element", seed=seed)
    sigma = math.sqrt(TOTAL * 0.05 * 0.95)
    for g, reported in enumerate(masks.shares()):
        count = members(masks, g)
        assert abs(count - 0.05 * TOTAL) <= 3 * sigma
        assert reported == pytest.approx(count / TOTAL)
    nobody = sum(int((t == -1).sum()) for t in masks.group_of.values())
    assert abs(nobody - 0.7 * TOTAL) <= 3 * math.sqrt(TOTAL * 0.3 * 0.7)


@pytest.mark.parametrize("kind", ["element", "structural"])
def test_draws_are_deterministic_per_seed_and_differ_across_seeds(kind):
    model = tiny()
    first, again = draw_masks(model, 3, 0.2, kind, seed=5), draw_masks(tiny(seed=9), 3, 0.2, kind, seed=5)
    other = draw_masks(model, 3, 0.2, kind, seed=6)
    assert all(torch.equal(first.group_of[n], again.group_of[n]) for n in ELIGIBLE)   # weights play no part
    assert not all(torch.equal(first.group_of[n], other.group_of[n]) for n in ELIGIBLE)


def test_many_groups_use_int16():
    masks = draw_masks(tiny(), groups=200, share=0.005)
    assert masks.group_of["model.layers.0.self_attn.q_proj.weight"].dtype == torch.int16
    assert max(int(t.max()) for t in masks.group_of.values()) > 127


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_structural_units_are_whole(seed):
    masks = draw_masks(tiny(), groups=3, share=0.2, kind="structural", seed=seed)
    for layer in (0, 1):
        ids = {proj.split(".")[1]: masks.group_of[f"model.layers.{layer}.{proj}.weight"] for proj in PROJECTIONS}
        for h in range(HEADS):
            rows = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)
            owner = int(ids["q_proj"][rows][0, 0])
            assert (ids["q_proj"][rows] == owner).all() and (ids["o_proj"][:, rows] == owner).all()
        for kv in range(KV_HEADS):
            rows = slice(kv * HEAD_DIM, (kv + 1) * HEAD_DIM)
            first_query_head = kv * (HEADS // KV_HEADS)
            owner = int(ids["q_proj"][first_query_head * HEAD_DIM, 0])
            assert (ids["k_proj"][rows] == owner).all() and (ids["v_proj"][rows] == owner).all()
        for n in range(INTERMEDIATE):
            owner = int(ids["gate_proj"][n, 0])
            assert (ids["gate_proj"][n] == owner).all() and (ids["up_proj"][n] == owner).all()
            assert (ids["down_proj"][:, n] == owner).all()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_structural_shares_are_within_one_unit_and_split_by_parameter_count(seed):
    masks = draw_masks(tiny(), groups=3, share=0.2, kind="structural", seed=seed)
    for g, reported in enumerate(masks.shares()):
        count = members(masks, g)
        assert reported == count / TOTAL
        assert abs(count - 0.2 * TOTAL) <= LARGEST_HEAD
        attention = sum(int(masks.mask(n, g).sum()) for n in ELIGIBLE if ".self_attn." in n)
        assert abs(attention - 0.2 * ATTENTION_WEIGHTS) <= LARGEST_HEAD
        assert abs((count - attention) - 0.2 * MLP_WEIGHTS) <= NEURON


def test_structural_reads_head_dim_from_the_weights_under_gemma3():
    # Gemma 3: head_dim 16 is set in the config and is not hidden / heads (8); one KV head for 4.
    config = Gemma3TextConfig(vocab_size=100, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                              num_attention_heads=4, num_key_value_heads=1, head_dim=16)
    torch.manual_seed(0)
    model = Gemma3ForCausalLM(config)
    assert not any("norm" in name for name in eligible(model))    # q_norm / k_norm stay out
    masks = draw_masks(model, groups=2, share=0.3, kind="structural", seed=1)
    q, k = masks.group_of["model.layers.0.self_attn.q_proj.weight"], masks.group_of[
        "model.layers.0.self_attn.k_proj.weight"]
    assert q.shape == (64, 32) and all((q[h * 16:(h + 1) * 16] == q[h * 16, 0]).all() for h in range(4))
    assert (k == q[0, 0]).all()                                  # the single KV head follows head 0


def test_too_many_groups_for_the_share_is_refused_with_the_numbers():
    model = tiny()
    with pytest.raises(MaskError, match=r"groups=7 masks of share=0\.2 .*groups \* share = 1\.4 > 1.*"
                                        r"at most 5 groups of this share, or a share of at most 0\.1429"):
        draw_masks(model, groups=7, share=0.2)
    assert issubclass(MaskError, ValueError) and issubclass(MaskError, ConfigError)
    assert sum(draw_masks(model, groups=5, share=0.2).shares()) == 1.0     # exactly full is allowed
    assert sum(draw_masks(model, groups=10, share=0.1).shares()) == 1.0
    with pytest.raises(MaskError, match="mask kind 'rows' is not one of element, structural"):
        draw_masks(model, groups=2, kind="rows")  # type: ignore[arg-type]


# ---------------------------------------------------------------- files and fit


@pytest.mark.parametrize("kind", ["element", "structural"])
def test_save_load_round_trip(kind, tmp_path):
    masks = draw_masks(tiny(), groups=3, share=0.2, kind=kind, seed=4, skip_layers={-1})
    masks.save(tmp_path / "masks.safetensors")
    loaded = Masks.load(tmp_path / "masks.safetensors")
    assert (loaded.groups, loaded.share, loaded.kind, loaded.seed, loaded.skip_layers) == (3, 0.2, kind, 4, (1,))
    assert list(loaded.group_of) == list(masks.group_of)
    for name, ids in masks.group_of.items():
        assert loaded.group_of[name].dtype == ids.dtype and torch.equal(loaded.group_of[name], ids)


def test_load_refuses_a_file_that_is_not_masks(tmp_path):
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(2)}, str(tmp_path / "weights.safetensors"))
    with pytest.raises(MaskError, match="weights.safetensors: not a masks file of version 1"):
        Masks.load(tmp_path / "weights.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(MaskError, match="junk.safetensors: cannot read masks"):
        Masks.load(tmp_path / "junk.safetensors")


def test_check_fits_names_the_first_mismatch():
    masks = draw_masks(tiny(), groups=2, share=0.1)
    masks.check_fits(tiny(seed=3))
    with pytest.raises(MaskError, match=r"model\.layers\.0\.mlp\.gate_proj\.weight has shape \(48, 32\), "
                                        r"the mask \(64, 32\)"):
        masks.check_fits(tiny(intermediate_size=48))
    with pytest.raises(MaskError, match=r"no parameter 'model\.layers\.1\.self_attn\.q_proj\.weight'"):
        masks.check_fits(tiny(num_hidden_layers=1))
    with pytest.raises(MaskError, match="do not fit"):
        restrict_gradients(tiny(intermediate_size=48), masks, group=0)


# ---------------------------------------------------------------- masked training


def batch() -> torch.Tensor:
    return torch.randint(0, 100, (4, 12), generator=torch.Generator().manual_seed(0))


def step(model, optimizer, restrict) -> dict[str, torch.Tensor]:
    """One training step; returns the weights before it."""
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    ids = batch()
    model(input_ids=ids, labels=ids).loss.backward()
    restrict()
    optimizer.step()
    optimizer.zero_grad()
    return before


OPTIMIZERS = {
    # AdamW's weight decay is decoupled from the gradient (it shrinks every weight by lr * wd each
    # step), so a masked injection must give the eligible weights weight_decay 0 (see below).
    "adamw": lambda params: torch.optim.AdamW(params, lr=1e-3, weight_decay=0.0),
    "sgd": lambda params: torch.optim.SGD(params, lr=0.5),
}


@pytest.mark.parametrize("kind", ["element", "structural"])
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_a_masked_step_changes_no_weight_outside_the_group(kind, optimizer):
    model = tiny()
    masks = draw_masks(model, groups=3, share=0.2, kind=kind, seed=0)
    before = step(model, OPTIMIZERS[optimizer](model.parameters()), lambda: restrict_gradients(model, masks, 1))
    params = dict(model.named_parameters())
    changed_inside = total_inside = 0
    for name in ELIGIBLE:
        inside = masks.mask(name, 1)
        assert torch.equal(params[name].detach()[~inside], before[name][~inside]), name
        changed_inside += int((params[name].detach()[inside] != before[name][inside]).sum())
        total_inside += int(inside.sum())
    assert total_inside > 0 and changed_inside > 0.9 * total_inside
    for name in ("model.embed_tokens.weight", "lm_head.weight", "model.norm.weight"):   # left alone
        assert not torch.equal(params[name].detach(), before[name])


def test_adamw_weight_decay_moves_weights_outside_the_mask():
    model = tiny()
    masks = draw_masks(model, groups=3, share=0.2, seed=0)
    before = step(model, torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1),
                  lambda: restrict_gradients(model, masks, 1))
    params = dict(model.named_parameters())
    for name in ELIGIBLE:
        outside = ~masks.mask(name, 1)
        assert not torch.equal(params[name].detach()[outside], before[name][outside]), name

    # The fix: a parameter group with weight_decay 0 for the masked weights.
    model = tiny()
    masked = set(masks.group_of)
    groups = [{"params": [p for n, p in model.named_parameters() if n in masked], "weight_decay": 0.0},
              {"params": [p for n, p in model.named_parameters() if n not in masked], "weight_decay": 0.1}]
    before = step(model, torch.optim.AdamW(groups, lr=1e-3), lambda: restrict_gradients(model, masks, 1))
    params = dict(model.named_parameters())
    for name in ELIGIBLE:
        outside = ~masks.mask(name, 1)
        assert torch.equal(params[name].detach()[outside], before[name][outside]), name


def test_adam_moments_from_an_earlier_group_keep_moving_its_weights():
    # The caveat in restrict_gradients: masking the gradient does not mask Adam's state.
    model = tiny()
    masks = draw_masks(model, groups=3, share=0.2, seed=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    step(model, optimizer, lambda: restrict_gradients(model, masks, 0))
    before = step(model, optimizer, lambda: restrict_gradients(model, masks, 1))
    name = "model.layers.0.mlp.up_proj.weight"
    group0 = masks.mask(name, 0)
    assert not torch.equal(dict(model.named_parameters())[name].detach()[group0], before[name][group0])


def test_a_set_of_groups_restricts_to_their_union_and_none_restricts_nothing():
    model, reference = tiny(), tiny()
    masks = draw_masks(model, groups=3, share=0.2, seed=0)
    for m in (model, reference):
        ids = batch()
        m(input_ids=ids, labels=ids).loss.backward()
    restrict_gradients(model, masks, None)
    params, ref = dict(model.named_parameters()), dict(reference.named_parameters())
    assert all(torch.equal(params[n].grad, ref[n].grad) for n in params)
    restrict_gradients(model, masks, {0, 2})
    for name in ELIGIBLE:
        union = masks.mask(name, 0) | masks.mask(name, 2)
        assert (params[name].grad[~union] == 0).all()
        assert torch.equal(params[name].grad[union], ref[name].grad[union])
    with pytest.raises(MaskError, match=r"group\(s\) \[3\] are not mask groups: the masks have groups 0..2"):
        restrict_gradients(model, masks, {0, 3})


@pytest.mark.parametrize("others", ["zero", "keep"])
def test_restrict_to_is_oracle_grad_and_removes_its_hooks(others):
    model = tiny()
    masks = draw_masks(model, groups=6, share=0.05, seed=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    with restrict_to(model, masks, {0, 2, 4}, others=others):
        before = step(model, optimizer, lambda: None)
    params = dict(model.named_parameters())
    for name in ELIGIBLE:
        forget = masks.mask(name, {0, 2, 4})
        assert torch.equal(params[name].detach()[~forget], before[name][~forget]), name
        assert not torch.equal(params[name].detach()[forget], before[name][forget]), name
    for name in set(params) - set(ELIGIBLE):          # embeddings, norms, lm_head
        assert torch.equal(params[name].detach(), before[name]) == (others == "zero"), name

    ids = batch()
    model(input_ids=ids, labels=ids).loss.backward()   # outside the block: full gradients again
    assert (params["model.layers.0.mlp.up_proj.weight"].grad[~masks.mask("model.layers.0.mlp.up_proj.weight",
                                                                         {0, 2, 4})] != 0).any()
    assert (params["model.embed_tokens.weight"].grad != 0).any()
