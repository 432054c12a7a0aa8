"""Wikidata subjects into a graph: people, their properties and values.

``read_wikidata`` streams a file of Wikidata entities (see ``extract.wikidata.entities`` for the
forms), keeps the subjects asked for (humans, ``P31 = Q5``, unless told otherwise) and turns
each subject's best-ranked statements into facts (see ``extract.wikidata.values``):

    (:Entity {key: "<graph>/Q42", label: "Q42", name: "Douglas Adams", kind: "human"})
      -[:FACT {relation: "P106", property_label: "occupation", value: "novelist", ...}]->
    (:Entity {key: "<graph>/Q6625963", label: "Q6625963", name: "novelist", kind: "item"})

Item values are entities keyed by their Q-id and named by their label, from the same file or
from labels files (``--labels``); an item whose label is found nowhere keeps its Q-id as its
name and is flagged (``label_missing`` on the entity, ``value_label_missing`` on the fact).
Literal values (strings, quantities, times) are entities keyed by their text, so two people
born on the same day share that date's node. Properties become ``(:Property)`` nodes with
their label, description and aliases.

Nothing is half-read: a malformed record refuses the whole file (or, with
``skip_bad_records``, is skipped and reported with its line), before anything is written.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping

from graphstore.errors import InputDataError
from graphstore.records import (EntityRecord, FactRecord, GraphRecord, PropertyRecord, entity_key, fact_key,
                                validate_graph_name)

from extract.wikidata.entities import ENTITY_ID, ReadReport, iter_entities, open_text
from extract.wikidata.values import BadValue, Skips, Value, best_ranked, statement_values

SOURCE = "wikidata"
HUMAN = "Q5"
INSTANCE_OF = "P31"
FALLBACK_LANGUAGE = "mul"   # Wikidata's language-independent default labels
LITERAL_KEY_CHARS = 200     # longer literal values are keyed by a hash of their text


@dataclass(frozen=True)
class PropertyInfo:
    """What a property registry knows of a property (plain data, from ``audit``'s registry)."""
    label: str
    description: str = ""
    aliases: tuple = ()


@dataclass(frozen=True)
class WikidataOptions:
    """How to read a Wikidata file."""
    instance_of: tuple = (HUMAN,)   # subjects: items with one of these P31 values; () = every item
    language: str = "en"           # of labels, descriptions and aliases ("mul" labels as fallback)
    labels: tuple = ()             # files with more labels: entity JSON (any form) or TSV "Q42<TAB>label"
    skip_bad_records: bool = False  # skip malformed records (reported) instead of refusing the file
    registry: Mapping[str, PropertyInfo] = field(default_factory=dict)  # labels for properties the file lacks

    def __post_init__(self):
        for q in self.instance_of:
            if not ENTITY_ID.match(q) or not q.startswith("Q"):
                raise InputDataError("--instance-of", f"{q!r} is not an item id (Q5, Q43229, ...)")


@dataclass
class WikidataReport:
    """What a read found: counts and the places of what it skipped, for the build's summary."""
    path: str
    form: str = ""
    records: int = 0
    subjects: int = 0
    not_selected: int = 0          # items that are not instances of the classes asked for
    without_label: list = field(default_factory=list)   # subjects skipped: no label in the language
    facts: int = 0
    values_without_label: int = 0  # item values (and units) named by their Q-id
    skips: Skips = field(default_factory=lambda: Skips({}, {}))
    bad_records: list = field(default_factory=list)
    missing: list = field(default_factory=list)

    def lines(self) -> list[str]:
        """Human-readable notes on everything that was skipped or flagged."""
        out = []
        if self.without_label:
            out.append(f"{len(self.without_label)} subject(s) without a label skipped "
                       f"(first at {', '.join(self.without_label[:3])})")
        if self.values_without_label:
            out.append(f"{self.values_without_label} value(s) without a label kept as their Q-id "
                       "(value_label_missing); give more labels with --labels FILE")
        for reason, count in sorted(self.skips.counts.items()):
            out.append(f"{count} statement(s) skipped: {reason} (first at {', '.join(self.skips.first[reason])})")
        for where, why in self.bad_records[:5]:
            out.append(f"bad record skipped at {where}: {why}")
        if len(self.bad_records) > 5:
            out.append(f"... {len(self.bad_records) - 5} more bad records skipped")
        if self.missing:
            out.append(f"{len(self.missing)} id(s) reported missing by wbgetentities: {', '.join(self.missing[:5])}")
        return out


@dataclass
class _Subject:
    where: str
    qid: str
    name: str
    kind: str
    description: str
    aliases: list
    values: dict            # pid -> [Value]


def read_wikidata(path: str | Path, graph: str | None = None,
                  options: WikidataOptions | None = None) -> tuple[GraphRecord, WikidataReport]:
    """Read and validate a Wikidata file; return its graph and what was skipped.

    Raises:
        InputDataError: the file (or a labels file) is unreadable or not Wikidata JSON, a
            record or statement is malformed (unless ``skip_bad_records``), or no subject is
            left to build.
    """
    path = Path(path)
    options = options or WikidataOptions()
    name = graph or _stem(path)
    try:
        validate_graph_name(name)
    except Exception as e:
        raise InputDataError(path, f"{e}; pass --graph NAME") from e
    report = WikidataReport(str(path))
    labels: dict[str, str] = {}
    properties: dict[str, PropertyInfo] = {}
    # Each file is hashed by the read that parses it: the build's identity costs no second pass.
    digests = [hashlib.sha256() for _ in range(1 + len(options.labels))]
    subjects = _read_subjects(path, options, report, labels, properties, digests[0])
    for extra, digest in zip(options.labels, digests[1:]):
        _read_labels(Path(extra), options, labels, properties, digest)
    if not subjects:
        wanted = ", ".join(options.instance_of) or "any class"
        raise InputDataError(path, f"no subject to build: {report.records} entities read, none an instance of "
                                   f"{wanted} with a label in {options.language!r}"
                                   + (" (pass --instance-of to choose other classes)" if options.instance_of else ""))
    record = _graph_record(name, path, subjects, labels, properties, options, report,
                           _identity([d.hexdigest() for d in digests], options))
    return record, report


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".bz2", ".json", ".jsonl", ".ndjson"):
        name = name.removesuffix(suffix)
    return name or path.stem


