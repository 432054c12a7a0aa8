"""The column names of a query's final RETURN, read from its text.

Neo4j sends a result's column names even when there are no rows; the embedded engine's Bolt
plugin sends none then. An empty result must still print its header, so the names are read
from the query as Neo4j forms them: the alias after ``AS``, else the expression's text.
"""

from __future__ import annotations

import re

_OPEN, _CLOSE = "([{", ")]}"
_ALIAS = re.compile(r"(?is)^(.*\S)\s+AS\s+(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)$")
_END = re.compile(r"(?i)\b(ORDER\s+BY|SKIP|LIMIT|UNION)\b")


def _top_level(text: str):
    """Yield (index, char) of the characters outside strings, comments and brackets."""
    depth, quote, i = 0, None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote != "`":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif depth == 0:
            yield i, c
        i += 1


def return_columns(query: str) -> list[str]:
    """Column names of the last top-level ``RETURN`` of ``query``; ``[]`` when they cannot be
    known from the text (``RETURN *``, no RETURN).

    >>> return_columns("MATCH (n) RETURN n.name, count(*) AS n ORDER BY n DESC")
    ['n.name', 'n']
    """
    top = "".join(c if c is not None else " " for c in _masked(query))
    starts = [m.end() for m in re.finditer(r"(?i)\bRETURN\b", top)]
    if not starts:
        return []
    start = starts[-1]
    end = _END.search(top, start)
    stop = end.start() if end else len(top)
    semicolon = top.find(";", start, stop)
    stop = semicolon if semicolon >= 0 else stop
    body = query[start:stop].strip()
    body_top = top[start:stop].strip()
    if body_top[:8].upper() == "DISTINCT":
        offset = len(body) - len(body[8:].lstrip())
        body, body_top = body[offset:], body_top[offset:]
    items, last = [], 0
    for i, c in enumerate(body_top):
        if c == ",":
            items.append(body[last:i])
            last = i + 1
    items.append(body[last:])
    names = []
    for item in (x.strip() for x in items):
        if not item or item == "*":
            return []
        match = _ALIAS.match(item)
        name = match.group(2) if match else item
        names.append(name[1:-1].replace("``", "`") if name.startswith("`") else name)
    return names


def _masked(query: str) -> list[str | None]:
    """The query with everything that is not top level replaced by None (same length)."""
    out: list[str | None] = [None] * len(query)
    for i, c in _top_level(query):
        out[i] = c
    return out
