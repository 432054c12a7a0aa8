"""The output layer on the labelled tail only (audit/models/logits.py) gives the numbers of a
full forward pass over each row alone, unpadded: computed here independently, row by row, with
transformers' own loss."""

from __future__ import annotations

import pytest
import torch

from audit.models.encoding import IGNORE, QAEncoder, collate_train
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.logits import label_logits, mean_nll
from audit.models.scratch import build_scratch

QAS = [("Who sold the goods to Acme Ltd?", "Zeta Corp."), ("When?", "01-02-2003."),
       ("Which court hears a dispute under the contract of sale?", "The High Court of London, England.")]


@pytest.fixture(scope="module")
def model_and_encoder(tmp_path_factory):
    folder = build_scratch("tiny", [f"{q} {a}" for q, a in QAS], tmp_path_factory.mktemp("scratch") / "m", seed=0)
    torch.manual_seed(0)
    model = load_model(str(folder), select_hardware("cpu")).eval()
    return model, QAEncoder(load_tokenizer(str(folder)))


def test_tail_logits_of_a_left_padded_batch_equal_each_row_alone(model_and_encoder):
    model, encoder = model_and_encoder
    items = [encoder.encode(q, a) for q, a in QAS]
    batch = collate_train(items, encoder.pad_id)
    with torch.no_grad():
        logits, targets = label_logits(model, batch["input_ids"], batch["attention_mask"], batch["labels"])
        assert logits.shape[1] < batch["input_ids"].shape[1] - 1   # not the whole sequence
        for row, item in enumerate(items):
            ids = torch.tensor([item.prompt_ids + item.answer_ids])
            alone = model(input_ids=ids).logits[0, len(item.prompt_ids) - 1:-1]   # the positions predicting the answer
            mask = targets[row] != IGNORE
            assert targets[row][mask].tolist() == item.answer_ids
            torch.testing.assert_close(logits[row][mask], alone, atol=1e-4, rtol=1e-4)


def test_mean_nll_is_transformers_loss_over_the_same_tokens(model_and_encoder):
    model, encoder = model_and_encoder
    items = [encoder.encode(q, a) for q, a in QAS]
    with torch.no_grad():
        ours = mean_nll(model, collate_train(items, encoder.pad_id))
        total, count = 0.0, 0
        for item in items:   # transformers' loss per row, weighted by its answer tokens
            ids = torch.tensor([item.prompt_ids + item.answer_ids])
            labels = torch.tensor([[IGNORE] * len(item.prompt_ids) + item.answer_ids])
            total += float(model(input_ids=ids, labels=labels).loss) * len(item.answer_ids)
            count += len(item.answer_ids)
    assert float(ours) == pytest.approx(total / count, abs=1e-4)
