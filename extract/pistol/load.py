"""Load a PISTOL QA dataset (``[{question, answer, edge}, ...]``) and recover its graph.

The dataset states the graph only implicitly: an edge label ``A_B`` names two endpoints, and
the parties' real names appear in the answers. Recovery:

1. every question is matched to one of the 20 templates of its contract type, which gives
   the attribute it asks about and the names and date it mentions;
2. per edge, the two party names (seller/customer or employer/employee) come from the
   name answers, and every question must agree with them;
3. the names are assigned to the two endpoint labels so that every label keeps one name
   across all its edges. PISTOL's generator picks the seller at random between the two
   endpoints, so ``A_B`` may have B as the seller: the assignment is solved over the whole
   graph. When nothing decides (an edge whose endpoints appear nowhere else), the label
   order is taken as head/tail order.

Everything is validated before anything is returned; a bad file raises ``InputDataError``
naming the file and the record (its 0-based index in the JSON list).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path

from graphstore.errors import InputDataError
from graphstore.records import EntityRecord, FactRecord, GraphRecord, entity_key, fact_key, validate_graph_name

from extract.jsonfile import read_json
from extract.pistol.templates import ContractType, TemplateSet, load_templates


@dataclass(frozen=True)
class Rename:
    """One entity given another name (and address): PISTOL's pre-training tweak."""
    label: str
    name: str
    address: str | None = None     # None keeps the entity's address


@dataclass(frozen=True)
class PistolVariant:
    """A dataset as PISTOL's Sec. 6 tweaks it (Qiu, Shen et al., 000 in ../shared/seeds): part of
    the graph kept and some entities renamed, e.g. a company of the dense sub-graph called
    'Goldman Sachs' so that a pretrained model brings what it knows of the name.

    ``entities``: the endpoint labels kept; an edge stays when both ends are kept (() keeps all).
    ``rename``: every question and answer naming the entity (or its address) says the new one.
    """
    entities: tuple[str, ...] = ()
    rename: tuple[Rename, ...] = ()

    def describe(self) -> str:
        """A stable text of the variant: part of the graph's content digest and its record."""
        return json.dumps({"entities": list(self.entities),
                           "rename": [[r.label, r.name, r.address] for r in self.rename]}, sort_keys=True)


def pistol_variant(entities=(), names: dict | None = None, addresses: dict | None = None) -> PistolVariant | None:
    """The variant these options ask for (None: the file as it is). ``names`` and ``addresses``
    map entity labels to new names and addresses; an address needs a new name for its entity."""
    names, addresses = names or {}, addresses or {}
    unnamed = sorted(set(addresses) - set(names))
    if unnamed:
        raise ValueError(f"entity {unnamed[0]!r} gets a new address but no new name; rename it too")
    if not entities and not names:
        return None
    return PistolVariant(tuple(str(e) for e in entities),
                         tuple(Rename(str(k), v, addresses.get(k)) for k, v in sorted(names.items())))


@dataclass
class _Edge:
    label: str
    first_record: int
    ends: tuple  # (label, label) from the edge label
    records: list = field(default_factory=list)  # indices into the JSON list
    contract: ContractType | None = None
    values: dict = field(default_factory=dict)  # attribute -> (answer value, record index)
    head_name: str = ""
    tail_name: str = ""


def read_json_records(path: Path) -> list:
    """Read a non-empty JSON list from ``path``; errors name the file and the place."""
    records = read_json(path)
    if not isinstance(records, list):
        raise InputDataError(path, f"expected a JSON list of records, found a {type(records).__name__}")
    if not records:
        raise InputDataError(path, "the list holds no records")
    return records


