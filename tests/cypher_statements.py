"""Every Cypher statement the project sends or shows, gathered for the Neo4j 5 conformance test:

- the named queries of the query modules, ``graphstore/queries/`` and ``audit/results/queries.py``
  (strings and tuples of strings), and what their builder functions return for every whitelisted
  argument;
- the queries of the Neo4j Browser guide (``docker/neo4j/guides/*.html``, ``<pre mode="cypher">``);
- ```` ```cypher ```` blocks in ``docs/*.md`` and the README;
- the Cypher of ``audit query`` and ``--cypher`` examples (in double quotes) in ``--help`` texts,
  the README and the docs.

Browser commands (``:param``, ``:play``) are not Cypher and are left out. ``$name`` parameters
stay parameters.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import click

from audit.results import queries as RQ
from graphstore import queries as Q

REPO = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"```cypher\n(.*?)```", re.S)
_PRE = re.compile(r'<pre mode="cypher"[^>]*>(.*?)</pre>', re.S)
# `audit query "..."` / `--cypher "..."` in shell examples; \" and \\$ as a shell needs them
_SHELL = re.compile(r'(?:audit query|--cypher) "((?:[^"\\]|\\.)*)"')


def _shell_unquote(text: str) -> str:
    return text.replace("\\\\$", "$").replace("\\$", "$").replace('\\"', '"')


# The query modules, as the conformance test names their statements.
QUERY_MODULES = {"queries": Q, "results.queries": RQ}


def from_queries_module() -> list[tuple[str, str]]:
    out = []
    for prefix, module in QUERY_MODULES.items():
        for name, value in vars(module).items():
            if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
                continue
            if isinstance(value, str) and re.search(r"\b(MATCH|RETURN|CREATE|MERGE|UNWIND|CALL|DELETE|SET)\b", value):
                out.append((f"{prefix}.{name}", value))
            elif isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
                out += [(f"{prefix}.{name}[{i}]", v) for i, v in enumerate(value)]
    out += [(f"results.queries.leakage_create({status!r})", RQ.leakage_create(status))
            for status in RQ.LEAKAGE_TYPES]
    return out


def from_browser_guide() -> list[tuple[str, str]]:
    out = []
    for path in sorted((REPO / "docker" / "neo4j" / "guides").glob("*.html")):
        for i, block in enumerate(_PRE.findall(path.read_text(encoding="utf-8"))):
            text = html.unescape(block).strip()
            if not text.startswith(":"):
                out.append((f"{path.relative_to(REPO)}#{i}", text))
    return out


def from_markdown() -> list[tuple[str, str]]:
    out = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for i, block in enumerate(_FENCE.findall(text)):
            cypher = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith(":"))
            for j, statement in enumerate(s for s in cypher.split(";") if s.strip()):
                out.append((f"{path.relative_to(REPO)}#cypher{i}.{j}", statement.strip()))
        for i, example in enumerate(_SHELL.findall(text)):
            out.append((f"{path.relative_to(REPO)}#example{i}", _shell_unquote(example)))
    return out


def from_help() -> list[tuple[str, str]]:
    from cli.main import cli

    out = []

    def walk(command: click.Command, path: str) -> None:
        for i, example in enumerate(_SHELL.findall(command.help or "")):
            out.append((f"audit {path} --help#{i}".replace("  ", " "), _shell_unquote(example)))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(cli, "")
    return out


def collect() -> list[tuple[str, str]]:
    """``(where, statement)`` for every statement, in a stable order."""
    return from_queries_module() + from_browser_guide() + from_markdown() + from_help()
