"""Graph topologies and the PISTOL generator: shapes, determinism, and a round trip through the loader.

Expected values are worked out here by other means: edge counts from the formulas, the
Erdos-Renyi mean from p*n(n-1)/2, party names and totals read straight from the generated
text (not from the generator's internals), and the question wording compared with the real
PISTOL file sample_data_1.json after blanking out names and dates.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from collections import Counter, defaultdict
from datetime import datetime
from itertools import combinations
from pathlib import Path

import pytest

from extract.pistol.generate import COMPANY_TYPES, STREET_TYPES, generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.topology import (
    FAMILIES, barabasi_albert, build_topology, chain, complete, erdos_renyi, from_edge_list, star,
)
from graphstore.errors import ConfigError, InputDataError

from conftest import pistol_file

REPO_ROOT = Path(__file__).resolve().parents[3]
VALUES_FILE = REPO_ROOT / "extract/data/pistol_values.v1.json"

COMPANY_RE = re.compile(rf"[A-Z][a-z]{{5}} (?:{'|'.join(COMPANY_TYPES)})")
PERSON_RE = re.compile(r"[A-Z][a-z]{3} [A-Z][a-z]{3}")
ADDRESS_RE = re.compile(rf"\d{{3}} [A-Z][a-z]{{5}} (?:{'|'.join(STREET_TYPES)})")
DATE_RE = re.compile(r"\d{2}-\d{2}-\d{4}")


def _pairs(edges):
    return [frozenset(e) for e in edges]


def _assert_simple(edges):
    assert all(u != v for u, v in edges)
    assert len(set(_pairs(edges))) == len(edges), "an edge repeats (in some orientation)"


# ---------------------------------------------------------------- topologies

@pytest.mark.parametrize("n", [2, 3, 10, 57])
def test_fixed_families_have_the_textbook_shapes(n):
    nodes = {str(i) for i in range(n)}
    c = chain(n)
    assert len(c) == n - 1 and {x for e in c for x in e} == nodes
    assert all(abs(int(u) - int(v)) == 1 for u, v in c)
    s = star(n)
    assert len(s) == n - 1 and all(u == "0" for u, _ in s) and {v for _, v in s} == nodes - {"0"}
    k = complete(n)
    assert len(k) == n * (n - 1) // 2
    assert set(_pairs(k)) == {frozenset((str(a), str(b))) for a in range(n) for b in range(n) if a != b}
    for edges in (c, s, k):
        _assert_simple(edges)


def test_erdos_renyi_edge_count_matches_the_binomial_mean():
    n, p = 300, 0.05
    pairs = n * (n - 1) / 2
    mean, sd = p * pairs, math.sqrt(pairs * p * (1 - p))
    counts = []
    for seed in range(20):
        edges = erdos_renyi(n, p, seed)
        _assert_simple(edges)
        assert all(0 <= int(u) < int(v) < n for u, v in edges)
        counts.append(len(edges))
        assert abs(len(edges) - mean) < 5 * sd
    # The mean of 20 independent draws has a standard deviation sd / sqrt(20).
    assert abs(sum(counts) / len(counts) - mean) < 4 * sd / math.sqrt(len(counts))


def test_erdos_renyi_gives_every_pair_the_same_chance():
    # The geometric skipping must not favour early or late pairs: count each pair of a
    # 6-node graph over many seeds and compare with p.
    n, p, runs = 6, 0.3, 3000
    seen = Counter(pair for seed in range(runs) for pair in _pairs(erdos_renyi(n, p, seed)))
    sd = math.sqrt(runs * p * (1 - p))
    for a, b in combinations(range(n), 2):
        assert abs(seen[frozenset((str(a), str(b)))] - runs * p) < 5 * sd, (a, b)


def test_erdos_renyi_edge_probabilities_zero_and_one_and_scale():
    assert erdos_renyi(50, 0.0, 1) == []
    assert erdos_renyi(20, 1.0, 1) == complete(20)
    start = time.perf_counter()
    n, p = 100_000, 1e-5
    edges = erdos_renyi(n, p, 7)
    assert time.perf_counter() - start < 5, "G(n,p) must not visit every pair"
    pairs = n * (n - 1) / 2
    assert abs(len(edges) - p * pairs) < 5 * math.sqrt(pairs * p * (1 - p))


@pytest.mark.parametrize("n,m", [(2, 1), (50, 1), (300, 2), (1000, 3)])
def test_barabasi_albert_adds_m_edges_per_new_node(n, m):
    edges = barabasi_albert(n, m, seed=3)
    _assert_simple(edges)
    assert len(edges) == m * (m + 1) // 2 + (n - m - 1) * m  # seed clique K_{m+1}, then m per arrival
    assert {x for e in edges for x in e} == {str(i) for i in range(n)}
    earlier = Counter(max(int(u), int(v)) for u, v in edges)  # each edge counted at its younger end
    assert all(earlier[v] == m for v in range(m + 1, n))


def test_barabasi_albert_prefers_well_connected_nodes():
    edges = barabasi_albert(3000, 2, seed=5)
    degree = Counter(x for e in edges for x in e)
    oldest = sum(degree[str(i)] for i in range(30)) / 30
    youngest = sum(degree[str(i)] for i in range(2970, 3000)) / 30
    assert oldest > 4 * youngest
    assert max(degree.values()) > 30  # a hub; uniform attachment would give ~ log n


@pytest.mark.parametrize("family,kwargs", [("erdos_renyi", {"p": 0.1}), ("barabasi_albert", {"m": 2})])
def test_random_families_are_deterministic_by_seed(family, kwargs):
    a = build_topology(family, 200, seed=11, **kwargs)
    assert a == build_topology(family, 200, seed=11, **kwargs)
    assert a != build_topology(family, 200, seed=12, **kwargs)


def test_families_do_not_touch_the_global_random_state():
    random.seed(99)
    expected = random.random()
    random.seed(99)
    erdos_renyi(100, 0.1, 1)
    barabasi_albert(100, 2, 1)
    assert random.random() == expected


def test_build_topology_dispatches_and_refuses_bad_parameters():
    assert build_topology("chain", 4) == [("0", "1"), ("1", "2"), ("2", "3")]
    assert build_topology("star", 3) == [("0", "1"), ("0", "2")]
    assert set(FAMILIES) == {"chain", "star", "complete", "erdos_renyi", "barabasi_albert"}
    with pytest.raises(ConfigError) as e:
        build_topology("ring", 5)
    assert str(e.value) == ("unknown topology family 'ring'; valid families: chain, star, complete, "
                            "erdos_renyi, barabasi_albert")
    with pytest.raises(ConfigError, match="needs p"):
        build_topology("erdos_renyi", 5)
    with pytest.raises(ConfigError, match="needs m"):
        build_topology("barabasi_albert", 5)
    with pytest.raises(ConfigError, match="p applies only to the erdos_renyi"):
        build_topology("chain", 5, p=0.5)
    with pytest.raises(ConfigError, match="at least 2"):
        build_topology("chain", 1)
    with pytest.raises(ConfigError, match=r"in \[0, 1\]"):
        build_topology("erdos_renyi", 5, p=1.5)
    with pytest.raises(ConfigError, match="smaller than the number of nodes 5"):
        build_topology("barabasi_albert", 5, m=5)
    with pytest.raises(ConfigError, match=">= 1"):
        build_topology("barabasi_albert", 5, m=0)


# ---------------------------------------------------------------- edge-list files

def test_edge_list_file_with_comments_commas_and_blank_lines(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a small graph\n\nA B\nB,C   # trailing comment\n  C ,  D\nD\tA\n", encoding="utf-8")
    assert from_edge_list(path) == [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")]


@pytest.mark.parametrize("text,line,message", [
    ("A B\nB B\n", 2, "self-loop 'B'-'B': an edge must join two different nodes"),
    ("A B\n# note\nB A\n", 3, "edge 'B'-'A' repeats the edge on line 1 (edges are undirected)"),
    ("A B\nx_1 C\n", 2, "node id 'x_1' contains '_', which PISTOL edge labels 'U_V' reserve as the "
                        "separator; rename the node"),
    ("A B C\n", 1, "expected two node ids 'U V' or 'U,V', found 3 fields in 'A B C'"),
    ("A,\n", 1, "empty node id in 'A,'"),
])
def test_edge_list_errors_name_the_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputDataError) as e:
        from_edge_list(path)
    assert e.value.record == line
    assert str(e.value) == f"{path}, record {line}: {message}"


def test_edge_list_without_edges_or_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(InputDataError, match="holds no edges"):
        from_edge_list(empty)
    with pytest.raises(InputDataError, match="cannot read"):
        from_edge_list(tmp_path / "missing.txt")


# ---------------------------------------------------------------- generated datasets

def _by_edge(records):
    groups = defaultdict(list)
    for r in records:
        groups[r["edge"]].append(r)
    return groups


def _answer(group, prefix):
    hits = [r["answer"][:-1] for r in group if r["question"].startswith(prefix)]
    assert len(hits) == 1, (prefix, group[0]["edge"])
    return hits[0]


def _parties(group):
    """(head, tail) names and head/tail addresses read from a contract's text."""
    if group[0]["question"].startswith("What was the effective date"):
        seller, customer = _answer(group, "What was the name of the seller"), _answer(group, "What was the name of the customer")
        addresses = {seller: _answer(group, f"What was the address of {seller} "),
                     customer: _answer(group, f"What was the address of {customer} ")}
        return "sales", seller, customer, addresses
    employer, employee = _answer(group, "What was the name of the employer"), _answer(group, "What was the name of the employee")
    addresses = {employer: _answer(group, f"What was the principal business location of {employer} "),
                 employee: _answer(group, f"What was the address of {employee} ")}
    return "employment", employer, employee, addresses


