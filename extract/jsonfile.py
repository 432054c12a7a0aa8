"""Reading a user's JSON file with errors that name the file and the place."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from graphstore.errors import InputDataError


MAX_DEPTH_HINT = "nested too deeply to be data (hundreds of levels of [ or {)"


def strict_loads(text: str, duplicates: bool = False) -> object:
    """``json.loads`` whose every failure is a ``json.JSONDecodeError`` with a position:
    malformed text, nesting too deep for the parser (Python's RecursionError), and, unless
    ``duplicates``, an object with the same key twice (which ``json`` silently resolves to the
    last value: a record would lose a field without a word)."""
    hook = None if duplicates else _unique_keys(text)
    try:
        value = json.loads(text, object_pairs_hook=hook)
    except RecursionError:
        raise json.JSONDecodeError(MAX_DEPTH_HINT, text, 0) from None
    if "\\u" in text and _has_lone_surrogate(value):   # only an escape can make one: skip the walk otherwise
        found = _LONE_SURROGATE.search(text)
        raise json.JSONDecodeError("a string holds half of a UTF-16 pair (a lone escape such as \\ud800), which "
                                   "is no character", text, found.start() if found else 0)
    return value


# \uD800-\uDBFF not followed by \uDC00-\uDFFF, or \uDC00-\uDFFF not preceded by \uD800-\uDBFF
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _has_lone_surrogate(value) -> bool:
    """Whether a parsed JSON value holds a string that is not text (json keeps a lone
    surrogate escape as is; it cannot be encoded, sent to the database or printed)."""
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    return False


class _unique_keys:
    """object_pairs_hook refusing a repeated key, positioned at the key's second occurrence."""

    def __init__(self, text: str):
        self.text = text

    def __call__(self, pairs: list) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key in out:
                quoted = json.dumps(key, ensure_ascii=False)
                first = self.text.find(quoted)
                second = self.text.find(quoted, first + 1)
                raise json.JSONDecodeError(f"the key {_short(quoted)} appears twice in one object", self.text,
                                           max(second, 0))
            out[key] = value
        return out


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


# The largest input file read whole (AUDIT_MAX_INPUT_BYTES): a bound on memory, not on graph size
# (a 100,000-edge PISTOL file with its QA pairs is ~0.2 GB).
ENV_MAX_INPUT_BYTES = "AUDIT_MAX_INPUT_BYTES"
DEFAULT_MAX_INPUT_BYTES = 2 * 1024**3


def read_input_bytes(path: Path) -> bytes:
    """A user's input file, whole: a regular file (not a device such as /dev/zero, a pipe or a
    folder) of at most AUDIT_MAX_INPUT_BYTES bytes, checked before anything is read.

    Raises:
        InputDataError: missing, unreadable, not a regular file, or too large.
    """
    path = Path(path)
    try:
        info = path.stat()
    except OSError as e:
        raise InputDataError(path, f"cannot read: {e.strerror or e}") from e
    if not stat.S_ISREG(info.st_mode):
        raise InputDataError(path, "not a regular file (a folder, device or pipe): give a file")
    limit = max_input_bytes()
    if info.st_size > limit:
        raise InputDataError(path, f"{info.st_size:,} bytes is more than the {limit:,} read whole "
                                   f"({ENV_MAX_INPUT_BYTES} raises it)")
    try:
        return path.read_bytes()
    except OSError as e:
        raise InputDataError(path, f"cannot read: {e.strerror or e}") from e


def max_input_bytes() -> int:
    try:
        return int(os.environ.get(ENV_MAX_INPUT_BYTES, DEFAULT_MAX_INPUT_BYTES))
    except ValueError:
        return DEFAULT_MAX_INPUT_BYTES


def read_utf8(path: Path) -> tuple[bytes, str]:
    """A user's text file: its bytes (for a content hash) and its text.

    Raises:
        InputDataError: unreadable, not a regular file, too large, or not UTF-8 (with the byte
            offset and the byte).
    """
    data = read_input_bytes(path)
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r})") from e


def read_json(path: Path) -> object:
    """Parse ``path`` as UTF-8 JSON.

    Raises:
        InputDataError: unreadable, empty, not UTF-8 (with the byte offset), not JSON, nested
            too deeply, or an object with a key twice (with line and column).
    """
    data, text = read_utf8(path)
    if not data.strip():
        raise InputDataError(path, "the file is empty")
    try:
        return strict_loads(text)
    except json.JSONDecodeError as e:
        raise InputDataError(path, f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from e