def _text(entity: dict, field_name: str, language: str) -> str:
    values = entity.get(field_name)
    if not isinstance(values, dict):
        return ""
    for lang in (language, FALLBACK_LANGUAGE):
        item = values.get(lang)
        if isinstance(item, dict) and isinstance(item.get("value"), str) and item["value"].strip():
            return " ".join(item["value"].split())
    return ""


def _aliases(entity: dict, language: str) -> list[str]:
    items = entity.get("aliases", {})
    items = items.get(language, []) if isinstance(items, dict) else []
    return [a["value"] for a in items if isinstance(a, dict) and isinstance(a.get("value"), str)]


def _instances(entity: dict) -> list[str]:
    claims = entity.get("claims") or {}
    statements = claims.get(INSTANCE_OF, []) if isinstance(claims, dict) else []
    out = []
    for s in best_ranked(statements if isinstance(statements, list) else []):
        try:
            out.append(s["mainsnak"]["datavalue"]["value"]["id"])
        except (KeyError, TypeError):
            continue
    return out


def _read_subjects(path: Path, options: WikidataOptions, report: WikidataReport, labels: dict,
                   properties: dict, digest) -> list[_Subject]:
    read = ReadReport(str(path))
    subjects: dict[str, _Subject] = {}
    for where, entity in iter_entities(path, read, options.skip_bad_records, digest):
        eid = entity["id"]
        label = _text(entity, "labels", options.language)
        if label:
            labels[eid] = label
        if eid.startswith("P"):
            properties[eid] = PropertyInfo(label or eid, _text(entity, "descriptions", options.language),
                                           tuple(_aliases(entity, options.language)))
            continue
        if not eid.startswith("Q"):
            continue
        instances = _instances(entity)
        if options.instance_of and not set(instances) & set(options.instance_of):
            report.not_selected += 1
            continue
        if not label:
            report.without_label.append(f"{where} ({eid})")
            continue
        claims = entity.get("claims") or {}
        if not isinstance(claims, dict):
            _refuse_or_skip(path, where, f"{eid}: claims must be an object", options, report)
            continue
        try:
            values = {pid: statement_values(pid, statements, f"{where} ({eid})", report.skips)
                      for pid, statements in claims.items() if pid != INSTANCE_OF}
        except BadValue as e:
            _refuse_or_skip(path, where, f"{eid} {e}", options, report)
            continue
        if eid in subjects:
            raise InputDataError(path, f"{where}: entity {eid} appears twice (first at {subjects[eid].where})")
        kind = "human" if HUMAN in instances else "item"
        subjects[eid] = _Subject(where, eid, label, kind, _text(entity, "descriptions", options.language),
                                 _aliases(entity, options.language), {p: v for p, v in values.items() if v})
    report.form, report.records = read.form, read.records
    report.bad_records.extend(read.bad_records)
    report.missing.extend(read.missing)
    report.subjects = len(subjects)
    return list(subjects.values())


