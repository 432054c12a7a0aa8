"""Cypher of the graphs themselves: schema, graphs, ingest, redundancy, structure, reading.

The rules of every query are in ``graphstore/queries/__init__.py``.
"""


# -- schema ------------------------------------------------------------------------------
# Idempotent: IF NOT EXISTS everywhere, so setup runs before every write.
SCHEMA = (
    "CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT graph_key IF NOT EXISTS FOR (n:Graph) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT component_key IF NOT EXISTS FOR (n:Component) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX entity_graph IF NOT EXISTS FOR (n:Entity) ON (n.graph)",
    "CREATE INDEX component_graph IF NOT EXISTS FOR (n:Component) ON (n.graph)",
    "CREATE CONSTRAINT run_key IF NOT EXISTS FOR (n:Run) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT edge_result_key IF NOT EXISTS FOR (n:EdgeResult) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX edge_result_run IF NOT EXISTS FOR (n:EdgeResult) ON (n.run)",
    "CREATE CONSTRAINT passage_key IF NOT EXISTS FOR (n:Passage) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX passage_graph IF NOT EXISTS FOR (n:Passage) ON (n.graph)",
    "CREATE CONSTRAINT property_key IF NOT EXISTS FOR (n:Property) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX property_graph IF NOT EXISTS FOR (n:Property) ON (n.graph)",
    "CREATE CONSTRAINT fact_result_key IF NOT EXISTS FOR (n:FactResult) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX fact_result_run IF NOT EXISTS FOR (n:FactResult) ON (n.run)",
    "CREATE CONSTRAINT experiment_key IF NOT EXISTS FOR (n:Experiment) REQUIRE n.key IS UNIQUE",
)
# Neo4j-only: a relationship property index. The embedded engine has none, and lookups
# anchor on node keys anyway; on Neo4j it speeds up ad-hoc `MATCH ()-[r:FACT {key: $k}]->()`.
SCHEMA_NEO4J_ONLY = (
    "CREATE INDEX fact_key IF NOT EXISTS FOR ()-[r:FACT]-() ON (r.key)",
)

# -- graphs (one per source file) -----------------------------------------------------------
GRAPH_GET = """
MATCH (g:Graph {key: $graph})
RETURN g.key AS key, g.source AS source, g.path AS path, g.sha256 AS sha256,
       g.entities AS entities, g.facts AS facts, g.qas AS qas, g.components AS components,
       g.loaded_at AS loaded_at, g.templates AS templates
"""

GRAPH_LIST = """
MATCH (g:Graph)
RETURN g.key AS key, g.source AS source, g.path AS path, g.entities AS entities,
       g.facts AS facts, g.qas AS qas, g.components AS components, g.loaded_at AS loaded_at
ORDER BY key
"""

GRAPH_CREATE = """
CREATE (g:Graph {key: $graph})
SET g += $props
"""

# Anchored on the graph's indexed keys, never a scan of every node.
GRAPH_DELETE = (
    "MATCH (p:Passage {graph: $graph}) DETACH DELETE p",
    "MATCH (p:Property {graph: $graph}) DELETE p",
    "MATCH (:Entity {graph: $graph})-[r:FACT]->() DELETE r",
    "MATCH (e:Entity {graph: $graph}) DETACH DELETE e",
    "MATCH (c:Component {graph: $graph}) DELETE c",
    "MATCH (g:Graph {key: $graph}) DELETE g",
)

# -- ingest ---------------------------------------------------------------------------------
ENTITIES_CREATE = """
UNWIND $rows AS row
CREATE (e:Entity {key: row.key, graph: row.graph, label: row.label, name: row.name, kind: row.kind})
SET e += row.props
"""

FACTS_CREATE = """
UNWIND $rows AS row
MATCH (h:Entity {key: row.head})
MATCH (t:Entity {key: row.tail})
CREATE (h)-[r:FACT {key: row.key, graph: row.graph, label: row.label, relation: row.relation,
                    domain: row.domain, split: row.split, source: row.source,
                    head_key: row.head, tail_key: row.tail,
                    questions: row.questions, answers: row.answers,
                    qa_attributes: row.qa_attributes,
                    edge_degree: 0, component: -1, component_density: 0.0}]->(t)
SET r += row.attributes
"""