def load_pistol(path: str | Path, graph: str | None = None, split: str = "retain",
                templates: TemplateSet | None = None, variant: PistolVariant | None = None) -> GraphRecord:
    """Read and validate a PISTOL dataset; return its graph (entities, facts, QA pairs).

    Args:
        path: the JSON file.
        graph: graph name; default the file name without extension.
        split: ``retain`` or ``forget`` for every edge of this file.
        variant: part of the file, entities renamed (``PistolVariant``); the file is not changed.

    Raises:
        InputDataError: the file is unreadable, not UTF-8, not JSON, empty, a record lacks a
            field, an edge label does not name two endpoints, or QAs contradict each other.
    """
    path = Path(path)
    templates = templates or load_templates()
    records = read_json_records(path)
    name = graph or path.stem
    try:
        validate_graph_name(name)
    except Exception as e:
        raise InputDataError(path, f"{e}; pass --graph NAME") from e

    if variant is not None:
        records = _apply_variant(path, records, variant, templates)
    edges, names, addresses = _parse_graph(path, records, templates)
    for change in variant.rename if variant is not None else ():
        if names[change.label] != change.name or (change.address and addresses.get(change.label) != change.address):
            raise InputDataError(path, f"entity {change.label!r} could not be renamed to {change.name!r}: "
                                       f"its questions name it {names[change.label]!r} after the change")
    kinds = _entity_kinds(path, edges, names)

    entities = tuple(
        EntityRecord(
            key=entity_key(name, label), graph=name, name=names[label], kind=kinds[label],
            label=label, properties={"address": addresses[label]} if label in addresses else {},
        )
        for label in sorted(names)
    )
    facts = []
    for edge in edges.values():
        c = edge.contract
        head, tail = _oriented_ends(edge, names)
        attributes = {a: _typed(v) for a, (v, _) in edge.values.items()}
        ordered = [a.name for a in c.attributes]
        facts.append(FactRecord(
            key=fact_key(name, edge.label), graph=name, label=edge.label,
            head=entity_key(name, head), tail=entity_key(name, tail),
            relation=c.relation, domain=c.domain, split=split, attributes=attributes,
            questions=tuple(records[edge.values[a][1]]["question"] for a in ordered),
            answers=tuple(records[edge.values[a][1]]["answer"] for a in ordered),
            qa_attributes=tuple(ordered),
        ))
    return GraphRecord(
        name=name, source="pistol", path=str(path.resolve()),
        sha256=hashlib.sha256(path.read_bytes() + (variant.describe().encode() if variant else b"")).hexdigest(),
        entities=entities, facts=tuple(facts),
        properties={"templates": templates.version} | ({"variant": variant.describe()} if variant else {}),
    )


def _parse_graph(path: Path, records: list, templates: TemplateSet) -> tuple:
    """The records' edges with their contracts, every label's name and address."""
    edges = _group_edges(path, records)
    for edge in edges.values():
        _parse_contract(path, edge, records, templates)
    names, addresses = _assign_names(path, edges)
    return edges, names, addresses


def _apply_variant(path: Path, records: list, variant: PistolVariant, templates: TemplateSet) -> list:
    """The records of ``variant``: the kept edges' records, renamed entities' names and addresses
    replaced wherever a question or an answer says them (as whole words)."""
    edges, names, addresses = _parse_graph(path, records, templates)
    for label in list(variant.entities) + [r.label for r in variant.rename]:
        if label not in names:
            raise InputDataError(path, f"no entity {label!r} in the file (its labels: "
                                       f"{', '.join(sorted(names)[:12])}{', ...' if len(names) > 12 else ''})")
    kept = set(variant.entities or names)
    records = [records[i] for i in sorted(i for edge in edges.values() if set(edge.ends) <= kept for i in edge.records)]
    if not records:
        raise InputDataError(path, f"no edge joins two of the kept entities {', '.join(variant.entities)}")
    replacements = []
    for change in variant.rename:
        taken = {n for label, n in names.items() if label != change.label}
        if change.name in taken or not change.name.strip():
            raise InputDataError(path, f"entity {change.label!r} cannot be renamed to {change.name!r}: "
                                       f"{'empty' if not change.name.strip() else 'another entity has that name'}")
        replacements.append((names[change.label], change.name))
        if change.address and change.label in addresses:
            replacements.append((addresses[change.label], change.address))
    return [{**r, "question": _replaced(r["question"], replacements), "answer": _replaced(r["answer"], replacements)}
            for r in records]


def _replaced(text: str, replacements: list) -> str:
    for old, new in replacements:
        text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", lambda _: new, text)
    return text


