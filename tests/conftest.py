"""One real embedded server for the whole test session; no mocked database anywhere."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from graphstore import ConnectionSettings, GraphStore
from graphstore.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[1]


def generated_block(doc: str, marker: str) -> str | None:
    """The text between ``<!-- MARKER:begin -->`` and ``<!-- MARKER:end -->`` in ``docs/DOC``: a
    table a module generates, which its test compares with what the module makes now."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker}:begin -->\n(.*?)<!-- {marker}:end -->", text, re.S)
    return found.group(1) if found else None

# AUDIT_TEST_THREADS=N runs the suite with torch on N threads (docs/testing.md): results must not
# hang on the thread count, which changes the order of float additions. Subprocesses follow it too.
_THREADS = os.environ.get("AUDIT_TEST_THREADS")
if _THREADS:
    import torch

    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = _THREADS
    torch.set_num_threads(int(_THREADS))


def pytest_report_header(config):
    import torch

    return (f"torch {torch.__version__}, {torch.get_num_threads()} thread(s) (AUDIT_TEST_THREADS="
            f"{_THREADS or 'unset'}); OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}")
SHARED_DATA = REPO.parent / "shared" / "data"
PISTOL_DIR = SHARED_DATA / "pistol"


def pistol_file(name: str) -> Path:
    path = PISTOL_DIR / name
    if not path.exists():
        pytest.skip(f"reference data {path} is not here (it sits in ../shared/data beside the repo)")
    return path


# -- engines -----------------------------------------------------------------------------------
# Every test that asks for `settings` or `store` runs on each engine chosen here (docs/testing.md):
#   AUDIT_TEST_ENGINE or --engine: embedded | neo4j | both (default both)
# Without Java or Maven (or an unbuilt server) the Neo4j cases skip with one line saying what is
# missing; with AUDIT_TEST_REQUIRE_NEO4J=1 (.ci/run sets it) the session fails instead.
ENGINES = ("embedded", "neo4j")
ENV_ENGINE = "AUDIT_TEST_ENGINE"
ENV_REQUIRE_NEO4J = "AUDIT_TEST_REQUIRE_NEO4J"


def pytest_addoption(parser):
    parser.addoption("--engine", choices=("embedded", "neo4j", "both"), default=None,
                     help=f"graph engine(s) for the store tests (default: ${ENV_ENGINE}, else both)")


def chosen_engines(config) -> tuple[str, ...]:
    choice = config.getoption("--engine") or os.environ.get(ENV_ENGINE) or "both"
    if choice not in ("embedded", "neo4j", "both"):
        raise pytest.UsageError(f"{ENV_ENGINE}={choice!r}: use embedded, neo4j or both")
    return ENGINES if choice == "both" else (choice,)


def pytest_generate_tests(metafunc):
    if "engine" in metafunc.fixturenames:
        metafunc.parametrize("engine", chosen_engines(metafunc.config), indirect=True, scope="session")


@pytest.fixture(scope="session")
def engine(request) -> str:
    """The engine of this test case: 'embedded' or 'neo4j' (the case id names it)."""
    return request.param


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory) -> Path:
    """The store folder of the session's embedded server; stopped (and checked gone) at the end."""
    path = tmp_path_factory.mktemp("store")
    os.environ["AUDIT_EMBEDDED_IDLE_TIMEOUT"] = "900"
    server = EmbeddedServer(path)
    server.ensure_running()
    yield path
    server.stop()


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory):
    """One Neo4j 5.26 test server for the session (tests/neo4j_server), stopped at the end."""
    from neo4j_server.server import Neo4jTestServer, missing

    reason = missing()
    if reason:
        if os.environ.get(ENV_REQUIRE_NEO4J) == "1":
            pytest.exit(f"Neo4j is required ({ENV_REQUIRE_NEO4J}=1) but cannot start: {reason}", returncode=3)
        pytest.skip(f"Neo4j tests skipped: {reason}")
    server = Neo4jTestServer(tmp_path_factory.mktemp("neo4j"))
    try:
        info = server.start()
    except RuntimeError as e:
        if os.environ.get(ENV_REQUIRE_NEO4J) == "1":
            pytest.exit(f"Neo4j is required ({ENV_REQUIRE_NEO4J}=1) but did not start: {e}", returncode=3)
        pytest.skip(f"Neo4j tests skipped: {e}")
    yield info
    server.stop()