def _write(tmp_path, records, name="gen.json"):
    path = tmp_path / name
    write_dataset(records, path)
    return path


@pytest.fixture(scope="module")
def mixed():
    edges = barabasi_albert(300, 2, seed=4)
    return edges, generate_pistol(edges, seed=9, employment_fraction=0.3)


def test_generated_dataset_loads_and_recovers_the_graph(tmp_path, mixed):
    edges, records = mixed
    assert len(records) == 20 * len(edges)
    assert all(list(r) == ["question", "answer", "edge"] for r in records)
    graph = load_pistol(_write(tmp_path, records))
    assert sorted(map(sorted, (f.label.split("_") for f in graph.facts))) == sorted(map(sorted, edges))
    assert all(len(f.questions) == 20 == len(f.answers) for f in graph.facts)
    assert Counter(r["edge"] for r in records) == Counter({f.label: 20 for f in graph.facts})
    entities = {e.key: e for e in graph.entities}
    assert len({e.name for e in graph.entities}) == len(graph.entities) == 300, "names must be unique"
    employment = [f for f in graph.facts if f.domain == "employment"]
    assert employment and len(employment) < len(graph.facts)
    for fact in employment:
        head, tail = entities[fact.head], entities[fact.tail]
        assert (head.kind, tail.kind) == ("company", "person")
        assert fact.label == f"{head.label}_{tail.label}", "employment edges are labelled employer_employee"


