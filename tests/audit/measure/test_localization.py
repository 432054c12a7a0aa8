"""Localization precision (``audit/measure/localization.py``, LACUNA §4.2 and App. E).

Expected values come from elsewhere than the code under test: AUCs from a brute-force loop over
every (positive, negative) pair, or from counts worked out by hand on planted updates whose
scores fall in disjoint ranges; per-weight scores from their formulas written out on a few
numbers; the stratified sample's counts from the floor rule done in plain integers.

The "model" is a few random tensors shaped and named like a two-layer Llama's attention and MLP
matrices (~100k weights), with each weight drawn into one of six mask groups (7% each) or none.
"""

from __future__ import annotations

import json
import math

import pytest
import torch

from audit.measure import localization as L
from graphstore.errors import AuditError

HIDDEN, INTER = 64, 176
FORGET, RETAIN = {0, 2, 4}, {1, 3, 5}


def llama_shapes(layers: int = 2) -> dict[str, tuple[int, int]]:
    shapes = {}
    for i in range(layers):
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            shapes[f"model.layers.{i}.self_attn.{proj}.weight"] = (HIDDEN, HIDDEN)
        shapes[f"model.layers.{i}.mlp.gate_proj.weight"] = (INTER, HIDDEN)
        shapes[f"model.layers.{i}.mlp.up_proj.weight"] = (INTER, HIDDEN)
        shapes[f"model.layers.{i}.mlp.down_proj.weight"] = (HIDDEN, INTER)
    return shapes


def planted(seed: int = 0):
    """pre, injected (pre moved inside the forget and retain masks), groups (six groups of 7%)."""
    gen = torch.Generator().manual_seed(seed)
    pre, injected, groups = {}, {}, {}
    for name, shape in llama_shapes().items():
        u = torch.rand(shape, generator=gen)
        groups[name] = torch.where(u < 0.42, (u / 0.07).floor().long(), torch.full(shape, -1))
        pre[name] = torch.randn(shape, generator=gen) * 0.02
        masked = groups[name] >= 0
        injected[name] = pre[name] + masked * torch.randn(shape, generator=gen) * 0.01
    return pre, injected, groups


def away_from_zero(shape, gen, low=0.1):
    """Nonzero noise: a random sign times a magnitude in [low, low + 1)."""
    sign = torch.randint(0, 2, shape, generator=gen) * 2 - 1
    return sign * (low + torch.rand(shape, generator=gen))


def cat(groups):
    return torch.cat([g.reshape(-1) for g in groups.values()])


def brute_auc(scores: list[float], labels: list[int]) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


# --- AUC --------------------------------------------------------------------------------------

def test_auc_by_hand():
    # Positives 0.35 and 0.8, negatives 0.1 and 0.4: 0.35 beats 0.1 only, 0.8 beats both: 3/4.
    assert L.roc_auc(torch.tensor([0.1, 0.4, 0.35, 0.8]), torch.tensor([0, 0, 1, 1])) == 0.75
    # Positives {1, 3}, negatives {1, 2}: 1~1 is 1/2, 1<2 is 0, 3 beats both: 2.5 / 4.
    assert L.roc_auc(torch.tensor([1.0, 1.0, 2.0, 3.0]), torch.tensor([1, 0, 0, 1])) == 0.625


@pytest.mark.parametrize("seed", range(6))
def test_auc_matches_every_pair(seed):
    gen = torch.Generator().manual_seed(seed)
    n = 40 + 7 * seed
    scores = torch.randint(0, 6, (n,), generator=gen).double() * 0.5 - 1.0   # many ties, negatives, -0.0
    labels = torch.rand(n, generator=gen) < 0.3
    expected = brute_auc(scores.tolist(), labels.long().tolist())
    assert L.roc_auc(scores, labels) == pytest.approx(expected, abs=1e-12)


def test_auc_undefined_with_one_class_and_refuses_nan():
    assert L.roc_auc(torch.tensor([1.0, 2.0]), torch.tensor([1, 1])) is None
    assert L.roc_auc(torch.tensor([1.0, 2.0]), torch.tensor([0, 0])) is None
    with pytest.raises(AuditError, match="NaN"):
        L.roc_auc(torch.tensor([1.0, math.nan]), torch.tensor([0, 1]))


