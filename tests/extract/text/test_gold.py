"""Gold facts and the gate (``extract.text.gold``, ``extract.text.gate``): reading gold files,
lenient matching, and the scores of a graph whose facts are written here by hand, so that every
expected figure is counted by hand below (no extractor runs in this module)."""

from __future__ import annotations

import json

import pytest

from extract.text.gate import SetFacts, SetScore, agreement, judged_precision, pool, score_annotator
from extract.text.gold import (contains, gold_key, key, lenient, read_gold, read_judged, read_set_records,
                               sets_with_gold, wilson)
from graphstore.errors import InputDataError


def write_gold(path, facts):
    path.write_text("".join(json.dumps(f) + "\n" for f in facts), encoding="utf-8")
    return path


def fact(article, head, relation, tail, in_quote=False):
    return {"article": article, "head": head, "relation": relation, "tail": tail, "evidence": "...",
            "in_quote": in_quote}


# The graph of a two-article set, as an extractor might give it: 3 facts in article 1, 4 in article 2.
GRAPH = {
    1: [("Jonas Mertens", "P108", "Tellus Bank"), ("Jonas Mertens", "P39", "chief economist"),
        ("Jonas Mertens", "P106", "economist")],
    2: [("Agnes Holloway", "P106", "painter"), ("Agnes Holloway", "P19", "Leeds"),
        ("Agnes Holloway", "P3629", "91"), ("Agnes Holloway", "P569", "1932")],
}
GOLD_A = [
    fact(1, "Jonas Mertens", "P108", "Tellus Bank"),            # found
    fact(1, "Jonas Mertens", "P39", "chief economist"),         # found
    fact(2, "Agnes Holloway", "P569", "1932-03"),               # found: a date and its beginning
    fact(2, "Agnes Holloway", "P20", "Leeds", in_quote=True),   # missed; the pair is joined (by P19)
    fact(2, "Agnes Holloway", "other:number of children", "two"),   # outside the inventory
    fact(1, "Tellus Bank", "P159", "Frankfurt"),                # missed, pair too
]
GOLD_B = [
    fact(1, "Mertens", "P108", "Tellus Bank"),                  # found: a surname is part of the name
    fact(2, "Agnes Holloway", "P106", "painter"),               # found
    fact(2, "Agnes Holloway", "other:age", "91"),               # read as P3629: found
    fact(2, "Agnes Holloway", "P19", "Bradford"),               # missed
]


def set_facts(graph=GRAPH) -> SetFacts:
    per_article = {a: tuple(key(*f) for f in facts) for a, facts in graph.items()}
    return SetFacts("tiny", 2, 7, 1.5, "rules", per_article, frozenset(k for ks in per_article.values() for k in ks))


def test_lenient_matching_by_hand():
    assert contains("ofori-mensah", "kwabena ofori-mensah")
    assert not contains("ofori", "kwabena mensah")
    assert contains("1988", "1988-05") and not contains("1988", "1989-05")
    assert lenient(key("Kwabena Ofori-Mensah", "P108", "Volta Cocoa"), key("Ofori-Mensah", "P108", "Volta Cocoa Ltd"))
    assert not lenient(key("Ofori-Mensah", "P108", "Volta Cocoa"), key("Ofori-Mensah", "P1037", "Volta Cocoa"))
    # a nationality as written in the gold is the country the extractor names
    assert gold_key("Alan Kerr", "P27", "Scottish") == key("Alan Kerr", "P27", "Scotland")
    assert gold_key("Alan Kerr", "P27", "Scottish", raw=True) != key("Alan Kerr", "P27", "Scotland")


