"""Words before a position that the lexicon does not list: "the council's planning officer",
"Ellerby Homes land director X", "a former disaster officer". ``roles`` takes up to two of them
into a one-word position where they follow a possessive, an article, a status word, a comma or
a name; this module says which words may be such a modifier, and where a field after "of" goes
on a position's name ("head of research at X")."""

from __future__ import annotations

from spacy.tokens import Doc

from extract.text.lexicons import english_words, lemma_table, rule_words



def plain_modifier(token) -> bool:
    """An English noun or adjective in lower case that may describe a position ("land", "disaster",
    "planning"): no function word, no inflected verb or plural ("said", "reports"), no status word."""
    lower = token.lower_
    if not (token.is_alpha and token.is_lower) or token.is_stop or lower in rule_words("not_modifiers") or lower in rule_words("modified_after"):
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
    anchored = prev.lower_ in rule_words("modified_after") or (k - 1 in owner and owner[k - 1].label_ not in ("ROLE", "OCCUPATION"))
    return k if anchored else i




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
            and doc[k].lower_ not in rule_words("field_not") and doc[k].lower_ not in rule_words("field_ends"):
        k += 1
    if k == start or k >= len(doc) or doc[k].lower_ not in rule_words("field_ends") \
            or article and doc[k - 1].lower_ not in rule_words("unit_words"):
        return end
    return k
