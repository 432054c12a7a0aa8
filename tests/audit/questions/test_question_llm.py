"""Questions written by a language model: the prompt file, reply parsing on hand-written
replies, the OpenAI-compatible backend against a real HTTP server started here, and the
transformers backend on a real tiny Llama built from a config.

Every expected count below is worked out by hand from the replies written in this file.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from audit.questions.llm import (
    BackendCallError,
    FactForQuestions,
    OpenAICompatibleBackend,
    ReplyError,
    TransformersBackend,
    backend_class,
    chat_completions_url,
    generate_questions,
    load_prompt,
    parse_reply,
)
from audit.models.scratch import train_tokenizer
from graphstore.errors import ConfigError, InputDataError

ADA = FactForQuestions("f-ada", "Ada Lovelace", "place of birth", "London",
                       "Ada Lovelace was born in London in 1815.", "p-ada")
TURING = FactForQuestions("f-turing", "Alan Turing", "educated at", "King's College, Cambridge",
                          "Alan Turing studied mathematics at King's College, Cambridge.", "p-turing")
HOPPER = FactForQuestions("f-hopper", "Grace Hopper", "employer", "United States Navy",
                          "Grace Hopper served in the United States Navy.", "p-hopper")
CURIE = FactForQuestions("f-curie", "Marie Curie", "award received", "Nobel Prize in Physics",
                         "Marie Curie received the Nobel Prize in Physics in 1903.", "p-curie")
JOHNSON = FactForQuestions("f-johnson", "Katherine Johnson", "employer", "NASA",
                           "Katherine Johnson worked for NASA.", "p-johnson")

GOOD = ('{"questions": [{"question": "Where was Ada Lovelace born?", "answer": "London"}, '
        '{"question": "Who was born in London?", "answer": "Ada Lovelace"}]}')
GOOD_PAIRS = [("Where was Ada Lovelace born?", "London"), ("Who was born in London?", "Ada Lovelace")]


# --- the prompt ------------------------------------------------------------------------------

def test_shipped_prompt_renders_the_fact_and_the_literal_json_form():
    prompt = load_prompt()
    assert prompt.version == "question_prompt.v1"
    system, user = prompt.render(ADA, 3)
    assert "JSON" in system
    for text in ("Ada Lovelace", "place of birth", "London", "born in London in 1815", "Write 3 "):
        assert text in user
    assert '{"questions": [{"question": "...", "answer": "..."}]}' in user


@pytest.mark.parametrize(("content", "message"), [
    ({"version": "x.v1", "system": "", "user": "{head} {subject} {tail}"},
     "field 'user' uses unknown placeholder(s) {subject}; valid: {head}, {relation}, {tail}, {passage}, {n}"),
    ({"version": "x.v1", "system": "", "user": '{head} {tail} {"questions": []}'},
     "field 'user' uses unknown placeholder(s)"),
    ({"version": "x.v1", "system": "Reply {", "user": "{head} {tail}"},
     "field 'system' is not a valid format template"),
    ({"version": "x.v1", "system": "", "user": "{head} {relation}"},
     "field 'user' must use {tail}"),
    ({"version": "x.v1", "user": "{head} {tail}"}, "field 'system' must be a string"),
    (["{head}", "{tail}"], "expected a JSON object"),
])
def test_a_user_prompt_file_is_checked(tmp_path, content, message):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(InputDataError, match="mine.json") as caught:
        load_prompt(path)
    assert message in str(caught.value)


def test_a_valid_user_prompt_file_loads(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"version": "mine.v2", "system": "", "user": "{head} -> {tail}? {{}}"}), "utf-8")
    prompt = load_prompt(path)
    assert prompt.version == "mine.v2" and prompt.render(ADA, 1) == ("", "Ada Lovelace -> London? {}")
    with pytest.raises(InputDataError, match="missing.json: no such file"):
        load_prompt(tmp_path / "missing.json")


def test_a_fact_needs_head_relation_and_tail():
    with pytest.raises(InputDataError, match="facts, record f1: tail must be a non-empty string"):
        FactForQuestions("f1", "Ada Lovelace", "place of birth", "  ", "", "p1")


# --- parsing replies -------------------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    GOOD,
    f"```json\n{GOOD}\n```",
    f"Sure! Here are two questions [as asked]:\n{GOOD}\nI hope these help.",
])
def test_a_good_reply_is_read_wherever_the_json_sits(reply):
    parsed = parse_reply(reply, ADA)
    assert parsed.pairs == GOOD_PAIRS and parsed.rejected == Counter()


@pytest.mark.parametrize(("reply", "reason"), [
    ("I cannot help with that.", "no_json"),
    ("{questions: [{question: 'Where was Ada Lovelace born?'}]}", "no_json"),
    ('[{"question": "Where was Ada Lovelace born?", "answer": "London"}]', "not_an_object"),
    ('"Where was Ada Lovelace born?"', "no_json"),          # a bare string is no object or list
    ('{"items": [{"question": "Where was Ada Lovelace born?", "answer": "London"}]}', "no_questions_list"),
    ('{"questions": []}', "no_questions_list"),
    ('{"questions": "Where was Ada Lovelace born?"}', "no_questions_list"),
])
def test_a_reply_of_the_wrong_shape_is_refused_with_its_reason(reply, reason):
    with pytest.raises(ReplyError) as caught:
        parse_reply(reply, ADA)
    assert caught.value.reason == reason


def test_each_item_is_checked_against_the_fact():
    items = [
        {"question": "Where was Ada Lovelace born?"},                                  # missing_field
        {"question": 3, "answer": "London"},                                            # not_a_string
        "Where was Ada Lovelace born?",                                                 # item_not_object
        {"question": "   ", "answer": "London"},                                        # empty_text
        {"question": "Ada Lovelace was born where", "answer": "London"},                # no_question_mark
        {"question": "Where was Ada Lovelace born?", "answer": "Paris"},                # answer_not_in_fact
        {"question": "Where was Ada Lovelace born?", "answer": "Londonderry"},          # not a whole word
        {"question": "Was Ada Lovelace born in London?", "answer": "London"},           # question_gives_answer
        {"question": "Where  was\nAda Lovelace born?", "answer": "  the city of   LONDON "},  # kept
    ]
    parsed = parse_reply(json.dumps({"questions": items}), ADA)
    assert parsed.pairs == [("Where was Ada Lovelace born?", "the city of LONDON")]
    assert parsed.rejected == Counter({"missing_field": 1, "not_a_string": 1, "item_not_object": 1,
                                       "empty_text": 1, "no_question_mark": 1, "answer_not_in_fact": 2,
                                       "question_gives_answer": 1})


def test_a_tail_inside_the_head_is_not_an_answer_given_away():
    fact = FactForQuestions("f-uol", "University of London", "located in", "London", "", "p")
    reply = json.dumps({"questions": [
        {"question": "In which city is the University of London?", "answer": "London"},      # forward
        {"question": "Which university is in London?", "answer": "University of London"},   # inverse
        {"question": "Is London in London?", "answer": "London"},                            # gives it away
    ]})
    parsed = parse_reply(reply, fact)
    assert parsed.pairs == [("In which city is the University of London?", "London"),
                            ("Which university is in London?", "University of London")]
    assert parsed.rejected == Counter({"question_gives_answer": 1})


# --- the OpenAI-compatible backend against a real HTTP server --------------------------------

def _content(questions: list[dict]) -> str:
    return json.dumps({"questions": questions})


# The server's answer to each fact, found by the head named in the user message.
SERVER_REPLIES = {
    "Ada Lovelace": (200, "```json\n" + _content([
        {"question": "Where was Ada Lovelace born?", "answer": "London"},
        {"question": "In which city was Ada Lovelace born?", "answer": "London"},
        {"question": "Who was born in London in 1815?", "answer": "Ada Lovelace"},      # surplus (3rd)
    ]) + "\n```"),
    "Alan Turing": (200, "Sure! Alan Turing studied at King's College, Cambridge."),   # no_json
    "Grace Hopper": (500, None),                                                         # http_500
    "Marie Curie": (200, _content([
        {"question": "Who received the Nobel Prize in Physics in 1903?", "answer": "Marie Curie"},
        {"question": "who received the  Nobel Prize in Physics in 1903?", "answer": "Marie Curie"},  # duplicate
        {"question": "Which prize did Marie Curie share with Pierre?", "answer": "Pierre Curie"},  # answer_not_in_fact
        {"question": "Marie Curie received which award", "answer": "Nobel Prize in Physics"},  # no_question_mark
    ])),
    "Katherine Johnson": ("sleep", None),                                                # timeout
}


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.requests: list[dict] = []
        self.release = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ChatHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body,
                                     "authorization": self.headers.get("Authorization")})
        if self.path != "/v1/chat/completions":
            return self._send(404, b'{"error": "no such route"}')
        user = body["messages"][-1]["content"]
        status, content = next(v for head, v in SERVER_REPLIES.items() if head in user)
        if status == "sleep":
            self.server.release.wait(5)
            return
        if status != 200:
            return self._send(status, b'{"error": "model crashed"}')
        envelope = {"object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        self._send(200, json.dumps(envelope).encode())

    def _send(self, status: int, payload: bytes):
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture()
def server(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    srv = ChatServer()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.release.set()
    srv.shutdown()
    srv.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_openai_backend_counts_good_bad_and_failed(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    backend = backend_class("openai")(server.base_url, "test-model", timeout=1.0)
    facts = [ADA, TURING, HOPPER, CURIE, JOHNSON]
    batch = generate_questions(facts, backend, per_fact=2)

    assert [(q.fact, q.question, q.answer) for q in batch.questions] == [
        ("f-ada", "Where was Ada Lovelace born?", "London"),
        ("f-ada", "In which city was Ada Lovelace born?", "London"),
        ("f-curie", "Who received the Nobel Prize in Physics in 1903?", "Marie Curie"),
    ]
    assert {(q.passage_key, q.source) for q in batch.questions} == {
        ("p-ada", "llm:question_prompt.v1"), ("p-curie", "llm:question_prompt.v1")}
    assert (batch.bad_replies, batch.failed_calls, batch.facts_asked) == (1, 2, 5)
    assert batch.reasons == Counter({"surplus": 1, "no_json": 1, "http_500": 1, "duplicate": 1,
                                     "answer_not_in_fact": 1, "no_question_mark": 1, "timeout": 1})
    assert batch.prompt_version == "question_prompt.v1"
    assert batch.examples["no_json"] == "Sure! Alan Turing studied at King's College, Cambridge."
    assert "HTTP 500" in batch.examples["http_500"]

    assert len(server.requests) == 5
    for fact, request in zip(facts, server.requests):
        body = request["body"]
        assert request["path"] == "/v1/chat/completions"
        assert request["authorization"] == "Bearer sk-test"
        assert body["model"] == "test-model" and body["temperature"] == 0
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        user = body["messages"][1]["content"]
        assert fact.head in user and fact.tail in user and fact.passage in user


def test_openai_backend_url_forms_and_api_key(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    full = server.base_url + "/chat/completions"
    assert chat_completions_url(server.base_url + "/") == full and chat_completions_url(full) == full
    with pytest.raises(ConfigError, match="'ftp://host/v1' is not an http"):
        chat_completions_url("ftp://host/v1")

    OpenAICompatibleBackend(full, "m").complete("s", GOOD)           # "Ada Lovelace" is in the user text
    OpenAICompatibleBackend(server.base_url + "/", "m", api_key="sk-arg").complete("s", GOOD)
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions"] * 2
    assert [r["authorization"] for r in server.requests] == [None, "Bearer sk-arg"]


def test_a_server_that_cannot_work_is_a_config_error_on_the_first_call(server):
    url = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(ConfigError, match=f"cannot reach {url}/chat/completions"):
        generate_questions([ADA], OpenAICompatibleBackend(url, "m"))
    wrong = server.base_url.removesuffix("/v1") + "/api"
    with pytest.raises(ConfigError, match=f"{wrong}/chat/completions answered HTTP 404"):
        OpenAICompatibleBackend(wrong, "m").complete("s", GOOD)


def test_a_server_lost_after_the_first_call_is_counted(server):
    backend = OpenAICompatibleBackend(server.base_url, "m")
    assert len(generate_questions([ADA], backend).questions) == 2
    server.shutdown()
    server.server_close()
    batch = generate_questions([ADA, CURIE], backend)
    assert (len(batch.questions), batch.failed_calls, batch.reasons) == (0, 2, Counter({"network": 2}))


def test_unknown_backend_lists_the_valid_ones():
    assert backend_class("OpenAI") is OpenAICompatibleBackend
    with pytest.raises(ConfigError, match="unknown question backend 'vertex'; valid: openai, transformers"):
        backend_class("vertex")


# --- the transformers backend on a real tiny model -------------------------------------------

@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer Llama with random weights and a BPE tokenizer trained on the prompts."""
    prompt = load_prompt()
    texts = ["\n".join(prompt.render(f, 2)) for f in (ADA, TURING, CURIE)] * 5
    tokenizer = train_tokenizer(texts, vocab_size=400)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-llm")
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _is_valid(question, fact) -> bool:
    """An independent check of a kept question: a question mark, and the answer names an entity."""
    answer = " ".join(question.answer.lower().split())
    return question.question.endswith("?") and (fact.tail.lower() in answer or fact.head.lower() in answer)