# --- per-weight scores ------------------------------------------------------------------------

def test_scores_follow_their_formulas():
    pre = torch.tensor([0.0, 1.0, 2.0, 3.0], dtype=torch.float64)
    inj = torch.tensor([1.0, 1.0, 1.0, 3.5], dtype=torch.float64)
    unl = torch.tensor([0.0, 2.0, 1.5, 3.5], dtype=torch.float64)
    # Δ_inj = [1, 0, -1, 0.5], Δ_unl = [-1, 1, 0.5, 0], |W_unl - W_pre| = [0, 1, 0.5, 0.5]
    assert L.magnitude(inj, unl).tolist() == [1.0, 1.0, 0.5, 0.0]
    assert L.signrev(pre, inj, unl).tolist() == [1.0, -0.0, 0.5, -0.0]
    assert L.reversal(pre, inj, unl).tolist() == pytest.approx([1 / (1 + 1e-10), -1 / 1e-10, 0.5 / (1 + 1e-10), 0.0])
    assert L.dirreversal(pre, inj, unl).tolist() == pytest.approx([1 / (1 + 1e-10), 0.0, 0.5 / (1 + 1e-10), 0.0])
    change, ctrl = torch.tensor([1.0, 0.0, 0.5, 2.0]), torch.tensor([3.0, 0.0, 0.5, 0.0])
    assert L.contrast(change, ctrl).tolist() == [-2.0, 0.0, 0.0, 2.0]
    assert L.contrastnorm(change, ctrl).tolist() == [-0.5, 0.0, 0.0, 1.0]
    assert L.eratio(change, ctrl).tolist() == pytest.approx([1 / 3, 0.0, 1.0, 2.0 / 1e-10])
    assert L.compnorm(change, ctrl).tolist() == pytest.approx([1 / 0.875, 0.0, 0.5 / 0.875, 2 / 0.875])
    # Ranks of [0, 0, 1, 2] with ties averaged: 0.5, 0.5, 2, 3 (from 0), over n - 1 = 3.
    ranked = L.qtile(torch.tensor([[0.0, 2.0], [0.0, 1.0]]))
    assert ranked.shape == (2, 2) and ranked.reshape(-1).tolist() == pytest.approx([1 / 6, 1.0, 1 / 6, 2 / 3])
    assert L.layernorm(torch.tensor([2.0]), 0.0).tolist() == [2.0]


def test_layer_component_and_layernorm_groups():
    assert L.layer_component("model.layers.3.self_attn.q_proj.weight") == (3, "attention")
    assert L.layer_component("model.layers.12.mlp.down_proj.weight") == (12, "mlp")
    assert L.layer_component("base_model.model.model.layers.0.mlp.up_proj.base_layer.weight") == (0, "mlp")
    assert L.layer_component("lm_head.weight") == (None, None)
    gen = torch.Generator().manual_seed(1)
    changes = {name: torch.rand(shape, generator=gen) for name, shape in llama_shapes().items()}
    stds = L.layernorm_stds(changes.items())
    for layer in (0, 1):
        for component, key in (("attention", "self_attn"), ("mlp", "mlp")):
            pooled = torch.cat([c.reshape(-1).double() for n, c in changes.items() if f"{layer}.{key}." in n])
            assert stds[(layer, component)] == pytest.approx(float(pooled.std(unbiased=False)), rel=1e-9)


# --- the measure on planted updates -----------------------------------------------------------

def test_update_inside_forget_mask_scores_one():
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(2)
    unlearned = {n: w + torch.isin(groups[n], torch.tensor(sorted(FORGET))) * away_from_zero(w.shape, gen)
                 for n, w in injected.items()}
    result = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN)
    assert result.auc_magnitude == 1.0
    assert result.auc_by_score["qtile"] == 1.0 and result.auc_by_score["layernorm"] == 1.0
    assert result.auc_composite > 0.99      # out of fold, a separating feature still separates
    assert result.auc == 1.0 and not result.sampled and result.weights == cat(groups).numel()
    assert result.forget_share == pytest.approx(float(torch.isin(cat(groups), torch.tensor([0, 2, 4])).double().mean()))


