"""The same answers on both engines (docs/schema.md, "Engines").

The same builds go into the embedded engine and into Neo4j 5.26, and what Cypher computed on
each — node and edge degrees, components, densities, forget/retain redundancy, a seeded run's
per-edge results — is compared value for value. The structure itself is checked against
networkx in test_build_structure.py; here the reference is the other engine.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.build import TextSource, build_graph
from audit.results import repository as R
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.topology import build_topology
from graphstore import ConnectionSettings, GraphStore
from graphstore.ingest import write_graph

from conftest import REPO, pistol_file, small_pistol_run

ENTITIES = """
MATCH (e:Entity {graph: $graph})
RETURN e.key AS key, e.degree AS degree, e.component AS component ORDER BY key
"""
FACTS = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
RETURN f.key AS key, h.key AS head, t.key AS tail, f.edge_degree AS edge_degree, f.component AS component,
       f.component_density AS density, f.split AS split, f.redundant AS redundant,
       f.linked_in_retain AS linked, f.entities_in_retain_text AS in_text
ORDER BY key
"""
COMPONENTS = """
MATCH (c:Component {graph: $graph})
RETURN c.index AS index, c.nodes AS nodes, c.edges AS edges, c.density AS density ORDER BY index
"""


@pytest.fixture(scope="module")
def both(store_dir, neo4j_server):
    """One open store on each engine, emptied: (embedded, neo4j)."""
    embedded = GraphStore.open(ConnectionSettings.resolve(store_dir=store_dir, environ={}))
    neo4j = GraphStore.open(ConnectionSettings.resolve(uri=neo4j_server.uri, password=neo4j_server.password,
                                                       environ={}))
    for store in (embedded, neo4j):
        store.write("MATCH (n) DETACH DELETE n")
    yield embedded, neo4j
    for store in (embedded, neo4j):
        store.write("MATCH (n) DETACH DELETE n")
        store.close()


def structure(store, graph: str) -> dict:
    return {name: store.read(query, graph=graph) for name, query in
            (("entities", ENTITIES), ("facts", FACTS), ("components", COMPONENTS))}


def assert_same(a, b, path="") -> None:
    """Equal, floats to 1e-12 relative (both engines compute in doubles; the order of additions may differ)."""
    if isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (path, a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), (path, sorted(a.keys() ^ b.keys()))
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("name", ["sample_data_1.json", "sample_data_2.json"])
def test_real_pistol_datasets_have_the_same_structure_on_both_engines(both, name):
    graph = load_pistol(pistol_file(name))
    summaries = [write_graph(store, graph) for store in both]
    assert summaries[0].components == summaries[1].components
    embedded, neo4j = (structure(store, graph.name) for store in both)
    assert embedded["facts"] and embedded["entities"]
    assert_same(embedded, neo4j)


def test_a_generated_2000_node_graph_has_the_same_structure_on_both_engines(both, tmp_path):
    edges = build_topology("barabasi_albert", 2000, seed=7, m=1)
    path = tmp_path / "ba2000.json"
    write_dataset(generate_pistol(edges, seed=7, employment_fraction=0.3), path)
    graph = load_pistol(path, graph="ba2000")
    for store in both:
        write_graph(store, graph)
    embedded, neo4j = (structure(store, "ba2000") for store in both)
    assert len(embedded["entities"]) == 2000 and len(embedded["facts"]) == len(edges)
    assert_same(embedded, neo4j)


def test_text_corpora_have_the_same_redundancy_on_both_engines(both):
    source = TextSource((REPO / "examples/text/forget.txt",), (REPO / "examples/text/retain.jsonl",))
    for store in both:
        build_graph(store, source, graph="text-engines")
    embedded, neo4j = (structure(store, "text-engines") for store in both)
    assert any(f["redundant"] for f in embedded["facts"]) and not all(f["redundant"] for f in embedded["facts"])
    assert_same(embedded, neo4j)


