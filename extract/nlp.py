"""The spaCy pipeline every text extractor reads through.

Offline (the default) it is a blank English pipeline plus rule components:

- ``sentencizer``: sentence boundaries from punctuation;
- ``lemmatizer`` in lookup mode (tables from ``spacy-lookups-data``): "was" -> "be",
  "founded" -> "found", so one frame pattern covers every tense;
- ``entity_ruler``: the gazetteer (countries and their aliases, nationalities, occupations)
  and date shapes ("5 May 1900", "May 5, 1900", "1900");
- ``name_spans``: runs of capitalised words ("University of Cambridge", "David M. Louie")
  as ``NAME`` entities, since a blank pipeline has no statistical NER;
- ``merge_entities``: every entity becomes one token, so frame patterns match it as a unit.

With ``spacy_model`` (a trained pipeline the user has installed, e.g. ``en_core_web_sm``),
its parser gives the sentences and its NER the names; the gazetteer ruler runs after it and
overrides it for countries, nationalities, occupations and dates.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import spacy
from spacy.language import Language
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from graphstore.errors import ConfigError

# Labels our rules read. A trained pipeline's own name labels count as NAME.
NAME_LABELS = ("NAME", "PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT",
               "LAW", "LANGUAGE")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
MONTH_ABBREVIATIONS = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct",
                       "Nov", "Dec")
# Lower-case words allowed inside a capitalised name: "University of Cambridge",
# "Ludwig van Beethoven", "Bosnia and Herzegovina" is in the gazetteer instead.
NAME_CONNECTORS = frozenset({"of", "de", "del", "della", "di", "da", "van", "von", "der", "den",
                             "la", "le", "du", "des", "y", "al", "bin", "ibn", "&"})
# Capitalised words that start sentences or titles but are not names by themselves.
NOT_NAMES = frozenset(w.capitalize() for w in STOP_WORDS) | set(MONTHS) | {
    "Born", "Died", "Mr", "Mrs", "Ms", "Dr", "Sir", "Lord", "Lady", "St", "According", "Since",
    "During", "Following", "Despite", "Today", "Yesterday", "Monday", "Tuesday", "Wednesday",
    "Thursday", "Friday", "Saturday", "Sunday", "After", "Before", "While", "Although", "Although",
}
MAX_NAME_TOKENS = 8


@functools.lru_cache(maxsize=1)
def gazetteer() -> dict:
    return json.loads(resources.files("extract").joinpath("data/gazetteer.v1.json").read_text("utf-8"))


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


def _phrase_pattern(label: str, phrase: str, kind: str) -> dict:
    # Token patterns on LOWER, so "german" and "German" both match; the ruler's own
    # tokenization of the phrase keeps "singer-songwriter" and "U.S." right.
    words = spacy.blank("en").tokenizer(phrase)
    return {"label": label, "pattern": [{"LOWER": w.lower_} for w in words], "id": kind}


@functools.lru_cache(maxsize=1)
def ruler_patterns() -> list[dict]:
    g = gazetteer()
    patterns = []
    for country in g["countries"]:
        for name in [country["name"], *country["aliases"]]:
            patterns.append(_phrase_pattern("COUNTRY", name, "country"))
        for demonym in country["demonyms"]:
            patterns.append(_phrase_pattern("NORP", demonym, "nationality"))
    for occupation in g["occupations"]:
        patterns.append(_phrase_pattern("OCCUPATION", occupation, "occupation"))
    month = {"TEXT": {"IN": list(MONTHS) + list(MONTH_ABBREVIATIONS)}}
    day = {"SHAPE": {"IN": ["d", "dd"]}}
    year = {"SHAPE": "dddd"}
    for shape in ([day, month, year],                         # 5 May 1900
                  [month, day, {"ORTH": ",", "OP": "?"}, year],  # May 5, 1900
                  [month, year],                              # May 1900
                  [year]):                                    # 1900
        patterns.append({"label": "DATE", "pattern": shape, "id": "date"})
    return patterns


@Language.component("name_spans")
def name_spans(doc: Doc) -> Doc:
    """Mark runs of capitalised words as NAME entities where no other entity is.

    A run starts at a title-case or all-caps word that is not a stop word, may go on through
    capitalised words, initials ("M.") and the connectors of ``NAME_CONNECTORS``, and never
    ends on a connector.
    """
    taken = [False] * len(doc)
    for ent in doc.ents:
        for i in range(ent.start, ent.end):
            taken[i] = True

    def capital(token) -> bool:
        text = token.text
        return (text[:1].isupper() and not taken[token.i]
                and (token.is_title or token.is_upper or (len(text) == 2 and text[1] == ".")
                     or any(c.isupper() for c in text[1:])))

    spans = []
    i = 0
    while i < len(doc):
        token = doc[i]
        if not capital(token) or token.text in NOT_NAMES:
            i += 1
            continue
        end = i + 1
        last_good = end
        while end < len(doc) and end - i < MAX_NAME_TOKENS:
            nxt = doc[end]
            if capital(nxt):
                end += 1
                last_good = end
            elif nxt.lower_ in NAME_CONNECTORS and not taken[end]:
                end += 1
            else:
                break
        spans.append(Span(doc, i, last_good, label="NAME"))
        i = last_good
    doc.ents = filter_spans(list(doc.ents) + spans)
    return doc


@functools.lru_cache(maxsize=4)
def load_pipeline(spacy_model: str | None = None) -> Language:
    """The pipeline for ``spacy_model`` (a trained pipeline's name or path), or the blank one.

    Raises:
        ConfigError: the trained pipeline is not installed, or the lookup tables are missing.
    """
    if spacy_model:
        try:
            nlp = spacy.load(spacy_model, exclude=["lemmatizer"])
        except OSError as e:
            raise ConfigError(
                f"--spacy-model {spacy_model!r} is not an installed spaCy pipeline ({e}); "
                "install it (python -m spacy download NAME) or leave the option out for the "
                "offline rules pipeline") from e
        if not nlp.has_pipe("parser") and not nlp.has_pipe("senter"):
            nlp.add_pipe("sentencizer", first=True)
        ruler = nlp.add_pipe("entity_ruler", after="ner" if nlp.has_pipe("ner") else None,
                             config={"overwrite_ents": True})
    else:
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": None})
    nlp.add_pipe("lemmatizer", name="lookup_lemmatizer", config={"mode": "lookup"})
    ruler.add_patterns(ruler_patterns())
    nlp.add_pipe("name_spans")
    nlp.add_pipe("merge_entities")
    try:
        nlp.get_pipe("lookup_lemmatizer").initialize()
    except (ValueError, OSError) as e:
        raise ConfigError(f"spaCy's lookup lemmas are missing ({e}); pip install spacy-lookups-data") from e
    nlp.max_length = 2_000_000
    return nlp


def is_name(token) -> bool:
    return token.ent_type_ in NAME_LABELS
