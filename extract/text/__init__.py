"""Text corpora: read documents, cut passages, extract triples (rules or REBEL), normalize entities."""