def test_a_seeded_run_writes_the_same_per_edge_results_on_both_engines(both, tmp_path, run_cache):
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("b", "e"), ("e", "f")]
    tables = []
    for store in both:
        small_pistol_run(store, tmp_path, run_cache, "engines", "engines-ga", edges, seed=3)
        tables.append([dict(row) for row in R.read_results(store, "engines-ga")])
    embedded, neo4j = ({row["edge"]: {k: v for k, v in row.items() if k not in ("started", "finished", "updated")}
                        for row in table} for table in tables)
    assert len(embedded) == len(edges)
    assert_same(embedded, neo4j)


# -- the Neo4j test server itself -------------------------------------------------------------------
PARENT = """
import sys, time
sys.path.append(sys.argv[2])
from pathlib import Path
from neo4j_server.server import Neo4jTestServer
server = Neo4jTestServer(Path(sys.argv[1]))
info = server.start()
print(server.pid, info.bolt_port, flush=True)
time.sleep(600)
"""


def _gone(pid: int, timeout_s: float) -> bool:
    """Whether ``pid`` ended (a zombie its sleeping parent has not reaped counts as ended)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.2)
    return False


def test_the_neo4j_test_server_stops_when_its_parent_dies_or_on_a_signal(neo4j_server, tmp_path):
    """Two servers started at once (their start-ups overlap): one's parent killed, the other's
    JVM sent SIGTERM; both JVMs end and close their ports."""
    parents = {how: subprocess.Popen([sys.executable, "-c", PARENT, str(tmp_path / how.replace(" ", "-")),
                                      str(REPO / "tests")], stdout=subprocess.PIPE, text=True)
               for how in ("parent killed", "SIGTERM")}
    try:
        started = {how: tuple(map(int, parent.stdout.readline().split())) for how, parent in parents.items()}
        os.kill(parents["parent killed"].pid, signal.SIGKILL)
        os.kill(started["SIGTERM"][0], signal.SIGTERM)
        for how, (pid, port) in started.items():
            assert _gone(pid, 90), f"the server JVM {pid} is still running after its {how}"
            with pytest.raises(OSError):     # and its port is closed
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        for parent in parents.values():
            parent.kill()
            parent.wait()


def test_without_java_or_maven_the_neo4j_tests_say_what_is_missing(monkeypatch, tmp_path):
    """What conftest prints when it skips the Neo4j cases (or, with AUDIT_TEST_REQUIRE_NEO4J=1, fails)."""
    from neo4j_server import server

    monkeypatch.setenv("PATH", str(tmp_path))          # no java, no mvn
    assert server.missing() == ("java is not installed: the Neo4j tests need Java 17 and Maven "
                                "(tests/neo4j_server/README.md)")
    monkeypatch.setattr(server, "BUILT", tmp_path / "not-built")
    monkeypatch.setattr(server.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    assert server.missing() == "the Neo4j test server is not built: run `make neo4j-server` (Maven Central, once)"


def test_a_build_past_neo4js_transaction_memory_is_one_line_and_writes_nothing(neo4j_server, tmp_path):
    """A build is one transaction; Neo4j allows a transaction 70 % of its heap (at 1 GB a
    100,000-edge PISTOL build does not fit: bench/bench_engines.py). Here a small heap and a
    small graph: the refusal says what to raise, and nothing is written."""
    from click.testing import CliRunner

    from cli.main import cli
    from neo4j_server.server import Neo4jTestServer

    path = tmp_path / "ba.json"
    write_dataset(generate_pistol(build_topology("barabasi_albert", 6000, seed=1, m=2), seed=1), path)
    server = Neo4jTestServer(tmp_path / "small-heap", heap="256m")
    info = server.start()
    try:
        args = ["--uri", info.uri, "--password", info.password]
        result = CliRunner().invoke(cli, ["build", "--pistol", str(path), *args])
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert "ran out of memory for one transaction" in result.output and "nothing was written" in result.output
        count = CliRunner().invoke(cli, ["query", "MATCH (n) RETURN count(n) AS n", "--format", "json", *args])
        assert json.loads(count.output) == [{"n": 0}]
    finally:
        server.stop()
