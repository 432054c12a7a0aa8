"""Cypher of the results: runs, experiments, per-edge and per-fact result nodes, the memorized-fact
selector that reads them, and the leakage relationships drawn for Neo4j Browser.

They live beside the results package, not in graphstore, because their labels (``Run``,
``EdgeResult``, ``FactResult``, ``Experiment``, the leakage types) are audit's: graphstore knows the
graph (entities, facts, passages, components), not what an audit writes about it. The rules are
graphstore's (``graphstore/queries/__init__.py``): values as parameters, writes as
``UNWIND $rows`` batches, valid Neo4j 5 that runs on the embedded engine too. Every statement
here is checked by Neo4j's own front-end (tests/graphstore/test_cypher_conformance.py), and
tests/test_layout.py checks that no query is written anywhere but a query module.
"""

# -- runs and per-edge results ----------------------------------------------------------------
RUN_GET = """
MATCH (r:Run {key: $run})
RETURN r AS run
"""

RUN_CREATE = """
CREATE (r:Run {key: $run})
SET r += $props
"""

RUN_UPDATE = """
MATCH (r:Run {key: $run})
SET r += $props
"""

RUN_LIST = """
MATCH (r:Run)
WHERE $graph IS NULL OR r.graph = $graph
RETURN r.key AS key, r.graph AS graph, r.method AS method, r.mode AS mode, r.model AS model,
       r.selector AS selector, size(r.forget_edges) AS forget_edges, r.status AS status,
       r.deviation_score AS deviation_score, r.started_at AS started_at, r.ended_at AS ended_at,
       r.resumed_at AS resumed_at, r.lock AS lock
ORDER BY started_at
"""

# -- experiments: a grid of runs ------------------------------------------------------------------
EXPERIMENT_GET = """
MATCH (e:Experiment {key: $experiment})
RETURN properties(e) AS experiment
"""

EXPERIMENT_MERGE = """
MERGE (e:Experiment {key: $experiment})
SET e += $props
"""

# A run joins its experiment as a cell (`role: 'cell'`) or as a learning-rate protocol trial.
EXPERIMENT_LINK_RUN = """
MATCH (e:Experiment {key: $experiment})
MATCH (r:Run {key: $run})
MERGE (e)-[h:HAS_RUN]->(r)
SET h.role = $role, h.cell = $cell
"""

EXPERIMENT_UNLINK_RUN = """
MATCH (:Experiment {key: $experiment})-[h:HAS_RUN]->(:Run {key: $run})
DELETE h
"""

EXPERIMENT_RUNS = """
MATCH (e:Experiment {key: $experiment})-[h:HAS_RUN]->(r:Run)
RETURN r.key AS run, h.role AS role, h.cell AS cell, properties(r) AS props
ORDER BY run
"""

# One result node per (run, edge), found again by its key: re-running a run never duplicates
# a result, and a later phase only adds properties to it.
RESULTS_MERGE = """
UNWIND $rows AS row
MATCH (r:Run {key: $run})
MERGE (x:EdgeResult {key: row.key})
SET x += row.props
MERGE (r)-[:HAS_RESULT]->(x)
"""

RESULTS_FOR_RUN = """
MATCH (x:EdgeResult {run: $run})
RETURN x AS result
ORDER BY x.edge
"""

RESULTS_DELETE = """
MATCH (x:EdgeResult {run: $run})
DETACH DELETE x
"""

RUN_DELETE = """
MATCH (r:Run {key: $run})
DETACH DELETE r
"""

# One result node per (run, subject, property), linked to its run and to its subject.
FACT_RESULTS_MERGE = """
UNWIND $rows AS row
MATCH (r:Run {key: $run})
MATCH (s:Entity {key: row.subject_key})
MERGE (x:FactResult {key: row.key})
SET x += row.props
MERGE (r)-[:HAS_RESULT]->(x)
MERGE (x)-[:ABOUT]->(s)
"""

FACT_RESULTS_FOR_RUN = """
MATCH (x:FactResult {run: $run})
RETURN x AS result
ORDER BY x.key
"""

FACT_RESULTS_DELETE = """
MATCH (x:FactResult {run: $run})
DETACH DELETE x
"""

# The latest finished memorization run of a graph that measured any of $subjects.
LATEST_MEMORIZATION_RUN = """
MATCH (r:Run {graph: $graph})
WHERE r.kind = 'memorization' AND r.status = 'done'
  AND any(q IN r.subjects WHERE q IN $subjects)
RETURN r.key AS key
ORDER BY r.ended_at DESC, key DESC
LIMIT 1
"""

# Right to be forgotten: every fact of these subjects that a memorization run found memorized.
SELECT_MEMORIZED = """
MATCH (x:FactResult {run: $run})
WHERE x.subject IN $subjects AND x.memorized
UNWIND x.edges AS key
RETURN DISTINCT key
ORDER BY key
"""


# -- leakage for Neo4j Browser ------------------------------------------------------------------
# Browser styles colour by relationship type, not by a number: a run's leakage is written as one
# relationship per measured edge beside its FACT, typed by status, captioned with the score
# (docs/leakage.md; docker/neo4j/ ships the stylesheet). The type is spliced in from this
# whitelist only; everything else travels as parameters.
LEAKAGE_TYPES = {"leaked": "LEAKED", "partly_forgotten": "PARTLY_FORGOTTEN", "forgotten": "FORGOTTEN",
                 "damaged": "DAMAGED"}


def leakage_create(status: str) -> str:
    """The CREATE for one status's relationships (the type comes from ``LEAKAGE_TYPES``)."""
    rel_type = LEAKAGE_TYPES[status]
    return f"""
UNWIND $rows AS row
MATCH (h:Entity {{key: row.head}})
MATCH (t:Entity {{key: row.tail}})
CREATE (h)-[l:{rel_type} {{run: $run, edge: row.edge, role: row.role, status: row.status, score: row.score,
                         caption: row.caption}}]->(t)
SET l += row.measures
"""


LEAKAGE_DELETE = """
MATCH (:Entity {graph: $graph})-[l:LEAKED|PARTLY_FORGOTTEN|FORGOTTEN|DAMAGED]->()
WHERE l.run = $run
DELETE l
"""
