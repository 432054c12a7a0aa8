"""Unlearning losses against values computed independently, on a tiny real model.

At the start of unlearning the LoRA adapters are zero-initialised, so the model equals its
reference: NPO's log-ratio is 0, DPO's margin is 0, KL is 0. Those fixed points, and
log-probabilities summed token by token in a plain loop, give the expected values. Also the
registry: each method with its default rate, read without torch.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from audit.config import UnlearnConfig
from audit.models.encoding import QAEncoder, collate_train
from audit.run.methods import METHODS, Method, UnlearnBatch, default_unlearn_lr, method_class
from audit.run.methods.catalog import register
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.scratch import build_scratch
from audit.run.unlearning import add_adapters
from graphstore.errors import ConfigError

PAIRS = [("Who sold the goods?", "Zeta Corp."), ("When was it signed?", "01-02-2003."),
         ("Where is the seller?", "12 Main Road."), ("What was the price?", "USD 5,000.")]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = build_scratch("tiny", [f"{q} {a}" for q, a in PAIRS] * 10, tmp_path_factory.mktemp("m") / "model", 0)
    tokenizer = load_tokenizer(str(folder))
    model = add_adapters(load_model(str(folder), select_hardware("cpu")), UnlearnConfig())
    encoder = QAEncoder(tokenizer)

    def batch(pairs):
        return collate_train([encoder.encode(q, a) for q, a in pairs], tokenizer.pad_token_id)

    forget, retain = batch(PAIRS[:2]), batch(PAIRS[2:])
    refusal = batch([(PAIRS[0][0], "I don't know."), (PAIRS[1][0], "I have no idea.")])
    model.eval()
    return model, UnlearnBatch(forget, retain, refusal)


def loop_logprob(model, part) -> list[float]:
    """Sum of answer-token log-probabilities per row, one position at a time."""
    with torch.no_grad():
        logits = model(input_ids=part["input_ids"], attention_mask=part["attention_mask"]).logits
    out = []
    for row in range(part["input_ids"].shape[0]):
        total = 0.0
        for t in range(1, part["input_ids"].shape[1]):
            label = int(part["labels"][row, t])
            if label != -100:
                total += float(torch.log_softmax(logits[row, t - 1], -1)[label])
        out.append(total)
    return out


def loop_nll(model, part) -> float:
    """Mean NLL over all answer tokens of the batch."""
    with torch.no_grad():
        logits = model(input_ids=part["input_ids"], attention_mask=part["attention_mask"]).logits
    values = [-float(torch.log_softmax(logits[r, t - 1], -1)[int(part["labels"][r, t])])
              for r in range(part["input_ids"].shape[0]) for t in range(1, part["input_ids"].shape[1])
              if int(part["labels"][r, t]) != -100]
    return sum(values) / len(values)


def answer_lengths(part) -> list[int]:
    return [int((part["labels"][r, 1:] != -100).sum()) for r in range(part["labels"].shape[0])]


def loss_of(name, model, batch, **options):
    cls = method_class(name)
    return cls(cls.config_class(**options)).loss(model, batch).item()


def test_registry_has_eight_methods_and_refuses_others():
    assert sorted(METHODS) == ["dpo", "ga", "gd", "idk", "kl", "npo", "oraclegrad", "simnpo"]
    with pytest.raises(ConfigError, match="unknown unlearning method 'rmu'; valid: dpo, ga, gd, idk, kl, npo, oraclegrad, simnpo"):
        method_class("rmu")


@pytest.mark.parametrize("name, options, message", [
    ("gd", {"retain_weight": -1.0}, "method gd option retain_weight=-1.0: must be zero or more"),
    ("npo", {"beta": 0.0}, "method npo option beta=0.0: must be positive"),
])
def test_bad_method_settings_are_refused(name, options, message):
    cls = method_class(name)
    with pytest.raises(ConfigError, match=message):
        cls(cls.config_class(**options))


# -- default rates: registered with each method ---------------------------------------------------
# The rates as docs/runs.md (section 4) states them: per method on models of width <= 1024, 1e-5 on
# wider ones and on model packages.
SCRATCH_RATES = {"ga": 4e-4, "gd": 5e-4, "kl": 5e-4, "dpo": 2e-3, "idk": 8e-3, "npo": 4e-4, "simnpo": 4e-4, "oraclegrad": 5e-4}
WIDE_RATE = 1e-5


def test_the_default_rate_follows_the_method_and_the_models_width(tmp_path):
    folders = {}
    for width in (96, 1024, 1025):
        folders[width] = tmp_path / f"w{width}"
        folders[width].mkdir()
        (folders[width] / "config.json").write_text(json.dumps({"hidden_size": width}))
    for method, rate in SCRATCH_RATES.items():
        assert default_unlearn_lr(method, "scratch") == default_unlearn_lr(method, "scratch:base") == rate
        assert default_unlearn_lr(method.upper(), str(folders[96])) == default_unlearn_lr(method, str(folders[1024])) == rate
        assert default_unlearn_lr(method, str(folders[1025])) == WIDE_RATE
        assert default_unlearn_lr(method, "org/model") == WIDE_RATE      # a hub id: width unknown here
        # a model package: Gemma 3 270M is narrow (width 640) but pretrained
        assert default_unlearn_lr(method, "gemma3-270m") == WIDE_RATE
    with pytest.raises(ConfigError, match="unknown unlearning method 'rmu'; valid: dpo, ga, gd, idk, kl, npo, oraclegrad, simnpo"):
        default_unlearn_lr("rmu", "scratch")


def test_the_registry_lists_the_methods_in_the_order_offered_and_refuses_one_without_a_rate():
    # the order of `audit run --method`'s choices and of an experiment's "valid: ..." message
    assert list(METHODS) == ["ga", "gd", "kl", "dpo", "idk", "npo", "simnpo", "oraclegrad"]

    class Unrated(Method):
        name, title, config_class = "unrated", "a method without its default rate", dict

    with pytest.raises(AssertionError, match="unlearning method Unrated lacks scratch_lr"):
        register(Unrated)
    assert "unrated" not in METHODS


def test_the_methods_and_their_rates_are_read_without_torch():
    """`audit run --help` offers the methods with their rates; it must start without torch."""
    code = ("import sys, audit.run.methods as m; "
            "print(len(m.METHODS), [x for x in ('torch', 'transformers', 'peft') if x in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "8 []"


def test_losses_at_the_reference_point(setup):
    model, batch = setup
    nll_f, nll_r = loop_nll(model, batch.forget), loop_nll(model, batch.retain)
    assert loss_of("ga", model, batch) == pytest.approx(-nll_f, rel=1e-5)
    assert loss_of("gd", model, batch) == pytest.approx(-nll_f + nll_r, rel=1e-5)
    assert loss_of("gd", model, batch, retain_weight=0.5) == pytest.approx(-nll_f + 0.5 * nll_r, rel=1e-5)
    assert loss_of("kl", model, batch) == pytest.approx(-nll_f, rel=1e-5)        # KL(p || p) = 0
    assert loss_of("npo", model, batch, beta=0.1) == pytest.approx(2 / 0.1 * math.log(2), rel=1e-5)
    assert loss_of("npo", model, batch, beta=0.1, retain_weight=1.0) == pytest.approx(
        2 / 0.1 * math.log(2) + nll_r, rel=1e-5)
    assert loss_of("dpo", model, batch) == pytest.approx(math.log(2), rel=1e-5)
    # PISTOL's Eq. 6: NLL of the refusals on the forget questions plus the retain NLL
    nll_idk = loop_nll(model, batch.refusal)
    assert loss_of("idk", model, batch) == pytest.approx(nll_idk + nll_r, rel=1e-5)
    assert loss_of("idk", model, batch, retain_weight=0.0) == pytest.approx(nll_idk, rel=1e-5)
    logprob, lengths = loop_logprob(model, batch.forget), answer_lengths(batch.forget)
    beta, gamma = 2.5, 0.3
    expected = sum(-(2 / beta) * math.log(1 / (1 + math.exp((beta / n) * lp + gamma)))
                   for lp, n in zip(logprob, lengths)) / len(lengths)
    assert loss_of("simnpo", model, batch, beta=beta, gamma=gamma) == pytest.approx(expected, rel=1e-5)


def test_npo_and_dpo_away_from_the_reference(setup):
    """Move the adapters off zero; the reference (adapters disabled) stays where it was."""
    model, batch = setup
    with torch.no_grad():
        ref_f, ref_w = loop_logprob(model, batch.forget), loop_logprob(model, batch.refusal)
        generator = torch.Generator().manual_seed(0)
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.add_(0.05 * torch.randn(p.shape, generator=generator))
        cur_f, cur_w = loop_logprob(model, batch.forget), loop_logprob(model, batch.refusal)
    assert cur_f != pytest.approx(ref_f)          # the adapters really changed the model
    beta = 0.1
    npo = sum((2 / beta) * math.log(1 + math.exp(beta * (c - r))) for c, r in zip(cur_f, ref_f)) / 2
    assert loss_of("npo", model, batch, beta=beta) == pytest.approx(npo, rel=1e-4)
    dpo = sum(-math.log(1 / (1 + math.exp(-beta * ((cw - rw) - (cf - rf)))))
              for cw, rw, cf, rf in zip(cur_w, ref_w, cur_f, ref_f)) / 2
    assert loss_of("dpo", model, batch, beta=beta) == pytest.approx(dpo, rel=1e-4)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.zero_()


def test_no_method_takes_a_mean_of_its_own():
    """A launched run gives each rank a share of every batch: a loss's means must come from the
    shared pieces (nll, answer_kl, mean_over_rows), which divide by the whole batch's counts."""
    folder = Path(__file__).resolve().parents[3] / "audit" / "run" / "methods"
    own = [f"{path.name}:{n}" for path in sorted(folder.glob("*.py")) if path.name != "tensors.py"
           for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           if ".mean(" in line and not line.lstrip().startswith("#")]
    assert own == []
