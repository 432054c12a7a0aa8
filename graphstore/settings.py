"""How to reach the graph: options, then environment, then the embedded default."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from graphstore.errors import ConfigError

ENV_URI = "AUDIT_NEO4J_URI"
ENV_USER = "AUDIT_NEO4J_USER"
ENV_PASSWORD = "AUDIT_NEO4J_PASSWORD"
ENV_DATABASE = "AUDIT_NEO4J_DATABASE"
ENV_HOME = "AUDIT_HOME"
ENV_QUERY_TIMEOUT = "AUDIT_QUERY_TIMEOUT"
ENV_MAX_ROWS = "AUDIT_MAX_ROWS"
DEFAULT_MAX_ROWS = 1_000_000
DEFAULT_QUERY_TIMEOUT_S = 3600.0

DEFAULT_STORE_DIR = ".audit"
DEFAULT_NEO4J_DATABASE = "neo4j"
DEFAULT_EMBEDDED_DATABASE = "audit"


@dataclass(frozen=True)
class ConnectionSettings:
    """Where the graph lives.

    With ``uri`` set, the store connects to that Bolt server (Neo4j 5 in production).
    Without it, the store starts (or reuses) the embedded ArcadeDB server kept in
    ``store_dir``.
    """

    uri: str | None = field(default=None, metadata={"help": "Bolt URI of a Neo4j 5 server; none = embedded"})
    user: str | None = field(default=None, metadata={"help": "user name for the Bolt server"})
    password: str | None = field(default=None, metadata={"help": "password for the Bolt server"})
    database: str | None = field(default=None, metadata={"help": "database name; every query names it"})
    store_dir: Path = field(default=Path(DEFAULT_STORE_DIR), metadata={"help": "embedded store folder"})
    max_rows: int = field(default=DEFAULT_MAX_ROWS, metadata={
        "help": "rows a read-only user's query may return (they are held in memory to print)"})
    query_timeout_s: float = field(default=DEFAULT_QUERY_TIMEOUT_S, metadata={
        "help": "seconds a user's query (audit query, --cypher) may run before Neo4j stops it; 0 = no limit"})

    @property
    def embedded(self) -> bool:
        return self.uri is None

    @classmethod
    def resolve(
        cls,
        uri: str | None = None,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        store_dir: str | os.PathLike | None = None,
        environ: "os._Environ[str] | dict[str, str] | None" = None,
    ) -> "ConnectionSettings":
        """Options win over environment variables, which win over defaults.

        Raises:
            ConfigError: a server URI without a password, or a URI scheme the driver
                does not speak.
        """
        env = os.environ if environ is None else environ
        uri = uri or env.get(ENV_URI) or None
        user = user or env.get(ENV_USER) or None
        password = password or env.get(ENV_PASSWORD) or None
        database = database or env.get(ENV_DATABASE) or None
        home = store_dir or env.get(ENV_HOME) or DEFAULT_STORE_DIR
        query_timeout_s = query_timeout_from(env)
        if uri is not None:
            scheme = uri.split("://", 1)[0] if "://" in uri else ""
            valid = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
            if scheme not in valid:
                raise ConfigError(
                    f"URI {uri!r} has no Bolt scheme; use one of {', '.join(s + '://' for s in valid)}"
                )
            if password is None:
                raise ConfigError(
                    f"a password is needed for {uri}: pass --password or set {ENV_PASSWORD}"
                )
            user = user or "neo4j"
            database = database or DEFAULT_NEO4J_DATABASE
        else:
            database = database or DEFAULT_EMBEDDED_DATABASE
        rows_text = env.get(ENV_MAX_ROWS) or str(DEFAULT_MAX_ROWS)
        if not rows_text.isdigit() or not 1 <= int(rows_text) < 2**63:
            raise ConfigError(f"{ENV_MAX_ROWS}={rows_text!r}: give a positive whole number of rows")
        return cls(uri=uri, user=user, password=password, database=database, store_dir=Path(home),
                   query_timeout_s=query_timeout_s, max_rows=int(rows_text))


def query_timeout_from(env) -> float:
    """Seconds one statement may run, from ``AUDIT_QUERY_TIMEOUT`` (default one hour; 0: no limit).

    Raises:
        ConfigError: not a finite number of seconds, 0 or more.
    """
    text = env.get(ENV_QUERY_TIMEOUT) or str(DEFAULT_QUERY_TIMEOUT_S)
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ConfigError(f"{ENV_QUERY_TIMEOUT}={text!r}: give seconds, 0 or more (0 = no limit)")
    return seconds