def test_wilson_interval_by_hand():
    # p = 2/3, n = 3, z = 1.96: centre (p + z²/2n)/(1 + z²/n) = 0.5731, half 0.3654
    low, high = wilson(2, 3)
    assert low == pytest.approx(0.2077, abs=1e-4) and high == pytest.approx(0.9385, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_read_gold_reads_later_relations_and_the_inventory(tmp_path):
    gold = read_gold(write_gold(tmp_path / "tiny.b.jsonl", GOLD_B))
    assert [g.line for g in gold] == [1, 2, 3, 4]
    assert gold[2].relation == "P3629" and gold[2].key == key("Agnes Holloway", "P3629", "91")
    a = read_gold(write_gold(tmp_path / "tiny.a.jsonl", GOLD_A))
    assert [g.key is None for g in a] == [False, False, False, False, True, False]


@pytest.mark.parametrize("line, message", [
    ('{"article": 1, "head": "X"}', "line 2: no relation, tail (fields: article, head)"),
    ('{"article": 1, "head": "X", ', "line 2: not JSON at column 28: the line ends before the JSON does (truncated?)"),
    ('["X", "P108", "Y"]', "line 2: a list, not a gold fact (an object with article, head, relation, tail)"),
    ('{"article": 0, "head": "X", "relation": "P108", "tail": "Y"}',
     "line 2: article 0; expected a whole number from 1 (1 for the set's first line)"),
    ('{"article": 1, "head": "X", "relation": "P108", "tail": ""}', "line 2: tail must be non-empty text"),
])
def test_a_bad_gold_line_is_refused_with_its_file_and_line(tmp_path, line, message):
    path = tmp_path / "tiny.a.jsonl"
    path.write_text(json.dumps(fact(1, "X", "P108", "Y")) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputDataError) as e:
        read_gold(path)
    assert str(e.value) == f"{path}: {message}"


def test_scores_of_one_annotator_counted_by_hand(tmp_path):
    a = score_annotator("a", read_gold(write_gold(tmp_path / "tiny.a.jsonl", GOLD_A)), set_facts())
    assert (a.gold_facts, a.in_inventory, a.in_quotes) == (6, 5, 1)
    assert (a.found, a.pair_found) == (3, 4)             # recall 3/5, pair recall 4/5
    assert (a.graph_matching, a.graph_facts) == (3, 7)   # P108, P39, P569 of the 7
    assert a.recall == pytest.approx(0.6) and a.pair_recall == pytest.approx(0.8)
    assert a.precision == pytest.approx(3 / 7)
    assert [(g.article, g.relation) for g in a.misses] == [(2, "P20"), (1, "P159")]
    b = score_annotator("b", read_gold(write_gold(tmp_path / "tiny.b.jsonl", GOLD_B)), set_facts())
    assert (b.in_inventory, b.found, b.pair_found, b.graph_matching) == (4, 3, 3, 3)


def test_agreement_counted_by_hand(tmp_path):
    a = read_gold(write_gold(tmp_path / "tiny.a.jsonl", GOLD_A))
    b = read_gold(write_gold(tmp_path / "tiny.b.jsonl", GOLD_B))
    agreed = agreement("a", a, "b", b)
    # of a's 5 in-inventory facts only Mertens' employer is b's; of b's 4 only the same one is a's
    assert (agreed.first_in_second, agreed.first_facts, agreed.second_in_first, agreed.second_facts) == (1, 5, 1, 4)
    assert agreed.rates == pytest.approx((0.2, 0.25))


JUDGED = """# Hand-judged precision: a sample

| # | relation | head | tail | evidence | verdict |
|---:|---|---|---|---|---|
| 1 | P108 employer | Jonas Mertens | Tellus Bank | Jonas Mertens, chief economist at Tellus Bank, said | y |
| 2 | P19 place of birth | Agnes Holloway | Leeds | She was born in Leeds in 1932. | y |
| 3 | P106 occupation | Jonas Mertens | economist | Jonas Mertens, chief economist at Tellus Bank, said | n |
| 4 | P26 spouse | Agnes Holloway | Tom Holloway | Her husband, Tom Holloway, died in 2001. | y |
| 5 | P39 position held | Jonas Mertens | chief economist | Jonas Mertens, chief economist at Tellus Bank, said |  |
"""


def write_sets(folder, status="unread"):
    (folder / "gold/judged").mkdir(parents=True, exist_ok=True)
    (folder / "gold/judged/tiny.r1.md").write_text(JUDGED, encoding="utf-8")
    (folder / "gold/sets.json").write_text(json.dumps({"sets": {"tiny": {
        "status": status, "judged": [{"extractor": "rules", "file": "judged/tiny.r1.md"}]}}}), encoding="utf-8")


def test_judged_precision_counts_the_graphs_judged_facts(tmp_path):
    write_sets(tmp_path)
    assert len(read_judged(tmp_path / "gold/judged/tiny.r1.md")) == 4   # row 5 has no verdict
    records = read_set_records(tmp_path)
    judged = judged_precision(tmp_path, records["tiny"], "rules", set_facts())
    # rows 1-3 are facts of the graph (2 y, 1 n); row 4 is not one of them
    assert judged is not None and (judged.correct, judged.judged, judged.graph_facts) == (2, 3, 7)
    assert judged_precision(tmp_path, records["tiny"], "rebel", set_facts()) is None


def test_set_records_refuse_an_unknown_status(tmp_path):
    write_sets(tmp_path, status="half-read")
    with pytest.raises(InputDataError, match=r"sets.json: set tiny: status 'half-read'; expected"):
        read_set_records(tmp_path)


def test_sets_with_gold_and_pooled_totals(tmp_path):
    for name in ("heldout10", "heldout9", "dev"):
        (tmp_path / f"{name}.jsonl").write_text('{"text": "x"}\n', encoding="utf-8")
    (tmp_path / "gold").mkdir()
    write_gold(tmp_path / "gold/heldout10.a.jsonl", GOLD_A)
    write_gold(tmp_path / "gold/heldout9.a.jsonl", GOLD_A)
    assert sets_with_gold(tmp_path) == ["heldout9", "heldout10"]
    a = score_annotator("a", read_gold(tmp_path / "gold/heldout9.a.jsonl"), set_facts())
    one = SetScore("x", False, 1, 2, 7, 1.5, (a,), None, None)
    total = pool("total", [one, one])
    assert (total.sets, total.articles, total.facts, total.read) == (2, 4, 14, False)
    assert total.facts_per_article == pytest.approx(3.5) and total.seconds_per_article == pytest.approx(0.75)
    assert (total.annotators[0].found, total.annotators[0].in_inventory) == (6, 10)
    assert pool("mixed", [one, SetScore("y", True, 1, 2, 7, 1.5, (a,), None, None)]).read is None
