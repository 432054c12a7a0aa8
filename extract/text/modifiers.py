"""Words before a position that the lexicon does not list: "the council's planning officer",
"Ellerby Homes land director X", "a former disaster officer". ``roles`` takes up to two of them
into a one-word position where they follow a possessive, an article, a status word, a comma or
a name; this module says which words may be such a modifier, and where a field after "of" goes
on a position's name ("head of research at X")."""

from __future__ import annotations

from spacy.tokens import Doc

from extract.text.lexicons import english_words, lemma_table

# Where a position may begin with words the lexicon does not list: after a possessive, an
# article, a status word, a comma, or a name ("the council's planning officer", "Ellerby Homes
# land director X", "a former disaster officer").
MODIFIED_AFTER = frozenset({"'s", "’s", "'", "’", "the", "a", "an", "its", "their", "his", "her", ",", "former", "new",
                            "interim", "acting", "outgoing", "current", "incoming", "then", "retired", "veteran"})
# Words that stand before a position without describing it: -ing words ("including chief executive
# X"), and titles of their own ("caretaker").
NOT_MODIFIERS = frozenset({"including", "following", "according", "regarding", "concerning", "during", "excluding",
                           "involving", "being", "having", "becoming", "leaving", "joining", "replacing", "succeeding",
                           "retiring", "visiting", "reigning", "serving", "sitting",
                           "presiding", "ruling", "founding", "managing", "governing", "standing", "caretaker"})


def plain_modifier(token) -> bool:
    """An English noun or adjective in lower case that may describe a position ("land", "disaster",
    "planning"): no function word, no inflected verb or plural ("said", "reports"), no status word."""
    lower = token.lower_
    if not (token.is_alpha and token.is_lower) or token.is_stop or lower in NOT_MODIFIERS or lower in MODIFIED_AFTER:
        return False
    lemma = lemma_table().get(lower, lower)
    return lower in english_words() and (lemma == lower or lower.endswith("ing"))


def plain_modifiers_before(doc: Doc, i: int, owner: dict) -> int:
    """Where the position found at token ``i`` begins, taking in up to two plain modifiers before
    it where they follow a possessive, an article, a status word, a comma or a name."""
    k = i
    while k > 0 and i - k < 2 and k - 1 not in owner and plain_modifier(doc[k - 1]) and not doc[k - 1].is_sent_start:
        k -= 1
    if k == i or k == 0:
        return i
    prev = doc[k - 1]
    anchored = prev.lower_ in MODIFIED_AFTER or (k - 1 in owner and owner[k - 1].label_ not in ("ROLE", "OCCUPATION"))
    return k if anchored else i


# Where "of" + plain words go on a position's name ("head of research at X", "director of
# communications, said"), and the last words of a unit after "of the" ("head of the medicine
# department at X").
FIELD_ENDS = frozenset({"at", "with", "for", "in", ",", ".", ";", "and"})
UNIT_WORDS = frozenset({"department", "division", "unit", "section", "team", "programme", "program", "desk",
                        "ward", "faculty", "office"})
FIELD_NOT = frozenset({"the", "a", "an", "his", "her", "its", "their", "this", "that", "these", "those", "our",
                       "my", "your", "state", "staff"})


def field_after(doc: Doc, end: int, owner: dict) -> int:
    """The end of a position's name with its field: "head" + "of research" before "at", ","; the
    position's own end where no plain field follows."""
    if end + 1 >= len(doc) or doc[end].lower_ != "of":
        return end
    k = end + 1
    article = doc[k].lower_ == "the"
    k += article
    start = k
    while k < len(doc) and k - start < 3 and k not in owner and doc[k].is_alpha and doc[k].is_lower \
            and doc[k].lower_ not in FIELD_NOT and doc[k].lower_ not in FIELD_ENDS:
        k += 1
    if k == start or k >= len(doc) or doc[k].lower_ not in FIELD_ENDS \
            or article and doc[k - 1].lower_ not in UNIT_WORDS:
        return end
    return k
