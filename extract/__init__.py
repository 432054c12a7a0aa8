"""Sources into graph records, one folder per kind of source: ``pistol/`` (contract graphs),
``text/`` (corpora to triples) and ``wikidata/`` (entity JSON to subjects and facts).
Nothing here imports ``audit``; ``audit.build`` adds the questions and writes the graph."""
