"""Entity normalization and relation canonicalization: one place, before anything is compared.

Two mentions are the same entity when their ``normalize_name`` is equal: case, whitespace,
punctuation, honorifics and a leading article do not count, and dates are compared as dates
("5 May 1900" = "May 5, 1900" = ``1900-05-05``). Within one document, a short mention (a
surname, "the company") is resolved to the full name it stands for when exactly one full
name fits. A fact stated with an inverse relation ("Y contains X") is stored the canonical
way ("X located in Y"); a symmetric one ("spouse") with its two ends in a fixed order.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import Iterable

from extract.text.lexicons import rule_word_list, rule_words
from extract.text.units import Triple

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2}) ([a-z]+) (\d{3,4})$")
_MONTH_DAY_YEAR = re.compile(r"^([a-z]+) (\d{1,2}) (\d{3,4})$")
_MONTH_YEAR = re.compile(r"^([a-z]+) (\d{3,4})$")
_YEAR = re.compile(r"^(\d{3,4})$")
# Kinds the extractor recognised from a gazetteer or a date shape: never short for anything.
FIXED_KINDS = frozenset({"place", "date", "occupation", "class", "sport", "genre"})
# Relations whose head, or tail, is an organisation: "Calgary" there may be short for the Calgary Stampeders.
FIRM_HEADS = frozenset({"P169", "P488", "P1037", "P286", "P112", "P1128", "P127", "P749", "P159", "P2139"})
FIRM_TAILS = frozenset({"P54", "P108", "P127", "P749", "P137"})
# Kinds of tails that are values, never entities a short name could stand for.
VALUE_KINDS = frozenset({"position", "occupation", "class"})


@functools.lru_cache(maxsize=1)
def month_numbers() -> dict[str, int]:
    """A month's name, lower-case, whole or cut to three letters (and "sept") -> its number."""
    out = {m.lower(): i for i, m in enumerate(rule_word_list("month_names"), 1)}
    out.update({m[:3]: i for m, i in list(out.items())})
    out["sept"] = 9
    return out


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _PUNCT.sub(" ", text.replace("'s ", " ").replace("’s ", " "))
    return _SPACE.sub(" ", text).strip()


def normalize_date(text: str) -> str | None:
    """``1900-05-05``, ``1900-05`` or ``1900`` for a date written in words; None if it is not one."""
    folded = _fold(text)
    if m := _DAY_MONTH_YEAR.match(folded):
        day, month, year = m.groups()
    elif m := _MONTH_DAY_YEAR.match(folded):
        month, day, year = m.groups()
    elif m := _MONTH_YEAR.match(folded):
        month, year = m.groups()
        return f"{int(year):04d}-{month_numbers()[month]:02d}" if month in month_numbers() else None
    elif m := _YEAR.match(folded):
        return f"{int(m.group(1)):04d}"
    else:
        return None
    if month not in month_numbers() or not 1 <= int(day) <= 31:
        return None
    return f"{int(year):04d}-{month_numbers()[month]:02d}-{int(day):02d}"


def normalize_name(text: str) -> str:
    """The comparison form of an entity name.

    >>> normalize_name("  Dr. Marie   Curie ")
    'marie curie'
    >>> normalize_name("May 5, 1900") == normalize_name("5 May 1900")
    True
    """
    date = normalize_date(text)
    if date:
        return date
    words = _fold(text).split()
    while len(words) > 1 and (words[0] in rule_words("honorifics_in_names") or words[0] in rule_words("articles")):
        words = words[1:]
    return " ".join(words)


def display_name(text: str) -> str:
    """The name as shown: whitespace collapsed, surrounding punctuation trimmed."""
    return _SPACE.sub(" ", text).strip(" \t\n,;:\"'“”‘’()[]")


@dataclass(frozen=True)
class Relation:
    id: str
    label: str
    head: str
    tail: str
    inverse: str | None = None      # this id is the inverse of ``inverse``: store swapped
    symmetric: bool = False
    rebel: tuple[str, ...] = ()


@functools.lru_cache(maxsize=1)
def _registry() -> dict:
    return json.loads(resources.files("extract").joinpath("data/relations.v1.json").read_text("utf-8"))


@functools.lru_cache(maxsize=1)
def relations() -> dict[str, Relation]:
    """The relation registry (``extract/data/relations.v1.json``), by id."""
    data = _registry()
    return {r["id"]: Relation(r["id"], r["label"], r.get("head", ""), r.get("tail", ""), r.get("inverse"),
                              bool(r.get("symmetric")), tuple(r.get("rebel", ()))) for r in data["relations"]}