def test_dense_random_update_scores_one_half():
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(3)
    unlearned = {n: w + torch.randn(w.shape, generator=gen) for n, w in injected.items()}
    # Without an injection footprint (pre = injected) every score is noise, the composite too:
    # out of fold, ten noise features do not add up to a detector.
    blind = L.localization(injected, injected, unlearned, groups, FORGET, RETAIN)
    assert blind.weights > 95_000
    for score, auc in blind.auc_by_score.items():
        assert auc == pytest.approx(0.5, abs=0.03), score
    assert blind.auc_unified_by_score["magnitude"] == pytest.approx(0.5, abs=0.03)
    assert blind.auc_composite == pytest.approx(0.5, abs=0.03)
    # With the planted injection (masked weights only), the magnitude family still says 0.5, but
    # the reversal family divides by |Δ_inj|, which is larger inside the masks: it finds the mask
    # although the unlearning ignored it. Hence the magnitude AUC beside the best-of AUC.
    seen = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN, composite=False)
    for score in L.MAGNITUDE_SCORES:
        assert seen.auc_by_score[score] == pytest.approx(0.5, abs=0.03), score
    assert seen.auc_by_score["reversal"] > 0.6 and seen.auc > 0.6


def test_update_outside_forget_mask_scores_zero_or_half_the_retain_share():
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(4)
    ids = cat(groups)
    n_retain, n_none = int(torch.isin(ids, torch.tensor([1, 3, 5])).sum()), int((ids == -1).sum())
    # Every non-forget weight moves, every forget weight stays: all pairs lost, AUC 0 exactly.
    outside = {n: w + (~torch.isin(groups[n], torch.tensor([0, 2, 4]))) * away_from_zero(w.shape, gen)
               for n, w in injected.items()}
    assert L.localization(pre, injected, outside, groups, FORGET, RETAIN, composite=False).auc_magnitude == 0.0
    # Only weights in no group move: forget weights tie with retain weights (Δ = 0, 1/2 a pair) and
    # lose to the rest, so AUC = (1/2 · n_retain) / (n_retain + n_none).
    unmasked = {n: w + (groups[n] == -1) * away_from_zero(w.shape, gen) for n, w in injected.items()}
    result = L.localization(pre, injected, unmasked, groups, FORGET, RETAIN, composite=False)
    assert result.auc_magnitude == pytest.approx(0.5 * n_retain / (n_retain + n_none), abs=1e-12)
    assert result.auc_unified_by_score["magnitude"] == 0.0
    assert result.auc_composite is None and result.auc_composite_unified is None     # composite=False


def test_exact_reversal_inside_mask_is_found_by_the_reversal_family():
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(5)
    unlearned = {}
    for n, w in injected.items():
        inj = w - pre[n]
        # Outside the forget mask, a move along the injection (or anywhere, where there was none),
        # larger than any injection: magnitude then favours the wrong weights.
        direction = torch.where(inj != 0, inj.sign(), away_from_zero(w.shape, gen).sign())
        moved = w + direction * (0.5 + torch.rand(w.shape, generator=gen))
        unlearned[n] = torch.where(torch.isin(groups[n], torch.tensor([0, 2, 4])), pre[n], moved)
    result = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN, composite=False)
    for score in ("signrev", "reversal", "dirreversal"):
        assert result.auc_by_score[score] == 1.0, score
    assert result.auc_magnitude < 0.1
    assert result.auc == 1.0 and result.best_score == "signrev"    # first of the ties, in score order


