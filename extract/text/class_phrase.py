"""The class phrase after "is a": what kind of thing a subject is, read from the words.

"X is a 1935 British comedy film" -> class "film", year 1935, nationality British, genre
comedy; "X is a field hockey player" -> occupation, sport; "X is a village in ..." -> class
"village". Word lists come from the gazetteer (``class_words``); the rules extractor turns a
``ClassPhrase`` into facts once the whole document is read.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

from spacy.tokens import Doc

from extract.text.nlp import gazetteer, sport_names

_YEAR = re.compile(r"^\d{4}$")


@functools.lru_cache(maxsize=1)
def class_words() -> dict[str, frozenset[str]]:
    """The gazetteer's word lists for class phrases, plus the event words."""
    g = gazetteer()
    out = {k: frozenset(v) for k, v in g["class_words"].items() if k != "about"}
    out["events"] = frozenset(g["event_words"])
    return out


@dataclass
class ClassPhrase:
    """What "X is a 1935 British romantic comedy film" says of X, word by word."""

    classes: list[str] = field(default_factory=list)   # "film"; "town", "commune"
    nationality: str | None = None                      # "British"
    year: str | None = None                             # "1935"
    sport: str | None = None                            # "association football"
    genre: str | None = None                            # "romantic comedy film"
    occupations: list[str] = field(default_factory=list)  # "competitive sailor": if X is a person
    person: bool = False                                # an occupation or a person noun
    work: bool = False                                  # film, album, novel...
    group: bool = False                                 # band, orchestra...


def class_phrase(doc: Doc, indices: list[int]) -> ClassPhrase:
    """Read the tokens after "is a" into a ``ClassPhrase``.

    The phrase ends at a preposition, a clause word or punctuation (``class_words.stops``), or
    at a participle after its noun ("a glacier flowing ..."). A nationality or a year restarts
    it ("a 1935 British | comedy film"), "and" splits it ("a town and commune"), leading
    words of size, age or direction are dropped ("a small ice-covered island" -> "island").
    A phrase whose noun is relational and followed by "of" ("a member of") names no class.
    """
    words = class_words()
    out = ClassPhrase()
    conjuncts: list[list[str]] = [[]]
    end = indices[-1] + 1 if indices else 0
    for n, i in enumerate(indices):
        token = doc[i]
        label = token.ent_type_
        current = conjuncts[-1]
        if current and current[-1].endswith("-"):
            current[-1] += token.text  # "soccer-player"
            continue
        if label == "NORP":
            if not (i + 1 < len(doc) and doc[i + 1].text == "-"):  # "a Norwegian-backed fund": no nationality
                out.nationality = out.nationality or token.text
            current.clear()
            continue
        if label == "DATE":
            if _YEAR.match(token.text) and out.year is None:
                out.year = token.text
            current.clear()
            continue
        if label == "OCCUPATION":
            out.person = True
            current.append(token.text)
            continue
        if label:  # a name inside the phrase ("a Malayalam crime film") only qualifies it
            current.clear()
            continue
        lower = token.lower_
        nxt = doc[indices[n + 1]] if n + 1 < len(indices) else None
        if lower in ("-", "–") and current and not doc[i - 1].whitespace_ and not token.whitespace_:
            current[-1] += "-"  # "ice-covered": glued to the next word below
            continue
        if lower == "of" and len(current) == 1 and current[0].lower() in words["collectives"]:
            current.clear()  # "a group of nunataks": the class is what the group is of
            continue
        if lower.endswith(tuple(words["adverb_endings"])) and lower not in words["noun_ing"]:
            continue  # "a rounded and mostly ice-free mountain"
        if lower in ("and", "or"):
            if len(current) == 1 and _adjective_like(current[0], words):
                current.append(lower)  # "a statistical and economic agency": one noun
            elif current:
                conjuncts.append([])
            continue
        if lower == "," and len(current) == 1 and _adjective_like(current[0], words) and nxt is not None \
                and not nxt.ent_type_ and nxt.is_alpha and nxt.lower_ not in words["stops"]:
            current.clear()  # "a high, brown rock ridge"
            continue
        if lower in words["stops"] or token.is_punct or (current and lower in words["after_noun"]):
            if lower in ("from", "in") and nxt is not None and _YEAR.match(nxt.text) and out.year is None:
                out.year = nxt.text  # "a French comedy film from 1963"
            end = i
            break
        if token.like_num or any(c.isdigit() for c in lower):
            if current:
                end = i
                break
            continue
        if n == 0 and doc[i - 1].lower_ not in ("a", "an", "the") and _verb_like(token, words):
            return out  # "X was formed in ...": a verb, not a class
        if any(w.lower() not in words["trim"] for w in current) and _verb_like(token, words):
            end = i  # "a glacier flowing southeast", "a town centre and first came": a verb ends it
            break
        current.append(token.text)
    conjuncts = [_trim(c, words) for c in conjuncts
                 if c and not c[-1].endswith("-") and c[-1] not in ("and", "or")
                 and any(w.lower() not in words["trim"] for w in c)]
    if not conjuncts:
        return ClassPhrase(nationality=out.nationality, year=out.year, person=out.person)
    nxt_word = doc[end].lower_ if end < len(doc) else ""
    heads = [c[-1].lower() for c in conjuncts]
    definite = indices[0] > 0 and doc[indices[0] - 1].lower_ == "the"
    if nxt_word == "of" and any(h in words["relational"] or h in words["taxon_ranks"] for h in heads) \
            or definite and (nxt_word == "of" or any(h in words["relational"] for h in heads)):
        return ClassPhrase(nationality=out.nationality, person=out.person)
    out.sport = _sport_in("".join(doc[i].text_with_ws for i in indices[:_count_before(indices, end)]).lower())
    if out.sport and out.nationality and out.sport.lower().startswith(out.nationality.lower()):
        out.nationality = None  # "an American football team": a sport, not a nationality
    for conj, head in zip(conjuncts, heads):
        if head in words["works"]:
            out.work = True
            fmt = [w for w in conj[:-1] if w.lower() in words["formats"]]
            genre = [w for w in conj[:-1] if w.lower() not in words["formats"]]
            out.classes.append(" ".join(fmt + [conj[-1]]))
            if genre:
                out.genre = " ".join(genre + ([conj[-1]] if head in ("film", "series", "novel") else []))
            continue
        if head in words["groups"]:
            out.group = True
            if len(conj) > 1 and out.sport is None:
                out.genre = " ".join(conj[:-1])
        elif person_noun(head, words) or head.endswith(tuple(words["person_suffixes"])):
            out.occupations.append(" ".join(conj))  # an occupation, if X turns out to be a person
        out.person = out.person or person_noun(head, words)
        out.classes.append(" ".join(conj))
    return out