def _group_edges(path: Path, records: list) -> "OrderedDict[str, _Edge]":
    edges: OrderedDict[str, _Edge] = OrderedDict()
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise InputDataError(path, f"expected an object with question, answer, edge; found {type(record).__name__}", i)
        for name in ("question", "answer", "edge"):
            if name not in record:
                raise InputDataError(path, f"no '{name}' field (a PISTOL record has question, answer, edge)", i)
            if not isinstance(record[name], str) or not record[name].strip():
                raise InputDataError(path, f"'{name}' must be a non-empty string, found {record[name]!r}", i)
        label = record["edge"]
        if label not in edges:
            parts = label.split("_")
            if len(parts) != 2 or not all(parts):
                raise InputDataError(
                    path, f"edge label {label!r} does not name two endpoints (expected 'U_V', e.g. 'A_B' or '10_19')", i)
            if parts[0] == parts[1]:
                raise InputDataError(path, f"edge label {label!r} joins an entity to itself", i)
            edges[label] = _Edge(label=label, first_record=i, ends=(parts[0], parts[1]))
        edges[label].records.append(i)
    return edges


def _parse_contract(path: Path, edge: _Edge, records: list, templates: TemplateSet) -> None:
    suffix = templates.answer_suffix
    candidates: dict[int, list] = {}
    for i in edge.records:
        found = templates.matches(records[i]["question"])
        if not found:
            raise InputDataError(
                path, f"edge {edge.label}: the question matches no PISTOL template: {records[i]['question']!r}", i)
        domains = {c.domain for c, _, _ in found}
        if edge.contract is None and len(domains) == 1:
            edge.contract = found[0][0]
        elif edge.contract is not None and edge.contract.domain not in domains:
            raise InputDataError(
                path, f"edge {edge.label} mixes {edge.contract.domain} and {found[0][0].domain} questions", i)
        candidates[i] = [(a, p) for c, a, p in found if edge.contract is None or c is edge.contract]
    # The party names come from the name answers, whose questions have one template each.
    for i, options in candidates.items():
        if len(options) == 1:
            _record_value(path, edge, options[0][0], records, i, suffix)
    c = edge.contract
    if c is None:
        raise InputDataError(path, f"edge {edge.label}: its questions match templates of more than one "
                                   "contract type", edge.first_record)
    missing = [a for a in (c.head_name, c.tail_name, c.date) if a not in edge.values]
    if missing:
        raise InputDataError(
            path, f"edge {edge.label} has no QA pair for {', '.join(missing)}; a {c.domain} contract "
                  f"has all {len(c.attributes)}", edge.first_record)
    edge.head_name = edge.values[c.head_name][0]
    edge.tail_name = edge.values[c.tail_name][0]
    stated = {c.head_role: edge.head_name, c.tail_role: edge.tail_name, c.date: edge.values[c.date][0]}
    for i, options in candidates.items():
        agreeing = [(a, p) for a, p in options if all(stated[k] == v for k, v in p.items())]
        if not agreeing:
            _, placeholders = options[0]
            wrong = next(k for k, v in placeholders.items() if stated[k] != v)
            raise InputDataError(
                path, f"edge {edge.label}: the question names the {wrong} {placeholders[wrong]!r}, but the "
                      f"answers say {stated[wrong]!r}", i)
        if len(options) > 1:
            _record_value(path, edge, agreeing[0][0], records, i, suffix)
    missing = [a for a in c.attribute_names if a not in edge.values]
    if missing:
        raise InputDataError(
            path, f"edge {edge.label} has {len(edge.values)} QA pairs; a {c.domain} contract has "
                  f"{len(c.attributes)}; missing: {', '.join(missing)}", edge.first_record)
    if edge.head_name == edge.tail_name:
        raise InputDataError(path, f"edge {edge.label}: both parties are named {edge.head_name!r}", edge.first_record)


def _record_value(path: Path, edge: _Edge, attribute, records: list, i: int, suffix: str) -> None:
    answer = records[i]["answer"]
    if attribute.name in edge.values:
        first = edge.values[attribute.name][1]
        raise InputDataError(
            path, f"edge {edge.label} asks about '{attribute.name}' twice (records {first} and {i})", i)
    if not answer.endswith(suffix):
        raise InputDataError(path, f"edge {edge.label}: answer {answer!r} does not end with {suffix!r}", i)
    m = attribute.answer_pattern.fullmatch(answer[: -len(suffix)])
    if m is None:
        raise InputDataError(
            path, f"edge {edge.label}: answer {answer!r} is not of the form {attribute.answer + suffix!r}", i)
    edge.values[attribute.name] = (m.group("value"), i)


