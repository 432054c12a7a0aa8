"""Knowledge injection's progress: where it is expected to stop, and the recall its lines show.

The expected stops are worked out by hand from the recall trajectories; the injection is a real
one (a scratch model on a one-edge graph, a few epochs), its lines read off stderr."""

from __future__ import annotations

import pytest

from audit.config import InjectionConfig
from audit.models.load import select_hardware
from audit.run.injection import expected_stop, inject
from audit.run.qa import load_graph_edges
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore import progress as P
from graphstore.ingest import write_graph


@pytest.mark.parametrize("history, expected", [
    # 0.3 a step of 10 epochs: 1.0 is 0.5 / 0.03 = 16.7 epochs after 20, near 36.7: the check of epoch 40 stops it
    ([(10, 0.2), (20, 0.5)], 40),
    # slow: 0.88 / 0.002 = 440 epochs more; capped at 150
    ([(10, 0.10), (20, 0.12)], 150),
    # the last two fell: the trend since the first, 0.3 in 20 epochs, 0.5 / 0.015 = 33.3 after 30 -> 63.3 -> 70
    ([(10, 0.2), (20, 0.6), (30, 0.5)], 70),
    # exactly at a check: 0.4 to 0.7 in 10 epochs, 0.3 more in 10 -> epoch 40, not 50
    ([(20, 0.4), (30, 0.7)], 40),
    ([(10, 0.3), (20, 0.3)], None),   # no rise: cannot be told
    ([(10, 0.3)], None),              # one check: no trend yet
    ([(10, 0.5), (20, 1.0)], 20),     # reached: stops here
    ([], None),
])
def test_the_expected_stop_extrapolates_the_recall_to_the_target(history, expected):
    assert expected_stop(history, target=1.0, eval_every=10, max_epochs=150) == expected


def test_each_progress_line_shows_the_recall_of_its_own_epoch(store, tmp_path, capsys, monkeypatch):
    P.set_quiet(False)
    monkeypatch.setenv("AUDIT_PROGRESS_INTERVAL", "0")
    path = tmp_path / "one.json"
    write_dataset(generate_pistol([("0", "1")], seed=3), path)
    write_graph(store, load_pistol(path, graph="one"))
    edges = load_graph_edges(store, "one")
    config = InjectionConfig(max_epochs=4, eval_every=2, target_rouge1=1.0)
    injected = inject("scratch:tiny", "one", "sha-one", edges, config, select_hardware("cpu"), tmp_path / "cache")

    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("inject one: ")]
    by_epoch = {int(line.split(": ")[1].split("/")[0]): line for line in lines if "/4 epochs" in line}
    assert "min_recall" not in by_epoch[1] and "min_recall" in by_epoch[2]   # checked at 2 and 4, shown at once
    last = f"min_recall {injected.info['min_rouge1']:.3f}"
    assert by_epoch[4].split(", ")[2] == last and lines[-1].startswith("inject one: done, 4 epochs in ")
    assert lines[-1].endswith(last)
    log = injected.info["loss_log"]
    assert [line["epoch"] for line in log] == [1, 2, 3, 4]
    assert all(line["loss"] > 0 and line["seconds"] > 0 for line in log)
    assert f"loss {log[-1]['loss']:.3f}" in by_epoch[4]   # the line's loss is the epoch's mean


def _inject_in_another_process(args) -> tuple[bool, int]:
    edges, cache = args
    injected = inject("scratch:tiny", "one", "sha-one", edges, InjectionConfig(max_epochs=3, eval_every=3),
                      select_hardware("cpu"), cache)
    return injected.cached, len(injected.info["loss_log"])


def test_two_workers_asking_for_one_injected_model_train_it_once(store, tmp_path):
    import multiprocessing

    path = tmp_path / "one.json"
    write_dataset(generate_pistol([("0", "1")], seed=3), path)
    write_graph(store, load_pistol(path, graph="one"))
    edges = dict(load_graph_edges(store, "one"))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_inject_in_another_process, [(edges, tmp_path / "cache")] * 2)
    # one trained it (3 epochs logged), the other waited and found it in the cache
    assert sorted(cached for cached, _ in results) == [False, True]
    assert {epochs for _, epochs in results} == {3}
    assert [p.name for p in (tmp_path / "cache" / "injected").iterdir() if not p.name.startswith(".")] != []
