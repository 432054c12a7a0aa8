"""An experiment's cells on a local Ray cluster: the same results as one process, a killed
worker's cell retried and resumed, and every bad setting refused before anything is written.

A real Ray cluster is started on this machine for each test that needs one (a few seconds);
the expected results come from running the same grid in this process, one cell after another.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.experiment.cells import run_experiment
from audit.experiment.spec import load_spec
from audit.experiment.workers import Workers, embedded_elsewhere, start, stop
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from graphstore.errors import ConfigError, StoreError
from graphstore.store import GraphStore
from graphstore.settings import ConnectionSettings

from conftest import store_checksum

pytest.importorskip("ray")

EDGES = [("0", "1"), ("0", "2"), ("1", "2"), ("2", "3")]
GRID = """
[grid]
selectors = ["edges:0_1"]
methods = ["ga"]
seeds = [0, 1]
lrs = [0.003]

[run]
epochs = 3
equivalence = "none"
inject_max_epochs = 8
inject_target = 0.5
batch_size = 4
"""
RESULTS = """MATCH (x:EdgeResult)<-[:HAS_RESULT]-(r:Run)<-[:HAS_RUN]-(:Experiment {key: $name})
RETURN r.seed AS seed, r.selector AS selector, x.edge AS edge, x.role AS role, x.rouge1_qa_after AS after
ORDER BY seed, selector, edge"""


def experiment(tmp_path: Path, name: str) -> Path:
    dataset = tmp_path / "ray_graph.json"
    if not dataset.exists():
        write_dataset(generate_pistol(EDGES, seed=7), dataset)
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\n[[graphs]]\nname = "rayg"\npistol = "{dataset.name}"\n' + GRID, "utf-8")
    return path


def results(store, name: str) -> list[tuple]:
    return [(r["seed"], r["selector"], r["edge"], r["role"], tuple(r["after"])) for r in store.read(RESULTS, name=name)]


def test_two_workers_give_the_results_of_one_process(store, store_args, settings, tmp_path, monkeypatch):
    import torch

    # the workers' torch on this process's threads: another thread count sums floats in another
    # order, and a near-tie answer could differ on another CPU
    monkeypatch.setenv("AUDIT_THREADS", str(torch.get_num_threads()))
    before = set(_ray_processes())
    cache = tmp_path / "cache"
    run_experiment(store, load_spec(experiment(tmp_path, "inline")), cache, report=lambda line: None)
    result = CliRunner().invoke(cli, ["experiment", str(experiment(tmp_path, "onray")), "--workers", "2",
                                      "--cache-dir", str(cache), "--format", "csv", "--output",
                                      str(tmp_path / "out"), *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "Ray: 1 node(s), 2 CPU(s), no GPU" in result.output
    assert result.output.count("sent to a worker") == 2 and result.output.count(" done in ") == 2
    expected = results(store, "inline")
    assert len(expected) == 2 * len(EDGES) and results(store, "onray") == expected
    runs = store.read("MATCH (:Experiment {key: 'onray'})-[:HAS_RUN]->(r:Run) RETURN r.status AS status")
    assert [r["status"] for r in runs] == ["done"] * 2
    deadline = time.monotonic() + 15   # the cluster started for the run goes with it
    while set(_ray_processes()) - before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert set(_ray_processes()) <= before


def test_a_killed_worker_has_its_cell_retried_and_resumed(store_dir, tmp_path):
    """Once, on the embedded store: Ray's retry and the run lifecycle's resume do not depend on
    the engine (a killed run resumes on both: tests/audit/run/test_run.py; every worker writes
    to either engine: the test above)."""
    settings = ConnectionSettings.resolve(store_dir=store_dir, environ={})
    with GraphStore.open(settings) as store:
        store.write("MATCH (n) DETACH DELETE n")
        _kill_one_worker_of(store, settings, tmp_path)


def _kill_one_worker_of(store, settings, tmp_path) -> None:
    killed: list[int] = []

    def kill_one_worker_mid_cell():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for pid, started in _ray_processes("ray::_cell_task").items():
                if time.monotonic() - started > 3:   # a cell well under way
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one_worker_mid_cell, daemon=True)
    killer.start()
    lines: list[str] = []
    outcome = run_experiment(store, load_spec(experiment(tmp_path, "killed")), tmp_path / "cache",
                             report=lines.append, workers=Workers(count=2), settings=settings)
    killer.join()
    assert len(killed) == 1
    assert (outcome.cells, outcome.ran) == (2, 2)
    runs = store.read("MATCH (:Experiment {key: 'killed'})-[:HAS_RUN]->(r:Run) RETURN r.status AS status")
    assert [r["status"] for r in runs] == ["done"] * 2


@pytest.mark.parametrize("args, message", [
    (["--ray", "127.0.0.1:1"], "Error: --ray 127.0.0.1:1: nothing answers there"),
    (["--ray", "no-port-here"], "Error: --ray 'no-port-here': expected HOST:PORT"),
    (["--workers", "1", "--gpus-per-cell", "1"], "Error: a cell asks for 1 GPU(s) but no node of the cluster has"),
    (["--workers", "1", "--ray", "127.0.0.1:6379"], "Error: give --workers N (a local Ray cluster) or --ray"),
    (["--ray", "[::1]:1"], "Error: --ray [::1]:1: nothing answers there"),
    (["--ray", ""], "Error: --ray needs an address"),
])
def test_a_bad_cluster_setting_is_one_error_before_anything_is_written(store, store_args, tmp_path, args, message):
    before = store_checksum(store)
    result = CliRunner().invoke(cli, ["experiment", str(experiment(tmp_path, "bad")), *args, *store_args])
    assert result.exit_code != 0
    assert result.output.startswith(message), result.output
    assert result.output.count("\n") == 1
    assert store_checksum(store) == before   # not even the experiment's graph was built


def test_a_worker_that_cannot_reach_the_graph_is_refused_before_any_cell():
    unreachable = ConnectionSettings(uri="bolt://127.0.0.1:1", user="neo4j", password="x")
    try:
        with pytest.raises(StoreError, match="a worker on .* cannot reach the graph"):
            start(Workers(count=1), unreachable)
    finally:
        stop()


def test_an_embedded_store_is_refused_with_workers_on_other_machines():
    nodes = [{"NodeID": "a", "NodeManagerAddress": "10.0.0.2"}, {"NodeID": "b", "NodeManagerAddress": "10.0.0.9"}]
    assert embedded_elsewhere(nodes[:1], here="a") == []
    assert embedded_elsewhere(nodes, here="a") == ["10.0.0.9"]
    with pytest.raises(ConfigError, match="either --workers N"):
        Workers()


def _ray_processes(name: str = "ray::") -> dict[int, float]:
    """pid -> when it started (monotonic clock), for processes whose command line starts with ``name``."""
    found = {}
    ticks = os.sysconf("SC_CLK_TCK")
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if cmdline.startswith(name) or (name == "ray::" and ("raylet" in cmdline or "gcs_server" in cmdline)):
            age = uptime - int(stat[19]) / ticks
            found[int(entry.name)] = time.monotonic() - age
    return found
