"""`--train-on`: which QA pairs, passages or canary sentences a run trains on, checked on small
graphs whose passages we can read by eye, and a real run that records them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.build import TextSource, WikidataSource, build_graph
from audit.config import InjectionConfig, TrainingDataConfig, UnlearnConfig
from audit.models.encoding import QAEncoder
from audit.models.scratch import train_tokenizer
from audit.run import training_data as T
from audit.run.qa import load_graph_edges, retain_edges
from audit.run.runner import RunRequest, run_audit
from extract.wikidata.generate import generate_people
from extract.wikidata.write import write_entities
from graphstore.errors import ConfigError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "text"
# examples/text: every document is one passage. forget/0: Ilse Marwick, forget/1: Halden Bau,
# forget/2: Tomas Vell; retain/0..4 the five retain documents.
FORGET_PASSAGES = [f"marwick/forget/forget/{i}/0" for i in range(3)]
RETAIN_PASSAGES = [f"marwick/retain/retain/{i}/0" for i in range(5)]


@pytest.fixture()
def marwick(store):
    build_graph(store, TextSource((EXAMPLES / "forget.txt",), (EXAMPLES / "retain.jsonl",)), graph="marwick")
    return load_graph_edges(store, "marwick")


def facts(store, where: str) -> list[str]:
    """Fact keys chosen with Cypher, independently of the code under test."""
    return [r["key"] for r in store.read(
        f"MATCH (:Entity {{graph: 'marwick'}})-[f:FACT]->() WHERE {where} RETURN f.key AS key ORDER BY key")]


def choose(store, edges, forget, policy="forget", scope="all", train_on="passages", refusal=False):
    return T.choose(store, "marwick", "text", edges, forget,
                    retain_edges(edges, forget, scope, 0), scope,
                    TrainingDataConfig(train_on=train_on, mixed_passages=policy), refusal)


def sources(items) -> list[str]:
    return sorted({i.edge for i in items})


def test_passages_of_the_forget_split_are_the_forget_corpus(store, marwick):
    data = choose(store, marwick, facts(store, "f.split = 'forget'"))
    assert sources(data.forget) == FORGET_PASSAGES
    assert sources(data.retain) == RETAIN_PASSAGES
    assert data.mixed == []
    assert sources(data.inject) == sorted(FORGET_PASSAGES + RETAIN_PASSAGES)
    assert [t.text for t in data.forget][2].startswith("Tomas Vell (born 2 June 1955")


def test_a_passage_stating_a_forget_and_a_retained_fact_follows_the_policy(store, marwick):
    # All of Ilse Marwick's passage, and one fact of the Halden Bau passage (which states others).
    forget = facts(store, "f.passages = ['marwick/forget/forget/0/0'] OR "
                          "(f.split = 'forget' AND f.relation = 'P112')")
    halden, ilse = FORGET_PASSAGES[1], FORGET_PASSAGES[0]
    by_policy = {p: choose(store, marwick, forget, p) for p in ("forget", "retain", "drop")}
    assert all(d.mixed == [halden] for d in by_policy.values())
    assert sources(by_policy["forget"].forget) == [ilse, halden]
    assert halden not in sources(by_policy["forget"].retain)
    assert sources(by_policy["retain"].forget) == [ilse]
    assert halden in sources(by_policy["retain"].retain)
    assert sources(by_policy["drop"].forget) == [ilse]
    assert halden not in sources(by_policy["drop"].retain)
    # Tomas Vell's passage states no forget fact: retain text under every policy
    assert all(FORGET_PASSAGES[2] in sources(d.retain) for d in by_policy.values())
    assert by_policy["forget"].record()["mixed_passages"] == 1


def test_only_mixed_passages_left_out_is_refused(store, marwick):
    with pytest.raises(ConfigError, match="no passage .* states a forget fact that is not mixed"):
        choose(store, marwick, facts(store, "f.split = 'forget' AND f.relation = 'P112'"), "drop")


def test_a_narrower_retain_scope_keeps_only_passages_stating_a_retained_fact(store, marwick):
    forget = facts(store, "f.passages = ['marwick/forget/forget/2/0']")   # Tomas Vell's passage
    data = choose(store, marwick, forget, scope="neighbours")
    # neighbours share an entity with Tomas Vell's facts: Vienna, Salzburg, Austria, Ilse Marwick ...
    keep = set(retain_edges(marwick, forget, "neighbours", 0))
    expected = sorted(r["key"] for r in store.read(
        "MATCH (:Entity {graph: 'marwick'})-[f:FACT]->() UNWIND f.passages AS p "
        "WITH p, collect(f.key) AS stated WHERE NONE(k IN stated WHERE k IN $forget) "
        "AND ANY(k IN stated WHERE k IN $keep) RETURN DISTINCT p AS key", forget=forget, keep=sorted(keep)))
    assert sources(data.retain) == expected
    assert FORGET_PASSAGES[2] not in expected and len(expected) < 7


def test_qa_training_is_the_forget_edges_pairs(store, marwick):
    forget = facts(store, "f.split = 'forget' AND f.relation = 'P19'")
    data = choose(store, marwick, forget, train_on="qa")
    stored = store.read("MATCH (:Entity {graph: 'marwick'})-[f:FACT]->() WHERE f.key IN $keys "
                        "RETURN f.key AS key, f.questions AS q, f.answers AS a ORDER BY key", keys=forget)
    assert [(i.edge, i.question, i.answer) for i in data.forget] == \
        [(r["key"], q, a) for r in stored for q, a in zip(r["q"], r["a"])]


def test_text_training_is_refused_where_it_cannot_apply(store, marwick):
    forget = facts(store, "f.split = 'forget'")
    with pytest.raises(ConfigError, match="dpo and idk pair a refusal with a question"):
        choose(store, marwick, forget, refusal=True)
    with pytest.raises(ConfigError, match="canaries needs a graph built from wikidata"):
        choose(store, marwick, forget, train_on="canaries")
    with pytest.raises(ConfigError, match="--mixed-passages 'keep' is not known"):
        TrainingDataConfig(mixed_passages="keep").check()


def test_canaries_are_one_true_sentence_per_fact(store, tmp_path):
    path = tmp_path / "people.json"
    write_entities(generate_people(3, seed=2), path)
    build_graph(store, WikidataSource(path), graph="people")
    edges = load_graph_edges(store, "people")
    rows = store.read("MATCH (s:Entity {graph: 'people'})-[f:FACT]->() RETURN f.key AS key, s.name AS name, "
                      "f.value AS value ORDER BY key")
    forget = [r["key"] for r in rows[:3]]
    data = T.choose(store, "people", "wikidata", edges, forget, retain_edges(edges, forget, "all", 0), "all",
                    TrainingDataConfig(train_on="canaries"), False)
    assert [t.edge for t in data.forget] == forget
    assert len(data.retain) == len(rows) - 3 and len(data.inject) == len(rows)
    for text, row in zip(data.forget, rows):
        assert row["name"] in text.text and row["value"] in text.text and text.text.endswith(".")
    with pytest.raises(ConfigError, match="passages needs a graph built from text"):
        T.choose(store, "people", "wikidata", edges, forget, [], "all", TrainingDataConfig(train_on="passages"), False)


# -- encoding and chunking ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def encoder():
    text = (EXAMPLES / "forget.txt").read_text() + (EXAMPLES / "retain.jsonl").read_text()
    return QAEncoder(train_tokenizer([text] * 3, 300))


def test_a_text_is_trained_on_every_token(encoder):
    tok = encoder.tokenizer
    encoded = encoder.encode_text("Graz is a city in Styria.")
    assert encoded.prompt_ids == [tok.bos_token_id]
    assert encoded.answer_ids == tok("Graz is a city in Styria.", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]


def test_long_texts_are_cut_into_chunks_that_fit(encoder):
    text = (EXAMPLES / "forget.txt").read_text().replace("\n", " ").strip()
    for limit in (8, 16, 40):
        pieces = encoder.chunk_text(text, limit)
        assert len(pieces) > 1
        assert all(len(encoder.tokenizer(p, add_special_tokens=False)["input_ids"]) <= limit for p in pieces)
        assert "".join(pieces).replace(" ", "") == text.replace(" ", "")   # nothing lost, order kept
    assert encoder.chunk_text("Graz is a city.", 40) == ["Graz is a city."]
    items = T.chunked([T.TextExample("p/0", 0, text, ("f",))], encoder, 16)
    assert [i.index for i in items] == list(range(len(items))) and all(i.edge == "p/0" for i in items)


# -- a real run ------------------------------------------------------------------------------------------
def test_a_passage_run_records_its_training_data_and_the_inflation(store, marwick, tmp_path):
    request = RunRequest(graph="marwick", select="split:forget", method="npo", run_id="passages",
                         cache_dir=tmp_path / "cache", equivalence=None, device="cpu",
                         injection=InjectionConfig(max_epochs=60), unlearn=UnlearnConfig(epochs=3, lr=2e-3),
                         training=TrainingDataConfig(train_on="passages", chunk_tokens=24))
    outcome = run_audit(store, request, report=lambda _: None)
    run = store.read("MATCH (r:Run {key: 'passages'}) RETURN r AS r")[0]["r"]
    assert run["train_on"] == "passages" and run["train_forget_sources"] == FORGET_PASSAGES
    assert run["train_forget_items"] == 3 and run["train_retain_items"] == 5 and run["mixed_passages"] == 0
    assert run["train_forget_chunks"] > 3   # 24 tokens cut every forget passage
    assert json.loads(run["training_config"])["train_on"] == "passages"
    logged = {f.split("#")[0] for line in (tmp_path / "cache/runs/passages/pairing.jsonl").read_text().splitlines()
              for f in json.loads(line)["forget"]}
    assert logged == set(FORGET_PASSAGES)
    injected = next((tmp_path / "cache/injected").glob("*/injection.json"))
    assert json.loads(injected.read_text())["texts"]["count"] == 8

    # HANKER's inflation, recomputed from the results read back with Cypher
    rows = store.read("MATCH (r:EdgeResult {run: 'passages', role: 'forget'}) "
                      "MATCH (:Entity {graph: 'marwick'})-[f:FACT {key: r.edge}]->() "
                      "RETURN r.redundant AS flag, f.redundant AS redundant, r.rouge1_qa_after AS qa, "
                      "r.memorized_after AS memorized")
    assert all(r["flag"] == r["redundant"] for r in rows) and sum(r["redundant"] for r in rows) == 3
    unique = [v for r in rows if not r["redundant"] for v in r["qa"]]
    everything = [v for r in rows for v in r["qa"]]
    summary = outcome.summary
    assert summary["forget_edges_redundant"] == 3
    assert summary["forget_rouge1_unique_after"] == pytest.approx(sum(unique) / len(unique))
    assert summary["forget_rouge1_after"] == pytest.approx(sum(everything) / len(everything))
    assert summary["forget_memorized_unique_after"] == sum(r["memorized"] for r in rows if not r["redundant"])


def test_a_per_edge_sweep_on_passages_unlearns_each_edge_from_its_own_passage(store, marwick, tmp_path):
    edges = [facts(store, f"f.passages = ['{p}'] AND f.relation = 'P19'")[0] for p in FORGET_PASSAGES[::2]]
    request = RunRequest(graph="marwick", select="edges:" + ",".join(edges),
                         method="ga", run_id="sweep-passages", per_edge=True, cache_dir=tmp_path / "cache",
                         equivalence=None, device="cpu", injection=InjectionConfig(max_epochs=60),
                         unlearn=UnlearnConfig(epochs=1, lr=1e-4), training=TrainingDataConfig(train_on="passages"))
    run_audit(store, request, report=lambda _: None)
    steps = [json.loads(line) for line in (tmp_path / "cache/runs/sweep-passages/pairing.jsonl").read_text().splitlines()]
    assert [{f.split("#")[0] for f in s["forget"]} for s in steps] == [{FORGET_PASSAGES[0]}, {FORGET_PASSAGES[2]}]
    # --mixed-passages drop leaves a one-fact edge of a many-fact passage nothing to unlearn: refused up front
    with pytest.raises(ConfigError, match="not mixed"):
        run_audit(store, RunRequest(**{**request.__dict__, "run_id": "sweep-drop",
                                       "training": TrainingDataConfig(train_on="passages", mixed_passages="drop")}),
                  report=lambda _: None)
    assert not store.read("MATCH (r:Run {key: 'sweep-drop'}) RETURN r.key AS key")
