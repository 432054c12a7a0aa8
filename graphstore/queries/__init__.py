"""The graph's Cypher, in one place: ``graph.py`` (schema, ingest, structure) and
``selectors.py`` (what an audit reads: its edges, the forget-set selectors, passages, Wikidata
subjects), read as one namespace: ``from graphstore import queries as Q``. What an audit writes (runs,
results, the Browser leakage) is audit's own Cypher: ``audit/results/queries.py``, under these rules.

Rules (see docs/schema.md):
- values always travel as parameters; nothing user-given is spliced into a query;
- writes are ``UNWIND $rows AS row`` batches;
- lookups anchor on node keys: on the embedded engine a relationship found by its own
  property is a full scan, so an edge is reached from its head entity's key;
- everything here is valid Neo4j 5 Cypher and runs on the embedded ArcadeDB as well.
"""

from graphstore.queries.graph import *  # noqa: F401,F403 -- one namespace of named queries
from graphstore.queries.selectors import *  # noqa: F401,F403
