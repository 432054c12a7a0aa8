"""Reading corpora, normalization, canonical relations, short mentions and passages.

Expected values are worked out by hand from the inputs written here.
"""

from __future__ import annotations

import json

import pytest

from extract.text.corpus import MAX_DOCUMENT_CHARS, CorpusOptions, read_corpus
from extract.text.normalize import canonical, normalize_date, normalize_name, resolve_short_mentions
from extract.text.graph import segment
from extract.text.units import Document, Triple
from graphstore.errors import InputDataError


# -- reading -----------------------------------------------------------------------------
def test_plain_text_blocks_and_lines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("First doc line one.\nline two.\n\n\n\nSecond doc.\n", encoding="utf-8")
    docs, report = read_corpus(path, "forget")
    assert [d.text for d in docs] == ["First doc line one. line two.", "Second doc."]
    assert [d.record for d in docs] == ["line 1", "line 6"]
    assert {d.split for d in docs} == {"forget"}
    docs, _ = read_corpus(path, "retain", CorpusOptions(one_per_line=True))
    assert [d.text for d in docs] == ["First doc line one.", "line two.", "Second doc."]
    assert report.characters == len("First doc line one. line two.") + len("Second doc.")


def test_jsonl_and_json_forms_with_a_custom_field(tmp_path):
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"body": "A."}\n\n{"body": ""}\n{"body": "B."}\n', encoding="utf-8")
    docs, report = read_corpus(jsonl, "forget", CorpusOptions(text_field="body"))
    assert [d.text for d in docs] == ["A.", "B."] and report.empty_skipped == 1
    assert [d.record for d in docs] == ["line 1", "line 4"]
    js = tmp_path / "c.json"
    js.write_text(json.dumps(["One.", {"text": "Two."}]), encoding="utf-8")
    docs, _ = read_corpus(js, "retain")
    assert [d.text for d in docs] == ["One.", "Two."] and [d.index for d in docs] == [0, 1]


@pytest.mark.parametrize("name, content, message", [
    ("b.txt", b"abc\x00def", "binary content (a NUL byte at offset 3)"),
    ("l.txt", "caf\u00e9".encode("latin-1"), "not UTF-8 text (byte 3"),
    ("e.txt", b"  \n\n ", "the file is empty"),
    ("s.json", b'{"text": "x"}', "expected a JSON list of documents, found a dict"),
    ("n.json", b'["ok", 5]', "record 1: expected a string or an object with a 'text' field, found a int"),
    ("m.jsonl", b'{"text": "ok"}\n{"body": "x"}\n', "line 2: no 'text' field (fields: body)"),
    ("t.jsonl", b'{"text": "ok"}\n{"text": \n', "line 2: not JSON"),
    ("a.jsonl", b'["x"]\n', "line 1: expected a JSON object with a 'text' field, found a list"),
    ("i.jsonl", b'{"text": 3}\n', "line 1: field 'text' is a int, not text"),
    ("z.json", b'["", "  "]', "no document with any text in it"),
])
def test_bad_files_are_refused_naming_file_and_place(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputDataError) as e:
        read_corpus(path, "forget")
    assert str(e.value).startswith(f"{path}: ")
    assert message in str(e.value)


def test_an_enormous_document_is_refused_with_its_line(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("Small.\n\n" + "x" * (MAX_DOCUMENT_CHARS + 1) + "\n", encoding="utf-8")
    with pytest.raises(InputDataError, match=r"line 3: a document of 1,000,001 characters"):
        read_corpus(path, "forget")


# -- normalization -------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [
    ("Dr. Marie  Curie", "marie curie"),
    ("The Beatles", "beatles"),
    ("5 May 1900", "May 5, 1900"),
    ("O'Brien", "o brien"),
    ("  Paris ", "PARIS"),
])
def test_equal_after_normalization(a, b):
    assert normalize_name(a) == normalize_name(b)


