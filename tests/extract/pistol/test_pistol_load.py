"""Recovering the graph from the real PISTOL datasets, and refusing bad files."""

from __future__ import annotations

import json

import pytest

from extract.pistol.load import PistolVariant, Rename, load_pistol
from graphstore.errors import InputDataError

from conftest import pistol_file

# Read by hand off the datasets: the name each endpoint label keeps in every contract.
SAMPLE_1_NAMES = {
    "A": "Jzrcws SA", "B": "Wnzatj SAS", "C": "Qpubwe PLC", "C2": "Lasnoj SAS", "C3": "Dmimyu GmbH",
    "D": "Avrbci Ltd", "E1": "Cqndue LLC", "F1": "Ctvepy SAS", "E3": "Mjlwxf NV", "F3": "Clsvfw AG",
    "m": "Xqtb Laur", "q3": "Errg Zipo",
}
SAMPLE_2_NAMES = {"0": "Oosvxc BV", "1": "Fcgqkv Ltd", "9": "Dqchpy Inc", "19": "Gadwnx SA", "29": "Xxkdna PLC"}


def test_sample_1_graph_is_recovered():
    g = load_pistol(pistol_file("sample_data_1.json"))
    assert (len(g.entities), len(g.facts), g.qa_count) == (24, 20, 400)
    names = {e.label: e.name for e in g.entities}
    for label, name in SAMPLE_1_NAMES.items():
        assert names[label] == name
    kinds = {e.label: e.kind for e in g.entities}
    assert kinds["m"] == "person" and kinds["A"] == "company"
    facts = {f.label: f for f in g.facts}
    # A_B: the seller is B (Wnzatj SAS), the customer A; the head of the edge is the seller
    assert (facts["A_B"].head, facts["A_B"].tail) == ("sample_data_1/B", "sample_data_1/A")
    assert facts["A_B"].attributes["total_price"] == 288
    assert facts["A_B"].attributes["good"] == "T-shirts"
    assert facts["E3_q3"].domain == "employment" and facts["E3_q3"].attributes["employment_months"] == 19
    assert all(len(f.questions) == 20 for f in g.facts)
    assert facts["A_B"].answers[0] == "06-02-1998."


def test_sample_2_graph_is_recovered():
    g = load_pistol(pistol_file("sample_data_2.json"))
    assert (len(g.entities), len(g.facts), g.qa_count) == (30, 75, 1500)
    names = {e.label: e.name for e in g.entities}
    for label, name in SAMPLE_2_NAMES.items():
        assert names[label] == name
    assert {f.domain for f in g.facts} == {"sales"}
    for f in g.facts:  # total price = quantity x unit price in every contract
        assert f.attributes["total_price"] == f.attributes["quantity"] * f.attributes["unit_price"]


# -- variants: part of a file, an entity renamed (PISTOL 000, Sec. 6) ---------------------------
DENSE4 = ("20", "21", "22", "23")


def test_a_variant_keeps_the_contracts_among_its_entities_and_renames_one_everywhere():
    path = pistol_file("sample_data_2.json")
    raw = json.loads(path.read_text())
    kept_raw = [r for r in raw if set(r["edge"].split("_")) <= set(DENSE4)]
    plain = {e.label: e for e in load_pistol(path).entities}
    old_name, old_address = plain["20"].name, plain["20"].properties["address"]
    variant = PistolVariant(DENSE4, (Rename("20", "Goldman Sachs", "200 West Street"),))
    g = load_pistol(path, graph="gs", variant=variant)
    assert sorted(f.label for f in g.facts) == sorted({r["edge"] for r in kept_raw})
    assert g.qa_count == len(kept_raw) == 6 * 20
    entities = {e.label: e for e in g.entities}
    assert sorted(entities) == list(DENSE4)
    assert (entities["20"].name, entities["20"].properties["address"]) == ("Goldman Sachs", "200 West Street")
    assert all(entities[k].name == plain[k].name for k in ("21", "22", "23"))
    texts = [t for f in g.facts for t in f.questions + f.answers]
    assert not any(old_name in t or old_address in t for t in texts)
    raw_texts = [r[k] for r in kept_raw for k in ("question", "answer")]
    assert sum(t.count("Goldman Sachs") for t in texts) == sum(t.count(old_name) for t in raw_texts) > 0
    # The content digest follows the variant: the same variant is the same graph, another is not.
    assert g.sha256 == load_pistol(path, graph="gs", variant=variant).sha256
    assert g.sha256 not in (load_pistol(path).sha256, load_pistol(path, variant=PistolVariant(DENSE4)).sha256)
    assert '"Goldman Sachs"' in g.properties["variant"]


