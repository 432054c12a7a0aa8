"""The spaCy pipeline every text extractor reads through.

Offline (the default) it is a blank English pipeline plus rule components:

- ``sentencizer``: sentence boundaries from punctuation;
- ``lemmatizer`` in lookup mode (tables from ``spacy-lookups-data``): "was" -> "be",
  "founded" -> "found", so one frame pattern covers every tense;
- ``entity_ruler``: the gazetteer (countries and their aliases, nationalities, continents,
  occupations) and date shapes ("5 May 1900", "May 5, 1900", "1900");
- ``name_spans``: runs of capitalised words ("University of Cambridge", "David M. Louie",
  "Saint-Étienne-du-Rouvray", "University of Iceland", "the 1964 Summer Olympics") and
  titles in double quotes as ``NAME`` entities, since a blank pipeline has no statistical NER;
- ``merge_entities``: every entity becomes one token, so frame patterns match it as a unit.

With ``spacy_model`` (a trained pipeline the user has installed, e.g. ``en_core_web_sm``),
its parser gives the sentences and its NER the names; the gazetteer ruler runs after it and
overrides it for countries, nationalities, occupations and dates.
"""

from __future__ import annotations

import functools
import re

import spacy
from spacy.language import Language
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.pipeline import EntityRuler, Lemmatizer
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extract.text import roles  # noqa: F401  (registers the news_spans and line_breaks components)
from extract.text.lexicons import (cities, country_aliases, demonym_countries, english_words, gazetteer,  # noqa: F401
                                   rule_word_list, rule_words)
from graphstore.errors import ConfigError

# Labels our rules read. A trained pipeline's own name labels count as NAME.
NAME_LABELS = ("NAME", "PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT",
               "LAW", "LANGUAGE")
MAX_NAME_TOKENS = 8
# "Ndung'u", "Kau'i": an apostrophe inside a name, a lower-case letter after it (not "'s").
_INNER_APOSTROPHE = re.compile(r"^[A-Z][a-z]+['’](?!s$)[a-z]+$")
MAX_TITLE_TOKENS = 12
# Ruler entities that may stand inside a longer name: "University of Iceland", "Japan Open".
COUNTRY_LIKE = frozenset({"COUNTRY", "NORP", "CONTINENT"})
QUOTE_PAIRS = {'"': '"', "“": "”", "„": "“"}
HYPHENS = frozenset({"-", "–"})


@functools.lru_cache(maxsize=1)
def not_names() -> frozenset[str]:
    """Capitalised words that start sentences or titles but are not names by themselves: spaCy's
    stop words, the month names and the rules lexicon's ``not_names``."""
    return frozenset(w.capitalize() for w in STOP_WORDS) | frozenset(rule_word_list("month_names")) \
        | rule_words("not_names")


@functools.lru_cache(maxsize=1)
def sport_names() -> dict[str, str]:
    """Every way of naming a sport or its players, lower-cased -> the sport.

    >>> sport_names()["footballer"]
    'association football'
    """
    return {word.lower(): sport["name"] for sport in gazetteer()["sports"]
            for word in [sport["name"], *sport["aliases"], *sport["players"]]}


@functools.lru_cache(maxsize=1)
def continents() -> frozenset[str]:
    return frozenset(gazetteer()["continents"])


def _phrase_patterns(label: str, phrase: str, kind: str) -> list[dict]:
    # Phrase patterns, matched on the exact text by the ruler's PhraseMatcher (token patterns
    # for a thousand phrases cost most of the pipeline's time): "Jordan" the country is
    # capitalised, and "singer" the occupation is not ("Ray Singer" is a name). A leading
    # "the" may be "The".
    variants = [phrase] + (["The" + phrase[3:]] if phrase.startswith("the ") else [])
    return [{"label": label, "pattern": v, "id": kind} for v in variants]


