"""Full-parameter unlearning's wrapper: the reference is the injected model, reset and a saved
state put the weights back bit for bit, the input embeddings are not trained."""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from audit.run.full_weights import FullWeights
from graphstore.errors import ConfigError


def tiny() -> LlamaForCausalLM:
    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=2))


def step(model: FullWeights) -> None:
    ids = torch.tensor([[1, 5, 7, 9]])
    model(input_ids=ids, labels=ids).loss.backward()
    torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5).step()


def test_training_moves_the_weights_not_the_reference_nor_the_embeddings(tmp_path):
    model = FullWeights(tiny())
    injected = {n: p.detach().clone() for n, p in model.model.named_parameters()}
    assert "model.embed_tokens.weight" not in model.trainable() and "lm_head.weight" in model.trainable()
    step(model)
    now = dict(model.model.named_parameters())
    assert not torch.equal(now["model.layers.0.mlp.up_proj.weight"], injected["model.layers.0.mlp.up_proj.weight"])
    assert torch.equal(now["model.embed_tokens.weight"], injected["model.embed_tokens.weight"])
    assert all(torch.equal(p, injected[n]) for n, p in model.reference.named_parameters())
    ids = torch.tensor([[1, 5, 7]])
    with model.disable_adapter():   # the reference computes as the injected model did
        off = model(input_ids=ids).logits
    assert torch.equal(off, model.reference(input_ids=ids).logits)
    assert not torch.equal(off, model(input_ids=ids).logits)
    # the reference is no sub-module: not trained, saved or rounded with the model
    assert len(list(model.parameters())) == len(list(model.model.parameters()))


def test_reset_and_a_saved_state_give_the_weights_back_bit_for_bit(tmp_path):
    model = FullWeights(tiny())
    step(model)
    trained = {n: p.detach().clone() for n, p in model.trainable().items()}
    model.save_pretrained(tmp_path / "w")
    model.reset()
    assert all(torch.equal(p, dict(model.reference.named_parameters())[n]) for n, p in model.trainable().items())
    model.load(tmp_path / "w")
    assert all(torch.equal(p, trained[n]) for n, p in model.trainable().items())
    with pytest.raises(ConfigError, match="no saved weights"):
        model.load(tmp_path / "nothing")
