"""`audit build --forget/--retain` end to end on the real embedded server, then stats,
coverage and an audit of the text graph.

The corpora are written here; the facts they state, which of them both corpora state, and
the questions they must get are worked out by hand from the sentences.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from extract.text.graph import TextCorpus, text_graph_record
from extract.text.units import Passage, Triple
from graphstore.ingest import write_graph

FORGET = """Alma Virtanen (born 3 March 1961 in Tampere) is a Finnish chemist. She married Olli Rask in 1990.
Virtanen worked for Nokia.

Rask Foods was founded by Olli Rask in 1995.
"""
RETAIN = [
    {"text": "Olli Rask is a Finnish businessman. Olli Rask married Alma Virtanen."},
    {"text": "Alma Virtanen was born in Tampere. Pekka Lahti was born in Tampere."},
    {"text": "Olli Rask worked for Rask Foods."},
    {"text": ""},
]
# (head, relation, tail) stated by the forget text, by hand:
FORGET_FACTS = {
    ("alma virtanen", "P569", "1961-03-03"), ("alma virtanen", "P19", "tampere"),
    ("alma virtanen", "P27", "finland"), ("alma virtanen", "P106", "chemist"),
    ("alma virtanen", "P26", "olli rask"),      # "She" is the document's subject
    ("alma virtanen", "P108", "nokia"),         # "Virtanen" resolves to Alma Virtanen
    ("rask foods", "P112", "olli rask"), ("rask foods", "P571", "1995"),
}
RETAIN_FACTS = {
    ("olli rask", "P27", "finland"), ("olli rask", "P106", "businessman"),
    ("alma virtanen", "P26", "olli rask"),      # same fact, written the other way round
    ("alma virtanen", "P19", "tampere"), ("pekka lahti", "P19", "tampere"),
    ("olli rask", "P108", "rask foods"),
}
FACTS = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
RETURN f.key AS key, f.split AS split, h.label AS head, f.relation AS relation, t.label AS tail,
       f.redundant AS redundant, f.linked_in_retain AS linked, f.entities_in_retain_text AS in_text,
       f.questions AS questions, f.answers AS answers, f.qa_attributes AS templates,
       f.qa_passages AS qa_passages, f.passages AS passages
"""


@pytest.fixture()
def corpora(tmp_path):
    forget = tmp_path / "person.txt"
    forget.write_text(FORGET, encoding="utf-8")
    retain = tmp_path / "news.jsonl"
    retain.write_text("\n".join(json.dumps(r) for r in RETAIN) + "\n", encoding="utf-8")
    return forget, retain


@pytest.fixture()
def invoke(store, store_args):
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [*args, *store_args], catch_exceptions=False)


def facts(store, graph="person"):
    return {(r["split"], r["head"], r["relation"], r["tail"]): r for r in store.read(FACTS, graph=graph)}