@functools.lru_cache(maxsize=1)
def ruler_patterns() -> list[dict]:
    g = gazetteer()
    patterns = []
    for country in g["countries"]:
        for name in [country["name"], *country["aliases"]]:
            patterns += _phrase_patterns("COUNTRY", name, "country")
        for demonym in country["demonyms"]:
            patterns += _phrase_patterns("NORP", demonym, "nationality")
    for continent in g["continents"]:
        patterns += _phrase_patterns("CONTINENT", continent, "continent")
    for occupation in g["occupations"]:
        patterns += _phrase_patterns("OCCUPATION", occupation, "occupation")
    # Occupations the gazetteer lacks, by their ending: "microbiologist", "choreographer",
    # "technician"; "-ist" only in words of eight letters or more, never "-list"/"-sist"
    # ("checklist", "persist") and never one of ``rule_word_list("not_occupations")`` ("finalist", "tourist").
    patterns.append({"label": "OCCUPATION", "id": "occupation", "pattern": [
        {"TEXT": {"REGEX": r"^(?!(?:%s)$)(?:[a-z]{3,}(?:ologist|ographer|ician)|[a-z]{5,}(?<!l|s|x)ist|[a-z]{4,}alist)$"
                  % "|".join(rule_word_list("not_occupations"))}}]})
    month = {"TEXT": {"IN": list(rule_word_list("month_names")) + list(rule_word_list("month_abbreviations"))}}
    day = {"SHAPE": {"IN": ["d", "dd"]}}
    year = {"SHAPE": "dddd"}
    for shape in ([day, month, year],                         # 5 May 1900
                  [month, day, {"ORTH": ",", "OP": "?"}, year],  # May 5, 1900
                  [month, year],                              # May 1900
                  [year],                                     # 1900
                  [day, month],                               # 14 March (news: the year is implied)
                  [month, day]):                              # March 14
        patterns.append({"label": "DATE", "pattern": shape, "id": "date"})
    return patterns


@Language.component("name_spans")
def name_spans(doc: Doc) -> Doc:
    """Mark names as NAME entities where no other entity is; see ``_capital_runs``.

    Also: a title in double quotes (``"Honey I Dare You"``) is one WORK_OF_ART, and a
    country's national team ("Germany national team") one NAME.
    """
    spans = _quoted_titles(doc) + _national_teams(doc)
    covered = {i for span in spans for i in range(span.start, span.end)}
    taken = [i in covered for i in range(len(doc))]
    spans += _capital_runs(doc, taken)
    doc.ents = filter_spans(list(doc.ents) + spans)
    return doc


