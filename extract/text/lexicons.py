"""The one loader of the word lists the text pipeline reads, each file read once: the gazetteer
(countries, sports, ...), the news lexicon (positions, parties, ...), the rules lexicon (the
extractor's own word lists, word maps and the weights of the evidence for a name's kind) and the
cities. No module of ``extract.text`` keeps a word list of its own; each asks here by name.
A module of its own because both the pipeline (``nlp``) and the components it registers
(``roles``) need them, and ``nlp`` imports ``roles``.

Example:
    >>> "tenant" in rule_words("non_trades"), rule_word_map("verb_roles")["chaired"]
    (True, 'chair')
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from types import MappingProxyType
from typing import Mapping



def _data(name: str) -> dict:
    return json.loads(resources.files("extract").joinpath(f"data/{name}").read_text("utf-8"))


@functools.lru_cache(maxsize=1)
def gazetteer() -> dict:
    return _data("gazetteer.v1.json")


@functools.lru_cache(maxsize=1)
def news_lexicon() -> dict:
    return _data("news_lexicon.v1.json")


@functools.lru_cache(maxsize=1)
def rules_lexicon() -> dict:
    return _data("rules_lexicon.v1.json")


def lexicon_versions() -> str:
    """The versions of the word lists the rules extractor reads: "gazetteer.v1+news_lexicon.v1+..."."""
    return "+".join((gazetteer()["version"], news_lexicon()["version"], rules_lexicon()["version"]))


@functools.lru_cache(maxsize=None)
def word_set(name: str) -> frozenset[str]:
    """One of the news lexicon's flat word lists, lower-cased: 'org_words', 'team_words', ..."""
    return frozenset(w.lower() for w in news_lexicon()[name])


@functools.lru_cache(maxsize=None)
def rule_word_list(name: str) -> tuple[str, ...]:
    """One of the rules lexicon's word lists, in its order, with the lists it includes first and
    without the words it leaves out ("except").

    Raises:
        KeyError: naming the list and the valid names.
    """
    lists = rules_lexicon()["words"]
    if name not in lists:
        raise KeyError(f"no word list {name!r} in {rules_lexicon()['version']}; valid: {', '.join(sorted(lists))}")
    entry = lists[name]
    out = [w for other in entry.get("include", ()) for w in rule_word_list(other)] + list(entry["words"])
    leave_out = set(entry.get("except", ()))
    return tuple(dict.fromkeys(w for w in out if w not in leave_out))


@functools.lru_cache(maxsize=None)
def rule_words(name: str) -> frozenset[str]:
    """One of the rules lexicon's word lists as a set: ``rule_words("non_trades")``."""
    return frozenset(rule_word_list(name))


@functools.lru_cache(maxsize=None)
def alternation(name: str) -> str:
    """One of the rules lexicon's word lists as a frame pattern's alternative: "film|movie|album"."""
    return "|".join(rule_word_list(name))


@functools.lru_cache(maxsize=None)
def rule_word_map(name: str) -> Mapping[str, str]:
    """One of the rules lexicon's word maps: ``rule_word_map("verb_roles")["chaired"] == "chair"``."""
    maps = rules_lexicon()["maps"]
    if name not in maps:
        raise KeyError(f"no word map {name!r} in {rules_lexicon()['version']}; valid: {', '.join(sorted(maps))}")
    return MappingProxyType(dict(maps[name]["map"]))


@functools.lru_cache(maxsize=1)
def evidence_weights() -> dict[str, tuple[str, int]]:
    """Each clue to what a name is (``name_kinds.evidence``) -> (the kind it votes for, its weight)."""
    return {name: (e["kind"], e["weight"]) for name, e in rules_lexicon()["evidence"].items()}


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
    # spaCy (and through it torch) is loaded here, not when the lexicons are: every command
    # reads the lexicon versions, few need lemmas
    from spacy.lookups import load_lookups
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
