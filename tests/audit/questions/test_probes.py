"""Probe questions (audit/questions/probes.py): paraphrases cover every PISTOL attribute with the
trained template's information, and 2-hop questions' descriptions pick out the right party, so
their answers follow from the graph (checked with Cypher, not with the code under test)."""

from __future__ import annotations

import collections
import json
import string
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from audit.questions.probes import llm_paraphrases as probes_llm, load_probe_templates, probes
from extract.pistol.generate import generate_pistol, write_dataset
from extract.pistol.load import load_pistol
from extract.pistol.templates import load_templates
from graphstore import queries as Q
from graphstore.ingest import write_graph


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_three_paraphrases_per_pistol_attribute_with_the_trained_placeholders():
    probe, pistol = load_probe_templates(), load_templates()
    assert set(probe.paraphrases) == set(pistol.types)
    for domain, ctype in pistol.types.items():
        mine = probe.types[domain]
        assert (mine.head_role, mine.tail_role, mine.date) == (ctype.head_role, ctype.tail_role, ctype.date)
        assert set(probe.paraphrases[domain]) == set(ctype.attribute_names)
        for attribute, wordings in probe.paraphrases[domain].items():
            trained = ctype.attribute(attribute).question
            assert len(set(wordings)) == len(wordings) >= 3, attribute
            for wording in wordings:
                # the same names and date as the trained question: no more, no less information
                assert _fields(wording) == _fields(trained), (attribute, wording)
                assert wording.lower() != trained.lower()


def _graph(store, tmp_path, edges, graph="probes", seed=3, employment=0.0):
    path = tmp_path / f"{graph}.json"
    write_dataset(generate_pistol(edges, seed=seed, employment_fraction=employment), path)
    write_graph(store, load_pistol(path, graph=graph))
    return store.read(Q.FACTS_FOR_PROBES, graph=graph)


def test_a_chain_gives_the_expected_two_hop_question(store, tmp_path):
    # 0 - 1 - 2: the contract 1_2 names party 1 through 0_1, whose other party 0 has one contract
    rows = _graph(store, tmp_path, [("0", "1"), ("1", "2")])
    facts = {r["key"]: r for r in rows}
    found = [p for p in probes(rows, ["probes/1_2"]) if p.kind == "two_hop"]
    f12, f01 = facts["probes/1_2"], facts["probes/0_1"]
    law = f12["props"]["qa_attributes"].index("governing_law")
    governing = [p for p in found if p.template.endswith("governing_law." + ("seller" if f12["head_key"] == "probes/1"
                                                                                else "customer"))]
    assert len(governing) == 1 and governing[0].via == "probes/0_1"
    # party 1 in 0_1: the customer of 0 when 0 is the seller there, else the seller to 0
    one_is_customer = f01["tail_key"] == "probes/1"
    zero = f01["head_name"] if one_is_customer else f01["tail_name"]
    description = (f"the company that bought goods from {zero}" if one_is_customer
                   else f"the company that sold goods to {zero}")
    one = f12["head_name"] if f12["head_key"] == "probes/1" else f12["tail_name"]
    assert governing[0].question == f12["props"]["questions"][law].replace(one, description)
    assert governing[0].answer == f12["props"]["answers"][law]
    # 0_1's own 2-hop questions go through 1_2 (0 has no other contract)
    assert {p.via for p in probes(rows, ["probes/0_1"]) if p.kind == "two_hop"} == {"probes/1_2"}


def test_two_hop_answers_follow_from_the_graph(store, tmp_path):
    # a star with a tail, sales and employment: descriptions need the date where a party has
    # several contracts of one kind
    edges = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "4"), ("2", "5"), ("3", "6"), ("6", "7")]
    rows = _graph(store, tmp_path, edges, employment=0.3)
    keys = [r["key"] for r in rows]
    found = probes(rows, keys)
    by_kind = collections.Counter(p.kind for p in found)
    assert by_kind["paraphrase"] == 3 * 20 * len(keys)
    assert by_kind["two_hop"] >= 20 * len(keys) // 2
    for p in (p for p in found if p.kind == "two_hop"):
        fact = store.read("MATCH (h:Entity)-[f:FACT]->(t:Entity) WHERE f.key = $key "
                          "RETURN h.key AS h, t.key AS t, h.name AS hn, t.name AS tn, f.answers AS answers, "
                          "f.questions AS questions, f.qa_attributes AS attributes", key=p.edge)[0]
        via = store.read("MATCH (a:Entity)-[v:FACT]->(b:Entity) WHERE v.key = $key "
                         "RETURN a.key AS a, b.key AS b, a.name AS an, b.name AS bn, v.domain AS domain, "
                         "coalesce(v.effective_date, v.start_date) AS date", key=p.via)[0]
        # the described party is the via edge's endpoint shared with the fact; the other is named
        party, other, other_name, other_is_head = ((via["a"], via["b"], via["bn"], False)
                                                   if via["a"] in (fact["h"], fact["t"])
                                                   else (via["b"], via["a"], via["an"], True))
        assert party in (fact["h"], fact["t"]) and other not in (fact["h"], fact["t"])
        party_name = fact["hn"] if party == fact["h"] else fact["tn"]
        assert other_name in p.question and party_name not in p.question
        # the description is unique: `other` has one contract of this kind on this side, or
        # the date tells its contracts apart
        side = "(o:Entity {key: $o})-[r:FACT]->()" if other_is_head else "(o:Entity {key: $o})<-[r:FACT]-()"
        same = store.read(f"MATCH {side} WHERE r.domain = $d "
                          "RETURN coalesce(r.effective_date, r.start_date) AS date", o=other, d=via["domain"])
        if len(same) > 1:
            assert str(via["date"]) in p.question
            assert sum(str(r["date"]) == str(via["date"]) for r in same) == 1
        # the answer is the fact's own answer to the attribute asked
        attribute = p.template.split(".")[-2]
        assert p.answer == fact["answers"][fact["attributes"].index(attribute)]
        # and the wording is the trained question's around the description
        trained = fact["questions"][fact["attributes"].index(attribute)].split(party_name)
        assert len(trained) >= 2 and p.question.startswith(trained[0]) and p.question.endswith(trained[-1])