def _count_before(indices: list[int], end: int) -> int:
    """How many of ``indices`` come before token ``end``."""
    return bisect.bisect_left(indices, end)


def _adjective_like(word: str, words: dict) -> bool:
    lower = word.lower()
    return (lower in words["trim"] or lower in words["adjectives"] or "-" in lower
            or lower.endswith(("al", "ic", "ous", "ive", "ful", "less", "ish", "ary", "ern", "ed")))


def _verb_like(token, words: dict) -> bool:
    """A verb form, not a plural, a comparative or a noun in -ing: "flowing", "came", "written"."""
    lower, lemma = token.lower_, token.lemma_.lower()
    if lemma == lower or lower in words["noun_ing"] or lower.endswith(("est", "er")):
        return False
    plural = lower in (lemma + "s", lemma + "es") or lemma.endswith("y") and lower == lemma[:-1] + "ies"
    return not plural


def _trim(words_: list[str], words: dict) -> list[str]:
    """Drop the leading words that say size, age, rank or direction; never the last word."""
    out = list(words_)
    while out and out[0] in ("and", "or"):
        out.pop(0)
    while len(out) > 1:
        first = out[0].lower()
        if first in words["trim"] or first.endswith("est") and len(first) > 5 \
                or first.endswith("ed") and len(first) > 5 \
                or first.endswith(("-shaped", "-covered", "-filled", "-free", "-like", "-based")) \
                or re.fullmatch(r"\d+(st|nd|rd|th)", first):
            out.pop(0)
        else:
            break
    return out


def person_noun(word: str, words: dict) -> bool:
    """"player", "champions": a noun that names people."""
    return word in words["persons"] or word.endswith("s") and word[:-1] in words["persons"]


def _sport_in(text: str) -> str | None:
    """The sport a phrase names ("field hockey player" -> field hockey), longest name first."""
    words = text.split()
    names = sport_names()
    for n in range(min(4, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            sport = names.get(" ".join(words[i:i + n]))
            if sport:
                return sport
    return None


def is_event(name: str) -> bool:
    """"1964 Summer Olympics", "Belgian Antarctic Expedition": a year first or an event word last."""
    words = name.split()
    return bool(words) and (bool(_YEAR.match(words[0])) or words[-1] in class_words()["events"])