def test_build_marks_redundancy_and_asks_questions(store, invoke, corpora):
    forget, retain = corpora
    result = invoke("build", "--forget", str(forget), "--retain", str(retain), "--graph", "person")
    assert result.exit_code == 0, result.output
    assert "skipped 1 empty document(s)" in result.output
    found = facts(store)
    triples = {split: {k[1:] for k in found if k[0] == split} for split in ("forget", "retain")}
    assert FORGET_FACTS <= triples["forget"]
    assert RETAIN_FACTS <= triples["retain"]

    # Redundant exactly when the other split states the same triple.
    for (split, head, relation, tail), row in found.items():
        other = "retain" if split == "forget" else "forget"
        assert row["redundant"] == ((head, relation, tail) in triples[other]), (split, head, relation, tail)
    forget_rows = {k[1:]: v for k, v in found.items() if k[0] == "forget"}
    assert forget_rows[("alma virtanen", "P19", "tampere")]["redundant"]
    assert forget_rows[("alma virtanen", "P26", "olli rask")]["redundant"]
    assert not forget_rows[("alma virtanen", "P27", "finland")]["redundant"]
    # Weaker signals: Rask Foods and Olli Rask are linked in retain by "employer", and both
    # occur in retain text; "chemist" and "Finland" do not ("Finnish" is not the name).
    assert forget_rows[("rask foods", "P112", "olli rask")]["linked"]
    assert not forget_rows[("alma virtanen", "P108", "nokia")]["linked"]
    assert forget_rows[("rask foods", "P112", "olli rask")]["in_text"]
    assert not forget_rows[("alma virtanen", "P106", "chemist")]["in_text"]
    assert not forget_rows[("alma virtanen", "P27", "finland")]["in_text"]

    passages = {r["key"]: r for r in store.read("MATCH (p:Passage {graph: 'person'}) RETURN p.key AS key, "
                                                "p.split AS split, p.text AS text")}
    for key, row in found.items():
        assert len(row["questions"]) >= 2 and len(row["questions"]) == len(row["answers"]) == len(row["templates"])
        assert set(row["qa_passages"]) <= set(row["passages"]) and set(row["passages"]) <= set(passages)
        assert all(passages[p]["split"] == key[0] for p in row["passages"])
    born = forget_rows[("alma virtanen", "P19", "tampere")]
    # Two people were born in Tampere: "Who was born in Tampere?" would not identify her.
    assert born["templates"] == ["P19.forward.0", "P19.forward.1"]
    assert born["answers"] == ["Tampere", "Tampere"]
    assert born["questions"] == ["Where was Alma Virtanen born?", "What is the place of birth of Alma Virtanen?"]
    founded = forget_rows[("rask foods", "P112", "olli rask")]
    assert "Which organization did Olli Rask found?" in founded["questions"]
    assert founded["answers"][founded["questions"].index("Which organization did Olli Rask found?")] == "Rask Foods"

    # The same corpora again: nothing changes.
    again = invoke("build", "--forget", str(forget), "--retain", str(retain), "--graph", "person")
    assert "person: unchanged" in again.output


def test_stats_and_coverage_agree_with_a_plain_count(store, invoke, corpora, tmp_path):
    forget, retain = corpora
    invoke("build", "--forget", str(forget), "--retain", str(retain), "--graph", "person")
    rows = list(facts(store).values())
    expected = []
    for split in ("forget", "retain"):
        for kept in (rows, [r for r in rows if not r["redundant"]]):
            chosen = [r for r in kept if r["split"] == split]
            nodes = {r["head"] for r in chosen} | {r["tail"] for r in chosen}
            expected += [len(nodes), len(chosen), round(2 * len(chosen) / len(nodes), 3)]
    result = invoke("stats", "--graph", "person", "--format", "json")
    table = json.loads(result.output)
    got = []
    for row in table:
        got += [row["nodes_before"], row["edges_before"], row["avg_degree_before"]]
        got += [row["nodes_after"], row["edges_after"], row["avg_degree_after"]]
    assert got == expected

    qa = tmp_path / "bench.json"
    qa.write_text(json.dumps([{"question": "Where was Alma Virtanen born?", "answer": "In Tampere."},
                              {"question": "Who leads Rask Foods?", "answer": "Nobody knows."}]))
    forget_rows = [r for r in rows if r["split"] == "forget"]
    text = "where was alma virtanen born in tampere who leads rask foods nobody knows"
    covered = [r for r in forget_rows if f" {r['head']} " in f" {text} " and f" {r['tail']} " in f" {text} "]
    result = invoke("coverage", str(qa), "--graph", "person")
    assert f"forget edges covered: {len(covered)}/{len(forget_rows)}" in result.output
    kept = [r for r in forget_rows if not r["redundant"]]
    kept_covered = [r for r in covered if not r["redundant"]]
    assert f"audit set covered (redundancy removed): {len(kept_covered)}/{len(kept)}" in result.output
    assert len(covered) == 1 and len(kept_covered) == 0  # only "born in Tampere", which is redundant


def test_a_bad_file_leaves_the_graph_as_it_was(store, invoke, corpora, tmp_path):
    forget, _ = corpora
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "Fine."}\n["not an object"]\n', encoding="utf-8")
    result = invoke("build", "--forget", str(forget), "--retain", str(bad), "--graph", "person")
    assert result.exit_code == 1
    assert f"Error: {bad}: line 2: expected a JSON object with a 'text' field, found a list" in result.output
    assert store.read("MATCH (n) RETURN count(n) AS n")[0]["n"] == 0