def test_every_node_keeps_one_name_and_address(tmp_path, mixed):
    edges, records = mixed
    graph = load_pistol(_write(tmp_path, records))
    loaded = {e.label: e for e in graph.entities}
    names_of = defaultdict(list)  # label -> the party-name pair of each of its edges
    address_of = defaultdict(set)  # name -> addresses it has anywhere
    for label, group in _by_edge(records).items():
        _, head, tail, addresses = _parties(group)
        for end in label.split("_"):
            names_of[end].append({head, tail})
        for name, address in addresses.items():
            address_of[name].add(address)
            assert ADDRESS_RE.fullmatch(address)
    for label, pairs in names_of.items():
        common = set.intersection(*pairs)
        if len(pairs) >= 2:  # a leaf's name is only known through its neighbour
            assert common == {loaded[label].name}, label
        assert loaded[label].name in common
        assert address_of[loaded[label].name] == {loaded[label].properties["address"]}
    for entity in graph.entities:
        pattern = COMPANY_RE if entity.kind == "company" else PERSON_RE
        assert pattern.fullmatch(entity.name), entity.name


def test_contract_values_follow_the_pistol_distributions(mixed):
    _, records = mixed
    values = json.loads(VALUES_FILE.read_text(encoding="utf-8"))
    sales_index = employment_index = 0
    for group in _by_edge(records).values():
        kind, *_ = _parties(group)
        if kind == "sales":
            qty = int(_answer(group, "What was the quantity"))
            price = int(_answer(group, "What was the unit price"))
            assert 1 <= qty <= 100 and 1 <= price <= 100
            assert int(_answer(group, "What was the total price")) == qty * price
            date = _answer(group, "What was the effective date")
            assert _answer(group, "What was the good") == values["goods_items"][sales_index % 100]
            assert re.fullmatch(r"[1-5]%", _answer(group, "What was the late payment interest rate"))
            assert int(_answer(group, "Within how many days must the invoice")) in {5, 10, 15, 20, 25, 30}
            assert ADDRESS_RE.fullmatch(_answer(group, "What was the address of delivery"))
            assert _answer(group, "Who would decide the shipping method") in {"Seller", "Customer"}
            assert _answer(group, "Which jurisdiction") in values["governing_law"]
            sales_index += 1
        else:
            date = _answer(group, "What was the start date")
            months = _answer(group, "For how many months will the employer")
            assert re.fullmatch(r"\d+ months", months) and 6 <= int(months.split()[0]) <= 48
            assert _answer(group, "What was the job position") == values["job_pisition"][employment_index % 100]
            assert 6 <= int(_answer(group, "At what hour did the workday start")) <= 10
            assert 14 <= int(_answer(group, "At what hour did the workday finish")) <= 18
            assert _answer(group, "What was the frequency") in {"weekly", "bi-weekly", "monthly"}
            assert _answer(group, "What benefit") in values["employer_benefit_plans"]
            employment_index += 1
        assert DATE_RE.fullmatch(date)
        assert 1980 <= datetime.strptime(date, "%d-%m-%Y").year <= 2019  # strptime refuses 30-02, 29-02-1981
    assert sales_index and employment_index