def _assign_names(path: Path, edges: "OrderedDict[str, _Edge]") -> tuple[dict, dict]:
    """Give every endpoint label one name, consistent across all its edges."""
    incident: dict[str, list[_Edge]] = {}
    for edge in edges.values():
        for end in edge.ends:
            incident.setdefault(end, []).append(edge)
    names: dict[str, str] = {}
    # A label's name must appear in every one of its edges: intersect the edges' name pairs.
    for label, its_edges in incident.items():
        first = its_edges[0]
        common = {first.head_name, first.tail_name}
        for other in its_edges[1:]:
            common &= {other.head_name, other.tail_name}
            if not common:
                raise InputDataError(
                    path, f"entity {label!r} has no name common to its contracts: {first.label} is between "
                          f"{first.head_name!r} and {first.tail_name!r}, {other.label} between "
                          f"{other.head_name!r} and {other.tail_name!r}", other.first_record)
        if len(common) == 1:
            names[label] = common.pop()
    # Propagate breadth first from the named labels across their edges. Where nothing
    # decides an edge (neither end named yet), the label order is taken as head/tail order.
    resolved: set[str] = set()
    queue = deque(names)
    unvisited = iter(edges.values())
    while True:
        while queue:
            known = queue.popleft()
            for edge in incident[known]:
                if edge.label in resolved:
                    continue
                resolved.add(edge.label)
                pair = (edge.head_name, edge.tail_name)
                unknown = edge.ends[1] if edge.ends[0] == known else edge.ends[0]
                if names[known] not in pair:
                    raise InputDataError(
                        path, f"edge {edge.label}: entity {known!r} is {names[known]!r} elsewhere, but this "
                              f"contract is between {pair[0]!r} and {pair[1]!r}", edge.first_record)
                other_name = pair[1] if names[known] == pair[0] else pair[0]
                if unknown not in names:
                    names[unknown] = other_name
                    queue.append(unknown)
                elif names[unknown] != other_name:
                    raise InputDataError(
                        path, f"edge {edge.label}: entity {unknown!r} is {names[unknown]!r} elsewhere, but "
                              f"here it would be {other_name!r}", edge.first_record)
        undecided = next((e for e in unvisited if e.label not in resolved), None)
        if undecided is None:
            break
        names[undecided.ends[0]], names[undecided.ends[1]] = undecided.head_name, undecided.tail_name
        queue.extend(undecided.ends)
    addresses: dict[str, str] = {}
    for edge in edges.values():
        c = edge.contract
        assert c is not None  # _parse_contract gave every edge its contract
        head, tail = _oriented_ends(edge, names)
        for label, attribute in ((head, c.head_address), (tail, c.tail_address)):
            value, i = edge.values[attribute]
            if addresses.setdefault(label, value) != value:
                raise InputDataError(
                    path, f"entity {label!r} ({names[label]}) has address {addresses[label]!r} in one contract "
                          f"and {value!r} in edge {edge.label}", i)
    return names, addresses


def _oriented_ends(edge: _Edge, names: dict) -> tuple[str, str]:
    a, b = edge.ends
    return (a, b) if names[a] == edge.head_name else (b, a)


def _entity_kinds(path: Path, edges: "OrderedDict[str, _Edge]", names: dict) -> dict:
    kinds: dict[str, str] = {}
    for edge in edges.values():
        head, tail = _oriented_ends(edge, names)
        c = edge.contract
        assert c is not None  # _parse_contract gave every edge its contract
        for label, kind in ((head, c.head_kind), (tail, c.tail_kind)):
            if kinds.setdefault(label, kind) != kind:
                raise InputDataError(
                    path, f"entity {label!r} ({names[label]}) is a {kinds[label]} in one contract and a "
                          f"{kind} in edge {edge.label}", edge.first_record)
    return kinds


def _typed(value: str) -> "str | int":
    """Whole numbers as integers (so Cypher can compare them); everything else as text."""
    return int(value) if value.isdigit() and len(value) < 18 else value
