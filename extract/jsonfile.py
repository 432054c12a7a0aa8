"""Reading a user's JSON file with errors that name the file and the place."""

from __future__ import annotations

import json
from pathlib import Path

from graphstore.errors import InputDataError


def read_json(path: Path) -> object:
    """Parse ``path`` as UTF-8 JSON.

    Raises:
        InputDataError: unreadable, empty, not UTF-8 (with the byte offset) or not JSON (with
            line and column).
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputDataError(path, f"cannot read: {e.strerror or e}") from e
    if not data.strip():
        raise InputDataError(path, "the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputDataError(path, f"not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r})") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputDataError(path, f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from e
