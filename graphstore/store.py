"""The one thin class over the official ``neo4j`` driver; everything else asks it.

Example:
    >>> from graphstore import GraphStore, ConnectionSettings
    >>> with GraphStore.open(ConnectionSettings.resolve(store_dir=".audit")) as store:
    ...     store.read("MATCH (n:Entity) RETURN count(n) AS n")
    [{'n': 0}]
"""

from __future__ import annotations

import contextlib
import functools
import shutil
from dataclasses import dataclass
from typing import Callable, Iterator, Literal, Sequence, TypedDict

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, DriverError, Forbidden, Neo4jError, ServiceUnavailable

from graphstore import queries as Q
from graphstore import query_text as QT
from graphstore.columns import return_columns
from graphstore.embedded import ENV_ALLOW_FILE_URLS, EmbeddedServer
from graphstore.embedded import READER_USER as EMBEDDED_READER
from graphstore.embedded import USER as EMBEDDED_USER
from graphstore.errors import ConfigError, QueryError, StoreError
from graphstore.settings import ENV_MAX_ROWS, ConnectionSettings

DEFAULT_BATCH_ROWS = 2000
Progress = Callable[[int], None]
DISK_NEARLY_FULL = 32 * 2**20   # bytes: below this, an engine failure on the embedded store is put down to the disk


class _SessionOptions(TypedDict, total=False):
    notifications_min_severity: Literal["OFF"]


@dataclass(frozen=True)
class QueryResult:
    """What ``run_query`` returns: column names, rows, and whether the graph changed."""

    columns: list
    rows: list
    counters: dict
    committed: bool


