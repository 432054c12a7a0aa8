"""Building graphs into the real embedded server, and their structure checked independently.

Expected values come from networkx over the edge labels of the raw JSON files, or by hand,
never from the code under test.
"""

from __future__ import annotations

import json

import networkx as nx
import pytest

from extract.pistol.load import load_pistol
from graphstore import queries as Q
from graphstore.errors import InputDataError, StoreError
from graphstore.ingest import write_graph
from graphstore.records import EntityRecord, GraphRecord

from conftest import REPO, pistol_file


def reference_graph(path) -> nx.Graph:
    """The graph as the edge labels of the raw file say it, built by networkx."""
    g = nx.Graph()
    for record in json.loads(path.read_text(encoding="utf-8")):
        u, v = record["edge"].split("_")
        g.add_edge(u, v, label=record["edge"])
    return g


def edges_by_label(store, graph):
    return {r["edge"]: r for r in store.read(Q.EDGES_TABLE, graph=graph)}


@pytest.mark.parametrize("name", ["sample_data_1.json", "sample_data_2.json"])
def test_structure_of_the_real_datasets_matches_networkx(store, name):
    path = pistol_file(name)
    summary = write_graph(store, load_pistol(path))
    ref = reference_graph(path)
    got = edges_by_label(store, path.stem)
    assert len(got) == ref.number_of_edges()
    assert summary.components == nx.number_connected_components(ref)

    degree = dict(ref.degree())
    entity_degree = {r["label"]: r["degree"] for r in store.read(
        "MATCH (e:Entity {graph: $g}) RETURN e.label AS label, e.degree AS degree", g=path.stem)}
    assert entity_degree == degree

    # the same partition into components, whatever the numbering
    component_of = {}
    for index, members in enumerate(nx.connected_components(ref)):
        for node in members:
            component_of[node] = index
    seen = {}
    for u, v, data in ref.edges(data=True):
        row = got[data["label"]]
        assert row["edge_degree"] == degree[u] + degree[v] - 1
        assert seen.setdefault(component_of[u], row["component"]) == row["component"]
        members = nx.node_connected_component(ref, u)
        assert row["component_density"] == pytest.approx(nx.density(ref.subgraph(members)))
    assert len(set(seen.values())) == len(seen)


def test_sample_2_has_chain_semi_dense_and_complete_components(store):
    write_graph(store, load_pistol(pistol_file("sample_data_2.json")))
    rows = store.read("MATCH (c:Component {graph: 'sample_data_2'}) RETURN c.nodes AS v, c.edges AS e, c.density AS d ORDER BY d")
    # by hand: chain 10 nodes 9 edges 2*9/90; semi-dense 21 edges 42/90; complete 45 edges
    assert [(r["v"], r["e"]) for r in rows] == [(10, 9), (10, 21), (10, 45)]
    assert [r["d"] for r in rows] == pytest.approx([0.2, 42 / 90, 1.0])


def test_hand_built_graph(store, subset_file):
    # a triangle 20-21-22 and a path 0-1-2, taken from the real file's records
    path = subset_file("sample_data_2.json", {"20_21", "20_22", "21_22", "0_1", "1_2"}, name="hand")
    write_graph(store, load_pistol(path))
    got = edges_by_label(store, "hand")
    # triangle: every node degree 2 -> edge degree 3, density 1; path: degrees 1,2,1 -> 2, density 2/3
    assert {k: got[k]["edge_degree"] for k in got} == {"20_21": 3, "20_22": 3, "21_22": 3, "0_1": 2, "1_2": 2}
    assert got["20_21"]["component_density"] == pytest.approx(1.0)
    assert got["0_1"]["component_density"] == pytest.approx(2 / 3)
    assert got["0_1"]["component"] == got["1_2"]["component"] != got["20_21"]["component"]


def test_loading_the_same_file_twice_changes_nothing(store):
    path = pistol_file("sample_data_1.json")
    write_graph(store, load_pistol(path))
    before = store.read(Q.EDGES_TABLE, graph=None), store.counts()
    again = write_graph(store, load_pistol(path))
    assert again.status == "unchanged"
    assert (store.read(Q.EDGES_TABLE, graph=None), store.counts()) == before


def test_other_content_under_a_taken_name_is_refused_then_replaced(store, subset_file):
    write_graph(store, load_pistol(pistol_file("sample_data_2.json")))
    before = store.read(Q.EDGES_TABLE, graph=None)
    other = subset_file("sample_data_2.json", {"0_1", "1_2"}, name="sample_data_2")
    with pytest.raises(InputDataError, match="already holds other content"):
        write_graph(store, load_pistol(other))
    assert store.read(Q.EDGES_TABLE, graph=None) == before
    summary = write_graph(store, load_pistol(other), replace=True)
    assert (summary.status, summary.facts) == ("replaced", 2)
    assert len(store.read(Q.EDGES_TABLE, graph="sample_data_2")) == 2
    assert store.read("MATCH (e:Entity {graph: 'sample_data_2'}) RETURN count(e) AS n") == [{"n": 3}]


def test_a_database_failure_midway_leaves_the_graph_as_it_was(store):
    write_graph(store, load_pistol(pistol_file("sample_data_1.json")))
    before = store.read(Q.EDGES_TABLE, graph=None), store.counts()
    good = load_pistol(pistol_file("sample_data_2.json"))
    # an entity whose key is already taken: the uniqueness constraint fails inside the
    # transaction, after the Graph node and other entities were written
    clash = EntityRecord(key="sample_data_1/A", graph="sample_data_2", name="X", kind="company", label="A")
    bad = GraphRecord(name=good.name, source=good.source, path=good.path, sha256=good.sha256,
                      entities=good.entities + (clash,), facts=good.facts)
    with pytest.raises(StoreError):
        write_graph(store, bad)
    assert (store.read(Q.EDGES_TABLE, graph=None), store.counts()) == before


def test_a_reader_sees_a_build_whole_or_not_at_all(settings, store, store_env, tmp_path):
    """A reader polling while another process builds a 4,000-edge graph sees the graph absent or
    complete, never part of it (the outside sweep saw entities 0 and facts 1,341 at once)."""
    import subprocess
    import sys
    import time

    from extract.pistol.generate import generate_pistol, write_dataset
    from extract.pistol.topology import build_topology

    dataset = tmp_path / "ba.json"
    records = generate_pistol(build_topology("barabasi_albert", nodes=2000, m=2, seed=3), seed=3)
    write_dataset(records, dataset)
    counts = ("MATCH (e:Entity {graph: $g}) WITH count(e) AS entities "
              "OPTIONAL MATCH (:Entity {graph: $g})-[f:FACT]->() "
              "RETURN entities, count(f) AS facts, COUNT { (:Graph {key: $g}) } AS graphs")
    builder = subprocess.Popen([sys.executable, "-m", "cli.main", "--quiet", "build", "--pistol", str(dataset), "--graph", "ba"],
                               env=store_env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen = set()
    try:
        while builder.poll() is None:
            seen.add(tuple(store.read(counts, g="ba")[0].values()))
            time.sleep(0.02)
        assert builder.returncode == 0, builder.stdout.read().decode()
    finally:
        builder.kill()
    final = tuple(store.read(counts, g="ba")[0].values())
    assert final[1] == len({r["edge"] for r in records}) and final[2] == 1
    assert seen <= {(0, 0, 0), final}, sorted(seen)