def test_dates_become_iso_and_non_dates_are_none():
    assert normalize_date("7 November 1867") == "1867-11-07"
    assert normalize_date("November 7, 1867") == "1867-11-07"
    assert normalize_date("Sept 1990") == "1990-09"
    assert normalize_date("1990") == "1990"
    assert normalize_date("Paris") is None
    assert normalize_date("40 May 1990") is None


def test_inverse_relations_are_stored_one_way_and_symmetric_ones_ordered():
    # P150 "contains" is the inverse of P131 "located in"; P1376 "capital of" of P36 "capital".
    assert canonical("Hesse", "P150", "Kassel") == ("Kassel", "P131", "Hesse")
    assert canonical("Paris", "P1376", "France") == ("France", "P36", "Paris")
    assert canonical("Zoe Adams", "P26", "Ann Brown") == ("Ann Brown", "P26", "Zoe Adams")
    assert canonical("Ann Brown", "P26", "Zoe Adams") == ("Ann Brown", "P26", "Zoe Adams")
    assert canonical("X", "P19", "Y") == ("X", "P19", "Y")


def _t(head, tail, relation="P19"):
    return Triple(head, relation, tail, "p", "rules")


def test_short_mentions_resolve_only_when_unambiguous():
    resolved = resolve_short_mentions([_t("Marie Curie", "Warsaw"), _t("Curie", "Paris", "P20"),
                                       _t("ITS", "1971", "P571"),
                                       _t("International Transportation Service", "Long Beach", "P159")])
    assert [(t.head, t.tail) for t in resolved] == [
        ("Marie Curie", "Warsaw"), ("Marie Curie", "Paris"),
        ("International Transportation Service", "1971"), ("International Transportation Service", "Long Beach")]
    ambiguous = resolve_short_mentions([_t("John Smith", "Leeds"), _t("Anna Smith", "York"), _t("Smith", "Hull")])
    assert [t.head for t in ambiguous] == ["John Smith", "Anna Smith", "Smith"]
    # A recognised place is never short for a longer name; a word inside a name is no mention.
    places = resolve_short_mentions([Triple("Graz", "P17", "Austria", "p", "rules", "", "place"),
                                     _t("Linz", "Upper Austria", "P131"),
                                     _t("Vienna", "1900", "P571"), _t("Old Vienna Hall", "Linz", "P131")])
    assert [(t.head, t.tail) for t in places] == [("Graz", "Austria"), ("Linz", "Upper Austria"),
                                                   ("Vienna", "1900"), ("Old Vienna Hall", "Linz")]


# -- passages ------------------------------------------------------------------------------
def test_passages_are_whole_sentences_within_the_bounds():
    from extract.text.nlp import load_pipeline
    nlp = load_pipeline()
    text = "One two three. Four five six seven. Eight. " + " ".join(["word"] * 25) + ". Last one."
    doc = nlp(text)
    document = Document("f.txt", 0, "line 1", "forget", text)
    parts = segment(doc, document, "g/forget/f/0", max_tokens=10, max_sentences=2)
    passages = [p for p, _ in parts]
    assert [p.key for p in passages] == [f"g/forget/f/0/{i}" for i in range(len(passages))]
    for p, sentences in parts:
        assert sum(len(s) for s in sentences) <= 10 and len(sentences) <= 2
        assert p.text == text[p.start:p.end]
        for (a, b), s in zip(p.sentences, sentences):
            assert p.text[a:b] == s.text
    # Sentences of 4, 5 and 2 tokens: [4, 5] fills two sentences, [2] starts the next; the
    # 26-token sentence is cut into windows of 10, 10 and 6 tokens.
    assert passages[0].text == "One two three. Four five six seven."
    assert passages[1].text.startswith("Eight.")
    assert " ".join(p.text for p in passages).split() == text.split()


def test_a_spacy_model_that_is_not_installed_is_refused_clearly():
    from extract.text.nlp import load_pipeline
    from graphstore.errors import ConfigError
    with pytest.raises(ConfigError, match=r"--spacy-model 'en_core_web_nonexistent' is not an installed spaCy pipeline"):
        load_pipeline("en_core_web_nonexistent")