def _capital_runs(doc: Doc, taken: list[bool]) -> list[Span]:
    """Runs of capitalised words as NAME spans.

    A run starts at a title-case or all-caps word that is not a stop word, may go on through
    capitalised words, initials ("M."), the connectors of ``rule_words("name_connectors")``, hyphens inside
    a word ("Saint-Étienne-du-Rouvray") and countries or nationalities inside a name
    ("University of Iceland", "Armenian Premier League"); it never ends on a connector.
    Then: "the 1964 Summer Olympics" takes its year, "Surat district" its admin noun.
    """
    country_like = {}  # token index -> end of the country-like entity starting there
    for ent in doc.ents:
        if ent.label_ in COUNTRY_LIKE:
            country_like[ent.start] = ent.end
        for i in range(ent.start, ent.end):
            taken[i] = True

    def capital(i: int) -> bool:
        token = doc[i]
        text = token.text
        return (text[:1].isupper() and not taken[i]
                and (token.is_title or token.is_upper or (len(text) == 2 and text[1] == ".")
                     or any(c.isupper() for c in text[1:]) or bool(_INNER_APOSTROPHE.match(text))))

    def glued_hyphen(i: int) -> bool:
        return (doc[i].text in HYPHENS and i + 1 < len(doc) and not doc[i - 1].whitespace_
                and not doc[i].whitespace_)

    spans = []
    i = 0
    while i < len(doc):
        start = i
        if i in country_like and country_like[i] < len(doc) and capital(country_like[i]) \
                and doc[country_like[i]].text not in rule_words("capitalised_adjectives"):
            i = country_like[start]  # "Japan Open": the country starts the name
        elif not capital(i) or (doc[i].text in not_names() and not _title_word(doc, i, capital)
                                and not (doc[i].text in rule_words("saints") and i + 1 < len(doc) and capital(i + 1))):
            i += 1
            continue
        end = i + 1
        last_good = end
        while end < len(doc) and end - start < MAX_NAME_TOKENS:
            nxt = doc[end]
            if capital(end):
                end += 1
                last_good = end
            elif end in country_like and (doc[end - 1].lower_ in rule_words("name_connectors") or end == last_good):
                end = last_good = country_like[end]
            elif glued_hyphen(end) and capital(end + 1):
                end += 2
                last_good = end
            elif glued_hyphen(end) and doc[end - 1].is_title and 2 <= len(doc[end - 1]) <= 4 and doc[end + 1].is_lower \
                    and (end - 1 > start or doc[end - 1].lower_ not in english_words()) \
                    and doc[end + 1].is_alpha and 3 <= len(doc[end + 1]) <= 5 and doc[end + 1].lower_ not in rule_words("hyphen_suffixes") \
                    and doc[end - 1].text not in cities() and not (end + 2 < len(doc) and capital(end + 2)):
                end += 2  # "Ivan Leung Ka-fai", "Chan Wai-ming": a given name of two syllables
                last_good = end
            elif glued_hyphen(end) and end + 3 < len(doc) and doc[end + 1].is_lower \
                    and glued_hyphen(end + 2) and capital(end + 3):
                end += 4  # "-du-", "-upon-"
                last_good = end
            elif glued_hyphen(end) and end + 5 < len(doc) and doc[end + 1].is_lower and glued_hyphen(end + 2) \
                    and doc[end + 3].is_lower and glued_hyphen(end + 4) and capital(end + 5):
                end += 6  # "Wells-next-the-Sea"
                last_good = end
            elif nxt.text in ("'s", "’s") and end + 1 < len(doc) and doc[end + 1].text in rule_words("possessive_heads") \
                    and not taken[end + 1]:
                end += 2  # "St Clare's Hospice"
                last_good = end
            elif nxt.lower_ == "of" and end - start >= 2 and doc[end - 1].lower_ in _feature_words():
                break  # "the Ford Ranges of Marie Byrd Land": a range in a land, not one name
            elif nxt.lower_ == "of" and any(len(t.text) == 2 and t.text[1] == "." for t in doc[start:end]):
                break  # "Gerard R. Kessens of the Navy": a person's name ends before "of"
            elif nxt.lower_ in rule_words("name_connectors") and not taken[end]:
                end += 1
            elif nxt.lower_ == "of" and doc[end - 1].text in rule_words("of_the_heads") and end + 2 < len(doc) \
                    and doc[end + 1].lower_ == "the" and (capital(end + 2) or end + 2 in country_like):
                end += 2  # "Footballer of the Year": the run goes on after "of the"
            elif nxt.lower_ == "of" and doc[end - 1].text in rule_words("year_name_heads") and end + 1 < len(doc) \
                    and doc[end + 1].shape_ == "dddd":
                end += 2  # "War of 1812"
                last_good = end
            elif nxt.text in QUOTE_PAIRS and end + 3 < len(doc) and capital(end + 1) \
                    and doc[end + 2].text == QUOTE_PAIRS[nxt.text] and capital(end + 3):
                end += 4  # a nickname: Travis "Tommy" Tomlinson
                last_good = end
            else:
                break
        if last_good < len(doc) and doc[last_good].lower_ in rule_words("admin_nouns") and doc[last_good].is_lower:
            last_good += 1
        if start >= 2 and doc[start - 1].shape_ == "dddd" and doc[start - 2].lower_ == "the":
            start -= 1  # the year of an event belongs to its name, and so does its noun
            for k in range(last_good, min(last_good + 3, len(doc))):
                if not doc[k].is_lower or taken[k]:
                    break
                if doc[k].lower_ in rule_words("event_nouns"):
                    last_good = k + 1
                    break
        spans.append(Span(doc, start, last_good, label="NAME"))
        i = last_good
    return spans


@functools.lru_cache(maxsize=1)
def _feature_words() -> frozenset[str]:
    """Last words of names of natural features ("Mountains", "Glacier"), from the gazetteer."""
    types = gazetteer()["tail_types"]
    return frozenset(w for rel, words in types.items() if rel != "about" for w in words)