@pytest.fixture(scope="session")
def settings(engine, request) -> ConnectionSettings:
    """How this case reaches its engine's server."""
    if engine == "embedded":
        return ConnectionSettings.resolve(store_dir=request.getfixturevalue("store_dir"), environ={})
    info = request.getfixturevalue("neo4j_server")
    return ConnectionSettings.resolve(uri=info.uri, user="neo4j", password=info.password, environ={})


def cli_store_args(settings: ConnectionSettings) -> list[str]:
    """The `audit` options that reach the server of ``settings``."""
    if settings.embedded:
        return ["--store", str(settings.store_dir)]
    return ["--uri", settings.uri, "--user", settings.user, "--password", settings.password]


@pytest.fixture(scope="session")
def store_args(settings) -> list[str]:
    """The `audit` options that reach this case's engine."""
    return cli_store_args(settings)


@pytest.fixture(scope="session")
def store_env(settings) -> dict[str, str]:
    """Environment for an `audit` subprocess that reaches this case's engine."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("AUDIT_NEO4J_URI", "AUDIT_NEO4J_USER", "AUDIT_NEO4J_PASSWORD", "AUDIT_NEO4J_DATABASE")}
    if settings.embedded:
        env["AUDIT_HOME"] = str(settings.store_dir)
    else:
        env.update(AUDIT_NEO4J_URI=settings.uri, AUDIT_NEO4J_USER=settings.user,
                   AUDIT_NEO4J_PASSWORD=settings.password)
    return env


@pytest.fixture()
def store(settings):
    """A connection to the session's server, with an empty graph for every test."""
    with GraphStore.open(settings) as s:
        s.write("MATCH (n) DETACH DELETE n")
        yield s


@pytest.fixture()
def subset_file(tmp_path):
    """Write the records of some edges of a real PISTOL file as a new dataset."""

    def make(source: str, edges: set[str], name: str = "subset") -> Path:
        records = json.loads(pistol_file(source).read_text(encoding="utf-8"))
        chosen = [r for r in records if r["edge"] in edges]
        assert {r["edge"] for r in chosen} == set(edges), "unknown edge label in test"
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(chosen), encoding="utf-8")
        return path

    return make


@pytest.fixture(scope="session")
def run_cache(tmp_path_factory) -> Path:
    """One model cache for the session: a graph's injected model is trained once, whichever
    test module audits it first."""
    return tmp_path_factory.mktemp("run_cache")


def small_pistol_run(store, folder: Path, cache: Path, graph: str, run_id: str, edges, seed: int, **request):
    """Build a small generated PISTOL graph and audit it: a real run, kept short (the injection
    stops at 20 epochs or recall 0.6, so the statuses are mixed). Returns the run id."""
    from audit.config import InjectionConfig, UnlearnConfig
    from audit.run.runner import RunRequest, run_audit
    from extract.pistol.generate import generate_pistol, write_dataset
    from extract.pistol.load import load_pistol
    from graphstore.ingest import write_graph

    path = folder / f"{graph}.json"
    write_dataset(generate_pistol(edges, seed=seed), path)
    write_graph(store, load_pistol(path, graph=graph))
    options = {"select": "top-degree:2", "method": "ga", "equivalence": None, "device": "cpu",
               "unlearn": UnlearnConfig(epochs=8, lr=3e-3, batch_size=4),
               "injection": InjectionConfig(max_epochs=20, target_rouge1=0.6), **request}
    run_audit(store, RunRequest(graph=graph, run_id=run_id, cache_dir=cache, **options), report=lambda line: None)
    return run_id


def store_checksum(store) -> str:
    """A checksum of every node and relationship of the store with all their properties (labels,
    types, endpoints by key): equal before and after means nothing was written."""
    import hashlib

    nodes = store.read("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
    rels = store.read("MATCH (a)-[r]->(b) RETURN type(r) AS type, properties(r) AS props, "
                      "a.key AS head, b.key AS tail")
    canonical = sorted(json.dumps(row, sort_keys=True, default=str) for row in nodes + rels)
    return hashlib.sha256("\n".join(canonical).encode()).hexdigest()