# Text sources: passages, and which entities each mentions (for the weaker redundancy signal).
PASSAGES_CREATE = """
UNWIND $rows AS row
CREATE (p:Passage {key: row.key, graph: row.graph, split: row.split, path: row.path,
                   document: row.document, position: row.position, text: row.text})
"""

# Knowledge-base sources (Wikidata): one node per property, joined to facts by FACT.relation = pid.
PROPERTIES_CREATE = """
UNWIND $rows AS row
CREATE (p:Property {key: row.key, graph: row.graph, pid: row.pid, label: row.label,
                    description: row.description, aliases: row.aliases, label_source: row.label_source})
"""

MENTIONS_CREATE = """
UNWIND $rows AS row
MATCH (p:Passage {key: row.passage})
MATCH (e:Entity {key: row.entity})
CREATE (p)-[:MENTIONS]->(e)
"""

# -- redundancy between forget and retain (HANKER: E_conf = E(G_forget) ∩ E(G_retain)) -------
# A fact is redundant when the other split states the same (head, relation, tail): both
# corpora share one node per normalized entity and inverse relations are stored one way, so
# "the same" is "a parallel edge with the same relation". Weaker signals on forget facts:
# the two entities are linked in the retain graph by another relation; both are mentioned
# in retain passages. OPTIONAL MATCH + count, not COUNT {}: inside the build's transaction
# the embedded engine evaluated COUNT {} subqueries with the outer variables unbound (every
# forget fact came out "linked"), while the same query after commit was right (measured).
REDUNDANCY_SET = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
OPTIONAL MATCH (h)-[same:FACT {relation: f.relation}]->(t)
WHERE same.split <> f.split
WITH h, f, t, count(same) > 0 AS redundant
OPTIONAL MATCH (h)-[other:FACT {split: 'retain'}]-(t)
WHERE other.relation <> f.relation
WITH h, f, t, redundant, count(other) > 0 AS linked
OPTIONAL MATCH (h)<-[:MENTIONS]-(ph:Passage {split: 'retain'})
WITH h, f, t, redundant, linked, count(ph) > 0 AS head_in_text
OPTIONAL MATCH (t)<-[:MENTIONS]-(pt:Passage {split: 'retain'})
WITH f, redundant, linked, head_in_text, count(pt) > 0 AS tail_in_text
SET f.redundant = redundant,
    f.linked_in_retain = f.split = 'forget' AND linked,
    f.entities_in_retain_text = f.split = 'forget' AND head_in_text AND tail_in_text
"""

REDUNDANCY_SUMMARY = """
MATCH (:Entity {graph: $graph})-[f:FACT]->()
WHERE f.split = 'forget'
RETURN count(f) AS forget, sum(CASE WHEN f.redundant THEN 1 ELSE 0 END) AS redundant,
       sum(CASE WHEN f.linked_in_retain THEN 1 ELSE 0 END) AS linked_in_retain,
       sum(CASE WHEN f.entities_in_retain_text THEN 1 ELSE 0 END) AS entities_in_retain_text
"""

# Nodes, edges and average degree (2E/V) of one split's facts, all of them or only those
# not redundant (the audit set, for the forget split).
SPLIT_STATS = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
WHERE f.split = $split AND ($all OR NOT f.redundant)
WITH collect(h.key) + collect(t.key) AS ends, count(f) AS edges
UNWIND ends AS node
WITH count(DISTINCT node) AS nodes, edges
RETURN nodes, edges, CASE WHEN nodes = 0 THEN 0.0 ELSE 2.0 * edges / nodes END AS average_degree
"""