def test_unified_neighbour_and_other_aucs():
    # Group 0 forget, 1 retain, 2 and 3 neighbours, 4 and 5 others. |Δ_unl| in disjoint ranges:
    # group 0 in [3, 4), group 2 in [2, 3), group 5 in [1, 2), no group in [0.5, 1), groups 1, 3, 4 zero.
    pre, injected, groups = planted(seed=6)
    gen = torch.Generator().manual_seed(7)
    ranges = {0: (3.0, 1.0), 2: (2.0, 1.0), 5: (1.0, 1.0), -1: (0.5, 0.5)}     # (start, width)
    unlearned = {}
    for n, w in injected.items():
        size = torch.zeros(w.shape)
        for g, (start, width) in ranges.items():
            size = torch.where(groups[n] == g, start + torch.rand(w.shape, generator=gen) * width * 0.999, size)
        unlearned[n] = w + size * away_from_zero(w.shape, gen).sign()
    result = L.localization(pre, injected, unlearned, groups, {0}, {1}, neighbours={"n2": {2}, "n3": {3}},
                            composite=False)
    ids = cat(groups)
    count = {g: int((ids == g).sum()) for g in range(-1, 6)}
    assert result.auc_magnitude == 1.0
    # Unified: forget weights beat every unmasked weight, retain weights (0) lose to all of them.
    assert result.auc_unified_by_score["magnitude"] == pytest.approx(count[0] / (count[0] + count[1]), abs=1e-12)
    assert result.auc_neighbours == {"n2": 1.0, "n3": 0.0}
    # Others = groups 1, 4, 5 (retain is neither forget nor neighbour): only group 5 beats the unmasked.
    assert result.auc_others == pytest.approx(count[5] / (count[1] + count[4] + count[5]), abs=1e-12)
    props = result.as_props()
    assert json.loads(json.dumps(props)) == props
    assert props["localization_auc_neighbours"] == {"n2": 1.0, "n3": 0.0}
    assert props["localization_auc_unified_magnitude"] == round(count[0] / (count[0] + count[1]), 4)


def test_contrast_scores_with_a_control():
    # The method's generic change differs a lot from weight to weight (log-normal, σ = 2) and is
    # the same in the control run; in the masked run forget weights move 1.5 times as far. Magnitude
    # barely sees it (AUC ≈ Φ(ln 1.5 / (2·√2)) ≈ 0.56); against the control it is plain.
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(8)
    generic = {n: (2 * torch.randn(w.shape, generator=gen)).exp() * away_from_zero(w.shape, gen)
               for n, w in injected.items()}
    factor = {n: 1 + 0.5 * torch.isin(groups[n], torch.tensor([0, 2, 4])) for n in injected}
    unlearned = {n: w + generic[n] * factor[n] for n, w in injected.items()}
    control = (injected, {n: w + generic[n] for n, w in injected.items()})
    result = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN, control=control, composite=False)
    assert set(result.auc_by_score) == set(L.MAGNITUDE_SCORES + L.REVERSAL_SCORES + L.CONTRAST_SCORES)
    assert result.auc_magnitude < 0.65
    for score in ("contrastnorm", "eratio"):      # 0.2 and 1.5 inside the forget mask, 0 and 1 outside
        assert result.auc_by_score[score] > 0.99, score
    without = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN, composite=False)
    assert "contrast" not in without.auc_by_score and without.auc_magnitude == result.auc_magnitude


def test_refuses_what_does_not_fit():
    pre, injected, groups = planted()
    name = next(iter(groups))
    with pytest.raises(AuditError, match="must be disjoint"):
        L.localization(pre, injected, injected, groups, {0, 1}, {1})
    with pytest.raises(AuditError, match="unlearned weights have nothing for"):
        L.localization(pre, injected, {}, groups, FORGET, RETAIN)
    with pytest.raises(AuditError, match="integer ids"):
        L.localization(pre, injected, injected, {name: groups[name].float()}, FORGET, RETAIN)
    with pytest.raises(AuditError, match=r"control unlearned weights have shape \(3,\)"):
        L.localization(pre, injected, injected, groups, FORGET, RETAIN, control=(injected, {name: torch.zeros(3)}))


# --- sampling ---------------------------------------------------------------------------------

