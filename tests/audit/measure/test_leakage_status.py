"""Leakage statuses and borderline flags (audit/measure/leakage.py), by hand."""

from __future__ import annotations

import pytest

from audit.measure.leakage import LeakageThresholds, borderline, classify
from graphstore.errors import ConfigError


def test_statuses_by_hand():
    t = LeakageThresholds()
    assert classify({"role": "forget", "rouge1_after": 0.8}, t) == (0.8, "leaked")
    assert classify({"role": "forget", "rouge1_after": 0.5}, t) == (0.5, "partly_forgotten")
    assert classify({"role": "forget", "rouge1_after": 0.2}, t) == (0.2, "forgotten")
    assert classify({"role": "forget"}, t) == (None, None)                       # not unlearned (yet)
    assert classify({"role": "retain", "rouge1_before": 1.0, "rouge1_after": 0.7}, t) == (pytest.approx(0.3), "damaged")
    assert classify({"role": "retain", "rouge1_before": 1.0, "rouge1_after": 0.9}, t) == (pytest.approx(0.1), "kept")
    # a sweep's retained edge: its recall averaged over the other edges' unlearnings
    assert classify({"role": "retain", "rouge1_before": 0.9, "retained_rouge1_after": 0.5}, t)[1] == "damaged"
    with pytest.raises(ConfigError):
        LeakageThresholds(leaked=0.2, forgotten=0.5)


def test_borderline_by_hand():
    t = LeakageThresholds()   # forgotten 0.2, leaked 0.8, damaged 0.2, margin 0.05
    assert borderline("forget", 0.23, t) == "forgotten"
    assert borderline("forget", 0.15, t) == "forgotten"
    assert borderline("forget", 0.25, t) == "forgotten"          # exactly one margin away counts
    assert borderline("forget", 0.26, t) is None
    assert borderline("forget", 0.5, t) is None
    assert borderline("forget", 0.78, t) == "leaked"
    assert borderline("retain", 0.17, t) == "damaged"
    assert borderline("retain", 0.0, t) is None
    assert borderline("forget", None, t) is None
    assert borderline("forget", 0.23, LeakageThresholds(margin=0.0)) is None
    # margins overlapping two thresholds: the nearer one
    assert borderline("forget", 0.44, LeakageThresholds(forgotten=0.4, leaked=0.5, margin=0.1)) == "forgotten"
    with pytest.raises(ConfigError):
        LeakageThresholds(margin=0.5)
