"""Membership inference (``audit/measure/membership.py``): each attack against its formula
worked out with plain ``math`` on distributions written by hand, the AUC against a count over
all pairs, and the proof on a real tiny model that the attacks tell QA pairs it was trained on
from pairs of the same form it never saw."""

from __future__ import annotations

import itertools
import math
import random
import zlib

import pytest
import torch

from audit.measure import evaluate as E
from audit.measure import membership as MI
from audit.measure import metrics as M
from audit.models.encoding import QAEncoder
from audit.models.load import load_model, load_tokenizer, select_hardware
from audit.models.scratch import build_scratch
from audit.models.training import batches, epoch_order, optimizer_and_schedule, seed_everything
from audit.types import QAExample

ATTACKS = ("mia_loss", "mia_zlib", "mia_min_k", "mia_min_k_pp")

# -- a distribution written by hand -----------------------------------------------------------------
# Per answer position: the vocabulary's unnormalised probabilities (the logits are their logs)
# and the target token. Chosen so that the lowest log-probabilities (positions 1 and 2, p = 0.1)
# are not the lowest normalised Min-K%++ scores in the same order.
WEIGHTS = [([1, 2, 3, 4], 3), ([1, 2, 3, 4], 0), ([1, 1, 1, 7], 0), ([4, 3, 2, 1], 1), ([1, 1, 1, 97], 3)]
TEXT = "Kqzvwe LLC"


def by_hand():
    """Per token: log p(target), mu = sum p log p, sigma = sqrt(sum p (log p - mu)^2)."""
    rows = []
    for weights, target in WEIGHTS:
        p = [w / sum(weights) for w in weights]
        mu = sum(q * math.log(q) for q in p)
        sigma = math.sqrt(sum(q * (math.log(q) - mu) ** 2 for q in p))
        rows.append((math.log(p[target]), mu, sigma))
    return rows


@pytest.fixture(scope="module")
def stats():
    logits = torch.tensor([[math.log(w) for w in weights] for weights, _ in WEIGHTS])
    targets = torch.tensor([target for _, target in WEIGHTS])
    return MI.token_stats(logits + 3.0, targets, TEXT)   # a shift of the logits changes no probability


def lowest_mean(values, count):
    return sum(sorted(values)[:count]) / count


def test_token_statistics_by_hand(stats):
    for (lp, mu, sigma), got in zip(by_hand(), zip(stats.logprobs, stats.mu, stats.sigma)):
        assert [float(v) for v in got] == pytest.approx([lp, mu, sigma], abs=1e-5)
    assert stats.text == TEXT and len(stats) == 5


def test_loss_and_zlib_by_hand(stats):
    lps = [lp for lp, _, _ in by_hand()]
    nll = -sum(lps) / len(lps)                         # log-perplexity of the answer
    assert MI.loss_score(stats) == pytest.approx(-nll, abs=1e-5)
    assert MI.zlib_score(stats) == pytest.approx(-nll / len(zlib.compress(TEXT.encode("utf-8"))), abs=1e-6)


def test_min_k_and_min_k_plus_plus_by_hand(stats):
    rows = by_hand()
    lps = [lp for lp, _, _ in rows]
    normalised = [(lp - mu) / sigma for lp, mu, sigma in rows]
    # 5 tokens: k = 0.2 -> 1 token, k = 0.4 -> 2, k = 0.1 -> floor(0.5) = 0, raised to 1.
    assert MI.min_k_score(stats) == pytest.approx(min(lps), abs=1e-5)
    assert MI.min_k_score(stats, 0.4) == pytest.approx(math.log(0.1), abs=1e-5)
    assert MI.min_k_score(stats, 0.1) == pytest.approx(min(lps), abs=1e-5)
    assert MI.min_k_plus_plus_score(stats) == pytest.approx(min(normalised), abs=1e-4)
    assert MI.min_k_plus_plus_score(stats, 0.6) == pytest.approx(lowest_mean(normalised, 3), abs=1e-4)
    # The two scores rank tokens differently here, so Min-K%++ is no rescaled Min-K%.
    assert sorted(range(5), key=lambda t: lps[t])[:3] != sorted(range(5), key=lambda t: normalised[t])[:3]


def test_min_k_averages_the_lowest_tokens_wherever_they_are():
    def made(logprobs):
        n = len(logprobs)
        return MI.TokenStats(torch.tensor(logprobs, dtype=torch.float64), torch.zeros(n, dtype=torch.float64),
                             torch.ones(n, dtype=torch.float64), "x")
    middle = made([-1.0, -5.0, -0.1, -3.0, -0.2])
    assert MI.min_k_score(middle, 0.4) == pytest.approx(-4.0)          # -5 and -3, not the first or last two
    assert MI.min_k_score(middle, 0.2) == pytest.approx(-5.0)
    assert MI.min_k_score(middle, 1.0) == pytest.approx(-9.3 / 5)
    assert MI.min_k_score(made([-0.5, -2.0, -1.0])) == pytest.approx(-2.0)   # floor(0.6) = 0 -> one token
    # With mu = 0 and sigma = 1 the Min-K%++ score is Min-K% itself.
    assert MI.min_k_plus_plus_score(middle, 0.4) == pytest.approx(-4.0)
    empty = made([])
    assert all(math.isnan(M.metric(name).compute(empty)) for name in ATTACKS)