# Entity names of the forget facts, for coverage of a QA benchmark.
FORGET_FACT_NAMES = """
MATCH (h:Entity {graph: $graph})-[f:FACT]->(t:Entity)
WHERE f.split = 'forget'
RETURN f.key AS key, h.label AS head, t.label AS tail, f.redundant AS redundant
ORDER BY key
"""

# -- structure (PISTOL: "edge degree" = inter-connectivity of a fact) -----------------------
NODE_DEGREE_SET = """
MATCH (n:Entity {graph: $graph})
SET n.degree = COUNT { (n)-[:FACT]-() }
"""

# Two lists in one row, not one row per edge: streaming 100k rows over Bolt costs ~6x more
# than the same values collected (measured, embedded engine).
EDGE_LIST = """
MATCH (u:Entity {graph: $graph})-[:FACT]->(v:Entity)
RETURN collect(u.key) AS heads, collect(v.key) AS tails
"""

ENTITY_NAMES = """
MATCH (n:Entity {graph: $graph})
RETURN collect(n.key) AS keys, collect(n.name) AS names
"""

ENTITY_KEYS = """
MATCH (n:Entity {graph: $graph})
RETURN collect(n.key) AS keys
"""

GDS_PRESENT = """
SHOW PROCEDURES YIELD name WHERE name = 'gds.wcc.stream' RETURN count(*) AS n
"""

GDS_PROJECT = """
MATCH (u:Entity {graph: $graph})
OPTIONAL MATCH (u)-[:FACT]->(v:Entity)
WITH gds.graph.project($projection, u, v, {}, {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS name
"""

GDS_WCC_STREAM = """
CALL gds.wcc.stream($projection) YIELD nodeId, componentId
RETURN gds.util.asNode(nodeId).key AS key, componentId AS component
"""

GDS_DROP = "CALL gds.graph.drop($projection, false) YIELD graphName RETURN graphName"

ENTITY_COMPONENT_SET = """
UNWIND $rows AS row
MATCH (n:Entity {key: row.key})
SET n.component = row.component
"""

COMPONENTS_DELETE = """
MATCH (c:Component {graph: $graph})
DELETE c
"""

# Edges per component = half the sum of its nodes' degrees (every edge has two ends, and
# extractors drop self-loops). Density 2E / (V(V-1)) as in PISTOL; a lone node has density 0.
COMPONENTS_CREATE = """
MATCH (n:Entity {graph: $graph})
WITH n.component AS idx, count(n) AS nodes, sum(n.degree) / 2 AS edges
CREATE (c:Component {key: $graph + '/' + toString(idx), graph: $graph, index: idx,
                     nodes: nodes, edges: edges,
                     density: CASE WHEN nodes > 1 THEN 2.0 * edges / (nodes * (nodes - 1)) ELSE 0.0 END})
RETURN count(c) AS components
"""

# deg(e) = deg(u) + deg(v) - 1 (PISTOL, Qiu et al. 2024, Sec. 3): the facts that share an
# entity with e, e itself counted once.
EDGE_STRUCTURE_SET = """
MATCH (u:Entity {graph: $graph})-[r:FACT]->(v:Entity)
MATCH (c:Component {key: $graph + '/' + toString(u.component)})
SET r.edge_degree = u.degree + v.degree - 1,
    r.component = u.component,
    r.component_density = c.density
"""

GRAPH_STRUCTURE_SET = """
MATCH (g:Graph {key: $graph})
SET g.components = $components
"""

# -- reading --------------------------------------------------------------------------------
EDGES_TABLE = """
MATCH (h:Entity)-[r:FACT]->(t:Entity)
WHERE $graph IS NULL OR h.graph = $graph
RETURN r.key AS key, r.graph AS graph, r.label AS edge, r.source AS source, r.domain AS domain,
       h.name AS head, t.name AS tail, r.edge_degree AS edge_degree,
       r.component AS component, r.component_density AS component_density,
       r.split AS split, size(r.questions) AS qas
ORDER BY graph, component, key
"""

COUNT_LABELS = """
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label
"""

COUNT_TYPES = """
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type
"""
