"""What read-only mode reads in a user's query text before the engine runs it, and what it says
when it refuses one. The engine refuses the writes itself (docs/schema.md, "Read-only"); the
text is read only where an engine would otherwise answer wrongly: a read-only ``PROFILE`` of a
write (the embedded engine returns no rows and no error), ``LOAD CSV`` from http(s) (the
embedded engine's read-only user may fetch it), and Neo4j's ``EXPLAIN`` check, which cannot
take a query that already starts with ``EXPLAIN`` or ``PROFILE``.
"""

from __future__ import annotations

import re

WRITE_REFUSED = ("the query would change the graph, and it runs read-only: the engine refused it and nothing "
                 "was changed. Pass --write to run it as a write")
SECURITY_REFUSED = ("the query reads or changes users, roles or privileges, which read-only queries may not do; the "
                    "engine refused it and nothing was changed. Pass --write to run it with the administrator's rights")
LOAD_CSV_REFUSED = ("LOAD CSV is refused in read-only mode; nothing was read or changed. Pass --write to load "
                    "(file: URLs also need AUDIT_EMBEDDED_ALLOW_FILE_URLS=1 on the embedded server)")

LOAD_CSV = re.compile(r"\bLOAD\s+CSV\b", re.IGNORECASE)
# comments and quoted text (strings, `names`): what is left are the query's own words
_NOT_CODE = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`", re.DOTALL)
# a leading PROFILE (or EXPLAIN), after any comments, which are kept: error positions stay the user's
_LEADING = r"^((?:\s|//[^\n]*(?:\n|$)|/\*.*?\*/)*)"
_PROFILE = re.compile(_LEADING + r"PROFILE\b", re.IGNORECASE | re.DOTALL)
_EXPLAIN_OR_PROFILE = re.compile(_LEADING + r"(?:PROFILE|EXPLAIN)\b", re.IGNORECASE | re.DOTALL)


def loads_csv(query: str) -> bool:
    """Whether the query's own words (not its comments or strings) say ``LOAD CSV``."""
    return bool(LOAD_CSV.search(_NOT_CODE.sub(" ", query)))


def without_profile(query: str) -> str:
    return _PROFILE.sub(r"\1", query, count=1)


def without_explain_or_profile(query: str) -> str:
    return _EXPLAIN_OR_PROFILE.sub(r"\1", query, count=1)


def plan_has(plan: dict | None, operator: str) -> bool:
    """Whether an EXPLAIN plan (the driver's nested dicts: operatorType, children) uses ``operator``."""
    if not plan:
        return False
    return (plan.get("operatorType", "").split("@")[0] == operator
            or any(plan_has(child, operator) for child in plan.get("children", [])))