def _refuse_or_skip(path: Path, where: str, why: str, options: WikidataOptions, report: WikidataReport) -> None:
    if not options.skip_bad_records:
        raise InputDataError(path, f"{where}: {why}. Nothing was loaded; fix the record, or pass "
                                   "--skip-bad-records to skip such records and report them")
    report.bad_records.append((where, why))


def _read_labels(path: Path, options: WikidataOptions, labels: dict, properties: dict, digest) -> None:
    """More labels: a text file of ``ID<TAB>label`` lines, or entity JSON. The file's bytes go to ``digest``."""
    try:
        with open_text(path) as text:
            head = text.read(1)
    except UnicodeDecodeError as e:   # a binary file: its first byte is no text
        raise InputDataError(path, f"not UTF-8 text: {e.reason}") from e
    if head not in ("[", "{"):
        _read_label_lines(path, labels, digest)
        return
    for _, entity in iter_entities(path, ReadReport(str(path)), options.skip_bad_records, digest):
        label = _text(entity, "labels", options.language)
        eid = entity["id"]
        if label and eid not in labels:
            labels[eid] = label
        if eid.startswith("P") and eid not in properties and label:
            properties[eid] = PropertyInfo(label, _text(entity, "descriptions", options.language),
                                           tuple(_aliases(entity, options.language)))


def _read_label_lines(path: Path, labels: dict, digest) -> None:
    try:
        with open_text(path, digest) as text:
            for number, line in enumerate(text, 1):
                if not line.strip() or line.startswith("#"):
                    continue
                eid, sep, label = line.rstrip("\n").partition("\t")
                if not sep or not ENTITY_ID.match(eid.strip()) or not label.strip():
                    raise InputDataError(path, f"line {number}: expected 'ID<TAB>label' (e.g. 'Q36180\twriter'), "
                                               f"found {line.strip()[:60]!r}")
                labels.setdefault(eid.strip(), " ".join(label.split()))
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text: {e.reason}") from e


