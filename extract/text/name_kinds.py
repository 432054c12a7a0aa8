"""What kind of thing a name is, from one of its mentions: the votes ``coref.Mentions`` adds up.

An honorific or a position before a name votes for a person ("Ms X", "Prime Minister X",
"its chief executive, X"), and so do an age after it (", 52,") and ", who"; an organisation
word in it ("Bank", "Rovers"), a firm's noun before it ("the insurer X"), "X was founded" and
"X, a Lisbon-based start-up" vote for an organisation; a place word ("Lane", "River X"), a
city's name (``lexicons.cities``) or a locative preposition for a place; a prize's name
("the Lindqvist Prize") for a thing, which is no person whatever its first word.

Also what one mention is, read off the words around it: a definite description ("the
company", "library director X"), a position in apposition or named after ("X, the chief
technology officer,", "the transport minister, Helen Marchetti"), the position a person is
introduced with, and a sentence that opens on a description of a person ("The 47-year-old
former Motherwell midfielder was dismissed").
"""

from __future__ import annotations

import collections
import functools
import re

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc, Span

from extract.text.class_phrase import class_words
from extract.text.lexicons import cities, evidence_weights, english_words, lemma_table, rule_words, tail_types, word_set
from extract.text.roles import party_words, role_category, trade_like

NAME_KINDS = ("NAME", "PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE")
_ACRONYM = re.compile(r"^[A-Z][A-Z&]{1,7}$")
_PERSON_WORD = re.compile(r"^[A-Z][a-zà-ÿ'’\-]+$|^[A-Z]\.$|^[A-Z][a-z]+[A-Z][a-z]+$")


def person_shaped(name: str) -> bool:
    """"Auguste Delmas", "John Smith", "Awang Rosli Abang Jamil": two to four capitalised words, none of
    an organisation or a place, the last no word that names a kind of thing ("Todd Glacier", "Hill
    Street" are things), not a party's name ("Liberal Democrats")."""
    words = name.replace("-", " ").split()
    return 2 <= len(words) <= 4 and all(_PERSON_WORD.match(w) for w in words) \
        and not {w.lower() for w in words} & (word_set("org_words") | word_set("place_words")) \
        and words[-1].lower() not in thing_words() and not {w.lower().removesuffix("s") for w in words} <= party_words()




def plural_noun(word: str) -> bool:
    """"Homes", "Resources", "Partners", "Lions": the plural of an English noun, which ends the
    names of firms, teams and bodies, and few people's (``rule_words("plural_surnames")``)."""
    lower = word.lower()
    if len(lower) < 4 or not lower.endswith("s") or lower in rule_words("plural_surnames"):
        return False
    lemma = lemma_table().get(lower, lower)
    return lemma != lower and lower.startswith(lemma[:-1]) and lemma in english_words()


@functools.lru_cache(maxsize=1)
def thing_words() -> frozenset[str]:
    """Last words that say a name is a thing: a feature or body of water ("Glacier", "River"), a
    kind of place ("County"), a building ("Gallery"): the gazetteer's typed name endings and
    administrative classes, and the news lexicon's nouns for things and organisations."""
    return frozenset(tail_types()) | frozenset(class_words()["unit_classes"]) | word_set("generic_things") \
        | word_set("generic_orgs")


def org_nouns() -> frozenset[str]:
    """Nouns that say the name after them is a firm or a body ("the insurer X"), none that may name
    a person too: the rules lexicon's ``org_nouns``."""
    return rule_words("org_nouns")






