"""Plain data types of the text pipeline: documents, passages and the triples found in them.

Corpora are read into ``Document``s, cut into ``Passage``s (a few sentences, bounded in
tokens), and an extractor turns each passage into ``Triple``s. Every triple remembers the
passage it came from, so the graph can show the provenance of each fact.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Document:
    """One document of a corpus, as read from its file."""

    path: str      # the file it came from
    index: int     # 0-based position of the document in that file
    record: str    # where it is in the file, for error messages: "line 12", "record 3"
    split: str     # "forget" or "retain"
    text: str


@dataclass(frozen=True)
class Passage:
    """A few consecutive sentences of a document, the unit an extractor reads."""

    key: str       # "<graph>/<split>/<file stem>/<document>/<position>"
    split: str
    path: str
    document: int  # Document.index
    position: int  # 0-based position of the passage in its document
    start: int     # character offsets of the passage in the document text
    end: int
    text: str
    sentences: tuple[tuple[int, int], ...] = ()  # sentence offsets, relative to ``text``


@dataclass(frozen=True)
class Triple:
    """One fact stated by a passage: ``head --relation--> tail``.

    ``relation`` is a relation id of ``extract/data/relations.v1.json`` (a Wikidata property
    id such as ``P19`` where one exists). Names are as written in the passage; normalization
    happens later, in one place (``extract.text.normalize``).
    """

    head: str
    relation: str
    tail: str
    passage: str          # Passage.key
    extractor: str        # "rules", "rebel", ...
    head_kind: str = ""   # "person", "organization", "place", "date", "" when unknown
    tail_kind: str = ""
    evidence: str = ""    # the sentence that states it
    start: int = -1       # the evidence's character span in the passage text; -1: not known
    end: int = -1
