"""Synthetic Wikidata people: determinism, the facts each person has, ranks, the three file forms, the CLI.

Expected values are worked out here, not taken from the generator: a small best-rank reader
written in this file (drop deprecated, prefer preferred, skip somevalue), counts read from
the value-pool file itself, and every file read back with nothing but json, gzip and bz2.
"""

from __future__ import annotations

import bz2
import gzip
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from extract.wikidata.generate import generate_people
from extract.wikidata.write import write_entities
from graphstore.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[3]
POOLS = json.loads((REPO_ROOT / "extract/data/wikidata_synthetic.v1.json").read_text(encoding="utf-8"))
GENDERS = {"Q6581097", "Q6581072", "Q48270"}  # male, female, non-binary on Wikidata
# value items: the pools, the 3 genders, the 11 classes named in P31 (human, city, ...) and the metre
VALUE_ITEMS = (12 + sum(len(POOLS[key]) for key in ("genders", "languages", "countries", "cities", "occupations",
                                                    "universities", "employers", "political_parties",
                                                    "family_names"))
               + sum(len(names) for names in POOLS["given_names"].values()))
METRE = "http://www.wikidata.org/entity/Q11573"
STATEMENT_ID = re.compile(r"Q\d+\$[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
DATE = {9: re.compile(r"\+(\d{4})-00-00T00:00:00Z"), 10: re.compile(r"\+(\d{4})-(0[1-9]|1[0-2])-00T00:00:00Z"),
        11: re.compile(r"\+(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T00:00:00Z")}


def best(entity: dict, prop: str) -> list:
    """What a careful reader keeps: no deprecated, only preferred if any, no somevalue snaks."""
    statements = [s for s in entity["claims"].get(prop, []) if s["rank"] != "deprecated"]
    chosen = [s for s in statements if s["rank"] == "preferred"] or statements
    values = [s["mainsnak"]["datavalue"]["value"] for s in chosen if s["mainsnak"]["snaktype"] == "value"]
    return [v["id"] if isinstance(v, dict) and "id" in v else v for v in values]


def assert_share(count: int, n: int, share: float) -> None:
    """``count`` of ``n`` is within 4.5 standard deviations of a binomial with the specified ``share``."""
    sd = math.sqrt(n * share * (1 - share))
    assert abs(count - n * share) <= 4.5 * sd, f"{count} of {n}, expected about {n * share:.0f} (sd {sd:.1f})"


def label(entity: dict) -> str:
    return entity["labels"]["en"]["value"]


@pytest.fixture(scope="module")
def world():
    entities = generate_people(1000, seed=11)
    people = [e for e in entities if e["type"] == "item" and best(e, "P31") == ["Q5"]]
    return entities, people, {e["id"]: e for e in entities}


# ---------------------------------------------------------------- determinism

def test_same_seed_same_bytes_and_another_seed_differs(tmp_path):
    for suffix in (".json", ".json.gz", ".json.bz2"):
        a, b, c = (tmp_path / f"{name}{suffix}" for name in "abc")
        write_entities(generate_people(60, seed=3), a)
        write_entities(generate_people(60, seed=3), b)
        write_entities(generate_people(60, seed=4), c)
        assert a.read_bytes() == b.read_bytes(), suffix
        assert a.read_bytes() != c.read_bytes(), suffix


def test_output_does_not_depend_on_the_hash_seed_of_the_process(tmp_path):
    code = ("import sys; from extract.wikidata.generate import generate_people; "
            "from extract.wikidata.write import write_entities; "
            "write_entities(generate_people(80, seed=5), sys.argv[1], form='jsonl')")
    outputs = []
    for hash_seed in ("1", "2"):
        path = tmp_path / f"h{hash_seed}.jsonl"
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        subprocess.run([sys.executable, "-c", code, str(path)], cwd=REPO_ROOT, env=env, check=True)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


# ---------------------------------------------------------------- people

def test_every_person_is_a_human_with_the_listed_properties(world):
    _, people, by_id = world
    assert [p["id"] for p in people] == [f"Q{900000001 + i}" for i in range(1000)]
    assert all(e["type"] == "item" and set(e) >= {"labels", "descriptions", "aliases", "claims"} for e in people)
    demonyms = {c["name"]: c["demonym"] for c in POOLS["countries"]}
    counts = Counter()
    for p in people:
        size = {prop: len(best(p, prop)) for prop in p["claims"]}
        assert size["P31"] == size["P21"] == size["P19"] == size["P569"] == size["P735"] == size["P734"] == 1
        assert best(p, "P21")[0] in GENDERS
        assert 1 <= size["P27"] <= 2 and 1 <= size["P106"] <= 2 and 1 <= size["P1412"] <= 3
        assert size.get("P69", 0) <= 2 and size.get("P108", 0) <= 1 and size.get("P102", 0) <= 1
        assert label(p) == f"{label(by_id[best(p, 'P735')[0]])} {label(by_id[best(p, 'P734')[0]])}"

        birth = best(p, "P569")[0]
        match = DATE[birth["precision"]].fullmatch(birth["time"])
        assert match and 1900 <= int(match[1]) <= 2000, birth
        assert (birth["timezone"], birth["before"], birth["after"]) == (0, 0, 0)
        assert birth["calendarmodel"] == "http://www.wikidata.org/entity/Q1985727"
        counts[f"precision {birth['precision']}"] += 1
        description = f"{demonyms[label(by_id[best(p, 'P27')[0]])]} {label(by_id[best(p, 'P106')[0]])}"
        assert ("P570" in p["claims"]) == ("P20" in p["claims"])
        if "P570" in p["claims"]:
            death = best(p, "P570")[0]
            assert DATE[11].fullmatch(death["time"]) and death["time"] > birth["time"]
            description += f" ({birth['time'][1:5]}\u2013{death['time'][1:5]})"
            counts["dead"] += 1
        assert p["descriptions"]["en"] == {"language": "en", "value": description}

        # a spoken language is a main (official) language of a citizenship country
        official = {q for country in best(p, "P27") for q in best(by_id[country], "P37")}
        assert official & set(best(p, "P1412")), label(p)
        if set(best(by_id[best(p, "P19")[0]], "P17")) & set(best(p, "P27")):
            counts["born at home"] += 1
        for prop in ("P102", "P2048", "P1971", "P26"):
            counts[prop] += bool(best(p, prop))
        for amount in best(p, "P2048"):
            assert amount["unit"] == METRE and re.fullmatch(r"\+[12]\.\d\d", amount["amount"])
            assert 1.4 <= float(amount["amount"]) <= 2.2
        for amount in best(p, "P1971"):
            assert amount["unit"] == "1" and re.fullmatch(r"\+\d", amount["amount"])
        for alias in p["aliases"].get("en", []):
            assert alias["value"] == f"{label(p)[0]}. {label(by_id[best(p, 'P734')[0]])}"
            counts["alias"] += 1
    assert len({label(p) for p in people}) == 1000
    # the shares the brief asks for: ~30 % dead, ~20 % in a party, ~50 % with a height, ...
    for key, share in (("dead", 0.30), ("precision 9", 0.04), ("precision 10", 0.04), ("P102", 0.20),
                       ("P2048", 0.50), ("P1971", 0.30), ("P26", 0.20), ("alias", 0.25)):
        assert_share(counts[key], 1000, share)
    assert counts["born at home"] >= 800


def test_every_referenced_item_and_property_has_an_entity_with_an_english_label(world):
    entities, people, by_id = world
    assert len(by_id) == len(entities), "an id repeats"
    statement_ids = []
    for entity in entities:
        assert entity["labels"]["en"]["language"] == "en" and label(entity)
        for prop, statements in entity["claims"].items():
            assert by_id[prop]["type"] == "property" and by_id[prop]["labels"]["en"]["value"]
            for s in statements:
                snak = s["mainsnak"]
                assert s["type"] == "statement" and snak["property"] == prop
                assert snak["datatype"] == by_id[prop]["datatype"]
                statement_ids.append(s["id"])
                assert STATEMENT_ID.fullmatch(s["id"]) and s["id"].startswith(entity["id"] + "$")
                if snak["snaktype"] == "value" and snak["datatype"] == "wikibase-item":
                    value = snak["datavalue"]["value"]
                    assert snak["datavalue"]["type"] == "wikibase-entityid"
                    assert value == {"entity-type": "item", "numeric-id": int(value["id"][1:]), "id": value["id"]}
                    assert by_id[value["id"]]["type"] == "item" and label(by_id[value["id"]])
                if snak["snaktype"] == "value" and snak["datatype"] == "quantity":
                    unit = snak["datavalue"]["value"]["unit"]
                    assert unit == "1" or label(by_id[unit.rsplit("/", 1)[1]]), unit
    assert len(set(statement_ids)) == len(statement_ids)
    # only the classes (Q5 among them), the metre and the genders keep real ids; the rest count up from Q800000001
    person_ids = {p["id"] for p in people}
    values = [e for e in entities if e["type"] == "item" and e["id"] not in person_ids]
    assert len(values) == VALUE_ITEMS
    real = {"Q5", "Q515", "Q6256", "Q34770", "Q12737077", "Q3918", "Q4830453", "Q7278", "Q202444", "Q101352",
            "Q48277", "Q11573"} | GENDERS
    synthetic = sorted(int(e["id"][1:]) for e in values if e["id"] not in real)
    assert synthetic == list(range(800000001, 800000001 + VALUE_ITEMS - len(real)))
    assert {label(e) for e in values if best(e, "P31") == ["Q515"]} == {c["name"] for c in POOLS["cities"]}


def test_spouses_are_symmetric(world):
    _, people, by_id = world
    married = [p for p in people if p["claims"].get("P26")]
    assert married
    for p in married:
        spouses = best(p, "P26")
        assert len(spouses) == 1 and spouses[0] != p["id"]
        assert best(by_id[spouses[0]], "P26") == [p["id"]]


def test_ranks_and_somevalue_snaks_appear_as_specified(world):
    _, people, _ = world
    counts = Counter()
    for p in people:
        statements = [s for group in p["claims"].values() for s in group]
        assert {s["rank"] for s in statements} <= {"normal", "preferred", "deprecated"}
        counts["deprecated"] += any(s["rank"] == "deprecated" for s in statements)
        counts["somevalue"] += any(s["mainsnak"]["snaktype"] == "somevalue" for s in statements)
        for s in statements:
            if s["mainsnak"]["snaktype"] == "somevalue":
                assert "datavalue" not in s["mainsnak"]
        for prop, group in p["claims"].items():
            ranks = [s["rank"] for s in group]
            if "preferred" in ranks:
                counts["preferred"] += 1
                assert ranks.count("preferred") == 1 and "normal" in ranks, (p["id"], prop)
            values = [json.dumps(s["mainsnak"].get("datavalue"), sort_keys=True) for s in group]
            # a deprecated value is an old wrong one: never also a current value
            kept = {v for v, r in zip(values, ranks) if r != "deprecated"}
            assert not {v for v, r in zip(values, ranks) if r == "deprecated"} & kept
    assert_share(counts["deprecated"], 1000, 0.10)
    assert_share(counts["preferred"], 1000, 0.05)
    assert_share(counts["somevalue"], 1000, 0.03)


def test_people_only_returns_just_the_people():
    full = generate_people(40, seed=2)
    people = generate_people(40, seed=2, people_only=True)
    assert people == full[:40]
    assert all(best(p, "P31") == ["Q5"] for p in people)


@pytest.mark.parametrize("count, seed", [(0, 1), (6401, 1), (2.5, 1), (3, "x"), (3, True)])
def test_bad_count_or_seed_is_refused(count, seed):
    with pytest.raises(ConfigError, match="number of people|seed"):
        generate_people(count, seed)


# ---------------------------------------------------------------- forms

def _read(path: Path, form: str) -> list:
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    if form == "dump":
        lines = text.split("\n")
        assert lines[0] == "[" and lines[-2:] == ["]", ""]
        body = lines[1:-2]
        assert all(line.endswith(",") for line in body[:-1]) and not body[-1].endswith(",")
        return [json.loads(line.rstrip(",")) for line in body]
    if form == "jsonl":
        return [json.loads(line) for line in text.splitlines()]
    answer = json.loads(text)
    assert answer["success"] == 1 and all(key == e["id"] for key, e in answer["entities"].items())
    return list(answer["entities"].values())


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("form", ["dump", "jsonl", "wbgetentities"])
def test_every_form_round_trips_with_the_standard_library(tmp_path, form, suffix):
    entities = generate_people(25, seed=9)
    path = tmp_path / f"people.{form}{suffix}"
    assert write_entities(entities, path, form=form) == len(entities)
    assert _read(path, form) == entities
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "a temporary file was left behind"


def test_an_unknown_form_is_refused_and_nothing_is_written(tmp_path):
    path = tmp_path / "people.xml"
    with pytest.raises(ConfigError, match=r"unknown form 'xml'; valid forms: dump, jsonl, wbgetentities"):
        write_entities(generate_people(2, seed=1), path, form="xml")
    assert not path.exists()


# ---------------------------------------------------------------- CLI

def test_cli_writes_the_file_and_reports_the_counts(tmp_path):
    path = tmp_path / "people.jsonl.bz2"
    result = CliRunner().invoke(cli, ["generate", "wikidata", "--people", "30", "--seed", "5", "--form", "jsonl",
                                      "--output", str(path)])
    assert result.exit_code == 0, result.output
    written = _read(path, "jsonl")
    people = [e for e in written if e["id"].startswith("Q9000000")]
    items = sum(1 for e in written if e["type"] == "item")
    statements = sum(len(group) for e in written for group in e["claims"].values())
    assert len(people) == 30 and items - 30 == VALUE_ITEMS
    assert result.output == f"wrote {path}: 30 people, {VALUE_ITEMS} value items, {statements} statements (seed 5)\n"


def test_cli_refuses_bad_options():
    runner = CliRunner()
    result = runner.invoke(cli, ["generate", "wikidata", "--people", "3", "--form", "xml", "-o", "x.json"])
    assert result.exit_code == 2 and "Invalid value for '--form'" in result.output
    result = runner.invoke(cli, ["generate", "wikidata", "--people", "9000", "-o", "x.json"])
    assert result.exit_code == 1
    assert "Error: the number of people must be a whole number from 1 to 6400" in result.output
