"""The word lists the text pipeline reads: the gazetteer (countries, sports, ...) and the news
lexicon (positions, parties, ...), each read once. A module of its own because both the pipeline
(``nlp``) and the components it registers (``roles``) need them, and ``nlp`` imports ``roles``."""

from __future__ import annotations

import functools
import json
from importlib import resources

from spacy.lookups import load_lookups


def _data(name: str) -> dict:
    return json.loads(resources.files("extract").joinpath(f"data/{name}").read_text("utf-8"))


@functools.lru_cache(maxsize=1)
def gazetteer() -> dict:
    return _data("gazetteer.v1.json")


@functools.lru_cache(maxsize=1)
def news_lexicon() -> dict:
    return _data("news_lexicon.v1.json")


@functools.lru_cache(maxsize=1)
def cities() -> frozenset[str]:
    """Names of cities of 100,000 people or more (GeoNames; ``data/cities.v1.json`` says which)."""
    return frozenset(_data("cities.v1.json")["cities"])


@functools.lru_cache(maxsize=1)
def demonym_countries() -> dict[str, str]:
    """'German' -> 'Germany', 'American' -> 'United States'."""
    return {d.lower(): c["name"] for c in gazetteer()["countries"] for d in c["demonyms"]}


@functools.lru_cache(maxsize=1)
def country_aliases() -> dict[str, str]:
    """Every way of writing a country, lower-cased -> its canonical name."""
    out = {c["name"].lower(): c["name"] for c in gazetteer()["countries"]}
    out.update({a.lower(): c["name"] for c in gazetteer()["countries"] for a in c["aliases"]})
    return out


@functools.lru_cache(maxsize=1)
def lemma_table():
    """spaCy's English lookup lemmas: inflected form -> lemma ("schools" -> "school")."""
    return load_lookups("en", ["lemma_lookup"]).get_table("lemma_lookup")


@functools.lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The lemmas of spaCy's English lookup table: "bakery", "port", "green"."""
    return frozenset(lemma_table().values())


def one_english_word(text: str) -> bool:
    """"Bakery", "Township", "Meridian": a name of one word that is also an English word."""
    return " " not in text and text.lower() in english_words()


@functools.lru_cache(maxsize=1)
def tail_types() -> dict[str, str]:
    """Last word of a place's name, lower-cased -> the relation "located in" it is: 'sea' -> P206."""
    return {w: rel for rel, words in gazetteer()["tail_types"].items() if rel != "about" for w in words}
