"""Every Cypher query of the project, in one place: ``graph.py`` (schema, ingest, structure) and
``audit.py`` (selectors, runs, results), read as one namespace: ``from graphstore import queries as Q``.

Rules (see docs/schema.md):
- values always travel as parameters; nothing user-given is spliced into a query;
- writes are ``UNWIND $rows AS row`` batches;
- lookups anchor on node keys: on the embedded engine a relationship found by its own
  property is a full scan, so an edge is reached from its head entity's key;
- everything here is valid Neo4j 5 Cypher and runs on the embedded ArcadeDB as well.
"""

from graphstore.queries.audit import *  # noqa: F401,F403 -- one namespace of named queries
from graphstore.queries.graph import *  # noqa: F401,F403
from graphstore.queries.audit import leakage_create  # noqa: F401 (the one builder function)
