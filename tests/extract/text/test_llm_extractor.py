"""The ``llm`` extractor against a real HTTP server on loopback that stands in for a model.

The stand-in reads the numbered passages of each prompt and answers from a table of facts
written by hand for the sentences below; words in a passage script its faults: a markdown
fence, a trailing comma, a reply cut mid-fact, prose the first time it is asked, a passage
left out, a name the passage does not contain, a relation by its label, a call that never
answers. Expected facts and spans are written by hand or found with ``str.index``, not taken
from the extractor.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from audit.questions.backends import OpenAICompatibleBackend
from cli.main import cli
from extract.text.catalog import create_extractor, extractor_names
from extract.text.extractors import Segment
from extract.text.llm import ExtractionError, LLMExtractor, load_prompt
from extract.text.llm_reply import Fact, ReplyError, check_fact, parse_reply, repair_json
from extract.text.options import LLMExtractorOptions, TextBuildOptions
from extract.text.units import Passage
from graphstore.errors import ConfigError, InputDataError

# sentence fragment -> the facts a careful model finds in it (head, relation, tail, evidence)
KNOWN = {
    "Ada Lovelace was born in London": [("Ada Lovelace", "P19", "London", "Ada Lovelace was born in London")],
    "Tarrow Mills employs Rhea Vance": [("Rhea Vance", "P108", "Tarrow Mills", "Tarrow Mills employs Rhea Vance")],
    "Ivo Brandt married Lena Ruiz": [("Ivo Brandt", "P26", "Lena Ruiz", "Ivo Brandt married Lena Ruiz")],
    "Omar Haddad was born in Cairo": [("Omar Haddad", "P19", "Cairo", "Omar Haddad was born in Cairo")],
}


def answer_for(text: str) -> list[dict]:
    facts = [f for fragment, found in KNOWN.items() if fragment in text for f in found]
    out = [{"head": h, "relation": r, "tail": t, "evidence": e} for h, r, t, e in facts]
    if "HALLUCINATE" in text:
        out.append({"head": "Nobody Here", "relation": "P19", "tail": "Atlantis", "evidence": ""})
    if "LABEL" in text:
        out = [{**f, "relation": "place of birth" if f["relation"] == "P19" else f["relation"]} for f in out]
    return out


class FakeModel(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), FakeHandler)
        self.prompts: list[str] = []
        self.asked: dict[str, int] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class FakeHandler(BaseHTTPRequestHandler):
    server: FakeModel

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        self.server.prompts.append(user)
        block = user.split("Passages:\n", 1)[1].split("\n\nFor each passage", 1)[0]
        passages = {int(n): text for n, text in re.findall(r"\[(\d+)\] (.*?)(?=\n\n\[\d+\] |\Z)", block, re.S)}
        joined = " ".join(passages.values())
        times = self.server.asked[joined] = self.server.asked.get(joined, 0) + 1
        if "NEVER" in joined:
            time.sleep(1.5)
            return
        if "BROKEN" in joined:
            return self._send(500, b'{"error": "model crashed"}')
        if "PROSE" in joined and times == 1:
            return self._reply("I found several facts in these passages.")
        entries = [{"id": n, "facts": answer_for(text)} for n, text in passages.items()
                   if not ("SKIP" in text and len(passages) > 1)]
        reply = json.dumps({"passages": entries})
        if "FENCE" in joined:
            reply = f"Here you are:\n```json\n{reply}\n```"
        if "COMMA" in joined:
            reply = reply.replace("]}]}", "],}],}")
        if "CUT" in joined:
            reply = reply[:reply.rindex('"evidence"') - 2]   # stopped inside the last fact
        self._reply(reply)

    def _reply(self, content: str):
        self._send(200, json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode())

    def _send(self, status: int, payload: bytes):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture()
def model():
    server = FakeModel()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def segments(*texts: str) -> list[Segment]:
    return [Segment(Passage(f"g/forget/doc/{i}/0", "forget", "doc.txt", i, 0, 0, len(t), t), []) for i, t in enumerate(texts)]


def extractor(model: FakeModel, timeout: float = 30, **options) -> LLMExtractor:
    return LLMExtractor(OpenAICompatibleBackend(model.url, "fake-7b", timeout=timeout), "fake-7b", **options)


RELATION_IDS = {"p19": "P19", "place of birth": "P19", "p108": "P108"}


# --- reading a reply ---------------------------------------------------------------------

def test_a_reply_is_repaired_and_each_fact_checked_against_its_passage():
    passage = "Ada Lovelace was born in London. She wrote notes."
    good = {"head": "Ada Lovelace", "relation": "P19", "tail": "London", "evidence": "born in London"}
    reply = "```json\n" + json.dumps({"passages": [{"id": 1, "facts": [
        good,
        {**good, "relation": "place of birth"},                 # the label: the same fact, kept once
        {**good, "relation": "P999"},                            # unknown_relation
        {**good, "tail": "Paris"},                               # not_in_passage
        {**good, "tail": "ada lovelace"},                        # same_entity
        {"head": "Ada Lovelace", "relation": 19, "tail": "x"},   # not_an_object
    ]}]}) + "\n```"
    parsed = parse_reply(reply, {1: passage, 2: "No facts here."}, RELATION_IDS)
    assert parsed.facts == {1: [Fact("Ada Lovelace", "P19", "London", "born in London")]}
    assert parsed.missing == [2] and parsed.repaired
    assert dict(parsed.rejected) == {"unknown_relation": 1, "not_in_passage": 1, "same_entity": 1, "not_an_object": 1}


def test_a_cut_reply_keeps_its_complete_facts_and_prose_is_refused():
    whole = {"passages": [{"id": 1, "facts": [{"head": "A", "relation": "P19", "tail": "B"},
                                              {"head": "C", "relation": "P19", "tail": "D"}]}]}
    text = json.dumps(whole)
    cut = text[:text.index('"tail": "D"')]
    assert repair_json(cut) == ({"passages": [{"id": 1, "facts": [{"head": "A", "relation": "P19", "tail": "B"}]}]},
                                True, True)
    assert repair_json('{"facts": [1, 2,],}') == ({"facts": [1, 2]}, True, False)
    assert repair_json(text) == (whole, False, False)
    # a preamble with braces of its own, a reasoning block: the object the reply is for
    assert repair_json("Passage [1]: {x} <think>{\"passages\": 0}</think> " + text).value == whole
    with pytest.raises(ReplyError, match="no_json"):
        repair_json("I could not find any facts.")
    with pytest.raises(ReplyError, match="no_passages_list"):
        parse_reply('{"facts": []}', {1: "x", 2: "y"}, RELATION_IDS)
    # the passage a cut reply was answering is marked: its facts may be incomplete
    two = json.dumps({"passages": [{"id": 1, "facts": []}, {"id": 2, "facts": [
        {"head": "Ada", "relation": "P19", "tail": "London"}, {"head": "Ada", "relation": "P19", "tail": "Paris"}]}]})
    parsed = parse_reply(two[:two.index('"tail": "Paris"')], {1: "x", 2: "Ada was born in London."}, RELATION_IDS)
    assert parsed.facts == {1: [], 2: [Fact("Ada", "P19", "London")]} and parsed.partial == [2]


@pytest.mark.parametrize("raw_id, kept", [(1, True), ("1", True), (1.0, True), (True, False), ("\u00b2", False),
                                          ("x", False), (None, False)])
def test_a_passage_id_is_read_as_models_write_it(raw_id, kept):
    reply = json.dumps({"passages": [{"id": raw_id, "facts": []}]})
    parsed = parse_reply(reply, {1: "text"}, RELATION_IDS)
    assert (parsed.facts == {1: []}) is kept and parsed.rejected["bad_passage_entry"] == (0 if kept else 1)


def test_names_are_grounded_as_whole_words_whatever_the_typography():
    passage = "Sea\u0301n O\u2019Brien was born in Z\u00fcrich; Albert stayed."
    fact = {"relation": "P19", "tail": "Z\u00fcrich"}
    assert check_fact({**fact, "head": "Se\u00e1n O'Brien"}, passage, RELATION_IDS)[1] == ""   # NFKC, quote
    assert check_fact({**fact, "head": "Al"}, passage, RELATION_IDS)[1] == "not_in_passage"       # not a word


# --- asking a server ---------------------------------------------------------------------

def test_passages_are_asked_in_batches_and_each_triple_has_its_span_and_version(model):
    texts = ["Ada Lovelace was born in London. She wrote notes.", "Tarrow Mills employs Rhea Vance today.",
             "Nothing happened.", "In 1990 Ivo Brandt married Lena Ruiz."]
    ex = extractor(model, passages_per_request=2, workers=2)
    triples = ex.extract(segments(*texts))
    assert len(model.prompts) == 2                       # 4 passages, 2 a request
    assert all("P19: place of birth, person -> place" in p for p in model.prompts)   # the inventory as schema
    got = {(t.passage, t.head, t.relation, t.tail, t.start, t.end) for t in triples}
    expected = set()
    for i, text in enumerate(texts):
        for fragment, found in KNOWN.items():
            if fragment in text:
                for h, r, t, e in found:
                    expected.add((f"g/forget/doc/{i}/0", h, r, t, text.index(e), text.index(e) + len(e)))
    assert got == expected
    assert {t.extractor for t in triples} == {"llm"}
    assert ex.version == "llm:fake-7b+triples.v1+relations.v1"
    assert {(t.head_kind, t.tail_kind) for t in triples if t.relation == "P19"} == {("person", "place")}


def test_repairs_retries_and_skipped_passages(model):
    texts = ["FENCE COMMA Ada Lovelace was born in London.", "PROSE Omar Haddad was born in Cairo.",
             "SKIP Ivo Brandt married Lena Ruiz.", "CUT LABEL Tarrow Mills employs Rhea Vance. Omar Haddad was "
             "born in Cairo.", "HALLUCINATE Nothing else."]
    ex = extractor(model, passages_per_request=1)
    found = {(t.head, t.relation, t.tail) for t in ex.extract(segments(*texts))}
    assert found == {("Ada Lovelace", "P19", "London"), ("Omar Haddad", "P19", "Cairo"),
                     ("Ivo Brandt", "P26", "Lena Ruiz"), ("Rhea Vance", "P108", "Tarrow Mills")}
    # the cut reply lost its last fact (Omar Haddad's, in passage 4) and kept the complete one
    assert ex.stats.retries == 1 and ex.stats.rejected == {"not_in_passage": 1}
    assert ex.stats.repaired == 2                        # the fenced one and the cut one
    skipped = extractor(model, passages_per_request=2)
    got = skipped.extract(segments("SKIP Ivo Brandt married Lena Ruiz.", "Ada Lovelace was born in London."))
    assert {t.head for t in got} == {"Ivo Brandt", "Ada Lovelace"} and skipped.stats.retries == 1


def test_a_passage_never_answered_is_an_error_naming_it(model):
    ex = extractor(model, timeout=0.3, passages_per_request=1, retries=1)
    with pytest.raises(ExtractionError, match=r"g/forget/doc/1/0: the llm extractor got no usable answer after 2 tries"):
        ex.extract(segments("Ada Lovelace was born in London.", "NEVER answered."))
    reading_on = extractor(model, timeout=0.3, passages_per_request=1, retries=0, skip_unanswered=True)
    got = reading_on.extract(segments("Ada Lovelace was born in London.", "NEVER answered.", "BROKEN here."))
    assert [(t.head, t.tail) for t in got] == [("Ada Lovelace", "London")]
    assert reading_on.stats.unanswered == 2 and "2 passages never answered" in reading_on.summary()


def test_the_cache_answers_a_second_build_without_asking(model, tmp_path):
    texts = ["Ada Lovelace was born in London.", "Tarrow Mills employs Rhea Vance."]
    first = extractor(model, cache=tmp_path / "cache").extract(segments(*texts))
    asked = len(model.prompts)
    again = extractor(model, cache=tmp_path / "cache")
    assert again.extract(segments(*texts)) == first
    assert len(model.prompts) == asked and again.stats.cached == 2
    other = LLMExtractor(OpenAICompatibleBackend(model.url, "other"), "other", cache=tmp_path / "cache")
    other.extract(segments(*texts))                      # another model's answers are not this one's
    assert len(model.prompts) > asked


def test_registry_options_and_prompt_files(tmp_path):
    assert extractor_names() == ("rules", "rebel", "llm")
    with pytest.raises(ConfigError, match="unknown extractor 'spacy'; valid: llm, rebel, rules"):
        create_extractor(TextBuildOptions(extractor="spacy"))
    with pytest.raises(InputDataError, match="llm needs --extractor-llm"):
        TextBuildOptions(extractor="llm")
    with pytest.raises(ConfigError, match="needs a model"):
        create_extractor(TextBuildOptions(extractor="llm", llm=LLMExtractorOptions("http://x/v1")))
    bad = tmp_path / "prompt.json"
    bad.write_text(json.dumps({"version": "mine.v1", "system": "s", "user": "{passages} {facts}"}), "utf-8")
    with pytest.raises(InputDataError, match=r"prompt.json: field 'user' uses \['facts'\]"):
        load_prompt(bad)
    assert load_prompt().version == "triples.v1"


# --- a build -----------------------------------------------------------------------------

GRAPH = """MATCH (h:Entity {graph: 'bios'})-[f:FACT]->(t:Entity)
RETURN h.name AS head, f.relation AS relation, t.name AS tail, f.extractor AS extractor,
       f.extractor_version AS version, f.evidence AS evidence, f.evidence_span AS span"""


def test_audit_build_with_the_llm_extractor(store, store_args, model, tmp_path):
    corpus = tmp_path / "bios.txt"
    corpus.write_text("Ada Lovelace was born in London. She wrote notes.\n\nIvo Brandt married Lena Ruiz.\n", "utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["build", "--forget", str(corpus), "--extractor", "llm", "--extractor-llm", model.url,
                                 "--extractor-model", "fake-7b", *store_args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "llm extractor: 2 passages (0 from the cache), 1 requests" in result.output
    rows = store.read(GRAPH)
    assert {(r["head"], r["relation"], r["tail"]) for r in rows} == {
        ("Ada Lovelace", "P19", "London"), ("Ivo Brandt", "P26", "Lena Ruiz")}
    assert {(r["extractor"], r["version"]) for r in rows} == {("llm", "llm:fake-7b+triples.v1+relations.v1")}
    ada = next(r for r in rows if r["head"] == "Ada Lovelace")
    assert ada["evidence"] == "Ada Lovelace was born in London" and ada["span"] == [0, 31]


def test_a_failing_model_refuses_the_build_and_writes_nothing(store, store_args, model, tmp_path):
    from conftest import store_checksum
    corpus = tmp_path / "bios.txt"
    corpus.write_text("Ada Lovelace was born in London.\n\nBROKEN Ivo Brandt married Lena Ruiz.\n", "utf-8")
    before = store_checksum(store)
    result = CliRunner().invoke(cli, ["build", "--forget", str(corpus), "--extractor", "llm", "--extractor-llm",
                                      model.url, "--extractor-batch", "1", *store_args])
    assert result.exit_code == 1
    assert result.output.startswith("Error: bios/forget/bios/1/0: the llm extractor got no usable answer")
    assert result.output.count("\n") == 1
    assert store_checksum(store) == before
