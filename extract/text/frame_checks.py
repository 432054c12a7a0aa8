"""Checks on where a frame's filler stands in its sentence, which a frame's pattern cannot say:
what comes just before a name ("at", "the", a preposition, a taxon rank), whether a position
has an owner before it, whether a name starts a list of places.

A filler is an entity reference of a sentence signature (``NAME#12``, ``PRON@P131#4``); the
number is the token's index in the document.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc

from extract.text.class_phrase import class_words
from extract.text.frames import NAMES
from extract.text.lexicons import one_english_word, rule_words, word_set
from extract.text.name_kinds import modifier_name
from extract.text.roles import opens_sentence

ENTITY_REF = re.compile(r"^([A-Z_]+)(?:@P\d+)?#(\d+)$")


def token_index(ref: str | None) -> int | None:
    """The document index of an entity reference ("NAME#12" -> 12), or None for a plain word."""
    m = ENTITY_REF.match(ref) if ref else None
    return int(m.group(2)) if m else None


def after_at(doc: Doc, ref: str | None) -> bool:
    """"at the Rijksbureau", "at Kestrel Securities": the name follows "at" (and maybe "the")."""
    i = token_index(ref)
    if i is None:
        return False
    k = i - 1
    if k >= 0 and doc[k].lower_ == "the":
        k -= 1
    return k >= 0 and doc[k].lower_ == "at"


def after_article(doc: Doc, ref: str | None) -> bool:
    """"the Venetian painter X", "the Nashville producer X": a name after an article, before an
    occupation, describes it; "Bayhawks coach X" names where the coach works."""
    i = token_index(ref) or 0
    return i > 0 and doc[i - 1].lower_ in ("the", "a", "an")


def opening_common_word(doc: Doc, ref: str | None, full_name: str) -> bool:
    """"Township trustee X", "Local councillor X": one capitalised English word opening a sentence
    is no name of an organisation, unless the document names it so elsewhere ("Meridian" for
    Meridian Mobile, "Athletic" for a team; "Apple chief executive X" inside a sentence is one)."""
    i = token_index(ref)
    if i is None:
        return False
    token = doc[i]
    if not opens_sentence(token) or not one_english_word(token.text) or full_name != token.text \
            or token.lower_ in word_set("team_words") | word_set("org_words"):
        return False
    return not any(t.text == token.text and not opens_sentence(t) for t in doc if t.i != i)


def owned_role(doc: Doc, ref: str | None) -> bool:
    """"Harriers chairman X", "the club's chairman": a name or a description stands before the position."""
    i = token_index(ref)
    if i is None:
        return False
    k = i - 1
    if k >= 0 and doc[k].lower_ in ("'s", "’s"):
        k -= 1
    return k >= 0 and (doc[k].ent_type_ in NAMES or doc[k].lower_ in word_set("generic_orgs") | rule_words("possessive_pronouns") | {"whose"})


def after_preposition(doc: Doc, ref: str) -> bool:
    """"In Norland, the opposition": a preposition just before the name."""
    i = token_index(ref) or 0
    return i > 0 and doc[i - 1].lower_ in rule_words("prepositions_before_heads")


def head_ends(doc: Doc, match, words: frozenset[str]) -> bool:
    """"The Whitlock Gallery": the head's name ends in one of ``words``."""
    i = token_index(match.group("head"))
    return i is not None and doc[i].text.split()[-1].lower() in words


def after_rank(doc: Doc, ref: str | None) -> bool:
    """"in the family Cerambycidae": a taxon, not a place."""
    i = token_index(ref) or 0
    return i > 0 and doc[i - 1].lower_ in class_words()["taxon_ranks"]


def in_name_list(doc: Doc, ref: str | None) -> bool:
    """"Valencia, Godella, Burjassot and Xàtiva": a name followed by ", Name" ... "and Name"."""
    i = token_index(ref)
    if i is None:
        return False
    j = i + 1
    end = doc[i].sent.end
    while j + 1 < end:
        if doc[j].text == "," and doc[j + 1].lower_ in ("and", "or"):
            j += 1  # ", and Wedding"
        if j + 1 >= end or doc[j + 1].ent_type_ not in NAMES + ("COUNTRY",):
            return False
        if doc[j].lower_ in ("and", "or"):
            return True
        if doc[j].text != ",":
            return False
        j += 2
    return False


def placed_after(doc: Doc, ref: str | None) -> bool:
    """"Managing director Ada Kerr of Velnor Bank": the person's organisation follows the name."""
    i = token_index(ref)
    if i is None:
        return False
    k = i + 1
    if k < len(doc) and doc[k].text == ",":
        k += 1
    return k + 1 < len(doc) and doc[k].lower_ in ("of", "at") and (
        doc[k + 1].ent_type_ in NAMES or doc[k + 1].lower_ == "the" and k + 2 < len(doc) and doc[k + 2].ent_type_ in NAMES)


def adjective_name(doc: Doc, ref: str | None) -> bool:
    """"Montreal-born", "Perth-based": a name that only describes the noun after it
    (``name_kinds.modifier_name``)."""
    i = token_index(ref)
    return i is not None and modifier_name(doc[i])
