"""A run's leakage relationships for Neo4j Browser (audit/results/leakage.py), checked against the
stored EdgeResults read back with Cypher."""

from __future__ import annotations

from click.testing import CliRunner

from audit.measure.leakage import LeakageThresholds
from cli.main import cli
from conftest import small_pistol_run

EDGES = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4"), ("2", "5")]
TYPES = {"leaked": "LEAKED", "partly_forgotten": "PARTLY_FORGOTTEN", "forgotten": "FORGOTTEN", "damaged": "DAMAGED"}


def expected(store, run, t: LeakageThresholds) -> dict:
    """Statuses recomputed here from the raw EdgeResult values."""
    rows = store.read("MATCH (:Run {key: $run})-[:HAS_RESULT]->(x:EdgeResult) RETURN x.edge AS edge, x.role AS role, "
                      "x.rouge1_before AS before, x.rouge1_after AS after", run=run)
    out = {}
    for r in rows:
        if r["role"] == "forget":
            out[r["edge"]] = ("LEAKED" if r["after"] >= t.leaked else "FORGOTTEN" if r["after"] <= t.forgotten
                              else "PARTLY_FORGOTTEN")
        elif r["before"] - r["after"] >= t.damaged:
            out[r["edge"]] = "DAMAGED"
    return out


def written(store, run) -> dict:
    rows = store.read("MATCH (:Entity {graph: 'leak'})-[l:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED]->() "
                      "WHERE l.run = $run RETURN l.edge AS edge, type(l) AS type, l.caption AS caption, "
                      "l.score AS score", run=run)
    assert len({r["edge"] for r in rows}) == len(rows)   # one per edge
    for r in rows:
        assert r["caption"] == f"{'-' if r['type'] == 'DAMAGED' else ''}{r['score']:.2f}"
    return {r["edge"]: r["type"] for r in rows}


def test_a_run_writes_its_leakage_for_the_browser(store, store_args, run_cache, tmp_path):
    small_pistol_run(store, tmp_path, run_cache, "leak", "leak-ga", EDGES, seed=4)
    assert written(store, "leak-ga") == expected(store, "leak-ga", LeakageThresholds())
    assert any(t in ("LEAKED", "PARTLY_FORGOTTEN", "FORGOTTEN") for t in written(store, "leak-ga").values())

    # rewritten with other thresholds: the same edges, other types, the old ones gone
    strict = LeakageThresholds(leaked=0.99, forgotten=0.98, damaged=0.01)
    result = CliRunner().invoke(cli, ["leakage", "--run", "leak-ga", "--leaked", "0.99", "--forgotten", "0.98",
                                      "--damaged", "0.01", *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert written(store, "leak-ga") == expected(store, "leak-ga", strict)
    counts = {line.split()[0]: int(line.split()[1]) for line in result.output.splitlines()[2:7]}
    assert counts["damaged"] == sum(t == "DAMAGED" for t in expected(store, "leak-ga", strict).values())
    assert store.read("MATCH (r:Run {key: 'leak-ga'}) RETURN r.leakage_thresholds AS t")[0]["t"]

    # deleting the run removes its leakage relationships, and nothing else
    facts = store.read("MATCH (:Entity {graph: 'leak'})-[f:FACT]->() RETURN count(f) AS n")[0]["n"]
    assert CliRunner().invoke(cli, ["runs", "leak-ga", "--delete", *store_args]).exit_code == 0
    assert written(store, "leak-ga") == {}
    assert store.read("MATCH (:Entity {graph: 'leak'})-[f:FACT]->() RETURN count(f) AS n")[0]["n"] == facts


def test_leakage_of_an_unknown_run_is_refused(store, store_args):
    result = CliRunner().invoke(cli, ["leakage", "--run", "nope", *store_args])
    assert result.exit_code == 1 and "Error: no run 'nope'" in result.output
