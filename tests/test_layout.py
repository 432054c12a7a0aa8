"""The code's layout holds: imports flow one way, no import cycle (imports inside functions
included), modules stay cohesive, and the tests mirror the packages.

The module graph is read from the source with ``ast``, not from ``sys.modules``: an import
inside a function counts as much as one at the top, since it is a cycle all the same.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("graphstore", "extract", "audit", "cli")
# Cohesion, not a line count (STYLE.md: code moved only to get a module under a number is worse
# than the long module). A module that imports many modules of its own package is coordinating
# many jobs (the old rules.py imported 16): at most this many. A module past LONG lines says
# what its one job is, here, where a reviewer sees it; one past CEILING is several jobs.
MAX_SIBLING_IMPORTS = 8
LONG, CEILING = 400, 1000
# Modules whose job is to assemble their package's parts, allowed more (and saying so).
WIDE_MODULES = {
    "cli.main": "the command group: every command module is registered here",
    "audit.run.phases": "a run's phases: each phase hands its work to the module that does it",
    "audit.run.context": "what one scope of a run holds: the plan, the models and the records of every phase",
}
LONG_MODULES = {
    "extract/text/rebel.py": "REBEL as one extractor: read its linearization, cut passages to its input, generate",
}

# Which top-level package may import which: cli -> audit -> extract -> graphstore.
# audit uses extract's readers in audit.build (a graph's questions are written when it is built)
# and extract.jsonfile for users' JSON files; extract never imports audit.
ALLOWED = {
    "graphstore": {"graphstore"},
    "extract": {"extract", "graphstore"},
    "audit": {"audit", "extract", "graphstore"},
    "cli": {"cli", "audit", "extract", "graphstore"},
}


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports, anywhere in the file. ``from pkg import sub`` is an
    import of ``pkg.sub`` when it is a module (not of ``pkg``, whose ``__init__`` Python runs
    first in any case); ``from pkg import Name`` is an import of ``pkg``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:
                    found.add(target)
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), and self-loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_cycles():
    # a control: the checks below are only as good as this
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from audit.run import runner\n    import graphstore\n", encoding="utf-8")
    known = {"audit.run.runner": Path(), "graphstore": Path(), "audit.run": Path()}
    assert imports("x.m", source, known) == {"audit.run.runner", "graphstore"}


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_imports_flow_one_way():
    wrong = [f"{name} imports {target}" for name, targets in graph().items() for target in sorted(targets)
             if target.split(".")[0] not in ALLOWED[name.split(".")[0]]]
    assert wrong == []


def test_audit_uses_extract_readers_only_to_build():
    users = sorted(name for name, targets in graph().items() if name.startswith("audit")
                   for target in targets if target.startswith("extract") and target != "extract.jsonfile")
    assert set(users) <= {"audit.build", "audit.run.memorization_check"}


def _lengths() -> dict[str, int]:
    # A generated module (audit/results/schema.py) is as long as its declarations: not counted.
    return {str(p.relative_to(REPO)): len(text.splitlines()) for package in PACKAGES
            for p in (REPO / package).rglob("*.py")
            if "GENERATED by" not in (text := p.read_text(encoding="utf-8"))[:400]}


def test_a_long_module_says_what_its_one_job_is():
    lengths = _lengths()
    assert {m: n for m, n in lengths.items() if n > LONG and m not in LONG_MODULES} == {}
    assert {m: lengths.get(m) for m in LONG_MODULES if lengths.get(m, 0) <= LONG} == {}, "no longer long: drop it"
    assert {m: n for m, n in lengths.items() if n > CEILING} == {}


def test_a_module_imports_few_modules_of_its_own_package():
    def package(name: str) -> str:
        return name.rsplit(".", 1)[0]

    known = modules()
    wide = {name: sorted(t for t in targets if package(t) == package(name) and t != package(name))
            for name, targets in graph().items() if not known[name].name == "__init__.py"}
    assert {n: ts for n, ts in wide.items() if len(ts) > MAX_SIBLING_IMPORTS and n not in WIDE_MODULES} == {}
    assert {n for n in WIDE_MODULES if len(wide.get(n, ())) <= MAX_SIBLING_IMPORTS} == set(), "no longer wide: drop it"


def test_tests_mirror_the_packages():
    """Every test module of a package's folder lies under tests/<the same folder>."""
    test_dirs = {p.parent.relative_to(REPO / "tests") for p in (REPO / "tests").rglob("test_*.py")}
    package_dirs = {p.relative_to(REPO) for package in PACKAGES for p in [REPO / package, *(REPO / package).rglob("*")]
                    if p.is_dir() and (p / "__init__.py").exists()}
    stray = sorted(str(d) for d in test_dirs if d != Path(".") and d not in package_dirs and d.parts[0] != "docker")
    assert stray == []


def test_test_module_names_are_unique():
    """pytest imports test modules by their base name (no __init__.py in tests/): two files of one
    name in different folders stop the whole suite at collection, so name them apart."""
    names: dict[str, list[str]] = {}
    for path in (REPO / "tests").rglob("test_*.py"):
        names.setdefault(path.name, []).append(str(path.relative_to(REPO)))
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


# Inside audit/, sub-packages have an order (STYLE.md): a module imports only from its own
# sub-package or from one before it. audit.types and audit.config are below them
# all; audit.build (a graph's questions, written when it is built) sits with the questions.
AUDIT_ORDER = ("types", "config", "models", "questions", "build", "measure", "results", "run",
               "experiment", "views")


def test_audit_sub_packages_import_downwards_only():
    def rank(module: str) -> int:
        return AUDIT_ORDER.index(module.split(".")[1])

    upward = [f"{name} imports {target}" for name, targets in graph().items()
              if name.startswith("audit.") for target in sorted(targets)
              if target.startswith("audit.") and rank(target) > rank(name)]
    assert upward == []


# All Cypher lives in query modules (STYLE.md): the graph's in graphstore/queries/, what an audit
# writes in audit/results/queries.py. Elsewhere a query is sent by name: a string literal (or an
# f-string) handed to the store's read, write or run is a query written outside its module.
QUERY_MODULES = ("graphstore/queries/", "audit/results/queries.py")
_SENDS = {"read", "write", "write_rows", "run", "run_query", "execute_read", "execute_write"}
_CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND|RETURN|CALL|DETACH|SHOW)\b")


def _text(node: ast.expr) -> str | None:
    """A string literal's text (an f-string's literal parts), else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def literal_queries(path: Path) -> list[int]:
    """The lines of the calls in ``path`` that send a literal query (``x.read("MATCH ...")``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SENDS
                and node.args and _CYPHER.search(_text(node.args[0]) or "")):
            found.append(node.lineno)
    return found


def test_the_literal_query_finder_finds_them(tmp_path):
    (tmp_path / "m.py").write_text('store.read("MATCH (n) RETURN n")\ntx.run(f"MATCH (n:{x}) RETURN n")\n'
                                   'store.read(Q.AUDIT_EDGES, graph=g)\nfile.write("a line\\n")\n')
    assert literal_queries(tmp_path / "m.py") == [1, 2]


def test_queries_are_written_only_in_query_modules():
    outside = [f"{path.relative_to(REPO)}:{line}" for path in modules().values()
               if not str(path.relative_to(REPO)).startswith(QUERY_MODULES) for line in literal_queries(path)]
    assert outside == []
