"""Reading an LLM extractor's reply: repair the JSON, validate every fact, count what is refused.

A reply is meant to be ``{"passages": [{"id": 1, "facts": [{"head", "relation", "tail",
"evidence"}]}]}``. Models wrap it in a markdown fence, put a comma before a closing bracket,
or stop mid-answer at their token limit; ``repair_json`` undoes the first two and closes a cut
reply after its last complete fact (that passage is marked ``partial``: it may have lost facts).
A ``<think>`` block or a preamble before the JSON is passed over. A reply that still is not
JSON raises ``ReplyError`` (the extractor asks again); one that is JSON keeps the facts that
pass ``check_fact`` and counts the others by reason, so a build can say what it dropped:

| reason | the fact |
| --- | --- |
| not_an_object | is not a JSON object with string head, relation and tail |
| unknown_relation | names a relation outside the inventory (by id or label) |
| same_entity | has the same head and tail |
| too_long | has a name over 200 characters |
| not_in_passage | has a head or tail the passage does not contain as whole words (any case; curly or plain quotes and dashes, Unicode forms alike) |

A passage the reply does not answer for is not "no facts": it is listed in ``missing`` and
asked again.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from graphstore.errors import AuditError

MAX_NAME_CHARS = 200
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*(?:```|$)", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SPACE = re.compile(r"\s+")
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S)
# Typography a model may change when it copies a name: curly quotes, dashes, NFKC forms
_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


class ReplyError(AuditError):
    """A reply with no readable JSON object in it; ``reason`` is what it is counted under."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(f"{reason}: {message}")


@dataclass(frozen=True)
class Fact:
    """One fact of a reply, validated: names as the passage writes them, relation an inventory id."""

    head: str
    relation: str
    tail: str
    evidence: str = ""


@dataclass
class ParsedReply:
    """The facts of a reply by passage id, the passages it did not answer for, what it refused."""

    facts: dict[int, list[Fact]]
    missing: list[int]
    rejected: Counter = field(default_factory=Counter)
    repaired: bool = False   # the JSON needed a repair (a fence, a trailing comma, a cut end)
    partial: list[int] = field(default_factory=list)   # the passage a cut reply was answering: facts may be lost


class Repaired(NamedTuple):
    """A reply's JSON value; whether it needed repair; whether it was cut short and closed
    (its last part may have lost facts)."""

    value: object
    repaired: bool
    cut: bool


def repair_json(text: str, max_starts: int = 50) -> Repaired:
    """The JSON value of a reply: the first that decodes from an opening brace (a preamble, a
    ``<think>`` block and a markdown fence are passed over), preferring an object with
    ``passages`` or ``facts``; a trailing comma removed; a cut reply closed after its last
    complete element.

    Raises:
        ReplyError: ``no_json`` when no repair makes any of it JSON.
    """
    body = _THINK.sub("", text)
    fenced = _FENCE.search(body)
    body = fenced.group(1) if fenced else body
    starts = [m.start() for m in re.finditer(r"[{\[]", body)][:max_starts]
    if not starts:
        raise ReplyError("no_json", f"no JSON object in the reply: {text[:120]!r}")
    first = None
    for start in starts:
        piece = body[start:]
        value = _decode_prefix(piece) or _decode_prefix(_TRAILING_COMMA.sub(r"\1", piece))
        if value is None:
            continue
        repaired = fenced is not None or start > 0 or not _exact(piece)
        if _wanted(value):
            return Repaired(value, repaired, False)
        first = first or Repaired(value, True, False)
    for start in starts:
        for cut in _cut_points(body[start:]):
            value = _decode_prefix(_close(body[start:start + cut]))
            if value is not None and _wanted(value):
                return Repaired(value, True, True)
    if first is not None:
        return first
    raise ReplyError("no_json", f"the reply is not JSON and no repair makes it so: {text[:120]!r}")


