"""Variance components of a nested design (audit.experiment.stats.components), against hand
computation and, for balanced groups, the identity sigma^2_between = var(group means) - MSW / n."""

import random
import statistics

import pytest

from audit.experiment.stats import components


def test_balanced_components_by_hand():
    # three injected models, three unlearning seeds each: means 2, 5, 8; grand mean 5
    # MSB = 3 * (9 + 0 + 9) / 2 = 27; MSW = (1 + 0 + 1) * 3 / 6 = 1; n0 = 3
    c = components([1, 2, 3, 4, 5, 6, 7, 8, 9], ["a"] * 3 + ["b"] * 3 + ["c"] * 3)
    assert (c.models, c.runs) == (3, 9)
    assert c.within_models == pytest.approx(1.0)
    assert c.between_models == pytest.approx(26 / 3)
    assert c.share_between() == pytest.approx((26 / 3) / (26 / 3 + 1))
    # interval over the three model means 2, 5, 8: sd 3, t(0.975, 2) = 4.3027
    assert c.mean == pytest.approx(5.0)
    assert c.high - c.mean == pytest.approx(4.302653 * 3 / 3 ** 0.5, rel=1e-5)


def test_unbalanced_components_by_hand():
    # a: 0, 2 (mean 1); b: 3; c: 5, 7, 6 (mean 6); grand mean 23/6
    # SSB = 2(1 - 23/6)^2 + (3 - 23/6)^2 + 3(6 - 23/6)^2 = 185/6; MSB = 185/12
    # SSW = 2 + 0 + 2 = 4; MSW = 4/3; n0 = (6 - 14/6) / 2 = 11/6
    c = components([0, 2, 3, 5, 7, 6], ["a", "a", "b", "c", "c", "c"])
    assert c.within_models == pytest.approx(4 / 3)
    assert c.between_models == pytest.approx((185 / 12 - 4 / 3) / (11 / 6))
    assert c.mean == pytest.approx((1 + 3 + 6) / 3)   # each model weighs the same


def test_balanced_components_match_the_variance_of_the_means():
    rng = random.Random(7)
    groups, values = [], []
    for model in range(4):
        shift = rng.gauss(0, 2)
        for _ in range(16):
            groups.append(model)
            values.append(shift + rng.gauss(0, 0.5))
    c = components(values, groups)
    by = [[v for v, g in zip(values, groups) if g == m] for m in range(4)]
    msw = statistics.fmean(statistics.variance(v) for v in by)
    expected = statistics.variance([statistics.fmean(v) for v in by]) - msw / 16
    assert c.within_models == pytest.approx(msw)
    assert c.between_models == pytest.approx(max(0.0, expected))


def test_negative_estimate_is_zero_and_single_groups_have_no_components():
    # the models' means are equal, the seeds spread: MSB = 0 < MSW
    c = components([0, 2, 2, 0], ["a", "a", "b", "b"])
    assert c.between_models == 0.0 and c.within_models == pytest.approx(2.0) and c.share_between() == 0.0
    one = components([0.1, 0.3], ["a", "a"])
    assert one.between_models is None and one.low is None and one.mean == pytest.approx(0.2)
    assert components([], []) is None
    assert components([1.0, None, 2.0], ["a", "b", "c"]).models == 2   # None values are dropped