def test_names_with_quotes_backslashes_and_cypher_are_stored_safely(store):
    # Stored as written, but for the surrounding punctuation display_name trims by design.
    names = ['O\'Brien "The Boss" Jr', "C:\\Temp\\x", "}) DETACH DELETE n //", "MATCH (m) RETURN m"]
    passage = Passage("odd/forget/f/0/0", "forget", "f.txt", 0, 0, 0, 10, "irrelevant")
    triples = [Triple(names[0], "P108", names[1], passage.key, "rules"),
               Triple(names[2], "P26", names[3], passage.key, "rules")]
    corpus = TextCorpus("odd", [], [passage], triples, [])
    write_graph(store, text_graph_record(corpus, "sha", "f.txt"))
    stored = store.read("MATCH (e:Entity {graph: 'odd'}) RETURN e.name AS name ORDER BY name")
    assert sorted(r["name"] for r in stored) == sorted(names)
    # graph + passage + 4 entities + 2 components (two separate facts)
    assert store.read("MATCH (n) RETURN count(n) AS n")[0]["n"] == 8


def test_audit_set_is_selected_and_memorization_is_counted(store, invoke, corpora, store_args, tmp_path):
    forget, retain = corpora
    invoke("build", "--forget", str(forget), "--retain", str(retain), "--graph", "person")
    audit_set = sorted(r["key"] for r in facts(store).values() if r["split"] == "forget" and not r["redundant"])
    result = invoke("run", "--graph", "person", "--select", "audit-set", "--method", "ga", "--epochs", "2",
                    "--run-id", "person-ga", "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 0, result.output
    run = store.read("MATCH (r:Run {key: 'person-ga'}) RETURN r.forget_edges AS edges, r.equivalence AS judge")[0]
    assert sorted(run["edges"]) == audit_set
    assert run["judge"].startswith("embedding:all-MiniLM-L6-v2@")
    rows = store.read("MATCH (x:EdgeResult {run: 'person-ga'}) RETURN x.role AS role, x.rouge1_qa_before AS r, "
                      "x.memorized_rouge1_before AS exact, x.memorized_before AS any, "
                      "x.memorized_semantic_before AS semantic, x.answers_before AS answers")
    for row in rows:
        assert row["exact"] == sum(1 for v in row["r"] if v >= 1.0)
        assert row["exact"] <= row["any"] <= row["exact"] + row["semantic"]


def test_llm_questions_from_an_openai_compatible_endpoint(store, invoke, corpora):
    """A real HTTP server on loopback stands in for the remote endpoint: it answers every
    second fact well (a question naming the fact's head, answered by its tail) and the others
    with prose, which the build must count and skip."""
    import re
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    calls = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            user = body["messages"][-1]["content"]
            head, _, tail = re.search(r"Fact: (.*)\n", user).group(1).split(" | ")
            calls.append((head, tail))
            if len(calls) % 2:
                reply = json.dumps({"questions": [{"question": f"What is known of {head}, exactly?", "answer": tail}]})
            else:
                reply = "I would rather not."
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        forget, retain = corpora
        result = invoke("build", "--forget", str(forget), "--retain", str(retain), "--graph", "person",
                        "--questions-llm", f"http://127.0.0.1:{server.server_port}/v1")
    finally:
        server.shutdown()
    assert result.exit_code == 0, result.output
    forget_rows = [r for r in facts(store).values() if r["split"] == "forget"]
    assert len(calls) == len(forget_rows)  # one call per forget fact, none for retain facts
    good = (len(calls) + 1) // 2
    assert f"{good} questions from {len(calls)} facts (question_prompt.v1); {len(calls) - good} bad replies" in result.output
    generated = [(r["questions"][i], r["answers"][i]) for r in forget_rows
                 for i, t in enumerate(r["templates"]) if t == "llm:question_prompt.v1"]
    assert len(generated) == good
    assert all(q.startswith("What is known of ") for q, _ in generated)