def org_class(phrase: str, organisation: bool) -> str | None:
    """The class a description before or after a firm's name gives it, or None: "trading house"
    of "the Japanese trading house X", "developer" of "York-based developer X". The noun is one
    of ``org_nouns``, or, where the name is an organisation by other evidence (``organisation``),
    a singular noun of a trade ("developer", "shipbroker"), a place of work ("bakery"), or a
    noun of the lexicon's organisations, that names no position ("the chairman X"). Modifiers
    that say what kind ("copper", "private equity"... ) stay; those that judge ("struggling",
    "largest") and any before them go."""
    words = phrase.lower().split()
    noun = words[-1]
    if noun in rule_words("relation_nouns"):
        return None
    if noun not in org_nouns() and not (
            organisation and noun.isalpha() and lemma_table().get(noun, noun) == noun and not role_category(noun)
            and (trade_like(noun) or noun.endswith("ery") and noun in english_words()
                 or noun in rule_words("firm_nouns") or noun in word_set("generic_orgs") or noun in word_set("org_words"))):
        return None
    kept: list[str] = []
    for word in reversed(words[:-1]):
        lemma = lemma_table().get(word, word)
        if word in rule_words("evaluative_words") or word in STOP_WORDS or word.endswith("est") or lemma not in english_words() \
                or lemma != word and not word.endswith("ing"):
            break
        kept.insert(0, word)
    return " ".join(kept + [noun])




