"""The graph layer: keeps entities, facts and QA pairs, and computes their structure."""

from graphstore.errors import (
    AuditError,
    ConfigError,
    EmbeddedServerError,
    InputDataError,
    KeyValidationError,
    QueryError,
    StoreError,
)
from graphstore.settings import ConnectionSettings
from graphstore.store import GraphStore, QueryResult

__all__ = [
    "AuditError", "ConfigError", "ConnectionSettings", "EmbeddedServerError", "GraphStore",
    "InputDataError", "KeyValidationError", "QueryError", "QueryResult", "StoreError",
]
