"""Masked injection (LACUNA's masked continual pretraining): each group's facts go into its own
weights. A real injection of a scratch model on a small graph, checked weight by weight against
the weights it started from."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file

from audit.config import InjectionConfig
from audit.models.load import load_model, select_hardware
from audit.run.groups import edge_groups
from audit.run.injection import cache_key, inject
from audit.run.masked import MASKS_FILE, PRE_FILE, load_masks
from audit.run.qa import load_graph_edges
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph

EDGES = [("0", "1"), ("0", "2"), ("1", "3"), ("2", "3")]


@pytest.fixture()
def graph(store, tmp_path):
    path = tmp_path / "masked.json"
    write_dataset(generate_pistol(EDGES, seed=3), path)
    write_graph(store, load_pistol(path, graph="masked"))
    return load_graph_edges(store, "masked")


def test_each_group_trains_only_its_own_weights(store, graph, tmp_path):
    forget = ["masked/0_1"]
    groups = edge_groups(graph, forget, "forget")
    config = InjectionConfig(max_epochs=4, eval_every=4, mask_groups="forget", mask_share=0.1)
    injected = inject("scratch:tiny", "masked", "sha", graph, config, select_hardware("cpu"), tmp_path, None, groups)
    assert injected.info["kind"] == "masked" and injected.info["masks"]["groups"] == 2
    assert (injected.folder / MASKS_FILE).exists() and (injected.folder / PRE_FILE).exists()
    masks = load_masks(injected.folder)
    pre = load_file(str(injected.folder / PRE_FILE))
    after = dict(load_model(injected.base, select_hardware("cpu")).named_parameters())
    assert set(pre) == set(masks.group_of)
    for name, before in pre.items():
        now, group = after[name].detach(), masks.group_of[name]
        outside = group == -1
        assert torch.equal(now[outside], before[outside]), name          # in no mask: untouched, bit for bit
        for g in (0, 1):
            moved = (now[group == g] != before[group == g]).float().mean()
            assert moved > 0.5, (name, g)                                  # each group's weights trained
    # the weights no mask reaches (embeddings, norms, output layer) keep the values they started with
    from audit.models.scratch import build_scratch   # the same seed and corpus rebuild the start
    corpus = [f"{q.question} {q.answer}" for e in graph.values() for q in e.qas]
    start = dict(load_model(str(build_scratch("tiny", corpus, tmp_path / "start", config.seed)),
                            select_hardware("cpu")).named_parameters())
    for name in ("model.embed_tokens.weight", "lm_head.weight", "model.norm.weight"):
        assert torch.equal(after[name], start[name]), name
    for name in pre:
        assert torch.equal(pre[name], start[name].detach()), name


def test_a_masked_injection_has_its_own_cache_key_and_an_unmasked_one_keeps_its_old_one(graph):
    plain = InjectionConfig()
    assert "mask_groups" not in plain.identity()   # so the keys made before masking existed still hold
    groups = edge_groups(graph, ["masked/0_1"], "forget")
    masked = InjectionConfig(mask_groups="forget")
    other = edge_groups(graph, ["masked/1_3"], "forget")
    keys = {cache_key("scratch:tiny", "sha", plain), cache_key("scratch:tiny", "sha", masked, None, groups),
            cache_key("scratch:tiny", "sha", masked, None, other)}
    assert len(keys) == 3   # another forget set is another masked model


def test_masks_train_on_the_qa_pairs_only(graph, tmp_path):
    from audit.run.injection import InjectionTexts
    from audit.run.training_data import TextExample

    groups = edge_groups(graph, ["masked/0_1"], "forget")
    texts = InjectionTexts([TextExample("p1", 0, "a passage")])
    with pytest.raises(ConfigError, match="--mask-groups trains on the edges' QA pairs"):
        inject("scratch:tiny", "masked", "sha", graph, InjectionConfig(mask_groups="forget"), select_hardware("cpu"),
               tmp_path, texts, groups)