def test_transformers_backend_on_plain_text(tiny_model):
    backend = TransformersBackend(tiny_model, max_new_tokens=24, device="cpu")
    assert not backend.has_chat_template
    assert backend.render("SYS", "USER") == "SYS\n\nUSER\n"
    facts = {f.fact: f for f in (ADA, TURING)}
    batch = generate_questions(facts.values(), backend, per_fact=2)
    with_questions = {q.fact for q in batch.questions}
    assert batch.failed_calls == 0 and batch.facts_asked == 2
    assert batch.bad_replies + len(with_questions) == 2
    assert all(_is_valid(q, facts[q.fact]) for q in batch.questions)
    assert sum(batch.reasons.values()) >= batch.bad_replies
    assert backend.complete("s", "Where?") == backend.complete("s", "Where?")      # greedy


def test_transformers_backend_with_a_chat_template(tiny_model):
    backend = TransformersBackend(tiny_model, max_new_tokens=8, device="cpu")
    backend.tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    assert backend.render("SYS", "USER") == "<|system|>SYS\n<|user|>USER\n<|assistant|>"
    assert isinstance(backend.complete("SYS", "USER"), str)
    backend.tokenizer.chat_template = (
        "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}<|assistant|>")
    assert backend.render("SYS", "USER") == "<|user|>SYS\n\nUSER\n<|assistant|>"


def test_a_prompt_too_long_for_the_model_is_a_counted_failure(tiny_model):
    backend = TransformersBackend(tiny_model, max_new_tokens=1024, device="cpu")
    with pytest.raises(BackendCallError, match="positions"):
        backend.complete("s", "u")
    batch = generate_questions([ADA], backend)
    assert (batch.failed_calls, batch.reasons) == (1, Counter({"prompt_too_long": 1}))
