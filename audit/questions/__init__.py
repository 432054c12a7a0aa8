"""Writing questions at build time: templates, the Wikidata property registry, LLM-written questions."""
