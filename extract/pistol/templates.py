"""The PISTOL contract types and their 20 question templates, read from a versioned data file.

The templates are data (``extract/data/pistol_templates.v1.json``); this module renders
them (for the generator) and parses them back (for the loader): every question of a real
dataset is matched to exactly one template, which tells which attribute it asks about and
which party names and date it mentions.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

TEMPLATE_FILE = "pistol_templates.v1.json"


@dataclass(frozen=True)
class Attribute:
    name: str
    question: str  # a str.format template with party/date placeholders
    answer: str  # "{value}", "{value}%", "{value} months"
    pattern: re.Pattern  # the question template as a regex with named groups
    answer_pattern: re.Pattern
    prefix: str  # the literal text before the first placeholder: a cheap first filter

    def render_question(self, **values: str) -> str:
        return self.question.format(**values)

    def render_answer(self, value: object, suffix: str) -> str:
        return self.answer.format(value=value) + suffix


@dataclass(frozen=True)
class ContractType:
    domain: str  # "sales" | "employment"
    relation: str
    head_role: str
    tail_role: str
    head_kind: str
    tail_kind: str
    head_name: str  # attribute holding the head party's name
    tail_name: str
    head_address: str
    tail_address: str
    date: str
    attributes: tuple

    @property
    def attribute_names(self) -> tuple:
        return tuple(a.name for a in self.attributes)

    def attribute(self, name: str) -> Attribute:
        for a in self.attributes:
            if a.name == name:
                return a
        raise KeyError(name)


@dataclass(frozen=True)
class TemplateSet:
    version: str
    answer_suffix: str
    types: dict  # domain -> ContractType

    def matches(self, question: str) -> list[tuple[ContractType, Attribute, dict]]:
        """Every (type, attribute, placeholder values) whose template can produce ``question``.

        Two templates can share a shape ("the address of {seller} in the contract with
        {customer}" and the customer's twin); the caller decides between them with the
        party names, which the unambiguous questions give.
        """
        found = []
        for contract_type in self.types.values():
            for attribute in contract_type.attributes:
                if not question.startswith(attribute.prefix):
                    continue
                m = attribute.pattern.fullmatch(question)
                if m:
                    found.append((contract_type, attribute, m.groupdict()))
        return found


def _compile(template: str) -> re.Pattern:
    """Turn 'the contract between {seller} and {customer}?' into a regex.

    A placeholder seen a second time must repeat the same text (a backreference), so a
    question that names two different sellers does not match.
    """
    parts, seen = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is None:
            continue
        if field in seen:
            parts.append(f"(?P={field})")
        else:
            seen.add(field)
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts))


@lru_cache(maxsize=None)
def load_templates(name: str = TEMPLATE_FILE) -> TemplateSet:
    raw = json.loads(resources.files("extract").joinpath("data", name).read_text(encoding="utf-8"))
    types = {}
    for domain, spec in raw["contract_types"].items():
        attributes = tuple(
            Attribute(a["name"], a["question"], a["answer"], _compile(a["question"]),
                      _compile(a["answer"]), prefix=a["question"].split("{", 1)[0])
            for a in spec["attributes"]
        )
        fields = {k: v for k, v in spec.items() if k != "attributes"}
        types[domain] = ContractType(domain=domain, attributes=attributes, **fields)
    return TemplateSet(version=raw["version"], answer_suffix=raw["answer_suffix"], types=types)