def _exact(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def _wanted(value: object) -> bool:
    """The reply's own object: the passages form, or the flat form of one passage (not one
    passage's entry inside the passages form, which has an id)."""
    return isinstance(value, dict) and ("passages" in value or "facts" in value and "id" not in value)


def _decode_prefix(text: str | None):
    """The first JSON value at the start of ``text`` (text after it ignored), or None."""
    if text is None:
        return None
    try:
        return json.JSONDecoder().raw_decode(text)[0]
    except json.JSONDecodeError:
        return None


def _cut_points(text: str, tries: int = 200) -> list[int]:
    """Ends of candidate complete prefixes, last first: just after each closing brace."""
    return [i + 1 for i in range(len(text) - 1, -1, -1) if text[i] in "}]"][:tries]


def _close(prefix: str) -> str | None:
    """``prefix`` with the brackets it leaves open closed (None when it ends inside a string)."""
    stack, in_string, escaped = [], False, False
    for ch in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
    if in_string:
        return None
    return _TRAILING_COMMA.sub(r"\1", prefix.rstrip().rstrip(",") + "".join(reversed(stack)))


def parse_reply(text: str, passages: Mapping[int, str], relation_ids: Mapping[str, str]) -> ParsedReply:
    """The validated facts of ``text`` for ``passages`` (id -> passage text).

    ``relation_ids`` maps every accepted spelling of a relation (id and label, lower case) to
    its id. Raises ``ReplyError`` when the reply has no usable JSON object.
    """
    value, repaired, cut = repair_json(text)
    if isinstance(value, dict) and "passages" not in value and "facts" in value and len(passages) == 1:
        value = {"passages": [{"id": next(iter(passages)), "facts": value["facts"]}]}  # one passage, flat form
    items = value.get("passages") if isinstance(value, dict) else None
    if not isinstance(items, list):
        raise ReplyError("no_passages_list", f'expected {{"passages": [...]}}, found {str(value)[:120]!r}')
    out = ParsedReply({}, [], Counter(), repaired)
    for item in items:
        pid = _passage_id(item.get("id") if isinstance(item, dict) else None)
        if pid is None or pid not in passages or not isinstance(item.get("facts"), list):
            out.rejected["bad_passage_entry"] += 1
            continue
        kept = out.facts.setdefault(pid, [])
        for raw in item["facts"]:
            fact, reason = check_fact(raw, passages[pid], relation_ids)
            if fact is None:
                out.rejected[reason] += 1
            elif fact not in kept:
                kept.append(fact)
        if cut:
            out.partial = [pid]   # the last entry read is where the reply was cut
    out.missing = [pid for pid in passages if pid not in out.facts]
    return out


def _passage_id(raw: object) -> int | None:
    """A passage number as a model writes it: 1, "1", 1.0; None for anything else (true, "²")."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str) and raw.strip().isdecimal() and raw.strip().isascii():
        return int(raw.strip())
    return None


def fold(text: str) -> str:
    """``text`` as names are compared: NFKC, curly quotes and dashes made plain, whitespace
    single, case folded."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_FOLD)).strip().casefold()


def in_text(name: str, text: str) -> bool:
    """Whether ``name`` stands in ``text`` as whole words (both folded)."""
    return re.search(r"(?<!\w)" + re.escape(fold(name)) + r"(?!\w)", fold(text)) is not None


def check_fact(raw: object, passage: str, relation_ids: Mapping[str, str]) -> tuple[Fact | None, str]:
    """(the fact, "") when ``raw`` is a usable fact of ``passage``, else (None, the reason)."""
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("head", "relation", "tail")):
        return None, "not_an_object"
    head, tail = _SPACE.sub(" ", raw["head"]).strip(), _SPACE.sub(" ", raw["tail"]).strip()
    relation = relation_ids.get(raw["relation"].strip().lower())
    if relation is None:
        return None, "unknown_relation"
    if not head or not tail or fold(head) == fold(tail):
        return None, "same_entity"
    if len(head) > MAX_NAME_CHARS or len(tail) > MAX_NAME_CHARS:
        return None, "too_long"
    if not in_text(head, passage) or not in_text(tail, passage):
        return None, "not_in_passage"
    evidence = raw.get("evidence")
    return Fact(head, relation, tail, evidence.strip() if isinstance(evidence, str) else ""), ""