def test_goods_wrap_around_and_data_input_overrides(tmp_path):
    records = generate_pistol(chain(251), seed=2)
    goods = [r["answer"][:-1] for r in records if r["question"].startswith("What was the good")]
    listed = json.loads(VALUES_FILE.read_text(encoding="utf-8"))["goods_items"]
    assert goods == [listed[i % len(listed)] for i in range(250)]
    custom = tmp_path / "data_input.json"
    custom.write_text(json.dumps({
        "goods_items": ["Anvils", "Rope"], "sale_parties": ["Seller", "Customer"],
        "governing_law": ["The State of Utah"], "job_pisition": ["Blacksmith"],
        "employer_benefit_plans": ["free lunch"], "salary_frequency": ["monthly"]}), encoding="utf-8")
    records = generate_pistol(chain(4), seed=2, data_input=custom)
    assert [r["answer"] for r in records if r["question"].startswith("What was the good")] == \
        ["Anvils.", "Rope.", "Anvils."]
    assert {r["answer"] for r in records if r["question"].startswith("Which jurisdiction")} == {"The State of Utah."}
    custom.write_text(json.dumps({"goods_items": []}), encoding="utf-8")
    with pytest.raises(InputDataError, match="'goods_items' must be a non-empty list"):
        generate_pistol(chain(4), data_input=custom)


def test_original_data_input_is_accepted():
    original = pistol_file("data_input.json")
    records = generate_pistol(star(5), seed=1, employment_fraction=0.5, data_input=original)
    jobs = json.loads(original.read_text(encoding="utf-8"))["job_pisition"]
    first_job = next(r["answer"] for r in records if r["question"].startswith("What was the job position"))
    assert first_job == jobs[0] + "."


