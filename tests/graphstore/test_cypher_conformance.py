"""Neo4j 5 conformance of every Cypher statement the project sends or shows, checked by Neo4j's
own Cypher front-end: the npm package @neo4j-cypher/language-support (Apache-2.0, by Neo4j),
whose ``lintCypherQuery`` runs Neo4j 5's parser and semantic analysis. Pinned in
``tests/graphstore/cypher_lint/package.json`` (+ lock file), installed from the npm registry on first use.

The embedded engine accepts some Cypher that Neo4j 5 rejects; this is what keeps a statement
that passes the rest of the suite from failing in production.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cypher_statements import collect

LINT = Path(__file__).resolve().parent / "cypher_lint"
ERROR, WARNING = 1, 2
# Neo4j 5 warnings accepted, with the reason (docs/schema.md, "Neo4j 5 conformance"): none.
ACCEPTED_WARNINGS: dict[str, str] = {}


@pytest.fixture(scope="module")
def linter() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are needed for the Neo4j 5 conformance test (Neo4j's Cypher front-end is an npm "
                    "package): install them, e.g. `apt-get install nodejs npm`", pytrace=False)
    if not (LINT / "node_modules" / "@neo4j-cypher" / "language-support").exists():
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=LINT,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"`npm ci` in {LINT} failed: {done.stderr[-1500:]}", pytrace=False)
    return LINT / "lint.mjs"


def lint(linter: Path, statements: list[tuple[str, str]]) -> dict[str, list[dict]]:
    done = subprocess.run(["node", str(linter)], input=json.dumps([{"id": i, "query": q} for i, q in statements]),
                          capture_output=True, text=True, timeout=300, check=True)
    return {r["id"]: r["diagnostics"] for r in json.loads(done.stdout)}


def test_the_linter_catches_what_neo4j_5_rejects(linter):
    """The check itself works: a syntax error, an implicit grouping key, an undefined variable."""
    found = lint(linter, [("syntax", "MATCH (n RETURN n"),
                          ("grouping", "MATCH (a)-->(b) WITH a, b.x AS x RETURN a.y, x AND count(b) > 0 AS z"),
                          ("undefined", "MATCH (n) RETURN m"),
                          ("fine", "MATCH (n:Entity {graph: $graph}) RETURN n.key AS key")])
    assert [d["severity"] for d in found["syntax"]] == [ERROR]
    assert any("implicit grouping" in d["message"] for d in found["grouping"])
    assert any("not defined" in d["message"] for d in found["undefined"])
    assert found["fine"] == []


def test_every_statement_is_valid_neo4j_5(linter):
    statements = collect()
    sources = {where.split("#")[0].split(".")[0] for where, _ in statements}
    assert len(statements) >= 90 and {"queries", "results", "docker/neo4j/guides/leakage", "audit query --help"} <= sources
    found = lint(linter, statements)
    errors = [f"{where}: {d['message'][:300]}" for where, ds in found.items() for d in ds if d["severity"] == ERROR]
    assert not errors, "Neo4j 5 rejects:\n" + "\n".join(errors)
    warnings = [f"{where}: {d['message'][:300]}" for where, ds in found.items() for d in ds
                if d["severity"] == WARNING and where not in ACCEPTED_WARNINGS]
    assert not warnings, "Neo4j 5 deprecations (fix, or accept with a reason in ACCEPTED_WARNINGS):\n" + "\n".join(warnings)
