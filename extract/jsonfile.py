"""Reading a user's JSON file with errors that name the file and the place; and values made safe
to write as JSON (``json_safe``)."""

from __future__ import annotations

import json
import math
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


# What Python's json messages mean, said for a person who wrote or exported the file. The
# position is where the parser stopped: for an unterminated string, where the string starts.
_CAUSES = {
    "Unterminated string starting at": "the {unit} ends inside a string that starts here (truncated?)",
    "Expecting ',' delimiter": "a ',' or a closing ] or } was expected here (a missing comma?)",
    "Expecting ':' delimiter": "a ':' was expected here, after a key",
    "Expecting property name enclosed in double quotes": "a key in double quotes was expected here",
    "Expecting value": "a value was expected here (a string in double quotes, a number, true, false, null, "
                       "[ or {)",
    "Extra data": "more text after the JSON value has ended (two values? one JSON value per file, or JSON "
                  "lines in a .jsonl file)",
    "Invalid control character at": "a raw control character (a line break or tab) inside a string; JSON "
                                     "writes it as \\n or \\t",
    "Invalid \\escape": "a backslash escape JSON does not have (valid: \\\" \\\\ \\/ \\b \\f \\n "
                       "\\r \\t \\uXXXX)",
    "Invalid \\uXXXX escape": "a \\u escape without four hex digits",
}


def _breaks_off(e: json.JSONDecodeError) -> bool:
    """Whether the parser ran out of text: nothing but white space after where it stopped (an
    unterminated string is placed at its start, so it says so itself)."""
    return e.msg in _CAUSES and e.msg != "Unterminated string starting at" and not e.doc[e.pos:].strip()


def json_error_cause(e: json.JSONDecodeError, unit: str = "file") -> str:
    """What is wrong at ``e``'s position, in words (``unit``: "file", or "line" for JSON lines);
    without the position, which the caller puts where its message wants it. ``strict_loads``'s
    own messages (nesting, a key twice, half a UTF-16 pair) pass as they are.

    Example: ``'[{"a": "b'`` -> ``the file ends inside a string that starts here (truncated?)``.
    """
    if e.msg not in _CAUSES:
        return e.msg
    if _breaks_off(e):
        inside = " inside a string" if e.msg == "Invalid control character at" else " before the JSON does"
        return f"the {unit} ends{inside} (truncated?)"
    nearby, before = e.doc[e.pos:e.pos + 1], e.doc[:e.pos].rstrip()[-1:]
    if e.msg in ("Expecting value", "Expecting property name enclosed in double quotes"):
        if nearby in ("]", "}") and before == ",":
            return f"a comma right before this {nearby} (JSON allows no trailing comma)"
        if nearby == "/":
            return "a comment, which JSON does not allow"
        if nearby == "'":
            return "a string in single quotes; JSON needs double quotes"
    return _CAUSES[e.msg].replace("{unit}", unit)


def json_error(e: json.JSONDecodeError, unit: str = "file") -> str:
    """``line L, column C: cause`` for a JSON file's error (``json_error_cause``)."""
    line, column = json_error_place(e)
    return f"line {line}, column {column}: {json_error_cause(e, unit)}"


def json_safe(value):
    """``value`` with NaN and infinities as null, in lists and dicts too: JSON has no such numbers
    (``json.dumps`` would write ``NaN``, which JSON readers refuse)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    return value


def json_line_error(e: json.JSONDecodeError) -> str:
    """``column C: cause`` for the error of one line of a JSON-lines file (the caller names the line)."""
    return f"column {json_error_place(e)[1]}: {json_error_cause(e, 'line')}"


def json_error_place(e: json.JSONDecodeError) -> tuple[int, int]:
    """Line and column (1-based) of ``e``: where the parser stopped, or, when only white space
    follows (a truncated file), just after the last character that is not, where the text
    breaks off rather than past a trailing line break."""
    if _breaks_off(e):
        end = len(e.doc[:e.pos].rstrip())
        return e.doc.count("\n", 0, end) + 1, end - e.doc.rfind("\n", 0, end)
    return e.lineno, e.colno


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
        raise InputDataError(path, f"not JSON at {json_error(e)}") from e