def _skeletons(records):
    """{(contract type, question with the parties' names and dates blanked, answer shape)}."""
    shapes = set()
    for group in _by_edge(records).values():
        kind, head, tail, _ = _parties(group)
        for r in group:
            q = DATE_RE.sub("{date}", r["question"].replace(head, "{head}").replace(tail, "{tail}"))
            a = r["answer"]
            shape = ("number" if re.fullmatch(r"\d+\.", a) else "percent" if re.fullmatch(r"\d+%\.", a)
                     else "months" if re.fullmatch(r"\d+ months\.", a) else "date" if DATE_RE.fullmatch(a[:-1])
                     else "text")
            shapes.add((kind, q, shape))
    return shapes


def test_questions_reproduce_the_real_pistol_wording():
    real_file = pistol_file("sample_data_1.json")
    real = json.loads(real_file.read_text(encoding="utf-8"))
    generated = generate_pistol(star(12), seed=3, employment_fraction=0.5)
    assert {r["edge"] for r in generated} and len(_skeletons(real)) == 40
    assert _skeletons(generated) == _skeletons(real)


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5])
def test_employment_fraction_is_roughly_respected(fraction):
    edges = barabasi_albert(1000, 2, seed=1)
    records = generate_pistol(edges, seed=5, employment_fraction=fraction)
    employment = {r["edge"] for r in records if r["question"].startswith("What was the name of the employer")}
    assert abs(len(employment) / len(edges) - fraction) < 0.03
    people = {label.split("_")[1] for label in employment}
    assert not any(u in people and v in people for u, v in edges), "two persons are never adjacent"


def test_no_employment_without_a_fraction():
    records = generate_pistol(complete(6), seed=1)
    assert not any(r["question"].startswith("What was the name of the employer") for r in records)


def test_generation_is_deterministic_by_seed(tmp_path):
    edges = erdos_renyi(80, 0.08, seed=1)
    a = _write(tmp_path, generate_pistol(edges, seed=4, employment_fraction=0.2), "a.json")
    b = _write(tmp_path, generate_pistol(edges, seed=4, employment_fraction=0.2), "b.json")
    c = _write(tmp_path, generate_pistol(edges, seed=5, employment_fraction=0.2), "c.json")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    names = lambda p: {r["answer"] for r in json.loads(p.read_text()) if "the name of the" in r["question"]}
    assert not names(a) & names(c)


def test_generator_refuses_bad_input():
    with pytest.raises(ConfigError, match=r"employment_fraction must be a number in \[0, 1\]"):
        generate_pistol(chain(3), employment_fraction=1.5)
    with pytest.raises(ConfigError, match="contains '_'"):
        generate_pistol([("a_b", "c")])
    with pytest.raises(ConfigError, match="self-loop"):
        generate_pistol([("a", "a")])
    with pytest.raises(ConfigError, match=r"edge 1 \('b', 'a'\) repeats edge 0"):
        generate_pistol([("a", "b"), ("b", "a")])
    with pytest.raises(ConfigError, match="no edges"):
        generate_pistol([])


def test_write_dataset_format_is_one_record_per_line_and_atomic(tmp_path):
    records = [{"question": "Q1?", "answer": "A1.", "edge": "0_1"}, {"question": "Café?", "answer": "2.", "edge": "0_1"}]
    path = tmp_path / "out.json"
    path.write_text("old contents", encoding="utf-8")
    assert write_dataset(iter(records), path) == 2
    assert path.read_text(encoding="utf-8") == (
        '[\n{"question": "Q1?", "answer": "A1.", "edge": "0_1"},\n'
        '{"question": "Café?", "answer": "2.", "edge": "0_1"}\n]\n')
    assert json.loads(path.read_text(encoding="utf-8")) == records
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"], "no temporary file is left behind"

    def failing():
        yield records[0]
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError):
        write_dataset(failing(), path)
    assert json.loads(path.read_text(encoding="utf-8")) == records, "a failed write leaves the old file"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_two_thousand_edge_barabasi_albert_generates_and_loads_quickly(tmp_path):
    start = time.perf_counter()
    edges = build_topology("barabasi_albert", 2001, seed=0, m=1)
    assert len(edges) == 2000
    path = _write(tmp_path, generate_pistol(edges, seed=0, employment_fraction=0.2))
    graph = load_pistol(path)
    assert len(graph.facts) == 2000 and len(graph.entities) == 2001
    assert time.perf_counter() - start < 10