def evidence(doc: Doc, i: int) -> collections.Counter:
    """Votes for what the name at token ``i`` is, from this one mention: each clue found votes for
    the kind the rules lexicon's ``evidence`` names it with, by its weight there."""
    votes: collections.Counter = collections.Counter()
    weights = evidence_weights()

    def vote(clue: str) -> None:
        kind, weight = weights[clue]
        votes[kind] += weight

    token = doc[i]
    words = token.text.replace("-", " ").split()
    lowers = {w.lower().strip(".,") for w in words}

    def at(k: int):
        return doc[k] if 0 <= k < len(doc) else None

    prev, nxt, nxt2, nxt3 = at(i - 1), at(i + 1), at(i + 2), at(i + 3)
    if token.ent_type_ == "WORK_OF_ART":
        vote("title_in_quotes")  # a title in quotes ("Falling Slowly Home") is no person, whatever its words
        return votes
    org_words = lowers & word_set("org_words")
    if len(words) == 1 and words[0].lower() in word_set("currency_codes"):
        vote("currency_code")  # "CHF 25,000", "NOK 2.3 billion": a currency, no organisation's acronym
    elif org_words or "&" in token.text or (len(words) == 1 and _ACRONYM.match(words[0])):
        vote("organisation_word")
    if len(words) == 1 and prev is not None and prev.lower_ == "the" and plural_noun(words[0]) and not org_words \
            and words[0].lower() not in word_set("place_words") and words[0].lower() not in thing_words():
        vote("the_plural_noun")  # "the Kestrels", "the Mariners": a team (a name of more words may be a
        # person's whose surname is a plural noun: "Sarah Graves", "Tom Parsons")
    if len(words) > 1 and words[-1].lower() in rule_words("building_votes") and not org_words:
        vote("building_last_word")  # "Meridian Tower", "Kiptenden Tea Factory": a building, an institution; no person
    if len(words) > 1 and words[-1].lower() in word_set("award_words"):
        vote("award_last_word")  # "the Lindqvist Prize": no person, whatever its first word
    if not org_words and (words and words[-1].lower() in word_set("place_words") or token.text in cities()
                          or len(words) > 1 and words[0] in rule_words("place_first_words")):
        vote("place_word")  # "Lyndhurst Road", "River Sarno", a city's name; not "Mount Sinai Hospital"
    if prev is not None:
        if prev.lower_.rstrip(".") in word_set("honorifics"):
            vote("honorific_before")
        elif (prev.ent_type_ in ("ROLE", "OCCUPATION") or prev.text == "," and i > 1 and doc[i - 2].ent_type_ == "ROLE") \
                and not org_words:
            vote("position_before")  # "Prime Minister X", "the novelist X", "its chief executive, X"
        elif prev.text in org_nouns():
            vote("firm_noun_before")  # "the insurer Brightwater Mutual", "the Japanese conglomerate X"
        elif prev.lower_ in rule_words("locative_prepositions"):
            vote("locative_before")
        elif prev.lower_ in ("of", "at", "for") and i > 1 and doc[i - 2].ent_type_ == "ROLE":
            vote("after_position_of")  # "mayor of San Diego", "chief economist at Tellus Bank"
        elif prev.lower_ == "the":
            vote("the_before")
    if nxt is not None and nxt.text == ",":
        if nxt2 is not None and nxt2.ent_type_ == "QUANTITY" and nxt2.text.isdigit() and int(nxt2.text) < 120 \
                and nxt3 is not None and nxt3.text in (",", ")"):
            vote("age_after")
        elif nxt2 is not None and nxt2.lower_ == "who" and not (prev is not None and prev.lower_ in rule_words("locative_prepositions") | {"of"}):
            vote("who_after")  # not "X, 29, of Walsall, who ...": the "who" is X's
        else:
            for k in range(i + 2, min(i + 7, len(doc))):
                if doc[k].ent_type_ in ("ROLE", "OCCUPATION"):
                    vote("position_after")
                    break
                if doc[k].lower_ in word_set("generic_orgs") and not (
                        k + 1 < len(doc) and doc[k + 1].lower_ in ("'s", "’s")):  # not "X, the group's controller"
                    vote("organisation_noun_after")
                    break
                if doc[k].text in (",", ".") or doc[k].ent_type_ in NAME_KINDS or doc[k].lemma_ in ("say", "tell"):
                    break
    if nxt is not None and (nxt.lower_ in ("'s", "’s", "'", "’") and nxt2 is not None and nxt2.ent_type_ == "ROLE"
                            or (nxt.ent_type_ == "ROLE" or nxt.ent_type_ == "OCCUPATION" and not (
                                prev is not None and prev.lower_ in ("the", "a", "an"))) and nxt2 is not None and (
                                nxt2.ent_type_ in NAME_KINDS or nxt2.text == "," and nxt3 is not None
                                and nxt3.ent_type_ in NAME_KINDS)):
        vote("has_position")  # "Harbourline's chief executive", "Rovers manager X", "Comets coach X", "A Texovar spokesman, X"
    if nxt is not None and nxt.text == "," and nxt2 is not None and nxt2.lower_ in ("a", "an", "the") \
            and i + 5 < len(doc) and doc[i + 4].text == "-" \
            and doc[i + 5].lower_ in ("based", "headquartered", "listed", "registered", "owned"):
        vote("placed_description_after")  # "Quantica, a Lisbon-based start-up", "X, the ASX-listed grower", "a family-owned"
    if nxt is not None and nxt.lower_ in ("was", "is") and nxt2 is not None \
            and nxt2.lower_ in ("founded", "established", "incorporated", "listed"):
        vote("was_founded")  # "Modise was founded in 2006": not the founder Jacob Modise
    if nxt is not None and nxt.text == "," and nxt2 is not None and nxt2.lower_ in ("founded", "established") \
            and nxt3 is not None and nxt3.lower_ in ("in", "by"):
        vote("founded_participle_after")  # "Texovar, founded in 1984 by"
    opens = i == token.sent.start or i == token.sent.start + 1 and doc[i - 1].lower_ == "the"
    if opens and nxt is not None and nxt.lower_ in ("have", "are", "were") and len(words) > 1:
        vote("opens_with_plural_verb")  # "Kilbride Thistle have signed", "Harlow Foods are to close": no person "have"
    if opens:  # "Kalahari Platinum has lost its chief executive"
        for k in range(i + 1, min(i + 8, len(doc))):
            if doc[k].text in (".", ";", ":") or doc[k].ent_type_ in NAME_KINDS \
                    or doc[k].lower_ in ("who", "which", "that") \
                    or doc[k].lemma_ in ("say", "tell", "call", "claim", "argue", "add"):
                break  # "Tom Reid said its decision was wrong": the "its" is another's
            if doc[k].lower_ in ("its", "his"):
                vote("opens_with_its" if doc[k].lower_ == "its" else "opens_with_his")
                break
    if 2 <= len(words) <= 4 and all(_PERSON_WORD.match(w) for w in words) and not org_words \
            and not {w.lower().removesuffix("s") for w in words} <= party_words() \
            and not lowers & word_set("place_words") and (prev is None or prev.lower_ != "the"):
        vote("person_shaped")
    return votes




