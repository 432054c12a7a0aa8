"""Read-only is enforced by the engine before anything is written: `audit query` without
--write, `audit run --cypher` and every selector run as the embedded engine's read-only user
(docs/schema.md, "Read-only"). Each case: refused with one `Error:` line, no traceback, and the
store's checksum unchanged. The writes go through every route the engine offers, nested
transactions included; counters read after the fact are not what refuses them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli.main import cli
from conftest import pistol_file, store_checksum
from graphstore.errors import QueryError

WRITES = [
    "CREATE (:X {v: 1})",
    "MATCH (n:Entity) SET n.x = 1 RETURN count(n)",
    "MATCH (n:Entity) REMOVE n.name RETURN count(n)",
    "MATCH (n:Entity) SET n:Extra RETURN count(n)",
    "MATCH (n:Component) DETACH DELETE n",
    "MATCH ()-[f:FACT]->() DELETE f",
    "MERGE (n:Entity {key: 'new'}) RETURN n",
    "MATCH (n:Entity) CALL { WITH n SET n.x = 1 } IN TRANSACTIONS RETURN 1",
    "UNWIND [1] AS x CALL { CREATE (:X {v: 1}) } IN TRANSACTIONS RETURN 1",
    "MATCH (n:Component {graph: 'sample_data_1'}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN 'x' AS key",
    "UNWIND range(1, 3) AS i CALL { WITH i CREATE (:X {v: i}) } IN TRANSACTIONS OF 1 ROWS RETURN i",
    "FOREACH (i IN [1, 2] | CREATE (:X {v: i}))",
    "MATCH (a:Entity), (b:Entity) WHERE a <> b CREATE (a)-[:NEW]->(b)",
    "CREATE INDEX extra IF NOT EXISTS FOR (n:Entity) ON (n.extra)",
    "MATCH (n:Entity) WITH n LIMIT 1 SET n += {x: 1} RETURN n.key",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row LIMIT 2",
    "LOAD CSV FROM 'file:///etc/passwd' AS row CREATE (:X {line: row[0]})",
    "LOAD CSV FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row",
    "LOAD/* between */CSV FROM 'https://127.0.0.1:9/x.csv' AS row RETURN row",
    "PROFILE CREATE (:X {v: 1}) RETURN 1 AS one",
    "/* a comment */ profile MATCH (n:Entity) SET n.x = 1 RETURN count(n)",
]


@pytest.fixture()
def loaded(store, store_args):
    result = CliRunner().invoke(cli, ["build", "--pistol", str(pistol_file("sample_data_1.json")),
                                      *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return store


@pytest.mark.parametrize("cypher", WRITES)
def test_audit_query_without_write_is_refused_by_the_engine(loaded, store_args, cypher):
    before = store_checksum(loaded)
    result = CliRunner().invoke(cli, ["query", cypher, *store_args])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and len(lines[0]) <= 300, result.output
    assert "Traceback" not in result.output
    assert ("LOAD CSV is refused in read-only mode" if cypher.startswith("LOAD") or "LOAD CSV" in cypher
            else "runs read-only: the engine refused it") in lines[0]
    assert store_checksum(loaded) == before


@pytest.mark.parametrize("cypher", WRITES[7:10])
def test_run_cypher_selector_cannot_write(loaded, store_args, tmp_path, cypher):
    before = store_checksum(loaded)
    result = CliRunner().invoke(cli, ["run", "--graph", "sample_data_1", "--cypher", cypher, "--device", "cpu",
                                      "--cache-dir", str(tmp_path), *store_args])
    assert result.exit_code == 1 and "runs read-only: the engine refused it" in result.output
    assert store_checksum(loaded) == before
    assert loaded.read("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0


def test_reads_as_the_read_only_user_see_everything(loaded):
    result = loaded.run_query("MATCH (n:Entity {graph: $g}) RETURN count(n) AS n", {"g": "sample_data_1"})
    assert result.rows == [[loaded.read("MATCH (n:Entity {graph: 'sample_data_1'}) RETURN count(n) AS n")[0]["n"]]]
    with pytest.raises(QueryError, match="runs read-only"):
        loaded.read("CREATE (:X)")        # the library's own read path is the read-only user too


def test_write_mode_writes_and_nested_transactions_commit(loaded):
    result = loaded.run_query("UNWIND range(1, 3) AS i CALL { WITH i CREATE (:Scratch {v: i}) } IN TRANSACTIONS "
                              "OF 1 ROWS RETURN count(*) AS n", allow_write=True)
    assert result.rows == [[3]]
    assert loaded.read("MATCH (n:Scratch) RETURN count(n) AS n")[0]["n"] == 3


def test_load_csv_from_files_is_off_on_the_embedded_server_even_with_write(loaded):
    """Embedded: file: URLs are off. Neo4j (as packaged): they resolve under its import folder
    only, so /etc/passwd is not read either (docs/schema.md, "Engines")."""
    refused = ("LOAD CSV from file: URLs is off on the embedded server" if loaded.engine == "arcadedb"
               else "Couldn't load the external resource")
    with pytest.raises(QueryError, match=refused):
        loaded.run_query("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row LIMIT 1", allow_write=True)


@pytest.mark.parametrize("cypher", ["SHOW USERS", "CREATE USER mallory SET PASSWORD 'secret-password-1'",
                                    "DROP USER reader", "ALTER USER reader SET PASSWORD 'secret-password-2'"])
def test_user_management_is_refused_read_only_with_a_message_that_says_so(loaded, store_args, cypher):
    """Refused by the engine (embedded: the reader has no security rights; Neo4j: an administration
    command on a user database), in one line that does not blame LOAD CSV, nothing changed."""
    before = store_checksum(loaded)
    result = CliRunner().invoke(cli, ["query", cypher, *store_args])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: "), result.output
    assert "LOAD CSV" not in result.output
    if loaded.engine == "arcadedb":
        assert "users, roles or privileges" in result.output
    assert store_checksum(loaded) == before


def test_a_query_past_the_timeout_is_stopped_by_the_engine(loaded, engine, tmp_path):
    """Each engine stops a statement at AUDIT_QUERY_TIMEOUT (here 1 s) and the one line says so:
    Neo4j through the driver's transaction timeout, the embedded engine through its server's
    command timeout (a server of its own here, started with that setting)."""
    import dataclasses
    import time

    from graphstore import GraphStore
    from graphstore.embedded import EmbeddedServer

    settings = dataclasses.replace(loaded.settings, query_timeout_s=1.0)
    if engine == "embedded":
        settings = dataclasses.replace(settings, store_dir=tmp_path / "store")
    try:
        with GraphStore.open(settings) as store:
            start = time.monotonic()
            with pytest.raises(QueryError, match=r"ran past 1 s and (neo4j|arcadedb) stopped it; nothing was changed"):
                store.run_query("UNWIND range(1, 5000000) AS i UNWIND range(1, 5000000) AS j "
                                "WITH i, j WHERE i < 0 RETURN count(*) AS n")
            assert time.monotonic() - start < 30
            assert store.run_query("RETURN 1 AS one").rows == [[1]]   # the server still answers
    finally:
        if engine == "embedded":
            EmbeddedServer(settings.store_dir).stop()


def test_a_bad_query_timeout_setting_is_one_line(loaded, store_args, monkeypatch):
    monkeypatch.setenv("AUDIT_QUERY_TIMEOUT", "soon")
    result = CliRunner().invoke(cli, ["query", "RETURN 1 AS x", *store_args])
    assert result.exit_code == 1
    assert result.output == "Error: AUDIT_QUERY_TIMEOUT='soon': give seconds, 0 or more (0 = no limit)\n"


def test_a_read_only_query_past_the_row_bound_is_refused(loaded):
    """Rows are held to be printed: a read-only query stops at AUDIT_MAX_ROWS (here 1,000)."""
    import dataclasses

    from graphstore import GraphStore

    with GraphStore.open(dataclasses.replace(loaded.settings, max_rows=1000)) as store:
        assert len(store.run_query("UNWIND range(1, 1000) AS i RETURN i").rows) == 1000
        with pytest.raises(QueryError, match="the query returns more than 1,000 rows; add a LIMIT"):
            store.run_query("UNWIND range(1, 1001) AS i RETURN i")
