"""The project's exceptions: one root, narrow subclasses.

Every error the library raises on purpose is an ``AuditError``; the CLI turns it into one
line ``Error: ...`` and a non-zero exit. The root lives here, in the bottom layer, so that
``extract`` and ``audit`` can subclass it without importing each other.
"""


class AuditError(Exception):
    """Root of every error this project raises on purpose."""


class ConfigError(AuditError):
    """An option or environment variable has a value we cannot use."""


class StoreError(AuditError):
    """The graph database could not be reached, started or queried. ``retryable``: the engine
    said the same work may succeed if tried again (a transient conflict between transactions)."""

    retryable = False


class EmbeddedServerError(StoreError):
    """The embedded ArcadeDB server could not be started, found or stopped."""


class QueryError(StoreError):
    """A Cypher query was refused by the database (syntax, types, constraints)."""


class KeyValidationError(AuditError):
    """A node or edge key is missing, null or malformed; raised before anything is sent."""


class BackendCallError(AuditError):
    """One call to a language-model backend failed (HTTP error, network, timeout, odd response).

    ``reason`` names the failure for counting (``http_500``, ``timeout``, ``network``,
    ``bad_response``). Question synthesis counts it against one fact; the LLM extractor retries
    and then refuses the build, naming the passage."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


class InputDataError(AuditError):
    """A user's input file is unusable; the message names the file and the record."""

    def __init__(self, path, message: str, record: "int | str | None" = None):
        self.path = str(path)
        self.record = record
        where = self.path if record is None else f"{self.path}, record {record}"
        super().__init__(f"{where}: {message}")
