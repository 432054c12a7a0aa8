"""The command line, called through click's CliRunner against the real embedded server."""

from __future__ import annotations

import csv
import io
import json

import click
import pytest
from click.testing import CliRunner

from cli.main import cli

from conftest import pistol_file


@pytest.fixture()
def run(store, store_args):
    """Invoke `audit ...` on the session's store (emptied by the `store` fixture)."""
    runner = CliRunner()

    def invoke(*args, store_option=True):
        argv = list(args)
        if store_option:
            argv += list(store_args)
        return runner.invoke(cli, argv, catch_exceptions=False)

    return invoke


def _walk(group: click.Group, prefix=()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _walk(command, prefix + (name,))


def test_every_command_has_help_with_an_example():
    runner = CliRunner()
    commands = list(_walk(cli))
    assert {c[0] for c in commands} >= {("build",), ("edges",), ("query",), ("status",), ("generate", "pistol")}
    for path, command in [((), cli)] + commands:
        result = runner.invoke(cli, list(path) + ["--help"])
        assert result.exit_code == 0, path
        assert command.help, f"{' '.join(path)} has no help"
        assert "Example" in result.output, f"audit {' '.join(path)} --help has no example"


def test_build_then_edges_shows_every_edge_with_its_structure(run):
    path = pistol_file("sample_data_2.json")
    result = run("build", "--pistol", str(path))
    assert result.exit_code == 0, result.output
    assert "sample_data_2: loaded - 30 entities, 75 edges, 1500 QA pairs, 3 components" in result.output
    result = run("edges", "--format", "csv")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert len(rows) == 75
    row = next(r for r in rows if r["key"] == "sample_data_2/20_21")
    # by hand: K10 -> every node degree 9, edge degree 17, density 1
    assert (row["edge_degree"], row["component_density"], row["domain"]) == ("17", "1.0", "sales")
    table = run("edges").output
    assert "sample_data_2/0_1" in table and "(75 rows)" in table


def test_build_a_pistol_variant_with_a_famous_name(run):
    path = pistol_file("sample_data_2.json")
    args = ("build", "--pistol", str(path), "--graph", "famous", "--keep-entities", "20,21,22,23",
            "--rename", "20=Goldman Sachs", "--rename-address", "20=200 West Street")
    result = run(*args)
    assert result.exit_code == 0, result.output
    # K4: 4 entities, C(4,2) = 6 contracts of 20 QA pairs; every edge degree 3 + 3 - 1 = 5 (as K10: 17)
    assert "famous: loaded - 4 entities, 6 edges, 120 QA pairs, 1 components" in result.output
    rows = json.loads(run("query", "MATCH (e:Entity {graph: 'famous', label: '20'}) RETURN e.name AS name, "
                                   "e.address AS address", "--format", "json").output)
    assert rows == [{"name": "Goldman Sachs", "address": "200 West Street"}]
    edges = list(csv.DictReader(io.StringIO(run("edges", "--graph", "famous", "--format", "csv").output)))
    assert {r["edge_degree"] for r in edges} == {"5"}
    assert "famous: unchanged" in run(*args).output


def test_build_again_says_unchanged(run):
    path = pistol_file("sample_data_1.json")
    run("build", "--pistol", str(path))
    result = run("build", "--pistol", str(path))
    assert result.exit_code == 0
    assert "sample_data_1: unchanged" in result.output


def test_bad_file_gives_one_line_error_and_loads_nothing(run, tmp_path):
    good = pistol_file("sample_data_1.json")
    bad = tmp_path / "broken.json"
    bad.write_text('[{"question": "q?", "edge": "A_B"}]', encoding="utf-8")
    result = run("build", "--pistol", str(good), "--pistol", str(bad))
    assert result.exit_code == 1
    assert result.output == f"Error: {bad}, record 0: no 'answer' field (a PISTOL record has question, answer, edge)\n"
    status = run("query", "MATCH (g:Graph) RETURN count(g) AS graphs", "--format", "json")
    assert json.loads(status.output) == [{"graphs": 0}]


def test_query_with_parameters_and_formats(run):
    run("build", "--pistol", str(pistol_file("sample_data_1.json")))
    result = run("query", "MATCH (e:Entity {name: $name})-[r:FACT]-() RETURN count(r) AS contracts",
                 "--param", "name=Jzrcws SA", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [{"contracts": 8}]  # A_B, A_C, A_C2, A_C3, A_m, A_n, A_n2, A_n3
    # a value with a quote is a parameter, never spliced into the query
    result = run("query", "RETURN $v AS v", "--param", "v=O'Brien\" }) DETACH DELETE n //", "--format", "json")
    assert json.loads(result.output) == [{"v": "O'Brien\" }) DETACH DELETE n //"}]
    result = run("query", "RETURN $k + 1 AS k", "--param", "k=41", "--format", "csv")
    assert result.output == "k\n42\n"


def test_query_is_read_only_unless_write(run):
    result = run("query", "CREATE (n:Scratch {v: 1}) RETURN n.v AS v")
    assert result.exit_code == 1
    assert result.output.startswith("Error: the query would change the graph, and it runs read-only: the engine "
                                    "refused it and nothing was changed. Pass --write")
    count = run("query", "MATCH (n:Scratch) RETURN count(n) AS n", "--format", "json")
    assert json.loads(count.output) == [{"n": 0}]
    result = run("query", "CREATE (n:Scratch {v: 1}) RETURN n.v AS v", "--write", "--format", "json")
    assert result.exit_code == 0
    count = run("query", "MATCH (n:Scratch) RETURN count(n) AS n", "--format", "json")
    assert json.loads(count.output) == [{"n": 1}]


ENGINE_NAME = {"embedded": "arcadedb", "neo4j": "neo4j"}


def test_bad_cypher_is_one_line(run, engine):
    result = run("query", "MATCH (n RETURN n")
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {ENGINE_NAME[engine]} refused the query:")
    assert result.output.count("\n") == 1


def test_bad_param_is_a_usage_error(run):
    result = run("query", "RETURN 1", "--param", "novalue")
    assert result.exit_code == 2
    assert "'novalue' is not name=value" in result.output


def test_status_shows_engine_and_counts(run, engine):
    run("build", "--pistol", str(pistol_file("sample_data_1.json")))
    result = run("status")
    assert result.exit_code == 0
    assert {"embedded": "engine:   arcadedb", "neo4j": "engine:   neo4j (Neo4j/5.26"}[engine] in result.output
    assert "Entity" in result.output and "FACT" in result.output
    assert "sample_data_1" in result.output


def test_uri_without_password_is_a_clear_error(run, monkeypatch):
    monkeypatch.delenv("AUDIT_NEO4J_PASSWORD", raising=False)
    result = run("status", "--uri", "bolt://127.0.0.1:1", store_option=False)
    assert result.exit_code == 1
    assert result.output == "Error: a password is needed for bolt://127.0.0.1:1: pass --password or set AUDIT_NEO4J_PASSWORD\n"


def test_unreachable_server_is_a_clear_error(run):
    result = run("status", "--uri", "bolt://127.0.0.1:1", "--password", "x", store_option=False)
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot reach bolt://127.0.0.1:1:")


def test_generate_then_build_a_star(run, tmp_path):
    out = tmp_path / "star.json"
    result = run("generate", "pistol", "--topology", "star", "--nodes", "6", "--seed", "3",
                 "--output", str(out), store_option=False)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}: 5 edges, 100 QA pairs (seed 3)\n"
    assert run("build", "--pistol", str(out)).exit_code == 0
    rows = json.loads(run("edges", "--graph", "star", "--format", "json").output)
    # by hand: hub degree 5, leaves 1 -> every edge degree 5; 6 nodes 5 edges -> density 10/30
    assert [r["edge_degree"] for r in rows] == [5] * 5
    assert all(r["component_density"] == pytest.approx(1 / 3) for r in rows)


def test_generate_with_a_user_value_file(run, tmp_path):
    values = pistol_file("data_input.json")
    out = tmp_path / "chain.json"
    result = run("generate", "pistol", "--topology", "chain", "--nodes", "3", "--values", str(values),
                 "-o", str(out), store_option=False)
    assert result.exit_code == 0, result.output
    records = json.loads(out.read_text())
    goods = json.loads(values.read_text())["goods_items"]
    assert records[5]["answer"] == goods[0] + "."  # the first sales contract sells goods_items[0]


# -- conventions: unknown names are errors, empty results keep their header, completion ---------------
def test_an_unknown_graph_or_run_is_an_error_naming_the_known_ones(run, engine):
    path = pistol_file("sample_data_1.json")
    assert run("build", "--pistol", str(path)).exit_code == 0
    for args in (["edges", "--graph", "nosuch"], ["runs", "--graph", "nosuch"], ["stats", "--graph", "nosuch"]):
        result = run(*args)
        assert result.exit_code == 1, args
        where = {"embedded": "embedded ArcadeDB in ", "neo4j": "bolt://127.0.0.1:"}[engine]
        assert f"Error: no graph named 'nosuch' in {where}" in result.output
        assert result.output.rstrip().endswith("graphs there: sample_data_1"), result.output
    for args in (["runs", "nosuch"], ["edges", "--run", "nosuch"], ["view", "--run", "nosuch"],
                 ["report", "--run", "nosuch", "--output", "x"], ["runs", "nosuch", "--delete"]):
        result = run(*args)
        assert result.exit_code == 1, args
        assert "Error: no run 'nosuch'; runs there: (none: audit run makes one)" in result.output, args


def test_empty_results_print_their_header(run):
    result = run("query", "MATCH (n:Nothing) RETURN n.name AS name, count(*) AS `how many` ORDER BY name")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["name", "how", "many"] and lines[-1] == "(0 rows)"
    result = run("query", "MATCH (n:Nothing) RETURN n.name, n.key AS key", "--format", "csv")
    assert result.output == "n.name,key\n"
    result = run("runs")
    assert result.output.splitlines()[0].split()[:3] == ["key", "graph", "method"]
    assert run("runs", "--format", "json").output.strip() == "[]"


def test_shell_completion_script():
    result = CliRunner().invoke(cli, [], prog_name="audit", env={"_AUDIT_COMPLETE": "bash_source"})
    assert result.exit_code == 0 and "_audit_completion" in result.output and "complete " in result.output


def test_quiet_does_not_stick_to_the_next_command_of_the_process(run):
    """`--quiet` once in a process silenced every later command of it (found when the engines
    reordered the suite: a run after a quiet one printed no 'resuming run' line)."""
    from graphstore import progress

    assert run("--quiet", "status").exit_code == 0
    assert progress.is_quiet()
    assert run("status").exit_code == 0
    assert not progress.is_quiet()


def test_a_pair_is_cut_where_both_sides_are_grid_selectors():
    from cli.experiment import _split_pair
    grid = ("edges:A_C", "edges:A_C,A_C2,A_C3", "audit-set")
    assert _split_pair("edges:A_C,A_C2,A_C3,edges:A_C", grid) == ("edges:A_C,A_C2,A_C3", "edges:A_C")
    assert _split_pair("edges:A_C,edges:A_C,A_C2,A_C3", grid) == ("edges:A_C", "edges:A_C,A_C2,A_C3")
    assert _split_pair("audit-set,edges:A_C", grid) == ("audit-set", "edges:A_C")
    with pytest.raises(click.BadParameter, match="two of the grid's selectors: edges:A_C; "):
        _split_pair("edges:A_C,edges:A_B", grid)
