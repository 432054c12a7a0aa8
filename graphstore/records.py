"""Plain data types that travel between the layers: what extractors produce and the store writes.

``extract`` builds these from sources; ``graphstore`` writes them; ``audit`` reads them back.
They hold only Python values that a Cypher parameter can carry (str, int, float, bool, lists).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphstore.errors import KeyValidationError


# Keys are ours and stable: "<graph>/<local id>". Printable, no control characters, bounded.
_KEY_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,512}$")
_GRAPH_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")

SPLITS = ("forget", "retain")

# Properties the store itself sets on a FACT relationship; a source's attributes may not use them.
RESERVED_FACT_PROPERTIES = frozenset({
    "key", "graph", "label", "relation", "domain", "split", "source", "head_key", "tail_key",
    "questions", "answers", "qa_attributes", "edge_degree", "component", "component_density",
})


def validate_key(value: object, what: str) -> str:
    """Return ``value`` if it is a usable key; raise before anything reaches the database.

    Raises:
        KeyValidationError: null, not a string, empty, too long or with control characters.
    """
    if not isinstance(value, str) or not _KEY_RE.match(value) or value != value.strip():
        raise KeyValidationError(f"invalid {what} key {value!r}: a non-empty printable string is required")
    return value


def validate_graph_name(name: object) -> str:
    if not isinstance(name, str) or not _GRAPH_RE.match(name):
        raise KeyValidationError(
            f"invalid graph name {name!r}: use letters, digits, '_', '.', '-' (up to 128), "
            "starting with a letter or digit"
        )
    return name


def entity_key(graph: str, local_id: str) -> str:
    return validate_key(f"{graph}/{local_id}", "entity")


def fact_key(graph: str, local_id: str) -> str:
    return validate_key(f"{graph}/{local_id}", "fact")


@dataclass(frozen=True)
class EntityRecord:
    """A node of the knowledge graph: a company, a person, any named thing."""

    key: str
    graph: str
    name: str
    kind: str
    label: str  # the id the source gave it ("A", "10", "Q42")
    properties: dict = field(default_factory=dict)

    def __post_init__(self):
        validate_key(self.key, "entity")
        if not isinstance(self.name, str) or not self.name.strip():
            raise KeyValidationError(f"entity {self.key} has no name")


@dataclass(frozen=True)
class FactRecord:
    """One fact = one edge between two entities, with the QA pairs that test it.

    The QA pairs are aligned lists: ``questions[i]`` is answered by ``answers[i]`` and asks
    about attribute ``qa_attributes[i]``.
    """

    key: str
    graph: str
    label: str  # the edge label the source gave it ("A_B", "10_19")
    head: str  # entity key
    tail: str  # entity key
    relation: str
    domain: str
    split: str = "retain"
    attributes: dict = field(default_factory=dict)
    questions: tuple = ()
    answers: tuple = ()
    qa_attributes: tuple = ()

    def __post_init__(self):
        validate_key(self.key, "fact")
        validate_key(self.head, "entity")
        validate_key(self.tail, "entity")
        if self.split not in SPLITS:
            raise KeyValidationError(f"fact {self.key}: split {self.split!r} is not one of {SPLITS}")
        clash = RESERVED_FACT_PROPERTIES.intersection(self.attributes)
        if clash:
            raise KeyValidationError(f"fact {self.key}: attribute names {sorted(clash)} are reserved")
        if not (len(self.questions) == len(self.answers) == len(self.qa_attributes)):
            raise KeyValidationError(f"fact {self.key}: questions, answers and qa_attributes differ in length")


@dataclass(frozen=True)
class PassageRecord:
    """A few sentences of a source document: the provenance of the facts found in them."""

    key: str
    graph: str
    split: str
    path: str
    document: int   # 0-based document number in its file
    position: int   # 0-based passage number in its document
    text: str
    mentions: tuple = ()  # keys of the entities the passage mentions

    def __post_init__(self):
        validate_key(self.key, "passage")
        if self.split not in SPLITS:
            raise KeyValidationError(f"passage {self.key}: split {self.split!r} is not one of {SPLITS}")


@dataclass(frozen=True)
class PropertyRecord:
    """A property of a knowledge base (Wikidata's P106 "occupation"): what its facts' relation
    means. Stored as a node, so Cypher can find facts by the property's label or alias."""

    key: str
    graph: str
    pid: str                 # the source's id: "P106"
    label: str               # "occupation"; the id itself when no label is known
    description: str = ""
    aliases: tuple = ()
    label_source: str = "file"   # where the label came from: file (the input or a labels file), registry, missing

    def __post_init__(self):
        validate_key(self.key, "property")


@dataclass(frozen=True)
class GraphRecord:
    """Everything one source file contributes: its provenance, entities and facts."""

    name: str
    source: str  # "pistol", "text", "wikidata"
    path: str
    sha256: str
    entities: tuple
    facts: tuple
    properties: dict = field(default_factory=dict)
    passages: tuple = ()  # PassageRecord, for sources that are text
    property_records: tuple = ()  # PropertyRecord, for knowledge-base sources (Wikidata)

    def __post_init__(self):
        validate_graph_name(self.name)

    @property
    def qa_count(self) -> int:
        return sum(len(f.questions) for f in self.facts)
