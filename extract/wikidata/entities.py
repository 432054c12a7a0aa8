"""Reading Wikidata entity JSON in the forms people actually have, one entity at a time.

Forms, recognised from the content (not the name):
- a dump: ``[`` on its own line, then one entity per line followed by ``,`` (not the last),
  then ``]`` -- the layout of ``latest-all.json``;
- JSON Lines: one entity per line;
- ``wbgetentities`` output: ``{"entities": {"Q42": {...}, ...}}`` (one line or pretty-printed);
- a plain JSON array of entities, or one entity, pretty-printed.

Any of them may be gzip- or bz2-compressed (recognised by the magic bytes). Entities are
streamed: a dump is never held in memory, only what the caller keeps of it.

A record that is not an entity (a truncated line, not JSON, not an object with an ``id``) is
refused with its line number, or skipped and reported when the caller asks for that.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from extract.jsonfile import json_error, json_line_error, strict_loads
from graphstore.errors import InputDataError

ENTITY_ID = re.compile(r"^[QPL][1-9][0-9]*$")
FORMS = ("dump", "jsonl", "wbgetentities", "array", "entity")


@dataclass
class ReadReport:
    """What reading one file found besides its entities."""
    path: str
    form: str = ""
    records: int = 0
    bad_records: list = field(default_factory=list)   # (where, why) of records skipped
    missing: list = field(default_factory=list)       # wbgetentities ids reported "missing"


class _HashingReader(io.RawIOBase):
    """Every byte read from ``raw`` also goes to ``digest``: a file is hashed by the same read
    that parses it, not by a second pass over it."""

    def __init__(self, raw, digest):
        super().__init__()
        self.raw, self.digest = raw, digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.raw.readinto(buffer)
        if n:
            self.digest.update(memoryview(buffer)[:n])
        return n


@contextlib.contextmanager
def open_text(path: Path, digest=None) -> Iterator[io.TextIOBase]:
    """The file as UTF-8 text, decompressed when it is gzip or bz2 (by magic bytes). With
    ``digest`` (a ``hashlib`` object), the file's bytes as stored are fed to it; whatever the
    reader left unread is fed at the end, so the digest always covers the whole file."""
    with contextlib.ExitStack() as stack:
        try:
            raw = stack.enter_context(open(path, "rb"))
        except OSError as e:
            raise InputDataError(path, f"cannot read: {e.strerror or e}") from e
        magic = raw.read(3)
        raw.seek(0)
        stream: io.BufferedReader | gzip.GzipFile | bz2.BZ2File = raw
        if digest is not None:
            stream = io.BufferedReader(_HashingReader(raw, digest))
        if magic[:2] == b"\x1f\x8b":
            stream = stack.enter_context(gzip.GzipFile(fileobj=stream, mode="rb"))
        elif magic == b"BZh":
            stream = stack.enter_context(bz2.BZ2File(stream, "rb"))
        yield stack.enter_context(io.TextIOWrapper(stream, encoding="utf-8", newline=None))
        if digest is not None:
            for chunk in iter(lambda: raw.read(1 << 20), b""):
                digest.update(chunk)


def iter_entities(path: str | Path, report: ReadReport | None = None,
                  skip_bad_records: bool = False, digest=None) -> Iterator[tuple[str, dict]]:
    """Yield ``(where, entity)`` for every entity in ``path``; ``where`` is ``line N`` or the
    entity's place in a JSON document, for messages. ``digest``: see ``open_text``.

    Raises:
        InputDataError: unreadable, compressed but damaged, not UTF-8, not one of the forms,
            or a bad record when ``skip_bad_records`` is off.
    """
    path = Path(path)
    report = report if report is not None else ReadReport(str(path))
    try:
        with open_text(path, digest) as text:
            yield from _entities(path, text, report, skip_bad_records)
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text ({e.reason} at byte {e.start} of a line)") from e
    except (OSError, EOFError, zlib.error) as e:  # gzip/bz2 damage: OSError, EOFError or zlib.error
        raise InputDataError(path, f"cannot decompress or read: {e}") from e


def _entities(path: Path, text: io.TextIOBase, report: ReadReport, skip: bool) -> Iterator[tuple[str, dict]]:
    number, first = 0, ""
    for line in text:
        number += 1
        first = line.strip()
        if first:
            break
    if not first:
        raise InputDataError(path, "the file is empty")
    if first == "[":
        # A dump has one whole entity per line; a pretty-printed array does not (its next line
        # is "{" or the start of one): that one is parsed as a whole document.
        second = ""
        for line in text:
            number += 1
            second = line.strip()
            if second:
                break
        try:
            value = strict_loads(second.removesuffix(","), duplicates=True) if second not in ("", "]") else None
        except json.JSONDecodeError:
            yield from _document(path, _whole(path, first + "\n" + second + "\n" + text.read()), report, skip)
            return
        report.form = "dump"
        if value is not None:
            yield from _checked(path, f"line {number}", value, report, skip)
        if second == "]":
            yield from _lines(path, text, number, report, skip, dump=False)
            return
        yield from _lines(path, text, number, report, skip, dump=True)
        return
    if first.startswith("{"):
        try:
            value = strict_loads(first, duplicates=True)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict) and "entities" not in value:
            report.form = "jsonl"
            yield from _checked(path, f"line {number}", value, report, skip)
            yield from _lines(path, text, number, report, skip, dump=False)
            return
        if value is None:  # a pretty-printed document: the first line is not a whole object
            value = _whole(path, first + "\n" + text.read())
        yield from _document(path, value, report, skip)
        return
    if first.startswith("["):
        yield from _document(path, _whole(path, first + "\n" + text.read()), report, skip)
        return
    raise InputDataError(path, f"line {number} starts with {first[:20]!r}: not Wikidata entity JSON "
                               f"(a dump, JSON Lines of entities, or wbgetentities output)")


def _lines(path: Path, text, number: int, report: ReadReport, skip: bool, dump: bool) -> Iterator[tuple[str, dict]]:
    closed = False
    for line in text:
        number += 1
        record = line.strip()
        if not record:
            continue
        if closed:
            yield from _bad(path, f"line {number}", "text after the closing ']' of the dump", report, skip)
            continue
        if dump and record == "]":
            closed = True
            continue
        if dump and record.endswith(","):
            record = record[:-1]
        try:
            value = strict_loads(record, duplicates=True)
        except json.JSONDecodeError as e:
            yield from _bad(path, f"line {number}", f"not complete JSON at {json_line_error(e)}", report, skip)
            continue
        yield from _checked(path, f"line {number}", value, report, skip)
    if dump and not closed:
        yield from _bad(path, f"line {number}", "the dump ends without its closing ']': the file is truncated",
                        report, skip)


def _whole(path: Path, text: str):
    try:
        return strict_loads(text, duplicates=True)
    except json.JSONDecodeError as e:
        raise InputDataError(path, f"not JSON at {json_error(e)}") from e


def _document(path: Path, value, report: ReadReport, skip: bool) -> Iterator[tuple[str, dict]]:
    if isinstance(value, dict) and isinstance(value.get("entities"), dict):
        report.form = "wbgetentities"
        for key, entity in value["entities"].items():
            if isinstance(entity, dict) and "missing" in entity:
                report.missing.append(key)
                continue
            yield from _checked(path, f"entity {key}", entity, report, skip)
    elif isinstance(value, list):
        report.form = "array"
        for i, entity in enumerate(value):
            yield from _checked(path, f"record {i}", entity, report, skip)
    elif isinstance(value, dict):
        report.form = "entity"
        yield from _checked(path, "the entity", value, report, skip)
    else:
        raise InputDataError(path, f"expected Wikidata entities, found a JSON {type(value).__name__}")


def _checked(path: Path, where: str, value, report: ReadReport, skip: bool) -> Iterator[tuple[str, dict]]:
    if not isinstance(value, dict):
        yield from _bad(path, where, f"a JSON {type(value).__name__}, not an entity object", report, skip)
    elif not isinstance(value.get("id"), str) or not ENTITY_ID.match(value["id"]):
        yield from _bad(path, where, f"entity without a valid id (found {value.get('id')!r}; "
                                     "ids look like Q42 or P106)", report, skip)
    else:
        report.records += 1
        yield where, value


def _bad(path: Path, where: str, why: str, report: ReadReport, skip: bool) -> Iterator[tuple[str, dict]]:
    if not skip:
        raise InputDataError(path, f"{where}: {why}. Nothing was loaded; fix the file, or pass "
                                   "--skip-bad-records to skip such records and report them")
    report.bad_records.append((where, why))
    return
    yield  # a generator that yields nothing