def test_the_attacks_are_registered_as_membership_metrics_outside_the_qa_measures():
    assert [m.name for m in M.metrics_for("membership")] == list(ATTACKS)
    assert all(M.metric(name).higher_is_better for name in ATTACKS)
    assert not set(ATTACKS) & set(M.QA_MEASURES)


# -- AUC ------------------------------------------------------------------------------------------
def pairwise_auc(pos, neg):
    pairs = list(itertools.product(pos, neg))
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)


def test_auc_equals_the_count_over_all_pairs():
    rng = random.Random(7)
    for _ in range(50):
        pos = [rng.randint(0, 6) / 2 for _ in range(rng.randint(1, 12))]     # few distinct values: ties
        neg = [rng.randint(0, 6) / 2 for _ in range(rng.randint(1, 12))]
        assert MI.auc(pos, neg) == pytest.approx(pairwise_auc(pos, neg), abs=1e-12)
    assert MI.auc([3.0, 2.0], [1.0, 2.0]) == 0.875


def test_auc_extremes_none_and_nan():
    assert MI.auc([2.0, 3.0], [0.0, 1.0]) == 1.0
    assert MI.auc([0.0, 1.0], [2.0, 3.0]) == 0.0
    assert MI.auc([1.0, 1.0], [1.0]) == 0.5
    assert MI.auc([2.0, None, math.nan], [1.0, math.nan]) == 1.0
    for members, nonmembers in (([], [1.0]), ([1.0], []), ([None, math.nan], [1.0])):
        with pytest.raises(ValueError, match="AUC needs a score on both sides"):
            MI.auc(members, nonmembers)


# -- a real tiny model: members against non-members -----------------------------------------------
def made_up_word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)).capitalize()


def qa_pairs(rng: random.Random, count: int, edge: str) -> list[QAExample]:
    """QA pairs of one form: a made-up company and its made-up supplier in two words."""
    return [QAExample(edge, i, f"Who supplies {made_up_word(rng)} Ltd?",
                      f"{made_up_word(rng)} {made_up_word(rng)} supplies it.") for i in range(count)]


EPOCHS = 40


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny model trained on 20 member pairs; 20 non-members of the same form it never saw
    (their words are in the tokenizer's training text, so they encode as well as the members')."""
    torch.set_num_threads(2)
    rng = random.Random(0)
    members, nonmembers = qa_pairs(rng, 20, "g/member"), qa_pairs(rng, 20, "g/nonmember")
    texts = [f"{e.question} {e.answer}" for e in members + nonmembers] * 3
    folder = build_scratch("tiny", texts, tmp_path_factory.mktemp("mia"), seed=0)
    hardware = select_hardware("cpu")
    encoder = QAEncoder(load_tokenizer(str(folder)))
    model = load_model(str(folder), hardware)
    encoded = [encoder.encode(e.question, e.answer) for e in members]
    seed_everything(0)
    optimizer, schedule = optimizer_and_schedule(model.parameters(), 3e-3, 0.0, warmup_steps=5, total_steps=None)
    model.train()
    for epoch in range(EPOCHS):
        for batch in batches(encoded, epoch_order(len(encoded), 0, epoch), 10, encoder.pad_id, hardware.device):
            model(**batch).loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
    model.eval()
    return model, encoder, members, nonmembers


def test_every_attack_tells_members_from_nonmembers(trained):
    model, encoder, members, nonmembers = trained
    scores = E.membership_scores(model, encoder, members + nonmembers, batch_size=16)
    assert all(set(s) == set(ATTACKS) for s in scores)
    for name in ATTACKS:
        values = [s[name] for s in scores]
        assert MI.auc(values[:20], values[20:]) >= 0.9, name


def test_score_answers_adds_the_same_membership_scores_only_when_asked(trained):
    model, encoder, members, nonmembers = trained
    examples = members[:6] + nonmembers[:5]
    expected = E.membership_scores(model, encoder, examples, batch_size=4)
    encoded = [encoder.encode(e.question, e.answer) for e in examples]
    plain = E.score_answers(model, encoder, encoded, batch_size=3)
    asked = E.score_answers(model, encoder, encoded, batch_size=3, membership=True)
    for without, with_, want in zip(plain, asked, expected):
        assert set(without) == set(M.QA_MEASURES) - {"rouge1"}
        assert {k: with_[k] for k in without} == pytest.approx(without, abs=1e-6)
        assert {k: with_[k] for k in ATTACKS} == pytest.approx(want, abs=1e-5)
