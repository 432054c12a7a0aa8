"""Extra questions about a fact, written by a language model (optional: the template
questions are made elsewhere and need no model).

Three separate steps:

1. ``load_prompt`` reads a versioned prompt; ``question_prompt.v1`` ships in ``audit/data``.
2. A backend answers it: ``TransformersBackend`` (a local causal LM) or
   ``OpenAICompatibleBackend`` (any server with ``/v1/chat/completions``), found by name with
   ``backend_class`` (they live in ``audit.questions.backends``).
3. ``parse_reply`` checks a reply against its fact. ``generate_questions`` counts bad replies
   and failed calls with their reasons instead of raising, so one odd reply never stops a batch.

Example::

    backend = backend_class("openai")(url="http://localhost:8000/v1", model="qwen")
    batch = generate_questions(facts, backend, per_fact=2)
    print(batch.summary())
"""

from __future__ import annotations

import json
import logging
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

# The backends live beside this module; their names are re-exported so that one import serves.
from audit.questions.backends import (  # noqa: F401
    BACKENDS,
    BackendCallError,
    OpenAICompatibleBackend,
    QuestionBackend,
    TransformersBackend,
    backend_class,
    chat_completions_url,
    register_backend,
)
from graphstore.errors import AuditError, ConfigError, InputDataError

log = logging.getLogger(__name__)

SHIPPED_PROMPT = "data/question_prompt.v1.json"
PROMPT_FIELDS = ("head", "relation", "tail", "passage", "n")
REQUIRED_USER_FIELDS = ("head", "tail")   # without them a reply cannot be about the fact
EXAMPLE_CHARS = 300


