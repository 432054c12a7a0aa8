"""`audit extract-score`: the rules extractor scored on a two-article set written here, against two
annotators' gold; every figure counted by hand from the facts the rules read in these sentences."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from cli.main import cli

ARTICLES = [
    "Jonas Mertens, chief economist at Tellus Bank, said a cut in December now looked likely.",
    "The painter Agnes Holloway has died aged 91. She was born in Leeds in 1932.",
]
# What the rules read in them: article 1, Mertens' employer, position and occupation; article 2,
# Holloway's occupation, birthplace, age and year of birth: 7 facts, 3.5 per article.


def fact(article, head, relation, tail, in_quote=False):
    return {"article": article, "head": head, "relation": relation, "tail": tail, "in_quote": in_quote}


GOLD = {
    "a": [fact(1, "Jonas Mertens", "P108", "Tellus Bank"),          # found
          fact(1, "Jonas Mertens", "P39", "chief economist"),       # found
          fact(2, "Agnes Holloway", "P569", "1932-03"),             # found
          fact(2, "Agnes Holloway", "P20", "Leeds"),                # missed, pair joined (P19)
          fact(2, "Agnes Holloway", "other:number of children", "two"),
          fact(1, "Tellus Bank", "P159", "Frankfurt")],             # missed
    "b": [fact(1, "Mertens", "P108", "Tellus Bank"),                # found
          fact(2, "Agnes Holloway", "P106", "painter"),             # found
          fact(2, "Agnes Holloway", "other:age", "91"),             # found (P3629)
          fact(2, "Agnes Holloway", "P19", "Bradford")],            # missed
}
JUDGED = """| # | relation | head | tail | evidence | verdict |
|---:|---|---|---|---|---|
| 1 | P108 employer | Jonas Mertens | Tellus Bank | ... | y |
| 2 | P19 place of birth | Agnes Holloway | Leeds | ... | y |
| 3 | P106 occupation | Jonas Mertens | economist | ... | n |
"""


@pytest.fixture()
def sets_dir(tmp_path):
    (tmp_path / "tiny.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in ARTICLES), encoding="utf-8")
    (tmp_path / "gold/judged").mkdir(parents=True)
    for annotator, facts in GOLD.items():
        (tmp_path / f"gold/tiny.{annotator}.jsonl").write_text("".join(json.dumps(f) + "\n" for f in facts),
                                                               encoding="utf-8")
    (tmp_path / "gold/judged/tiny.rules.md").write_text(JUDGED, encoding="utf-8")
    (tmp_path / "gold/sets.json").write_text(json.dumps({"sets": {"tiny": {
        "status": "unread", "judged": [{"extractor": "rules", "file": "judged/tiny.rules.md"}]}}}), encoding="utf-8")
    return tmp_path


def test_the_gate_scores_the_rules_on_a_set_by_hand(sets_dir):
    result = CliRunner().invoke(cli, ["extract-score", "--set", "tiny", "--sets-dir", str(sets_dir), "--show", "5"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    row = next(line for line in lines if line.startswith("tiny "))
    # recall a 3/5, b 3/4; pair recall a 4/5, b 3/4; precision vs gold 3/7 each (a: P108, P39,
    # P569; b: P108, P106, P3629); judged 2 of the 3 judged facts of the 7 (Wilson by hand:
    # [0.21, 0.94]); agreement: Mertens' employer only, 1/5 and 1/4
    cells = re.split(r"\s{2,}", row)
    assert cells[:4] == ["tiny", "unread", "2", "3.50"]
    assert cells[5:] == ["0.60 / 0.75", "0.80 / 0.75", "0.43 / 0.43", "0.67 [0.21, 0.94], 3 of 7", "0.20 / 0.25"]
    assert any(line.startswith("total unread (1 set)") for line in lines)
    assert not any(line.startswith("total read") for line in lines)
    assert "tiny a missed, article 2: Agnes Holloway | P20 | Leeds" in lines
    assert "tiny a missed, article 1: Tellus Bank | P159 | Frankfurt" in lines
    assert "tiny b missed, article 2: Agnes Holloway | P19 | Bradford" in lines
    assert "tiny no gold, article 1: jonas mertens | P106 | economist" in lines


def test_the_gate_as_json_and_a_read_set(sets_dir):
    records = json.loads((sets_dir / "gold/sets.json").read_text())
    records["sets"]["tiny"]["status"] = "read"
    (sets_dir / "gold/sets.json").write_text(json.dumps(records))
    result = CliRunner().invoke(cli, ["extract-score", "--set", "tiny", "--sets-dir", str(sets_dir), "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    (tiny,) = out["sets"]
    assert (tiny["status"], tiny["articles"], tiny["facts"]) == ("read", 2, 7)
    a, b = tiny["annotators"]
    assert (a["found"], a["in_inventory"], a["pair_found"], a["graph_matching"], a["graph_facts"]) == (3, 5, 4, 3, 7)
    assert (b["found"], b["in_inventory"], b["pair_found"], b["graph_matching"]) == (3, 4, 3, 3)
    assert tiny["agreement"] == {"a_in_b": pytest.approx(0.2), "b_in_a": pytest.approx(0.25)}
    assert (tiny["judged"]["correct"], tiny["judged"]["judged"]) == (2, 3)
    assert [t["set"] for t in out["totals"]] == ["total read (1 set)"]


def test_a_bad_gold_line_is_one_error_line(sets_dir):
    path = sets_dir / "gold/tiny.b.jsonl"
    path.write_text(path.read_text() + '{"article": 3, "head": "X", "relation": "P108", "tail": "Y"}\n')
    result = CliRunner().invoke(cli, ["extract-score", "--set", "tiny", "--sets-dir", str(sets_dir)])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == f"Error: {path}: line 5: article 3, but tiny.jsonl has 2"


def test_an_unknown_set_names_the_valid_ones(sets_dir):
    result = CliRunner().invoke(cli, ["extract-score", "--set", "nosuch", "--sets-dir", str(sets_dir)], prog_name="audit")
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"Error: Invalid value for --set: 'nosuch' is not a set of {sets_dir}; "
                                     "valid: tiny (see: audit extract-score --help)")
