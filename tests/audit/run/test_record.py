"""A run's folder: its options, environment, loss per epoch and results, on a real small run.

Expected values come from elsewhere than the record: the graph read back with Cypher, the
versions from the packages themselves, the CPU from /proc/cpuinfo read here."""

from __future__ import annotations

import json
import platform
import re

import peft
import pytest
import torch
import transformers

from audit.config import UnlearnConfig
from audit.run.options import read_options
from conftest import small_pistol_run
from graphstore.errors import ConfigError

EDGES = [("0", "1"), ("0", "2"), ("1", "3")]


def cpu_name() -> str:
    try:
        text = open("/proc/cpuinfo", encoding="utf-8", errors="replace").read()
    except OSError:
        return platform.processor() or platform.machine() or "unknown CPU"
    found = re.search(r"^model name\s*:\s*(.+?)\s*$", text, re.M)
    return found.group(1) if found else platform.processor() or platform.machine() or "unknown CPU"


def test_a_run_folder_records_options_environment_losses_and_results(store, engine, tmp_path, run_cache):
    run = small_pistol_run(store, tmp_path, run_cache, "rec", "rec-ga", EDGES, seed=6)
    folder = run_cache / "runs" / run
    node = store.read("MATCH (r:Run {key: $run}) RETURN properties(r) AS p", run=run)[0]["p"]

    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert set(results) == {"run", "summary", "edges"}   # no facts on a PISTOL graph
    assert results["run"]["settings_sha256"] == node["settings_sha256"] and results["run"]["status"] == "done"
    assert results["run"]["unlearn_config"] == json.loads(node["unlearn_config"])   # an object, not text
    # full precision: the very floats the graph holds
    rows = store.read("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult) RETURN x.edge AS edge, "
                      "x.rouge1_after AS after, x.mrr_before AS mrr", run=run)
    assert {e["edge"]: (e["rouge1_after"], e["mrr_before"]) for e in results["edges"]} == \
        {r["edge"]: (r["after"], r["mrr"]) for r in rows}
    assert results["summary"]["forget_rouge1_after"] == node["forget_rouge1_after"]

    options = read_options(folder / "config.toml")   # small_pistol_run's request, defaults resolved
    assert (options["graph"], options["select"], options["method"], options["epochs"], options["lr"]) == \
        ("rec", "top-degree:2", "ga", 8, 3e-3)
    assert (options["inject_max_epochs"], options["inject_target"], options["equivalence"], options["device"]) == \
        (20, 0.6, "none", "cpu")
    assert options["run_id"] == run and options["cache_dir"] == str(run_cache)

    env = json.loads((folder / "environment.json").read_text(encoding="utf-8"))
    assert env["python"] == platform.python_version()
    assert (env["packages"]["torch"], env["packages"]["transformers"], env["packages"]["peft"]) == \
        (torch.__version__, transformers.__version__, peft.__version__)
    assert env["engine"] == ("arcadedb" if engine == "embedded" else "neo4j") and env["engine_version"]
    assert env["cpu"] == cpu_name() and env["device"] == "cpu" and env["gpus"] == []
    threads = env["torch_threads"]
    assert node["hardware"] == env["hardware"] == f"cpu, {threads} thread(s), {cpu_name()} (float32)"

    lines = [json.loads(line) for line in (folder / "loss.jsonl").read_text(encoding="utf-8").splitlines()]
    inject = [line for line in lines if line["phase"] == "inject"]
    unlearn = [line for line in lines if line["phase"] == "unlearn"]
    assert [line["epoch"] for line in inject] == list(range(1, node["injection_epochs"] + 1))
    assert [line["epoch"] for line in unlearn] == list(range(1, 9)) and len(lines) == len(inject) + 8
    assert all(line["loss"] is not None and line["seconds"] > 0 for line in lines)
    # gradient ascent's loss is the forget answers' negative NLL: pushed down, epoch by epoch
    assert unlearn[-1]["loss"] < unlearn[0]["loss"] < 0


def test_a_failed_run_keeps_its_options_and_environment(store, tmp_path, run_cache):
    with pytest.raises(ConfigError, match="LoRA adapters do not fit this model"):
        small_pistol_run(store, tmp_path, run_cache, "rec", "rec-failed", EDGES, seed=6,
                         unlearn=UnlearnConfig(epochs=2, lr=3e-3, lora_targets="nope_proj"))
    status = store.read("MATCH (r:Run {key: 'rec-failed'}) RETURN r.status AS s")[0]["s"]
    folder = run_cache / "runs" / "rec-failed"
    assert status == "failed" and not (folder / "results.json").exists()
    assert read_options(folder / "config.toml")["lora_targets"] == "nope_proj"
    assert json.loads((folder / "environment.json").read_text(encoding="utf-8"))["python"] == platform.python_version()


def test_the_loss_log_keeps_one_line_an_epoch_past_a_line_cut_by_a_kill(tmp_path):
    from audit.run.record import LOSSES, RunRecord

    (tmp_path / LOSSES).write_text('{"phase": "unlearn", "epoch": 1, "loss": 0.5, "seconds": 1.0}\n{"phase": "unl',
                                   encoding="utf-8")
    record = RunRecord(tmp_path)   # a resumed run: epoch 1 logged, epoch 2's line cut
    record.log_loss("unlearn", 1, 0.7, 2.0)   # the checkpoint's epoch again: kept as it was
    record.log_loss("unlearn", 2, 0.25, 1.5)
    lines = (tmp_path / LOSSES).read_text(encoding="utf-8").splitlines()
    assert lines[0] == '{"phase": "unlearn", "epoch": 1, "loss": 0.5, "seconds": 1.0}' and lines[1] == '{"phase": "unl'
    assert json.loads(lines[2]) == {"phase": "unlearn", "epoch": 2, "loss": 0.25, "seconds": 1.5} and len(lines) == 3
    assert record.logged("unlearn") and not record.logged("inject")