# --- data ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FactForQuestions:
    """One fact and the passage that states it: what the model is asked about."""
    fact: str           # fact key
    head: str
    relation: str       # human label, e.g. "place of birth"
    tail: str
    passage: str        # the passage text (may be empty)
    passage_key: str

    def __post_init__(self):
        for name in ("fact", "head", "relation", "tail"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise InputDataError("facts", f"{name} must be a non-empty string, got {value!r}",
                                     record=self.fact)
        if not isinstance(self.passage, str):
            raise InputDataError("facts", f"passage must be a string, got {type(self.passage).__name__}",
                                 record=self.fact)


@dataclass(frozen=True)
class GeneratedQuestion:
    """A question the model wrote, checked against its fact."""
    fact: str
    question: str
    answer: str         # the model's answer; it names the tail (or, for an inverse question, the head)
    passage_key: str
    source: str         # "llm:<prompt version>", e.g. "llm:question_prompt.v1"


@dataclass
class QuestionBatch:
    """What ``generate_questions`` made, and an account of what it refused.

    ``bad_replies``: replies that gave no usable question (unreadable, wrong shape, or every
    item refused). ``failed_calls``: facts whose backend call failed. ``reasons`` counts every
    refusal by code, including single items refused inside otherwise usable replies.
    ``examples`` keeps the first reply (cut to 300 characters) seen for each reason.
    """
    prompt_version: str
    questions: list[GeneratedQuestion] = field(default_factory=list)
    bad_replies: int = 0
    failed_calls: int = 0
    reasons: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    facts_asked: int = 0

    def refuse(self, reason: str, text: str, count: int = 1) -> None:
        self.reasons[reason] += count
        self.examples.setdefault(reason, text[:EXAMPLE_CHARS])

    def summary(self) -> str:
        """One line for a report, e.g. ``5 questions from 3 facts (question_prompt.v1); ...``."""
        refused = ", ".join(f"{r} x{n}" for r, n in sorted(self.reasons.items())) or "nothing"
        return (f"{len(self.questions)} questions from {self.facts_asked} facts ({self.prompt_version}); "
                f"{self.bad_replies} bad replies, {self.failed_calls} failed calls; refused: {refused}")


# --- prompt ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class QuestionPrompt:
    """A versioned prompt; ``system`` and ``user`` are ``str.format`` templates."""
    version: str
    system: str
    user: str

    def render(self, fact: FactForQuestions, n: int) -> tuple[str, str]:
        """(system, user) text for ``fact``, asking for ``n`` questions."""
        values = {"head": fact.head, "relation": fact.relation, "tail": fact.tail, "passage": fact.passage, "n": n}
        return self.system.format(**values), self.user.format(**values)


def load_prompt(path: str | Path | None = None, *, shipped: str = SHIPPED_PROMPT) -> QuestionPrompt:
    """The shipped ``question_prompt.v1`` (or the prompt ``shipped`` names in the audit package),
    or a user's JSON file of the same form: ``{"version": ..., "system": ..., "user": ...}``.

    Raises:
        InputDataError: the file is missing, not JSON, lacks a field, or a template has a
            placeholder other than {head}, {relation}, {tail}, {passage}, {n} (the message
            names the file and the valid placeholders).
    """
    if path is None:
        where: str | Path = f"audit/{shipped}"
        text = resources.files("audit").joinpath(shipped).read_text("utf-8")
    else:
        where = Path(path)
        try:
            text = where.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputDataError(where, "no such file") from None
        except UnicodeDecodeError as e:
            raise InputDataError(where, f"not UTF-8 text: {e}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputDataError(where, f"not a JSON file: {e}") from e
    if not isinstance(data, dict):
        raise InputDataError(where, 'expected a JSON object {"version": ..., "system": ..., "user": ...}')
    for key in ("version", "system", "user"):
        if not isinstance(data.get(key), str):
            raise InputDataError(where, f"field {key!r} must be a string; the prompt needs version, system and user")
    if not data["version"].strip() or not data["user"].strip():
        raise InputDataError(where, "fields 'version' and 'user' must not be empty")
    _placeholders(data["system"], where, "system")
    missing = [f for f in REQUIRED_USER_FIELDS if f not in _placeholders(data["user"], where, "user")]
    if missing:
        raise InputDataError(where, f"field 'user' must use {', '.join('{' + f + '}' for f in missing)}: "
                                    "a reply is checked against the fact's head and tail")
    return QuestionPrompt(data["version"], data["system"], data["user"])


def _placeholders(template: str, where, key: str) -> set[str]:
    valid = ", ".join("{" + f + "}" for f in PROMPT_FIELDS)
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as e:
        raise InputDataError(where, f"field {key!r} is not a valid format template ({e}); "
                                    "write a literal brace twice: {{ and }}") from e
    unknown = sorted(names - set(PROMPT_FIELDS))
    if unknown:
        raise InputDataError(where, f"field {key!r} uses unknown placeholder(s) "
                                    f"{', '.join('{' + u + '}' for u in unknown)}; valid: {valid}")
    return names


# --- parsing a reply -------------------------------------------------------------------------

class ReplyError(AuditError):
    """A reply that cannot be read as a whole; ``reason`` is the code it is counted under
    (``no_json``, ``not_an_object``, ``no_questions_list``)."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(f"{reason}: {message}")


@dataclass(frozen=True)
class ParsedReply:
    """The usable (question, answer) pairs of a reply, in its order, and the items refused."""
    pairs: list[tuple[str, str]]
    rejected: Counter   # reason code -> number of items refused


_DECODER = json.JSONDecoder()


def parse_reply(text: str, fact: FactForQuestions) -> ParsedReply:
    """Read a model's reply ``{"questions": [{"question": ..., "answer": ...}, ...]}`` and
    check each item against ``fact``.

    The JSON may sit in code fences or among other text. An item is kept when its question is
    a non-empty string ending in "?", its answer a non-empty string naming the tail (or, for
    an inverse question, the head) as a whole word sequence, case and spacing aside, and the
    question does not itself name that answer. Refused items are counted by reason:
    ``item_not_object``, ``missing_field``, ``not_a_string``, ``empty_text``,
    ``no_question_mark``, ``answer_not_in_fact``, ``question_gives_answer``.

    Raises:
        ReplyError: no JSON in the reply, a JSON value that is not an object, or no
            non-empty ``questions`` list.
    """
    value = _find_json(text)
    if not isinstance(value, dict):
        raise ReplyError("not_an_object", f"the reply's JSON is a {type(value).__name__}, not an object")
    items = value.get("questions")
    if not isinstance(items, list) or not items:
        raise ReplyError("no_questions_list", 'the JSON object has no non-empty "questions" list')
    pairs: list[tuple[str, str]] = []
    rejected: Counter[str] = Counter()
    for item in items:
        pair, reason = _read_item(item, fact)
        if pair is not None:
            pairs.append(pair)
        elif reason:
            rejected[reason] += 1
    return ParsedReply(pairs, rejected)


def _find_json(text: str):
    """The object holding "questions" if there is one, else the first JSON value in ``text``
    (so that a wrong shape is reported as such, not as missing JSON)."""
    first = None
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = _DECODER.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "questions" in value:
            return value
        if first is None:
            first = (value,)
    if first is None:
        raise ReplyError("no_json", "the reply holds no JSON object")
    return first[0]


def _read_item(item, fact: FactForQuestions) -> tuple[tuple[str, str] | None, str | None]:
    """(pair, None) for a usable item, (None, reason) for a refused one."""
    if not isinstance(item, dict):
        return None, "item_not_object"
    if "question" not in item or "answer" not in item:
        return None, "missing_field"
    question, answer = item["question"], item["answer"]
    if not isinstance(question, str) or not isinstance(answer, str):
        return None, "not_a_string"
    question, answer = " ".join(question.split()), " ".join(answer.split())
    if not question or not answer:
        return None, "empty_text"
    if not question.endswith("?"):
        return None, "no_question_mark"
    reason = _answer_problem(question, answer, fact)
    return (None, reason) if reason else ((question, answer), None)


def _normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _entity(entity: str) -> re.Pattern:
    # Whole words only: the tail "Al" is not named by an answer "Alabama".
    return re.compile(rf"(?<!\w){re.escape(entity)}(?!\w)")


def _answer_problem(question: str, answer: str, fact: FactForQuestions) -> str | None:
    q, a = _normalize(question), _normalize(answer)
    head, tail = _normalize(fact.head), _normalize(fact.tail)
    named = False
    for target, other in ((tail, head), (head, tail)):   # forward question, then inverse
        if not _entity(target).search(a):
            continue
        named = True
        # A tail inside the head ("London" in "University of London") is not given away by a
        # question that names the head, so the other entity is blanked out before looking.
        seen = _entity(other).sub(" ", q) if target in other else q
        if not _entity(target).search(seen):
            return None
    return "question_gives_answer" if named else "answer_not_in_fact"


# --- the batch -------------------------------------------------------------------------------

def generate_questions(facts: Iterable[FactForQuestions], backend: QuestionBackend, per_fact: int = 2,
                       prompt: QuestionPrompt | None = None) -> QuestionBatch:
    """Ask ``backend`` for ``per_fact`` questions on each fact and keep those that pass
    ``parse_reply``, at most ``per_fact`` per fact, duplicates (case and spacing aside) dropped.

    Bad replies and failed calls are counted in the batch, never raised.

    Raises:
        ConfigError: ``per_fact`` below 1, or a backend that cannot work at all (e.g. a server
            that refuses the first connection).
    """
    if per_fact < 1:
        raise ConfigError(f"per_fact must be at least 1, got {per_fact}")
    prompt = prompt or load_prompt()
    batch = QuestionBatch(prompt_version=prompt.version)
    source = f"llm:{prompt.version}"
    for fact in facts:
        batch.facts_asked += 1
        try:
            reply = backend.complete(*prompt.render(fact, per_fact))
        except BackendCallError as e:
            log.warning("fact %s: backend call failed: %s", fact.fact, e)
            batch.failed_calls += 1
            batch.refuse(e.reason, str(e))
            continue
        try:
            parsed = parse_reply(reply, fact)
        except ReplyError as e:
            log.debug("fact %s: bad reply (%s): %r", fact.fact, e.reason, reply[:EXAMPLE_CHARS])
            batch.bad_replies += 1
            batch.refuse(e.reason, reply)
            continue
        for reason, count in parsed.rejected.items():
            batch.refuse(reason, reply, count)
        seen: set[str] = set()
        for question, answer in parsed.pairs:
            key = _normalize(question)
            if key in seen:
                batch.refuse("duplicate", reply)
            elif len(seen) == per_fact:
                batch.refuse("surplus", reply)
            else:
                seen.add(key)
                batch.questions.append(GeneratedQuestion(fact.fact, question, answer, fact.passage_key, source))
        if not seen:
            log.debug("fact %s: no usable question in reply %r", fact.fact, reply[:EXAMPLE_CHARS])
            batch.bad_replies += 1
    if batch.bad_replies or batch.failed_calls:
        log.warning("question generation: %s", batch.summary())
    return batch
