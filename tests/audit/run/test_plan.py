"""The plan of a run: everything checked and settled, nothing written; the settings digest
keeps the two back-compatibility rules (QA training and no checks leave the digest as it was)."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from audit.config import InjectionConfig, ResurfacingConfig, TrainingDataConfig, UnlearnConfig
from audit.run.methods import default_unlearn_lr
from audit.run.plan import plan, resurfacing_settings, training_settings
from audit.run.request import RunRequest
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.errors import ConfigError
from graphstore.ingest import write_graph
from conftest import store_checksum

EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4")]


@pytest.fixture()
def graph(store, tmp_path):
    path = tmp_path / "plan.json"
    write_dataset(generate_pistol(EDGES, seed=3), path)
    write_graph(store, load_pistol(path, graph="plan"))
    return "plan"


def request(tmp_path, **overrides) -> RunRequest:
    return RunRequest(graph="plan", select="top-degree:2", method="ga", device="cpu", equivalence=None,
                      cache_dir=tmp_path / "cache", injection=InjectionConfig(), **overrides)


def digest(settings: dict) -> str:
    # the digest as runs have always stored it, computed here by hand
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


def test_qa_training_and_no_checks_add_nothing_to_the_settings():
    assert training_settings(TrainingDataConfig()) == {}
    assert resurfacing_settings(ResurfacingConfig()) == {}
    text = TrainingDataConfig(train_on="passages")
    assert training_settings(text) == {"training_config": dataclasses.asdict(text)}
    checks = ResurfacingConfig(checks=("relearn",))
    assert resurfacing_settings(checks) == {"resurfacing_config": dataclasses.asdict(checks)}


def test_a_plan_settles_the_run_and_writes_nothing(store, graph, tmp_path):
    before = store_checksum(store)
    p = plan(store, request(tmp_path, run_id="planned"))
    assert store_checksum(store) == before
    assert p.key == "planned" and p.run_dir == tmp_path / "cache" / "runs" / "planned"
    # top-degree:2 by hand (edge degree: the other edges at its two ends): 0_1 has 3, 0_2 and 0_3
    # have 2 (tie by key), 1_4 has 1
    assert p.forget == ["plan/0_1", "plan/0_2"]
    assert p.train_retain == ["plan/0_3", "plan/1_4"] or sorted(p.train_retain) == ["plan/0_3", "plan/1_4"]
    assert p.given_lr is None and p.request.unlearn.lr == default_unlearn_lr("ga", "scratch:tiny")
    assert "default for ga" in p.lr_source
    # a QA run without checks: neither back-compatible setting is there, and the digest is that
    # of the settings as written before they existed
    assert "training_config" not in p.settings and "resurfacing_config" not in p.settings
    assert p.settings_sha256 == digest(p.settings)
    assert p.start_props()["mode"] == "joint" and p.start_props()["retain_edges"] == len(p.train_retain)


def test_checks_and_a_given_rate_change_the_plan(store, graph, tmp_path):
    plain = plan(store, request(tmp_path))
    checked = plan(store, request(tmp_path, resurfacing=ResurfacingConfig(checks=("relearn",))))
    assert checked.settings["resurfacing_config"]["checks"] == ("relearn",)
    assert {k: v for k, v in checked.settings.items() if k != "resurfacing_config"} == plain.settings
    assert checked.settings_sha256 != plain.settings_sha256
    given = plan(store, request(tmp_path, unlearn=UnlearnConfig(lr=1e-3)))
    assert given.given_lr == 1e-3 and given.lr_source == "given"


def test_a_plan_refuses_before_anything_is_written(store, graph, tmp_path):
    before = store_checksum(store)
    with pytest.raises(ConfigError, match="eval-batch-size 0"):
        plan(store, request(tmp_path, eval_batch_size=0))
    with pytest.raises(ConfigError):
        plan(store, dataclasses.replace(request(tmp_path), graph="nowhere"))
    assert store_checksum(store) == before
