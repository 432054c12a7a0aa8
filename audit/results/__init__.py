"""Results on the graph: the typed schema of Run, EdgeResult and FactResult nodes, and their reads and writes."""