def relations_version() -> str:
    return _registry()["version"]


def rebel_relation_ids() -> dict[str, str]:
    """REBEL's relation labels -> our relation ids."""
    return {label: r.id for r in relations().values() for label in r.rebel}


def canonical(head: str, relation: str, tail: str) -> tuple[str, str, str]:
    """The one stored form of a fact: inverse relations swapped, symmetric ones ordered."""
    rel = relations().get(relation)
    if rel is not None and rel.inverse:
        return tail, rel.inverse, head
    if rel is not None and rel.symmetric and normalize_name(tail) < normalize_name(head):
        return tail, relation, head
    return head, relation, tail


def resolve_short_mentions(triples: list[Triple]) -> list[Triple]:
    """Within one document's triples, replace a short mention by the full name it stands for.

    A mention is short when its normalized words end exactly one longer name of the same
    document ("Curie" -> "Marie Curie"; "Utah" is not short for "Utah State University"), or
    begin exactly one longer name of an organisation ("Zuidwind" -> "Zuidwind Airlines"), or
    are its initials
    ("ITS" -> "International Transportation Service"). An ambiguous one ("Smith" with "John
    Smith" and "Anna Smith") is left as it is, and so are places, dates and occupations the
    extractor recognised as such: "Austria" is not short for "Upper Austria". Pronouns and
    generic nouns ("He", "The company") are resolved earlier, by the extractor, to the
    document's subject.
    """
    names = {display_name(n) for t in triples for n in (t.head, t.tail)}
    folded = {n: normalize_name(n) for n in names}
    entities = {display_name(n) for t in triples for n, kind in ((t.head, t.head_kind), (t.tail, t.tail_kind))
                if kind not in VALUE_KINDS}  # "Burnley" is not short for the position "mayor of Burnley"
    full = [n for n in names if len(folded[n].split()) > 1 and n in entities]
    organizations = {display_name(x) for t in triples for x, kind in ((t.head, t.head_kind), (t.tail, t.tail_kind))
                     if kind == "organization"}
    firms = [n for n in full if n in organizations]

    def resolve(name: str, kind: str, firm_slot: bool = False) -> str:
        shown = display_name(name)
        words = folded[shown].split()
        if not words or kind in FIXED_KINDS or normalize_date(name) is not None:
            return name
        if len(words) == 1 and words[0] in rule_words("generic_mentions"):
            return name  # a bare generic noun names nothing on its own
        candidates = [n for n in full if n != shown and _ends(words, folded[n].split())]
        if not candidates and (kind == "organization" or firm_slot):  # "Zuidwind" for Zuidwind Airlines
            candidates = [n for n in firms if n != shown and folded[n].split()[:len(words)] == words]
        if not candidates and _is_acronym(shown):
            candidates = [n for n in full if _initials(n) == shown]
        return candidates[0] if len(candidates) == 1 else name

    return [dataclasses.replace(t, head=resolve(t.head, t.head_kind, t.relation in FIRM_HEADS),
                                tail=resolve(t.tail, t.tail_kind, t.relation in FIRM_TAILS)) for t in triples]


def _ends(short: list[str], long: list[str]) -> bool:
    n = len(short)
    return n < len(long) and long[-n:] == short


def _is_acronym(name: str) -> bool:
    return 2 <= len(name) <= 8 and name.isalpha() and name.isupper()


def _initials(name: str) -> str:
    """'International Transportation Service' -> 'ITS' (lower-case connectors skipped)."""
    return "".join(w[0] for w in name.split() if w[:1].isupper())


class NameIndex:
    """Which of many normalized names occur in a text, as whole words.

    Indexed on each name's first word, so the cost grows with the text's words, not with
    texts x names.

    >>> sorted(NameIndex(["marie curie", "paris"]).find("Dr. Marie Curie moved to Paris."))
    ['marie curie', 'paris']
    """

    def __init__(self, names: Iterable[str]):
        self._by_first: dict[str, list[list[str]]] = collections.defaultdict(list)
        for name in names:
            words = name.split()
            if words:
                self._by_first[words[0]].append(words)

    def find(self, text: str) -> set[str]:
        words = normalize_name(text).split()
        found = set()
        for i, word in enumerate(words):
            for name_words in self._by_first.get(word, ()):
                if words[i:i + len(name_words)] == name_words:
                    found.add(" ".join(name_words))
        return found
