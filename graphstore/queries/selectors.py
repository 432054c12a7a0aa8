"""Cypher an audit reads the graph with: the edges it audits, the named forget-set selectors,
text passages, and Wikidata subjects. (What an audit writes, its runs and results, is
audit's own: ``audit/results/queries.py``.)

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
