"""Reading forget and retain corpora: plain text, JSON Lines, or a JSON list.

Formats (chosen by extension, ``--format`` to override):
- ``.txt`` and anything else: plain UTF-8 text, documents separated by a blank line, or one
  per line with ``one_per_line``;
- ``.jsonl``: one JSON object per line with a text field (``text`` unless told otherwise);
- ``.json``: a JSON list of strings, or of objects with the text field.

A file is refused whole, naming the file and the line or record, when it is binary, not
UTF-8, not in its format, or holds a document too large to process; empty documents are
skipped and counted. Nothing is read half: a bad record anywhere refuses the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from extract.jsonfile import json_error, json_line_error, read_input_bytes, strict_loads
from graphstore.errors import InputDataError

from extract.text.units import Document

FORMATS = ("text", "jsonl", "json")
# spaCy holds a whole document in memory (~1 kB per token); beyond this a "document" is
# almost always a file that lost its separators. Refused with a hint, never cut silently.
MAX_DOCUMENT_CHARS = 1_000_000


@dataclass(frozen=True)
class CorpusOptions:
    """How to read a corpus file."""

    format: str | None = None      # "text", "jsonl", "json"; None: from the extension
    one_per_line: bool = False     # plain text: one document per line, not per blank-line block
    text_field: str = "text"       # JSON Lines / JSON objects: the field that holds the text

    def __post_init__(self):
        if self.format is not None and self.format not in FORMATS:
            raise InputDataError("--format", f"{self.format!r} is not a corpus format; valid: {', '.join(FORMATS)}")


@dataclass
class CorpusReport:
    """What reading a file found besides its documents."""

    path: str
    split: str
    sha256: str            # of the file's bytes, for the identity of a build
    documents: int = 0
    empty_skipped: int = 0
    characters: int = 0


def corpus_format(path: Path, options: CorpusOptions) -> str:
    if options.format:
        return options.format
    suffix = path.suffix.lower()
    return {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}.get(suffix, "text")


def read_text_file(path: Path) -> tuple[str, str]:
    """The file as text, and the SHA-256 of its bytes; binary or non-UTF-8 content refused
    with the byte offset."""
    if not path.exists() and not path.is_symlink():
        raise InputDataError(path, "no such file")
    data = read_input_bytes(path)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputDataError(path, f"binary content (a NUL byte at offset {nul}); a corpus is UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r})") from e
    if not text.strip():
        raise InputDataError(path, "the file is empty")
    return text, hashlib.sha256(data).hexdigest()


def read_corpus(path: str | Path, split: str, options: CorpusOptions = CorpusOptions()) -> tuple[list[Document], CorpusReport]:
    """Every non-empty document of ``path``, in file order.

    Raises:
        InputDataError: naming the file and the line or record.
    """
    path = Path(path)
    text, sha256 = read_text_file(path)
    fmt = corpus_format(path, options)
    report = CorpusReport(str(path), split, sha256)
    if fmt == "text":
        raw = _plain_documents(text, options.one_per_line)
    elif fmt == "jsonl":
        raw = _jsonl_documents(path, text, options.text_field)
    else:
        raw = _json_documents(path, text, options.text_field)
    documents: list[Document] = []
    for where, body in raw:
        if not body.strip():
            report.empty_skipped += 1
            continue
        if len(body) > MAX_DOCUMENT_CHARS:
            raise InputDataError(path, f"{where}: a document of {len(body):,} characters; the limit is "
                                       f"{MAX_DOCUMENT_CHARS:,}. Split it (blank lines between documents, "
                                       "or --one-per-line)")
        documents.append(Document(str(path), len(documents), where, split, body))
        report.characters += len(body)
    if not documents:
        raise InputDataError(path, "no document with any text in it")
    report.documents = len(documents)
    return documents, report


def _plain_documents(text: str, one_per_line: bool) -> list[tuple[str, str]]:
    lines = text.splitlines()
    if one_per_line:
        return [(f"line {i}", line.strip()) for i, line in enumerate(lines, 1)]
    out: list[tuple[str, str]] = []
    block: list[str] = []
    first = 0
    for i, line in enumerate(lines, 1):
        if line.strip():
            if not block:
                first = i
            block.append(line.strip())
        elif block:
            out.append((f"line {first}", " ".join(block)))
            block = []
    if block:
        out.append((f"line {first}", " ".join(block)))
    return out


def _text_of(path: Path, item: object, where: str, text_field: str) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        if text_field not in item:
            fields = ", ".join(sorted(map(str, item))[:8]) or "none"
            raise InputDataError(path, f"{where}: no {text_field!r} field (fields: {fields}); "
                                       "name the text field with --text-field")
        value = item[text_field]
        if not isinstance(value, str):
            raise InputDataError(path, f"{where}: field {text_field!r} is a {type(value).__name__}, not text")
        return value
    raise InputDataError(path, f"{where}: expected a string or an object with a {text_field!r} field, "
                               f"found a {type(item).__name__}")


def _jsonl_documents(path: Path, text: str, text_field: str) -> list[tuple[str, str]]:
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = strict_loads(line)
        except json.JSONDecodeError as e:
            raise InputDataError(path, f"line {i}: not JSON at {json_line_error(e)}") from e
        if not isinstance(item, dict):
            raise InputDataError(path, f"line {i}: expected a JSON object with a {text_field!r} field, "
                                       f"found a {type(item).__name__}")
        out.append((f"line {i}", _text_of(path, item, f"line {i}", text_field)))
    return out


def _json_documents(path: Path, text: str, text_field: str) -> list[tuple[str, str]]:
    try:
        data = strict_loads(text)
    except json.JSONDecodeError as e:
        raise InputDataError(path, f"not JSON at {json_error(e)}") from e
    if not isinstance(data, list):
        raise InputDataError(path, f"expected a JSON list of documents, found a {type(data).__name__}")
    return [(f"record {i}", _text_of(path, item, f"record {i}", text_field)) for i, item in enumerate(data)]
