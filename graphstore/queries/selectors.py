"""Cypher of audits: forget-set selectors, runs and their results, Wikidata subjects, Browser leakage.

The rules of every query are in ``graphstore/queries/__init__.py``.
"""

# -- audits: the edges an audit reads, and the named forget-set selectors -------------------
# Each selector returns one column, `key`, of edge keys; `audit run --cypher` takes any query
# that does the same. See docs/runs.md.
AUDIT_EDGES = """
MATCH (:Entity {graph: $graph})-[f:FACT]->(:Entity)
RETURN f.key AS key, f.head_key AS head_key, f.tail_key AS tail_key, f.domain AS domain,
       f.edge_degree AS edge_degree, f.component AS component,
       f.component_density AS component_density, f.questions AS questions, f.answers AS answers,
       f.redundant AS redundant
ORDER BY key
"""

# Text graphs: the passages and which of them state each fact (training on text, `--train-on passages`).
PASSAGES_OF_GRAPH = """
MATCH (p:Passage {graph: $graph})
RETURN p.key AS key, p.split AS split, p.text AS text
ORDER BY key
"""

FACT_PASSAGES = """
MATCH (:Entity {graph: $graph})-[f:FACT]->(:Entity)
RETURN f.key AS key, f.passages AS passages
ORDER BY key
"""

# Resurfacing checks: every fact with all its properties (attribute values and which template each
# question came from) and its two entities' names, for probe questions and matched non-members.
FACTS_FOR_PROBES = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
RETURN f.key AS key, f.domain AS domain, f.head_key AS head_key, f.tail_key AS tail_key,
       h.name AS head_name, t.name AS tail_name, properties(f) AS props
ORDER BY key
"""

SELECT_TOP_DEGREE = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
RETURN f.key AS key
ORDER BY f.edge_degree DESC, key
LIMIT $k
"""

SELECT_BOTTOM_DEGREE = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
RETURN f.key AS key
ORDER BY f.edge_degree ASC, key
LIMIT $k
"""

SELECT_DOMAIN = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
WHERE f.domain = $domain
RETURN f.key AS key
ORDER BY key
"""

# Tiers of component density: sparse <= $low < mid <= $high < dense. The random pick among
# the candidates is made in Python with the run's seed (Cypher's rand() cannot be seeded).
SELECT_DENSITY_TIER = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
WITH f, CASE WHEN f.component_density <= $low THEN 'sparse'
             WHEN f.component_density <= $high THEN 'mid'
             ELSE 'dense' END AS tier
WHERE tier = $tier
RETURN f.key AS key
ORDER BY key
"""

ENTITY_FIND = """
MATCH (e:Entity {graph: $graph})
WHERE e.key = $entity OR e.label = $entity OR e.name = $entity
RETURN e.key AS key, e.name AS name
ORDER BY key
"""

# Text graphs: the audit set (forget facts the retain corpus does not also state), or a split.
SELECT_AUDIT_SET = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
WHERE f.split = 'forget' AND NOT coalesce(f.redundant, false)
RETURN f.key AS key
ORDER BY key
"""

SELECT_SPLIT = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
WHERE f.split = $split
RETURN f.key AS key
ORDER BY key
"""

SELECT_ENTITY = """
MATCH (:Entity {key: $entity})-[f:FACT]-()
RETURN DISTINCT f.key AS key
ORDER BY key
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

EXPERIMENT_DELETE = """
MATCH (e:Experiment {key: $experiment})
DETACH DELETE e
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

# -- Wikidata subjects and per-fact memorization (WikiMem) -------------------------------------
# Every fact of a Wikidata graph with its subject and value, for canaries and counterfactuals.
WIKIDATA_FACTS = """
MATCH (s:Entity {graph: $graph})-[f:FACT]->(:Entity)
RETURN f.key AS key, f.subject AS subject, s.key AS subject_key, s.name AS subject_name,
       f.relation AS pid, f.property_label AS property_label, f.value AS value,
       f.value_type AS value_type, f.value_precision AS precision
ORDER BY key
"""

SUBJECT_FIND = """
MATCH (s:Entity {graph: $graph})-[:FACT]->()
WHERE s.key = $subject OR s.label = $subject OR s.name = $subject
RETURN DISTINCT s.label AS qid, s.name AS name
ORDER BY qid
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