def test_stratified_sample_counts():
    sample = L.stratified_sample({"a": 1000, "b": 3000, "c": 6000}, 1000, seed=0)
    assert {k: v.numel() for k, v in sample.items()} == {"a": 100, "b": 300, "c": 600}
    for name, n in (("a", 1000), ("b", 3000), ("c", 6000)):
        idx = sample[name]
        assert idx.unique().numel() == idx.numel() and 0 <= int(idx.min()) and int(idx.max()) < n
    # floor(7 · 10 / 20) = 3, floor(13 · 10 / 20) = 6.
    assert {k: v.numel() for k, v in L.stratified_sample({"a": 7, "b": 13}, 10).items()} == {"a": 3, "b": 6}
    assert L.stratified_sample({"a": 7}, 7) is None
    again = L.stratified_sample({"a": 1000, "b": 3000, "c": 6000}, 1000, seed=0)
    assert all(torch.equal(sample[k], again[k]) for k in sample)
    other = L.stratified_sample({"a": 1000, "b": 3000, "c": 6000}, 1000, seed=1)
    assert not torch.equal(sample["c"], other["c"])


def test_sampled_auc_is_close_to_the_full_auc():
    pre, injected, groups = planted()
    gen = torch.Generator().manual_seed(9)
    unlearned = {n: w + torch.randn(w.shape, generator=gen)
                 * (1 + 0.5 * torch.isin(groups[n], torch.tensor([0, 2, 4]))) for n, w in injected.items()}
    full = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN)
    part = L.localization(pre, injected, unlearned, groups, FORGET, RETAIN, max_weights=20_000, seed=1)
    total = full.weights
    assert part.sampled and part.total_weights == total
    assert part.weights == sum(g.numel() * 20_000 // total for g in groups.values())
    assert 0.55 < full.auc_magnitude < 0.75
    assert part.auc_magnitude == pytest.approx(full.auc_magnitude, abs=0.02)
    assert part.auc_by_score["qtile"] == pytest.approx(full.auc_by_score["qtile"], abs=0.02)
    assert part.auc_composite == pytest.approx(full.auc_composite, abs=0.02)


# --- composite --------------------------------------------------------------------------------

def test_composite_combines_two_weak_features():
    gen = torch.Generator().manual_seed(10)
    n = 4000
    y = torch.rand(n, generator=gen) < 0.3
    u = torch.randn(n, generator=gen) * 2
    # Each feature alone: AUC = Φ(0.5 / (2·√2)) ≈ 0.57; their sum is y plus small noise.
    x1 = u + 0.5 * y + 0.05 * torch.randn(n, generator=gen)
    x2 = -u + 0.5 * y + 0.05 * torch.randn(n, generator=gen)
    auc1, auc2 = L.roc_auc(x1, y), L.roc_auc(x2, y)
    assert auc1 < 0.65 and auc2 < 0.65
    composite = L.roc_auc(L.composite_scores(torch.stack([x1, x2], 1), y), y)
    assert composite > 0.99


def test_composite_is_out_of_fold():
    # 12 features of pure noise on 300 rows: a classifier scored on its own training rows looks
    # better than chance; scored out of fold, it does not.
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(300, 12, generator=gen)
    y = torch.rand(300, generator=gen) < 0.5
    w = L.fit_logistic((x - x.mean(0)) / x.std(0, unbiased=False), y)
    in_sample = L.roc_auc(((x - x.mean(0)) / x.std(0, unbiased=False)).double() @ w[:-1], y)
    out_of_fold = L.roc_auc(L.composite_scores(x, y, seed=0), y)
    assert in_sample > 0.6
    assert abs(out_of_fold - 0.5) < 0.08 and out_of_fold < in_sample - 0.05


def test_logistic_regression_reaches_its_optimum():
    # At sklearn's optimum the gradient C·Xᵀ(p − y) + w (intercept unpenalised) vanishes.
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(500, 3, generator=gen).double()
    y = (x @ torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) + torch.randn(500, generator=gen).double()) > 0
    w = L.fit_logistic(x, y)
    x1 = torch.cat([x, torch.ones(500, 1, dtype=torch.float64)], 1)
    grad = x1.T @ (torch.sigmoid(x1 @ w) - y.double()) + torch.cat([w[:-1], torch.zeros(1, dtype=torch.float64)])
    assert grad.abs().max() < 1e-6


def test_folds_are_stratified():
    y = torch.arange(103) % 4 == 0     # 26 positives, 77 negatives
    fold = L.stratified_folds(y, 5, seed=3)
    for f in range(5):
        assert int((y & (fold == f)).sum()) in (5, 6) and int((~y & (fold == f)).sum()) in (15, 16)
