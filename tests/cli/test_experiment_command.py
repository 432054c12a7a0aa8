"""`audit experiment FILE --dry-run`: the cells, then what they will cost from the runs in the store
(tests/audit/experiment/test_cost.py checks the estimate itself)."""

from __future__ import annotations

from click.testing import CliRunner

from audit.results import repository as R
from cli.main import cli
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from graphstore.ingest import write_graph

GRID = '[grid]\nselectors = ["top-degree:1"]\nmethods = ["ga"]\nseeds = [0, 1, 2]\n'


def test_dry_run_prices_the_cells_from_earlier_runs(store, store_args, tmp_path):
    path = tmp_path / "g.json"
    write_dataset(generate_pistol([("0", "1"), ("1", "2"), ("2", "3"), ("3", "4")], seed=2), path)
    write_graph(store, load_pistol(path, graph="g4"))   # 4 facts
    spec = tmp_path / "dry.toml"
    spec.write_text('name = "dry"\n[[graphs]]\nname = "g4"\n' + GRID, encoding="utf-8")
    runner = CliRunner()

    before = runner.invoke(cli, ["experiment", str(spec), "--dry-run", *store_args], catch_exceptions=False)
    assert before.exit_code == 0, before.output
    assert before.output.splitlines()[-3:] == [
        "cost, from the wall times of earlier runs in this store (complete runs are skipped):",
        "  3 cell(s) (scratch:tiny, joint): 0 done; no rate for the 3 left: no finished, never-resumed run of "
        "scratch:tiny (joint) on a graph of 2-8 facts in this store",
        "  in all: unknown (none of the 3 run(s) left priced); a rate comes from a finished run: start the "
        "experiment and stop it (Ctrl-C) after its first cell, it resumes there; then --dry-run again"]

    # one earlier run on this graph: 4 facts in 10 min, 150 s per fact
    R.start_run(store, "earlier", {"graph": "g4", "model": "scratch:tiny", "mode": "joint", "method": "npo",
                                   "forget_edges": ["x"], "settings_sha256": "s"})
    R.update_run(store, "earlier", status=R.DONE, started_at="2026-01-05T09:00:00+00:00",
                 ended_at="2026-01-05T09:10:00+00:00")
    after = runner.invoke(cli, ["experiment", str(spec), "--dry-run", *store_args], catch_exceptions=False)
    assert after.exit_code == 0, after.output
    lines = after.output.splitlines()
    assert lines[-4] == "3 cell(s)"
    assert lines[-2:] == [
        "  3 cell(s) (scratch:tiny, joint): 0 done; ~10.0 min each from 1 earlier run(s) of scratch:tiny (joint) "
        "on graphs of 4 facts in this store (earlier): 3 left ≈ 30.0 min",
        "  in all ≈ 30.0 min for the 3 run(s) left"]


def test_dry_run_without_a_reachable_store_still_lists_the_cells(tmp_path):
    spec = tmp_path / "dry.toml"
    spec.write_text('name = "dry"\n[[graphs]]\nname = "g4"\n' + GRID, encoding="utf-8")
    result = CliRunner().invoke(cli, ["experiment", str(spec), "--dry-run", "--uri", "bolt://127.0.0.1:9",
                                      "--user", "neo4j", "--password", "x"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "3 cell(s)" in result.output.splitlines()
    assert result.output.splitlines()[-1].startswith("cost: not estimated, the store is not reachable (")