def _title_word(doc: Doc, i: int, capital) -> bool:
    """"the First World War", "The Former Mattia Pascal": a capitalised stop word after "the"
    and before a capitalised word starts a name."""
    return (i > 0 and doc[i - 1].lower_ == "the" and doc[i].text not in rule_word_list("month_names") and i + 1 < len(doc)
            and capital(i + 1) and doc[i + 1].text not in not_names())


def _quoted_titles(doc: Doc) -> list[Span]:
    """Titles in double quotes, within one sentence: ``"Honey I Dare You" is a song``."""
    spans = []
    i = 0
    while i < len(doc):
        close = QUOTE_PAIRS.get(doc[i].text)
        if close is None:
            i += 1
            continue
        j = i + 1
        while j < len(doc) and j - i <= MAX_TITLE_TOKENS + 1 and doc[j].text != close \
                and not doc[j].is_sent_start:
            j += 1
        inner_end = j - 1 if doc[j - 1].text == "," else j
        nickname = (i > 0 and doc[i - 1].is_title and j + 1 < len(doc) and doc[j + 1].is_title
                    and j - i == 2)
        if j < len(doc) and doc[j].text == close and inner_end > i + 1 and not doc[j].is_sent_start \
                and not nickname \
                and (doc[i + 1].text[:1].isupper() or doc[i + 1].text[:1].isdigit()) \
                and doc[inner_end - 1].text not in (".", "!", "?") and inner_end - i - 1 <= MAX_TITLE_TOKENS:
            spans.append(Span(doc, i + 1, inner_end, label="WORK_OF_ART"))
            i = j + 1
        else:
            i = j if j < len(doc) and doc[j].text == close else i + 1
    return spans


def _national_teams(doc: Doc) -> list[Span]:
    """"Germany national team", "South Africa national women's cricket team" as one NAME."""
    spans = []
    for ent in doc.ents:
        if ent.label_ not in ("COUNTRY", "NORP") or ent.end >= len(doc) or doc[ent.end].lower_ != "national":
            continue
        k = ent.end + 1
        while k < len(doc) and k - ent.end <= 5 and doc[k].lower_ not in rule_words("team_nouns") \
                and (doc[k].is_lower or doc[k].text in ("'s", "’s", "-") or doc[k].like_num):
            k += 1
        if k < len(doc) and doc[k].lower_ in rule_words("team_nouns"):
            spans.append(Span(doc, ent.start, k + 1, label="NAME"))
    return spans


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
        tokenizer = nlp.tokenizer
        assert isinstance(tokenizer, Tokenizer)  # spaCy types a pipeline's tokenizer as any callable
        # "1426–1494": an en dash between digits splits, as a hyphen does, so both years are dates
        infixes = list(nlp.Defaults.infixes or ()) + [r"(?<=[0-9])[–—](?=[0-9])"]
        tokenizer.infix_finditer = spacy.util.compile_infix_regex(infixes).finditer
        for abbreviation in rule_word_list("name_abbreviations"):
            tokenizer.add_special_case(abbreviation, [{"ORTH": abbreviation}])
        nlp.add_pipe("line_breaks")
        nlp.add_pipe("sentencizer")
        ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": None})
    lemmatizer = nlp.add_pipe("lemmatizer", name="lookup_lemmatizer", config={"mode": "lookup"})
    assert isinstance(ruler, EntityRuler) and isinstance(lemmatizer, Lemmatizer)  # add_pipe's type: any component
    ruler.add_patterns(ruler_patterns())
    nlp.add_pipe("name_spans")
    nlp.add_pipe("news_spans")
    nlp.add_pipe("merge_entities")
    try:
        lemmatizer.initialize()
    except (ValueError, OSError) as e:
        raise ConfigError(f"spaCy's lookup lemmas are missing ({e}); pip install spacy-lookups-data") from e
    nlp.max_length = 2_000_000
    return nlp


def is_name(token) -> bool:
    return token.ent_type_ in NAME_LABELS
