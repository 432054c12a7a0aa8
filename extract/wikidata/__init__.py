"""Wikidata subjects: read entity JSON in every form, decode values, generate synthetic people."""
