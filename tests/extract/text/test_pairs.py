"""A forget/retain pair with a known share of restated sentences, and the redundancy the graph finds in it."""

from __future__ import annotations

import json

import pytest

from audit.build import TextSource, build_graph
from extract.text.pairs import Abstract, make_pair, read_abstracts, sentences, write_pair
from graphstore.errors import InputDataError

PEOPLE = [("Anna Berg", "Oslo", "1950", "Bergen"), ("Carl Dahl", "Lund", "1961", "Malmo"),
          ("Eva Falk", "Turku", "1972", "Espoo"), ("Gustav Holm", "Aarhus", "1948", "Odense"),
          ("Ida Juhl", "Kiel", "1983", "Lubeck"), ("Karl Lind", "Umea", "1957", "Lulea"),
          ("Lena Moe", "Tromso", "1969", "Bodo"), ("Nils Ohm", "Vaasa", "1974", "Oulu")]


def abstracts() -> list[Abstract]:
    out = []
    for name, born, year, died in PEOPLE:
        text = f"{name} was born in {born} in {year}. {name} died in {died}."
        out.append(Abstract(name, text, ((name, "place of birth", born), (name, "date of birth", year),
                                         (name, "place of death", died))))
    return out


def test_the_share_of_self_contained_sentences_is_restated_as_briefs():
    pair = make_pair(abstracts(), 4, 4, 0.5, seed=3)
    m = pair.manifest
    assert m["self_contained_sentences"] == 8   # two per forget abstract, each naming subject and object
    assert m["restated_sentences"] == 4
    assert len(pair.forget) == 4 and len(pair.retain) == 4 + 4
    briefs = [r["sentence"] for r in m["restated"]]
    assert all(b in pair.retain for b in briefs)   # each a document of its own
    forget_sentences = {s for text in pair.forget for s in sentences(text)}
    assert set(briefs) <= forget_sentences
    # gold triples restated, counted independently from the briefs' text
    by_title = {a.title: a for a in abstracts()}
    restated = sum(1 for title in m["forget_documents"] for t in by_title[title].triples
                   if any(t[0] in b and t[2] in b for b in briefs))
    assert m["gold_triples_restated"] == restated and m["gold_forget_triples"] == 12
    assert make_pair(abstracts(), 4, 4, 0.5, seed=3) == pair
    assert make_pair(abstracts(), 4, 4, 0.5, seed=4) != pair


def test_the_graph_finds_the_restated_facts_redundant(store, tmp_path):
    pair = make_pair(abstracts(), 4, 4, 0.5, seed=3)
    forget, retain, manifest = write_pair(pair, tmp_path / "pair")
    assert json.loads(manifest.read_text())["restated_sentences"] == 4
    build_graph(store, TextSource((forget,), (retain,)), graph="pair")
    briefs = [r["sentence"] for r in pair.manifest["restated"]]
    rows = store.read("MATCH (:Entity {graph: 'pair'})-[f:FACT {split: 'forget'}]->() "
                      "RETURN f.evidence AS evidence, f.redundant AS redundant")
    assert len(rows) >= 8
    # a forget fact is redundant exactly when the sentence it came from was restated
    assert all(r["redundant"] == (r["evidence"] in briefs) for r in rows), rows
    assert any(r["redundant"] for r in rows) and not all(r["redundant"] for r in rows)


def test_bad_abstracts_are_refused_naming_the_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"text": "A was born in B.", "triples": []}\n{"title": "x"}\n')
    with pytest.raises(InputDataError, match="line 2"):
        read_abstracts(path)
    with pytest.raises(InputDataError, match="must be in"):
        make_pair(abstracts(), 2, 2, 1.5, 0)
    with pytest.raises(InputDataError, match="the file has 8 with triples"):
        make_pair(abstracts(), 6, 6, 0.5, 0)