class GraphStore:
    """A connection to the graph: Neo4j 5 by URI, or the embedded ArcadeDB server."""

    def __init__(self, driver: neo4j.Driver, settings: ConnectionSettings,
                 embedded: EmbeddedServer | None = None, reader: neo4j.Driver | None = None):
        self._driver = driver
        # Reads go through `_reader`: on the embedded engine a connection as its read-only
        # user, whose writes the engine refuses; on Neo4j the same driver in READ access mode.
        self._reader = reader or driver
        self.settings = settings
        self.database: str = settings.database or "neo4j"
        self._embedded = embedded
        # The bound on one statement: the driver's transaction timeout on Neo4j; on the embedded
        # engine the server's own, set when it started (GraphStore.open reads it back).
        self.query_timeout_s: float = settings.query_timeout_s
        agent = driver.get_server_info().agent
        self.server_agent: str = agent
        self.engine: str = "arcadedb" if "arcadedb" in agent.lower() else "neo4j"
        # Neo4j sends notifications ("property key does not exist" on an empty graph, ...) that
        # the driver logs as warnings on stderr; our fixed queries expect them, so the server is
        # asked not to send any. The embedded engine sends none (and its Bolt version predates
        # the option).
        self._session_options: _SessionOptions = {"notifications_min_severity": "OFF"} if self.engine == "neo4j" else {}
        # a client busy elsewhere for longer than the idle timeout keeps its server
        self._heartbeat = embedded.heartbeat() if embedded is not None else None

    # -- opening and closing ------------------------------------------------------------
    @classmethod
    def open(cls, settings: ConnectionSettings) -> "GraphStore":
        """Connect, starting the embedded server first when no URI is given.

        Raises:
            StoreError: the server cannot be reached or refuses the credentials.
        """
        embedded = None
        reader_auth = None
        if settings.embedded:
            embedded = EmbeddedServer(settings.store_dir, database=settings.database or "audit",
                                      query_timeout_s=settings.query_timeout_s)
            info = embedded.ensure_running()
            if info.database != embedded.database:
                raise StoreError(f"the embedded server of {embedded.store_dir} serves database {info.database!r}, not "
                                 f"{embedded.database!r}; nothing was read or written. Use --database {info.database}, or stop "
                                 f"it (`audit server stop --store {embedded.store_dir}`) and run again to serve "
                                 f"{embedded.database!r}")
            uri, auth = info.uri, (EMBEDDED_USER, embedded.password())
            reader_auth = (EMBEDDED_READER, embedded.reader_password())
            where = f"the embedded server of {embedded.store_dir}"
            # the server takes <store>/credentials when it starts (graphstore/_embedded_daemon.py)
            recover = (f" (its credentials file replaced or lost?): run `audit server stop --store {embedded.store_dir}` "
                       "and try again")
        else:
            if settings.uri is None or settings.user is None or settings.password is None:
                raise ConfigError("a Bolt server needs a URI, a user and a password (ConnectionSettings.resolve)")
            uri, auth = settings.uri, (settings.user, settings.password)
            where, recover = settings.uri, ""
        driver = _connect(uri, auth, where, recover)
        reader = None
        if embedded is not None and reader_auth is not None:
            try:
                reader = _connect(uri, reader_auth, where)
            except StoreError as e:
                driver.close()
                raise StoreError(f"{e}. A server started by an older version has no read-only user: "
                                 f"restart it with `audit server stop --store {embedded.store_dir}`") from e
        store = cls(driver, settings, embedded, reader)
        if embedded is not None:
            store.query_timeout_s = info.query_timeout_s
        return store

    def close(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
        self._driver.close()
        if self._reader is not self._driver:
            self._reader.close()

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def location(self) -> str:
        if self._embedded is not None:
            return f"embedded ArcadeDB in {self._embedded.store_dir}"
        return str(self.settings.uri)

    @functools.cached_property
    def has_gds(self) -> bool:
        """Whether the server has Neo4j Graph Data Science (for WCC); never on the embedded engine."""
        if self.engine != "neo4j":
            return False
        try:
            return self.read(Q.GDS_PRESENT)[0]["n"] > 0
        except StoreError:
            return False

    def _touch(self) -> None:
        if self._embedded is not None:
            self._embedded.touch()

    # -- schema ---------------------------------------------------------------------------------
    def setup_schema(self) -> None:
        """Create constraints and indexes; safe to run any number of times."""
        statements = Q.SCHEMA + (Q.SCHEMA_NEO4J_ONLY if self.engine == "neo4j" else ())
        for statement in statements:
            self.write(statement)

    # -- graphs ---------------------------------------------------------------------------------
    def graph(self, name: str) -> dict:
        """The Graph node of ``name`` (key, source, sha256, counts, ...).

        Raises:
            ConfigError: no graph of that name; the message lists the graphs there are.
        """
        rows = self.read(Q.GRAPH_GET, graph=name)
        if not rows:
            known = [g["key"] for g in self.read(Q.GRAPH_LIST)]
            raise ConfigError(f"no graph named {name!r} in {self.location}; graphs there: "
                              f"{', '.join(known) if known else '(none: run audit build first)'}")
        return rows[0]

    # -- reading and writing ------------------------------------------------------------------
    def _session(self, driver: neo4j.Driver, mode: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        """A session on our database (always named), in ``mode``."""
        return driver.session(database=self.database, default_access_mode=mode, **self._session_options)

    def read(self, query: str, **params) -> list[dict]:
        """Run a read query in a managed read transaction and return its rows as dicts."""
        self._touch()
        with self._errors(query, read_only=True):
            with self._session(self._reader, neo4j.READ_ACCESS) as session:
                return session.execute_read(lambda tx: tx.run(query, params).data())

    def write(self, query: str, **params) -> dict:
        """Run a write query in a managed write transaction; return its counters."""
        self._touch()
        with self._errors(query):
            with self._session(self._driver) as session:
                summary = session.execute_write(lambda tx: tx.run(query, params).consume())
        return _counters(summary)

    def write_rows(self, query: str, rows: Sequence[dict], batch_rows: int = DEFAULT_BATCH_ROWS,
                   progress: Progress | None = None, **params) -> int:
        """Send ``rows`` as ``$rows`` in batches, one managed transaction per batch."""
        done = 0
        with self._errors(query):
            with self._session(self._driver) as session:
                for chunk in _batches(rows, batch_rows):
                    session.execute_write(lambda tx: tx.run(query, rows=chunk, **params).consume())
                    done += len(chunk)
                    self._touch()
                    if progress:
                        progress(len(chunk))
        return done

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Transaction"]:
        """One explicit write transaction: all of it is committed, or none of it.

        Used where the promise is "nothing partial": a build either lands whole or the
        graph stays exactly as it was.
        """
        self._touch()
        with self._errors("(transaction)"):
            with self._session(self._driver) as session:
                tx = session.begin_transaction()
                try:
                    yield Transaction(tx, self._touch)
                except BaseException:
                    tx.rollback()
                    raise
                else:
                    tx.commit()
                finally:
                    tx.close()

    def run_query(self, query: str, params: dict | None = None, allow_write: bool = False) -> QueryResult:
        """Run a user's Cypher. Read-only unless ``allow_write``.

        Read-only is enforced by the engine, before anything is written: on the embedded
        engine the query runs as its read-only user, whose every write (``CALL {} IN
        TRANSACTIONS`` included) and ``LOAD CSV`` the engine refuses; on Neo4j, ``EXPLAIN``
        first gives the query type, anything but a read (or a ``LOAD CSV``) is refused unrun,
        and the query then runs in a READ access-mode session. Auto-commit, so ``CALL {} IN
        TRANSACTIONS`` runs too.

        Raises:
            QueryError: the engine refused the query (syntax, or a write in read-only mode).
        """
        self._touch()
        params = params or {}
        if not allow_write and self.engine == "neo4j":
            self._refuse_non_read(QT.without_explain_or_profile(query), params)
        elif not allow_write:
            # The embedded engine answers a read-only PROFILE of a write with no rows and no error
            # (nothing written): run the query itself, so that the engine refuses the write. Bolt
            # brings no profile back from it anyway.
            query = QT.without_profile(query)
            # Its read-only user may LOAD CSV from http(s) (file: URLs are off): refused here, as
            # Neo4j's plan check refuses it, before the server fetches anything.
            if QT.loads_csv(query):
                raise QueryError(QT.LOAD_CSV_REFUSED)
        driver, mode = (self._driver, neo4j.WRITE_ACCESS) if allow_write else (self._reader, neo4j.READ_ACCESS)
        timeout = self.settings.query_timeout_s or None   # Neo4j stops the transaction; the embedded server has its own
        with self._errors(query, read_only=not allow_write):
            with self._session(driver, mode) as session:
                result = session.run(neo4j.Query(query, timeout=timeout), params)
                columns = list(result.keys())
                rows: list[list] = []
                for record in result:   # fetched in batches: memory grows with what is kept, so keep a bound
                    if not allow_write and len(rows) >= self.settings.max_rows:
                        raise QueryError(f"the query returns more than {self.settings.max_rows:,} rows; add a LIMIT, "
                                         f"or set {ENV_MAX_ROWS} higher (nothing was changed)")
                    rows.append(list(record.values()))
                counters = _counters(result.consume())
        if not allow_write and counters.get("contains_updates"):   # a second line, never the first
            raise QueryError(QT.WRITE_REFUSED)
        if not columns and not rows:   # the embedded engine names no columns of an empty result
            columns = return_columns(query)
        return QueryResult(columns, rows, counters, committed=allow_write)

    def _refuse_non_read(self, query: str, params: dict) -> None:
        """Neo4j: refuse, before running it, a query whose plan writes or loads CSV."""
        with self._errors(query, read_only=True):
            with self._session(self._driver, neo4j.READ_ACCESS) as session:
                summary = session.run("EXPLAIN " + query, params).consume()
        # LOAD CSV first: a query that loads and writes is refused for loading, as the embedded
        # engine refuses it (the file is never read either way)
        if QT.plan_has(summary.plan, "LoadCSV"):
            raise QueryError(QT.LOAD_CSV_REFUSED)
        if summary.query_type not in ("r", None):
            raise QueryError(QT.WRITE_REFUSED + f" (query type {summary.query_type!r})")

    @contextlib.contextmanager
    def _errors(self, query: str, read_only: bool = False):
        try:
            yield
        except Forbidden as e:
            if read_only:
                if QT.LOAD_CSV.search(query):
                    raise QueryError(QT.LOAD_CSV_REFUSED) from e
                raise QueryError(QT.SECURITY_REFUSED if "security" in (e.message or "") else QT.WRITE_REFUSED) from e
            if "allowFileUrls" in (e.message or ""):
                raise QueryError("LOAD CSV from file: URLs is off on the embedded server (a query could read any file "
                                 f"it can); to allow it, restart it with {ENV_ALLOW_FILE_URLS}=1 set "
                                 "(`audit server stop` first)") from e
            raise QueryError(f"{self.engine} refused the query: {_first_line(e.message)} (code {e.code})") from e
        except ClientError as e:
            if e.code and "TransactionTimedOut" in e.code:
                restart = (" and restart the embedded server (`audit server stop`): it takes the setting when it starts"
                           if self._embedded is not None else "")
                raise QueryError(f"the query ran past {self.query_timeout_s:g} s and {self.engine} stopped it; "
                                 f"nothing was changed. Set AUDIT_QUERY_TIMEOUT (seconds; 0 = no limit) for more{restart}"
                                 ) from e
            if read_only and e.code and ("AccessMode" in e.code or "Forbidden" in e.code):
                raise QueryError(QT.WRITE_REFUSED) from e
            if e.code == "Neo.ClientError.Database.DatabaseNotFound":
                raise StoreError(f"database {self.database!r} does not exist on {self.location}; nothing was read or "
                                 "written. Name one that does with --database (or AUDIT_NEO4J_DATABASE): `SHOW "
                                 "DATABASES` lists them; Neo4j Community has one, 'neo4j'") from e
            self._raise_if_disk_full(e)
            error = QueryError(f"{self.engine} refused the query: {_first_line(e.message)} (code {e.code})")
            error.retryable = "please retry" in (e.message or "").lower()   # the embedded engine's page conflicts
            raise error from e
        except Neo4jError as e:
            if e.code == "Neo.TransientError.General.MemoryPoolOutOfMemoryError":
                raise StoreError(f"{self.engine} ran out of memory for one transaction (by default a transaction may "
                                 "use 70 % of its heap) and nothing was written; give the server more heap "
                                 "(server.memory.heap.max_size; NEO4J_HEAP_SIZE in docker/compose.yaml)") from e
            self._raise_if_disk_full(e)
            failure = StoreError(f"{self.engine} failed: {_first_line(e.message)} (code {e.code})")
            failure.retryable = e.is_retryable() or "retry" in (e.message or "").lower()
            raise failure from e
        except (ServiceUnavailable, DriverError, OSError) as e:
            raise StoreError(f"lost the connection to {self.location}: {e}") from e

    def _raise_if_disk_full(self, e: Neo4jError) -> None:
        """The embedded engine names no cause when its disk fills ("Transaction error on commit",
        or an unknown error from a schema command, and nothing in its log): look at the disk."""
        if self._embedded is None:
            return
        free = shutil.disk_usage(self._embedded.store_dir).free
        if free < DISK_NEARLY_FULL:
            raise StoreError(f"the embedded engine failed with its disk full ({free / 2**20:.1f} MB free on the disk "
                             f"holding {self._embedded.store_dir}); nothing was written: make room and run again "
                             f"(it said: {_first_line(e.message)})") from e

    # -- counts -----------------------------------------------------------------------------------
    def counts(self) -> tuple[list[dict], list[dict]]:
        """Node counts per label and relationship counts per type."""
        return self.read(Q.COUNT_LABELS), self.read(Q.COUNT_TYPES)


def _connect(uri: str, auth: tuple[str, str], where: str, recover: str = "") -> neo4j.Driver:
    try:
        driver = GraphDatabase.driver(uri, auth=auth)
        driver.verify_connectivity()
    except AuthError as e:
        if recover:
            raise StoreError(f"{where} refused user {auth[0]!r}{recover}") from e
        raise StoreError(f"{where} refused the credentials of user {auth[0]!r}: {e.message}") from e
    except (ServiceUnavailable, DriverError, OSError, ValueError) as e:
        raise StoreError(f"cannot reach {where}: {e}. Is the server running?") from e
    return driver


def _first_line(message: str | None) -> str:
    """An engine message on one line (the embedded engine adds the query and a caret below)."""
    return (message or "").strip().splitlines()[0] if (message or "").strip() else "(no message)"


class Transaction:
    """A thin wrapper over an explicit transaction, with the store's batching."""

    def __init__(self, tx: neo4j.Transaction, touch: Callable[[], None]):
        self._tx = tx
        self._touch = touch

    def run(self, query: str, **params) -> list[dict]:
        self._touch()
        return self._tx.run(query, params).data()

    def write_rows(self, query: str, rows: Sequence[dict], batch_rows: int = DEFAULT_BATCH_ROWS,
                   progress: Progress | None = None, **params) -> int:
        for chunk in _batches(rows, batch_rows):
            self._tx.run(query, rows=chunk, **params).consume()
            self._touch()
            if progress:
                progress(len(chunk))
        return len(rows)


def _batches(rows: Sequence[dict], size: int) -> Iterator[list]:
    for start in range(0, len(rows), size):
        yield list(rows[start:start + size])


def _counters(summary: neo4j.ResultSummary) -> dict:
    c = summary.counters
    return {
        "nodes_created": c.nodes_created,
        "nodes_deleted": c.nodes_deleted,
        "relationships_created": c.relationships_created,
        "relationships_deleted": c.relationships_deleted,
        "properties_set": c.properties_set,
        "contains_updates": c.contains_updates or c.contains_system_updates,
    }

