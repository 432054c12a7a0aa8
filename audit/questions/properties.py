"""The property registry: how a Wikidata property's fact is said in English.

For every property: its label, description and aliases; the shape of its base sentence
(copular "X is a Y", possessive "X's Y is Z", transitive "X holds Z"); the base sentence and
at least ten paraphrases (the canaries of WikiMem, Staufer 2025, arXiv:2507.11128); and two
questions answered by the value. The shipped registry is ``audit/data/wikidata_properties.v1.json``;
a user's file in the same format adds properties or replaces shipped ones.

Placeholders: ``{subject}``; one of ``{value}``, ``{a_value}`` (with "a"/"an") or ``{on_value}``
(time values: "on 11 March 1952", "in March 1952", "in 1952"). A property outside the registry
gets the ``default`` family, written with the property's label (``{label}``).
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from extract.jsonfile import read_json
from graphstore.errors import InputDataError

REGISTRY_FILE = "data/wikidata_properties.v1.json"
VALUE_TYPES = ("item", "string", "quantity", "time")
SHAPES = ("copular", "possessive", "transitive")
VALUE_FIELDS = ("value", "a_value", "on_value")
MIN_PARAPHRASES = 10


@dataclass(frozen=True)
class PropertyTemplates:
    pid: str
    label: str
    description: str
    aliases: tuple
    value_type: str
    shape: str
    base: str
    paraphrases: tuple
    questions: tuple

    @property
    def templates(self) -> tuple:
        """The base sentence first, then the paraphrases."""
        return (self.base, *self.paraphrases)


@dataclass(frozen=True)
class PropertyRegistry:
    version: str
    generic_subject: str
    properties: dict           # pid -> PropertyTemplates
    default: dict              # the family for properties outside the registry, with {label}

    def get(self, pid: str, label: str | None = None) -> PropertyTemplates:
        """The property's templates; the default family (with its label) when it is not registered."""
        if pid in self.properties:
            return self.properties[pid]
        name = label or pid
        def with_label(template: str) -> str:
            return template.replace("{label}", name)

        d = self.default
        return PropertyTemplates(pid, name, "", (), "item", d["shape"], with_label(d["base"]),
                                 tuple(map(with_label, d["paraphrases"])), tuple(map(with_label, d["questions"])))


def load_registry(extra: Path | None = None) -> PropertyRegistry:
    """The shipped registry, with a user's file (same format) laid over it.

    Raises:
        InputDataError: the user's file is not JSON or breaks a template rule (file and property named).
    """
    shipped = json.loads(resources.files("audit").joinpath(REGISTRY_FILE).read_text("utf-8"))
    registry = _parse(shipped, REGISTRY_FILE)
    if extra is None:
        return registry
    extra = Path(extra)
    data = read_json(extra)
    if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
        raise InputDataError(extra, 'expected {"version": ..., "properties": {"P106": {...}, ...}} '
                                    "(the format of audit/data/wikidata_properties.v1.json)")
    user = _parse({"version": data.get("version", extra.name), "generic_subject": registry.generic_subject,
                   "default": registry.default, "properties": data["properties"]}, extra)
    return PropertyRegistry(f"{registry.version}+{user.version}", registry.generic_subject,
                            {**registry.properties, **user.properties}, registry.default)


def _parse(data: dict, source) -> PropertyRegistry:
    properties = {}
    for pid, spec in data["properties"].items():
        where = f"property {pid}"
        if not isinstance(spec, dict):
            raise InputDataError(source, "expected an object", record=pid)
        missing = [k for k in ("label", "value_type", "shape", "base", "paraphrases", "questions") if k not in spec]
        if missing:
            raise InputDataError(source, f"{where} lacks {', '.join(missing)}", record=pid)
        if spec["value_type"] not in VALUE_TYPES or spec["shape"] not in SHAPES:
            raise InputDataError(source, f"{where}: value_type must be one of {VALUE_TYPES} and shape one of "
                                         f"{SHAPES}", record=pid)
        paraphrases = tuple(spec["paraphrases"])
        if len(set(paraphrases) - {spec["base"]}) < MIN_PARAPHRASES:
            raise InputDataError(source, f"{where}: at least {MIN_PARAPHRASES} distinct paraphrases are needed "
                                         f"besides the base sentence, found {len(set(paraphrases) - {spec['base']})}",
                                 record=pid)
        for template in (spec["base"], *paraphrases):
            check_template(template, value=True, time=spec["value_type"] == "time", source=source, pid=pid)
        for question in spec["questions"]:
            check_template(question, value=False, time=False, source=source, pid=pid)
        properties[pid] = PropertyTemplates(pid, spec["label"], spec.get("description", ""),
                                            tuple(spec.get("aliases", ())), spec["value_type"], spec["shape"],
                                            spec["base"], paraphrases, tuple(spec["questions"]))
    return PropertyRegistry(data["version"], data["generic_subject"], properties, data.get("default", {}))


def check_template(template: str, value: bool, time: bool, source, pid: str) -> None:
    """``{subject}`` once; with ``value``, exactly one value placeholder once (``{on_value}`` only
    for time properties); nothing else in braces."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:
        raise InputDataError(source, f"template {template!r}: {e}", record=pid) from None
    allowed = {"subject", "label", *(VALUE_FIELDS if value else ())}
    bad = [f for f in fields if f not in allowed or (f == "on_value" and not time)]
    values = [f for f in fields if f in VALUE_FIELDS]
    if bad or fields.count("subject") != 1 or (value and len(values) != 1):
        need = "{subject} once and one of {value}, {a_value}, {on_value} (time only) once" if value \
            else "{subject} once and no value"
        raise InputDataError(source, f"template {template!r} must contain {need}", record=pid)


def article(word: str) -> str:
    """``a`` or ``an`` before ``word``, by its first sound as far as spelling tells."""
    lower = word.lower()
    if lower.startswith(("uni", "use", "usu", "eu", "one", "once")):
        return "a"
    if lower.startswith(("hour", "honest", "honor", "honour", "heir")):
        return "an"
    return "an" if lower[:1] in "aeiou" and lower[:1] else "a"


def fill(template: str, subject: str, value: str, preposition: str = "in") -> str:
    """One sentence: placeholders filled, first letter capitalised.

    >>> fill("{subject} is {a_value}.", "this person", "engineer")
    'This person is an engineer.'
    """
    text = template.format(subject=subject, value=value, a_value=f"{article(value)} {value}",
                           on_value=f"{preposition} {value}")
    return text[:1].upper() + text[1:]


def question_pairs(templates: PropertyTemplates, subject: str, value: str) -> list[tuple[str, str]]:
    """(question, answer) pairs that test one value of one fact."""
    return [(fill(q, subject, value), value) for q in templates.questions]


def add_property_questions(record, registry: PropertyRegistry):
    """``record`` (a Wikidata graph) with the registry's questions on every fact: what
    ``audit run`` injects, unlearns and measures. ``qa_attributes[i]`` names the template."""
    import dataclasses

    facts = []
    for fact in record.facts:
        templates = registry.get(fact.relation, fact.attributes.get("property_label"))
        pairs = question_pairs(templates, fact.attributes["subject_name"], fact.attributes["value"])
        facts.append(dataclasses.replace(
            fact, questions=tuple(q for q, _ in pairs), answers=tuple(a for _, a in pairs),
            qa_attributes=tuple(f"{fact.relation}.question.{i}" for i in range(len(pairs)))))
    return dataclasses.replace(record, facts=tuple(facts), properties={**record.properties, "templates": registry.version})
