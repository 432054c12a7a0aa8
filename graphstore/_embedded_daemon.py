"""The embedded server process: ArcadeDB with its Bolt plugin, on loopback, one per store.

Started by ``graphstore.embedded.EmbeddedServer``; not meant to be run by hand. It holds
``server.lock`` for its whole life, so a second server on the same store folder refuses to
start instead of opening the same database files (which would corrupt them).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import sys
import time
from pathlib import Path

from graphstore.embedded import ENV_ALLOW_FILE_URLS, READER_GROUP, READER_USER, USER, free_port

POLL_S = 0.25


def _write_state(store: Path, state: dict) -> None:
    tmp = store / "server.json.tmp"
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, store / "server.json")  # readers never see half a file


def _idle_for(store: Path) -> float:
    try:
        return time.time() - (store / "last_used").stat().st_mtime
    except OSError:
        return 0.0


def _allow_file_urls(allowed: bool) -> None:
    """LOAD CSV reads local files (``file:`` URLs) only when the user allows it: otherwise a
    query could print any file the server can read. A database-scoped engine setting, set here
    as the default of every database before the server opens one. (The read-only user may not
    LOAD CSV at all.)"""
    import jpype

    setting = jpype.JClass("com.arcadedb.GlobalConfiguration").findByKey("arcadedb.opencypher.loadCsv.allowFileUrls")
    setting.setValue(bool(allowed))


def _set_command_timeout(seconds: float) -> None:
    """Every statement the engine runs (a user's query, a build's batch) is stopped after
    ``seconds`` (0: no limit): the engine checks the deadline inside its scan, expand and filter
    loops, so a query that produces no row for minutes is stopped too, and its client sees
    ``TransactionTimedOut``. The engine's Bolt plugin ignores the timeout a driver sends, so this
    server-wide setting is the embedded engine's only bound (docs/reliability.md)."""
    import jpype

    setting = jpype.JClass("com.arcadedb.GlobalConfiguration").findByKey("arcadedb.command.timeout")
    setting.setValue(int(round(seconds * 1000)))


def _ensure_reader(server, database: str, password: str) -> None:
    """The read-only user: a server user whose group may only read records of ``database``.
    The engine itself refuses every write it attempts (CREATE, SET, DELETE, MERGE, schema,
    writes inside ``CALL {} IN TRANSACTIONS``) and LOAD CSV (docs/schema.md, "Read-only").
    Made again at every start, so the password always matches ``reader_credentials``."""
    import jpype

    json_object = jpype.JClass("com.arcadedb.serializer.json.JSONObject")
    security = server._java_server.getSecurity()
    security.saveGroup(database, READER_GROUP, json_object(json.dumps({
        "resultSetLimit": -1, "readTimeout": -1, "access": [], "types": {"*": {"access": ["readRecord"]}}})))
    if security.existsUser(READER_USER):
        security.dropUser(READER_USER)
    security.createUser(json_object(json.dumps({
        "name": READER_USER, "password": str(security.encodePassword(password)),
        "databases": {database: [READER_GROUP]}})))


def _forget_our_users(store: Path) -> None:
    """Drop ``root`` and ``reader`` from the engine's user file before it starts, so that it makes
    them again from ``credentials`` and ``reader_credentials``: those files are the only truth, and
    a lost or replaced ``credentials`` never locks the store (docs/reliability.md). Other users a
    person made stay as they were."""
    users = store / "arcadedb" / "config" / "server-users.jsonl"
    if not users.exists():
        return
    kept = [line for line in users.read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line).get("name") not in (USER, READER_USER)]
    if not kept:
        users.unlink()
        return
    staging = users.with_suffix(".jsonl.tmp")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(kept) + "\n")
    os.replace(staging, users)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", required=True, type=Path)
    parser.add_argument("--database", default="audit")
    parser.add_argument("--idle-timeout", type=float, default=1800.0, help="seconds; 0 = never")
    parser.add_argument("--heap", default=None, help="JVM max heap, e.g. 4g")
    parser.add_argument("--query-timeout", type=float, default=0.0, help="seconds a statement may run; 0 = no limit")
    args = parser.parse_args(argv)
    store: Path = args.store.resolve()
    os.chdir(store)  # the engine writes ./log relative to the working folder

    lock = open(store / "server.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"another embedded server already holds {store}", file=sys.stderr)
        return 3

    password = (store / "credentials").read_text(encoding="utf-8").strip()
    reader_password = (store / "reader_credentials").read_text(encoding="utf-8").strip()
    _forget_our_users(store)
    os.environ.setdefault("ARCADEDB_JVM_ERROR_FILE", str(store / "arcadedb" / "hs_err_pid%p.log"))
    import arcadedb_embedded as arcadedb
    from arcadedb_embedded.jvm import start_jvm

    start_jvm(heap_size=args.heap or "4g")
    _allow_file_urls(os.environ.get(ENV_ALLOW_FILE_URLS, "") == "1")
    _set_command_timeout(args.query_timeout)
    for attempt in range(5):  # a picked port can be taken before the engine binds it
        bolt_port, http_port = free_port(), free_port()
        server = arcadedb.create_server(
            root_path=str(store / "arcadedb"),
            root_password=password,
            config={
                "host": "127.0.0.1",
                "http_port": http_port,
                "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
                "bolt_port": bolt_port,
            },
        )
        try:
            server.start()
            break
        except arcadedb.ArcadeDBError:
            if attempt == 4:
                raise
            time.sleep(0.2)
    try:
        server.get_database(args.database)
    except arcadedb.ArcadeDBError:
        server.create_database(args.database)
    _ensure_reader(server, args.database, reader_password)

    _write_state(store, {
        "pid": os.getpid(),
        "bolt_port": bolt_port,
        "http_port": http_port,
        "database": args.database,
        "engine_version": arcadedb.__version__,
        "query_timeout_s": args.query_timeout,
        "started_at": time.time(),
    })
    (store / "last_used").touch()
    print(f"ready: bolt://127.0.0.1:{bolt_port} database={args.database}", flush=True)

    stop_file = store / "stop.request"
    try:
        while True:
            time.sleep(POLL_S)
            if stop_file.exists():
                print("stop requested", flush=True)
                break
            if args.idle_timeout > 0 and _idle_for(store) > args.idle_timeout:
                print(f"idle for over {args.idle_timeout:.0f} s, stopping", flush=True)
                break
    finally:
        server.stop()
        for name in ("server.json", "stop.request"):
            with contextlib.suppress(FileNotFoundError):
                (store / name).unlink()
        print("stopped", flush=True)
        sys.stdout.flush()
    # The JVM keeps non-daemon threads; leaving through os._exit ends the process (and so
    # every Java thread) now that the database is closed.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