def person_description(doc: Doc, sentence: Span, first: int) -> int | None:
    """"The 47-year-old former Motherwell midfielder was dismissed", "The Japanese player was born
    in Osaka": a sentence that opens on a description of a person, with an age, a nationality,
    a status or a team before its noun. ``coref.Mentions`` gives it the person introduced with
    that position, if any, else the person named last. Returns the noun's index (the
    reference), or None."""
    if doc[first].lower_ != "the":
        return None
    described = False
    for j in range(first + 1, min(first + 9, sentence.end - 1)):
        token, nxt = doc[j], doc[j + 1]
        noun = token.ent_type_ in ("OCCUPATION", "ROLE") or token.lower_ in rule_words("person_description_nouns")
        if noun and described and nxt.is_lower and nxt.is_alpha and not nxt.ent_type_ \
                and nxt.lower_ not in rule_words("description_words") | {"of", "and", "at", "for", "in"}:
            return j
        if token.ent_type_ in ("QUANTITY", "NORP", "COUNTRY") or token.ent_type_ in NAME_KINDS \
                or token.lower_ in rule_words("description_words"):
            described = True
            continue
        return None
    return None


def definite(doc: Doc, i: int) -> bool:
    """"the company", "the club's": a noun right after "the" ("X, currently the housing minister": a
    predicate, no reference; "the prize committee": a noun of another noun)."""
    return i > 0 and doc[i - 1].lower_ == "the" and (i + 1 >= len(doc) or doc[i + 1].ent_type_ not in NAME_KINDS
                                                     and doc[i + 1].lower_ not in word_set("generic_orgs")) \
        and not (i > 1 and doc[i - 2].lower_ in ("currently", "now", "formerly", "previously"))


def before_role(doc: Doc, i: int) -> bool:
    """"according to library director Gwen Alvarado": an organisation's noun just before a position
    and a name names the organisation the position is at."""
    return i + 2 < len(doc) and doc[i].is_lower and doc[i + 1].ent_type_ == "ROLE" and doc[i + 2].ent_type_ in NAME_KINDS


def apposition(doc: Doc, i: int) -> bool:
    """"Oyelowo, the chief technology officer, will stay": the position describes the name before it."""
    return i > 2 and doc[i - 2].text == "," and doc[i - 3].ent_type_ in NAME_KINDS


def named_after(doc: Doc, i: int) -> bool:
    """"the transport minister, Helen Marchetti": a name follows the position, so it is not a reference."""
    j = i + 1
    if j < len(doc) and doc[j].text == ",":
        j += 1
    return j < len(doc) and doc[j].ent_type_ in NAME_KINDS or j < len(doc) and doc[j].lower_ in ("of", "at", "for")


def role_words(role: str) -> str:
    """"Transport Minister" -> "transport minister": compared by its last words."""
    return " ".join(role.lower().replace("-", " ").split())


def attached_role(doc: Doc, i: int) -> str | None:
    """The position a person's mention is introduced with: "Prime Minister X", "X, the minister"."""
    if i > 0 and doc[i - 1].ent_type_ == "ROLE":
        return role_words(doc[i - 1].text)
    if i > 1 and doc[i - 1].text == "," and doc[i - 2].ent_type_ == "ROLE":
        return role_words(doc[i - 2].text)
    for j in range(i + 1, min(i + 6, len(doc))):
        if doc[j].ent_type_ == "ROLE" and doc[i + 1].text == ",":
            return role_words(doc[j].text)
        if doc[j].text in (",", ".", ";") and j > i + 1 or doc[j].ent_type_ in NAME_KINDS:
            break
    return None




def modifier_name(token) -> bool:
    """A name that only modifies the noun after it ("the ASX-listed mandarin grower", "a
    Leeds-based firm"): no mention that a pronoun or "the company" can mean."""
    doc = token.doc
    return token.i + 2 < len(doc) and doc[token.i + 1].text == "-" and doc[token.i + 2].lower_ in rule_words("compound_participles")