def test_graphs_without_contracts_get_no_probes():
    rows = [{"key": "t/a_b", "domain": "P19", "head_key": "t/a", "tail_key": "t/b", "head_name": "A", "tail_name": "B",
             "props": {"source": "text", "questions": ["Where was A born?"], "answers": ["B"], "qa_attributes": ["x"]}}]
    assert probes(rows, ["t/a_b"]) == []


# -- LLM paraphrases of text facts, from a local OpenAI-compatible server ---------------------------
class _ParaphraseServer(ThreadingHTTPServer):
    """Answers every chat request with two questions about the prompt's fact: one new wording,
    and one of the fact's trained questions (which must be dropped)."""
    daemon_threads = True

    def __init__(self, trained: dict[tuple[str, str, str], str]):
        super().__init__(("127.0.0.1", 0), _ParaphraseHandler)
        self.trained = trained          # (head, relation, tail) -> one of the fact's trained questions
        self.prompts: list[str] = []


class _ParaphraseHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        self.server.prompts.append(user)
        head, relation, tail = (part.strip() for part in user.split("\n", 1)[0].removeprefix("Fact: ").split("|"))
        questions = [{"question": f"Tell me, regarding {head}: which value is the one asked?", "answer": tail}]
        if (head, relation, tail) in self.server.trained:
            questions.append({"question": self.server.trained[(head, relation, tail)], "answer": tail})
        content = json.dumps({"questions": questions})
        payload = json.dumps({"object": "chat.completion", "model": body["model"],
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())


def test_llm_paraphrases_of_text_facts_drop_the_trained_wordings(store):
    from audit.build import TextSource, build_graph
    from audit.questions.llm import OpenAICompatibleBackend
    from conftest import REPO

    examples = REPO / "examples" / "text"
    build_graph(store, TextSource((examples / "forget.txt",), (examples / "retain.jsonl",)), graph="para")
    rows = store.read(Q.FACTS_FOR_PROBES, graph="para")
    forget = [r["key"] for r in rows if r["props"]["split"] == "forget"]
    # every fact whose trained answer is its tail: the server echoes one trained question back
    trained = {(r["head_name"], r["domain"], r["tail_name"]): r["props"]["questions"][r["props"]["answers"].index(
        r["tail_name"])] for r in rows if r["key"] in forget and r["tail_name"] in r["props"]["answers"]}
    assert len(trained) == len(forget)
    server = _ParaphraseServer(trained)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        notes: list[str] = []
        backend = OpenAICompatibleBackend(f"http://127.0.0.1:{server.server_address[1]}/v1", "test")
        found = probes_llm(rows, forget, backend, per_fact=2, notes=notes.append)
    finally:
        server.shutdown()
    assert len(server.prompts) == len(forget)                     # one request per forget fact
    by_edge = collections.defaultdict(list)
    for p in found:
        by_edge[p.edge].append(p)
    assert set(by_edge) == set(forget)
    tails = {r["key"]: r["tail_name"] for r in rows}
    for edge, items in by_edge.items():
        # the new wording kept, the trained one dropped
        assert [p.question for p in items] == [f"Tell me, regarding {rows_by(rows, edge)['head_name']}: "
                                               "which value is the one asked?"]
        assert all(p.kind == "paraphrase" and p.answer == tails[edge] and p.template.startswith("llm:")
                   for p in items)
    assert notes and "probe_paraphrase_prompt.v1" in notes[0]


def rows_by(rows: list[dict], key: str) -> dict:
    return next(r for r in rows if r["key"] == key)


def _contract(key, head, tail, head_name, tail_name, date="01-01-2000"):
    question = f"Which jurisdiction's laws govern the contract between {head_name} and {tail_name}?"
    return {"key": f"t/{key}", "domain": "sales", "head_key": f"t/{head}", "tail_key": f"t/{tail}",
            "head_name": head_name, "tail_name": tail_name,
            "props": {"source": "pistol", "questions": [question], "answers": ["Ohio."],
                      "qa_attributes": ["governing_law"], "effective_date": date}}


def test_two_hop_descriptions_replace_whole_names_and_avoid_ambiguity():
    # Acme sells to Acme Ltd; Zed sells to Acme. "Acme" inside "Acme Ltd" is not the name Acme.
    rows = [_contract("f1", "a", "b", "Acme", "Acme Ltd"), _contract("f2", "c", "a", "Zed", "Acme")]
    found = [p for p in probes(rows, ["t/f1"]) if p.kind == "two_hop"]
    assert [(p.question, p.via) for p in found] == [
        ("Which jurisdiction's laws govern the contract between the company that bought goods from Zed and "
         "Acme Ltd?", "t/f2")]
    # another entity also named Zed: "bought goods from Zed" would not say which; no 2-hop question
    ambiguous = rows + [_contract("f3", "d", "e", "Zed", "Yew")]
    assert [p for p in probes(ambiguous, ["t/f1"]) if p.kind == "two_hop"] == []
    # a neighbour outside the forget set is preferred to a forgotten one
    both = rows + [_contract("f4", "a", "f", "Acme", "Fir")]
    assert {p.via for p in probes(both, ["t/f1", "t/f2"]) if p.edge == "t/f1" and p.kind == "two_hop"} == {"t/f4"}