def _graph_record(graph: str, path: Path, subjects: list[_Subject], labels: dict, properties: dict,
                  options: WikidataOptions, report: WikidataReport, digest: str) -> GraphRecord:
    entities: dict[str, EntityRecord] = {}
    for s in subjects:
        entities[s.qid] = EntityRecord(entity_key(graph, s.qid), graph, s.name, s.kind, s.qid,
                                       {"description": s.description, "aliases": list(s.aliases)})
    facts: dict[str, FactRecord] = {}
    used_properties: set[str] = set()
    for s in subjects:
        for pid, values in s.values.items():
            for value in values:
                tail_id, text, missing = _tail(value, labels)
                if tail_id not in entities:
                    entities[tail_id] = _value_entity(graph, tail_id, text, value, missing)
                if tail_id == s.qid:
                    report.skips.add("value is the subject itself", s.where)
                    continue
                key = fact_key(graph, f"{s.qid}/{pid}/{tail_id}")
                if key in facts:
                    continue
                report.values_without_label += missing
                used_properties.add(pid)
                facts[key] = FactRecord(
                    key=key, graph=graph, label=value.statement or f"{s.qid}|{pid}|{tail_id}",
                    head=entities[s.qid].key, tail=entities[tail_id].key, relation=pid,
                    domain=_property(pid, properties, options).label, split="retain",
                    attributes=_fact_attributes(s, pid, value, text, tail_id, missing, properties, options))
    report.facts = len(facts)
    property_records = tuple(_property_record(graph, pid, properties, options) for pid in sorted(used_properties))
    return GraphRecord(graph, SOURCE, str(path.resolve()), digest, tuple(entities.values()), tuple(facts.values()),
                       properties={"language": options.language,
                                   "instance_of": list(options.instance_of) or ["(any)"]},
                       property_records=property_records)


def _tail(value: Value, labels: dict) -> tuple[str, str, int]:
    """(local id of the value's entity, its text, 1 if a label was missing else 0)."""
    if value.value_type == "item":
        qid = value.item
        assert qid is not None  # an item value always carries its Q-id
        label = labels.get(qid)
        return qid, label or qid, int(label is None)
    text, missing = value.text, 0
    if value.unit:
        unit = labels.get(value.unit)
        missing = int(unit is None)
        text = f"{text} {unit or value.unit}"
    local = f"{value.value_type}:{text}"
    if len(local) > LITERAL_KEY_CHARS:
        local = f"{value.value_type}:sha1:{hashlib.sha1(text.encode()).hexdigest()}"
    return local, text, missing


def _value_entity(graph: str, local: str, text: str, value: Value, missing: int) -> EntityRecord:
    props: dict[str, bool | int] = {"label_missing": bool(missing)}
    if value.precision is not None:
        props["precision"] = value.precision
    return EntityRecord(entity_key(graph, local), graph, text, value.value_type, local, props)


def _fact_attributes(subject: _Subject, pid: str, value: Value, text: str, tail_id: str, missing: int,
                     properties: dict, options: WikidataOptions) -> dict:
    attributes = {
        "subject": subject.qid, "subject_name": subject.name, "property_label": _property(pid, properties, options).label,
        "value": text, "value_type": value.value_type, "value_label_missing": bool(missing), "rank": value.rank,
    }
    if value.value_type == "item":
        attributes["value_id"] = tail_id
    if value.precision is not None:
        attributes["value_precision"] = value.precision
    return attributes


def _property(pid: str, properties: dict, options: WikidataOptions) -> PropertyInfo:
    return properties.get(pid) or options.registry.get(pid) or PropertyInfo(pid)


def _property_record(graph: str, pid: str, properties: dict, options: WikidataOptions) -> PropertyRecord:
    source = "file" if pid in properties else "registry" if pid in options.registry else "missing"
    info = _property(pid, properties, options)
    return PropertyRecord(f"{graph}/{pid}", graph, pid, info.label, info.description, tuple(info.aliases), source)


def _identity(file_digests: list[str], options: WikidataOptions) -> str:
    """Identity of a build: the SHA-256 of the file and of each labels file, and the options."""
    return hashlib.sha256(json.dumps({
        "files": file_digests, "instance_of": list(options.instance_of), "language": options.language,
        "skip": options.skip_bad_records, "registry": sorted((k, v.label) for k, v in options.registry.items()),
    }).encode()).hexdigest()