@pytest.mark.parametrize("variant, message", [
    (PistolVariant(("20", "99")), "no entity '99'"),
    (PistolVariant(("0", "25")), "no edge joins two of the kept entities 0, 25"),
    (PistolVariant((), (Rename("20", "Qxdylv AG"),)), "another entity has that name"),
])
def test_a_variant_the_file_cannot_give_is_refused_naming_the_file(variant, message):
    path = pistol_file("sample_data_2.json")
    with pytest.raises(InputDataError, match=f"^{path}: .*{message}"):
        load_pistol(path, variant=variant)


def _write(tmp_path, content, name="bad.json"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def _records():
    return json.loads(pistol_file("sample_data_2.json").read_text(encoding="utf-8"))[:40]  # edges 0_1, 1_2


@pytest.mark.parametrize("content, message", [
    ("", "the file is empty"),
    ("[]", "the list holds no records"),
    ("{\"a\": 1}", "expected a JSON list of records, found a dict"),
    ("[{\"question\": \"q\", ", "not JSON at line 1, column 19: the file ends before the JSON does (truncated?)"),
    (b"[\xff\xfe]", "not UTF-8 text (byte 1"),
])
def test_unusable_files_are_refused_with_the_file_named(tmp_path, content, message):
    path = _write(tmp_path, content)
    with pytest.raises(InputDataError) as e:
        load_pistol(path)
    assert str(e.value).startswith(f"{path}: ")
    assert message in str(e.value)


def test_record_without_answer_is_named(tmp_path):
    records = _records()
    del records[7]["answer"]
    with pytest.raises(InputDataError, match=r"record 7: no 'answer' field"):
        load_pistol(_write(tmp_path, records))


def test_edge_label_without_two_endpoints_is_named(tmp_path):
    records = _records()
    for r in records[20:40]:
        r["edge"] = "12"
    with pytest.raises(InputDataError, match=r"record 20: edge label '12' does not name two endpoints"):
        load_pistol(_write(tmp_path, records))


def test_contradicting_party_names_are_named(tmp_path):
    records = _records()
    # record 5 of edge 0_1 asks about the good "...between Oosvxc BV and Fcgqkv Ltd?"
    records[5]["question"] = records[5]["question"].replace("Fcgqkv Ltd", "Fcgqkv GmbH")
    with pytest.raises(InputDataError) as e:
        load_pistol(_write(tmp_path, records))
    assert "record 5: edge 0_1: the question names the customer 'Fcgqkv GmbH', but the answers say 'Fcgqkv Ltd'" in str(e.value)


def test_an_entity_renamed_in_another_contract_is_refused(tmp_path):
    records = _records()
    # node 1 is the customer Fcgqkv Ltd in 0_1 and in 1_2: rename it everywhere in 1_2 only
    for r in records[20:40]:
        r["question"] = r["question"].replace("Fcgqkv Ltd", "Other Ltd")
        r["answer"] = r["answer"].replace("Fcgqkv Ltd", "Other Ltd")
    with pytest.raises(InputDataError, match="entity '1' has no name common to its contracts"):
        load_pistol(_write(tmp_path, records))


def test_edge_with_missing_qa_pairs_is_refused(tmp_path):
    records = _records()
    del records[30]
    with pytest.raises(InputDataError, match="edge 1_2 has 19 QA pairs; a sales contract has 20; missing: invoice_payment_days"):
        load_pistol(_write(tmp_path, records))
