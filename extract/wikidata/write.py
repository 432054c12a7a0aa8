"""Write Wikidata entities to a file in the layouts Wikidata data comes in.

The three forms are the JSON dump (a line ``[``, one entity per line each followed by ``,``
except the last, then ``]``), JSON Lines (one entity per line) and the answer of the
``wbgetentities`` API (``{"entities": {id: entity, ...}, "success": 1}``). The file is written
atomically, and a name ending in ``.gz`` or ``.bz2`` is compressed; gzip is written without a
time stamp so that equal entities give equal bytes.

Example::

    >>> from extract.wikidata.generate import generate_people
    >>> write_entities(generate_people(100, seed=7), "people.json.gz", form="dump")
    481
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
from collections.abc import Iterable
from pathlib import Path

from graphstore.errors import ConfigError

from extract.atomic import atomic_output

FORMS = ("dump", "jsonl", "wbgetentities")


def write_entities(entities: Iterable[dict], path: str | Path, form: str = "dump") -> int:
    """Write entities in one of the layouts Wikidata data comes in, atomically; return how many.

    Forms: ``dump`` (the JSON dump: a line ``[``, one entity per line each followed by ``,``
    except the last, then ``]``), ``jsonl`` (one entity per line) or ``wbgetentities`` (the API
    answer ``{"entities": {id: entity, ...}, "success": 1}``). A path ending in ``.gz`` is
    gzip-compressed (with no time stamp, so equal entities give equal bytes), ``.bz2`` bzip2.

    Raises:
        ConfigError: an unknown form, an entity without a string ``id``, or a file that
            cannot be written (the message names it).
    """
    if form not in FORMS:
        raise ConfigError(f"unknown form {form!r}; valid forms: {', '.join(FORMS)}")
    path = Path(path)
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    count = 0
    with atomic_output(path, "entities") as raw, contextlib.ExitStack() as stack:
        f = _text_writer(stack, raw, path)
        f.write({"dump": "[\n", "jsonl": "", "wbgetentities": '{"entities":{'}[form])
        for entity in entities:
            if not isinstance(entity, dict) or not isinstance(entity.get("id"), str):
                raise ConfigError(f"{path}: entity {count} has no string 'id'; it is not a Wikidata entity")
            if form == "jsonl":
                f.write(encode(entity) + "\n")
            else:
                f.write(("," if form == "wbgetentities" else ",\n") if count else "")
                f.write((encode(entity["id"]) + ":" if form == "wbgetentities" else "") + encode(entity))
            count += 1
        f.write({"dump": "\n]\n", "jsonl": "", "wbgetentities": '},"success":1}\n'}[form])
    return count


def _text_writer(stack: contextlib.ExitStack, raw, path: Path) -> io.TextIOWrapper:
    if path.suffix == ".gz":
        raw = stack.enter_context(gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0))
    elif path.suffix == ".bz2":
        raw = stack.enter_context(bz2.BZ2File(raw, "wb"))
    return stack.enter_context(io.TextIOWrapper(raw, encoding="utf-8", newline="\n"))
