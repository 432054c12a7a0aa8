"""Positions and amounts as entities: what news says of people and organisations.

A news article introduces nearly everyone it names by the position they hold ("Prime Minister
David Okonkwo", "Harbourline's chief executive, Amira Haddad", "Jonas Mertens, chief economist
at Tellus Bank") and states amounts ("employs about 6,000 people", "£14.6bn"). The
``news_spans`` component, run after ``name_spans`` and before ``merge_entities``, marks them:

- ``ROLE``: a position noun with the words that may stand before it in the position's name
  ("transport minister", "first-team coach", "Detective Inspector"). A title that a run of
  capitalised words begins with is cut off the name: "Prime Minister David Okonkwo" becomes
  ROLE "Prime Minister" + NAME "David Okonkwo"; a capitalised word that is only a modifier of
  a position ("Opposition leader") joins it. A bare occupation of the gazetteer ("coach",
  "economist") stays an OCCUPATION; with a modifier before it ("chief economist") it is a ROLE.
- ``QUANTITY``: a number with its currency sign and scale ("£1.2bn", "$45 million",
  "1.1 billion euros", "6,000"); a percentage is none.

The word lists are data (``extract/data/news_lexicon.v1.json``); ``role_category`` says which
relation a position gives (``news_frames.role_facts``).
"""

from __future__ import annotations

import functools
import re

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extract.text.lexicons import (country_aliases, demonym_countries, english_words, gazetteer, news_lexicon,
                                   rule_words, word_set)
from extract.text.modifiers import field_after, plain_modifiers_before

_WORDS = re.compile(r"[^\W_]+|-", re.UNICODE)
_NUMBER = re.compile(r"^\d[\d,]*(\.\d+)?(bn|m|k)?$")
MAX_MODIFIERS = 3


def _words(phrase: str) -> tuple[str, ...]:
    """"director-general" -> ('director', '-', 'general'): tokens as spaCy's tokenizer cuts them."""
    return tuple(_WORDS.findall(phrase.lower()))


@functools.lru_cache(maxsize=1)
def role_heads() -> dict[tuple[str, ...], str]:
    """Position nouns as token tuples -> their category ('office', 'chair', 'staff', ...), with the
    abbreviated titles ("sen" of "Sen.")."""
    heads = {_words(w): category for category, words in news_lexicon()["roles"].items() for w in words}
    return heads | {(w,): "office" for w in rule_words("abbreviated_titles")}




@functools.lru_cache(maxsize=1)
def role_modifiers() -> frozenset[str]:
    return frozenset(news_lexicon()["role_modifiers"])


@functools.lru_cache(maxsize=1)
def party_words() -> frozenset[str]:
    """The words of parties' names, which stand before a position capitalised ("Conservative
    MP", "Liberal Democrat councillor"); ``member_frames`` reads the party off again."""
    return frozenset(w for key in news_lexicon()["parties"] for w in key.split())



def role_category(role: str) -> str:
    """The category of a position's name, read from its last words: 'chief executive' ->
    'chief_executive', 'transport minister' -> 'office', 'senior curator' -> 'staff'.

    >>> role_category("Prime Minister"), role_category("head coach"), role_category("novelist")
    ('office', 'coach', '')
    """
    words = _words(role)
    if "of" in words[1:]:
        words = words[:words.index("of", 1)]  # "head of research": a head
    heads = role_heads()
    for n in range(min(4, len(words)), 0, -1):
        category = heads.get(words[-n:])
        if category:
            return category
    return ""




def _head_at(doc: Doc, i: int, end: int) -> int:
    """The end of the longest position noun starting at token ``i`` (before ``end``), or ``i``."""
    heads = role_heads()
    for n in range(min(4, end - i), 0, -1):
        words = tuple(t.lower_ for t in doc[i:i + n])
        if words in heads and not (n == 1 and words[0] in rule_words("abbreviated_titles")):
            return i + n
        if n == 1 and doc[i].text.endswith(".") and doc[i].lower_.rstrip(".") in rule_words("abbreviated_titles"):
            return i + 1  # "Sen." as "sen"
    return i


def _modifier(token) -> bool:
    lower = token.lower_
    return lower in role_modifiers() or lower == "-" or token.is_title and lower in party_words()


def _title_split(doc: Doc, ent: Span) -> list[Span] | None:
    """A NAME that begins with a position ("Prime Minister David Okonkwo", "ESA Director General
    Josef Hartl"): [name before, ROLE, name after]; None when it holds no title."""
    not_titles = word_set("titles_not_names")
    for k in range(ent.start, ent.end - 1):
        if doc[k].lower_ in not_titles or not (_modifier(doc[k]) or _head_at(doc, k, ent.end) > k):
            continue
        j, last_head = k, None
        while j < ent.end - 1:
            stop = _head_at(doc, j, ent.end - 1)
            if stop > j and not (j > k and doc[j].lower_ in not_titles):  # "Opposition Leader Dean Fitzroy"
                j = last_head = stop
            elif _modifier(doc[j]):
                j += 1
            else:
                break
        if last_head is None or (last_head >= ent.end - 1 and doc[last_head].lower_ == "of"):
            continue
        if doc[last_head].lower_ == "of":
            # "The Managing Director of Pra River Cocoa, Mr X": the organisation, where a comma and the
            # holder's name follow; "Director of Public Prosecutions Max Hill, a barrister" runs on into
            # the holder's name: left whole
            comma = ent.end + 1 if ent.end + 1 < len(doc) and doc[ent.end].is_title else ent.end  # "... Company Limited,"
            after = doc[comma + 1] if comma + 1 < len(doc) else None
            if comma >= len(doc) or doc[comma].text != "," or after is None \
                    or not (after.text[:1].isupper() or after.lower_.rstrip(".") in word_set("honorifics")):
                continue
            spans = [Span(doc, ent.start, k, label="NAME")] if k > ent.start else []
            return spans + [Span(doc, k, last_head, label="ROLE"), Span(doc, last_head + 1, ent.end, label="NAME")]
        if not doc[last_head].text[:1].isupper():
            continue
        if doc[last_head].lower_ in rule_words("league_nouns"):
            continue  # "Premier League": a league, not a premier named League
        spans = [Span(doc, ent.start, k, label="NAME")] if k > ent.start else []
        spans.append(Span(doc, k, last_head, label="ROLE"))
        while last_head < ent.end - 1 and doc[last_head].lower_.rstrip(".") in word_set("honorifics"):
            last_head += 1  # "Principal Mr Azwinndini Ramabulana": the honorific is no part of the name
        of = next((j for j in range(last_head + 1, ent.end - 1) if doc[j].lower_ == "of"), None)
        if of is None:  # "Detective Constable Sophie Marsh of West Midlands Police": two names
            return spans + [Span(doc, last_head, ent.end, label="NAME")]
        return spans + [Span(doc, last_head, of, label="NAME"), Span(doc, of + 1, ent.end, label="NAME")]
    return None


def _nationality_split(doc: Doc, ent: Span) -> list[Span] | None:
    """"won by Ugandan Joshua Kiprotich": a nationality glued to a person's two or three words, after
    a word that a person's name follows, or at a sentence's start where the words are not all
    English words ("American Jake Donnelly shared third", not "British Gas Trading"; "a Dutch
    Golden Age painter" is no person)."""
    rest = doc[ent.start + 1:ent.end]
    before = doc[ent.start - 1].lower_ if ent.start > 0 else ""
    if doc[ent.start].lower_ not in demonym_countries() or not 2 <= len(rest) <= 3 \
            or before not in ("by", "and", ",", "with", "beat", "beating", "to", "from", "against") \
            and not ((before in ("alongside", "behind", "over") or opens_sentence(doc[ent.start]))
                     and not all(t.lower_ in english_words() for t in rest)) \
            or not all(t.is_title and t.is_alpha for t in rest) \
            or {t.lower_ for t in rest} & (word_set("org_words") | word_set("team_words") | word_set("place_words")):
        return None
    return [Span(doc, ent.start, ent.start + 1, label="NORP"), Span(doc, ent.start + 1, ent.end, label="NAME")]


def _person_of_split(doc: Doc, ent: Span) -> list[Span] | None:
    """"Ana Kovač of Croatia", "Jane Grieve of Cardiff University": a person's two or three
    words, "of", and a country or an organisation, as two names; None for one name
    ("University of Leeds", "Bank of England", "Baron Pemberton of Malmesbury")."""
    of = next((j for j in range(ent.start + 2, min(ent.start + 4, ent.end - 1)) if doc[j].lower_ == "of"), None)
    if of is None:
        return None
    before = doc[ent.start:of]
    after = doc[of + 1:ent.end]
    plain = {w.lower() for w in before.text.split()}
    if plain & (word_set("org_words") | word_set("team_words") | word_set("place_words") | role_modifiers() | party_words()) \
            or any(_head_at(doc, i, of) > i for i in range(ent.start, of)) \
            or not all(t.is_title and t.is_alpha for t in before):
        return None
    after_words = {w.lower() for w in after.text.split()}
    if after.text.lower() not in country_aliases() and not after_words & (word_set("org_words") | word_set("team_words")):
        return None
    return [Span(doc, ent.start, of, label="NAME"), Span(doc, of + 1, ent.end, label="NAME")]


@functools.lru_cache(maxsize=1)
def _occupation_words() -> frozenset[str]:
    return frozenset(o.lower() for o in gazetteer()["occupations"] if " " not in o)




def doer_noun(word: str) -> bool:
    """"campaigner", "teenager", "violinist": a doer's noun of the lemma table, which may open a
    sentence glued to a name ("Campaigner Robin Telfer")."""
    return len(word) >= 6 and word.endswith(("er", "or", "ist", "ian")) and not word.endswith(("list", "sist")) \
        and word not in rule_words("not_agents") and word in english_words()


def agent_noun(word: str) -> bool:
    """"campaigner", "developer": a doer's noun of the lemma table that names a trade (not "teenager")."""
    return doer_noun(word) and word not in rule_words("non_trades")


def trade_like(word: str) -> bool:
    """"cooper", "wheelwright"'s kin: a trade by its ending, in the lemma table or not; for a word
    said of a name shaped like a person's ("Auguste Delmas, a Bordeaux cooper")."""
    return len(word) >= 6 and word.endswith(("er", "or", "ist", "ian")) and not word.endswith(("list", "sist")) \
        and word not in rule_words("not_agents") and word not in rule_words("non_trades")


def opens_sentence(token) -> bool:
    """Whether the token starts a sentence or a line (a headline's first word), where a capital says
    nothing about a name."""
    return token.i == 0 or token.is_sent_start or token.doc[token.i - 1].is_space


def _occupation_split(doc: Doc, ent: Span) -> list[Span] | None:
    """"Novelist Miriam Okoye dies at 84", "Campaigner Robin Telfer rode in the cab", "Neighbour
    Calum Morrison": an occupation (or a doer's noun, or a word such as "neighbour") that starts
    a sentence is capitalised and glued to the person's two or three words after it."""
    first = doc[ent.start]
    rest = doc[ent.start + 1:ent.end]
    if not opens_sentence(first) or not (first.lower_ in _occupation_words() or doer_noun(first.lower_)
                                         or first.lower_ in rule_words("non_trades")) or not 2 <= len(rest) <= 3 \
            or not all(t.is_title and t.is_alpha for t in rest) \
            or {t.lower_ for t in rest} & (word_set("org_words") | word_set("team_words") | word_set("place_words")):
        return None
    return [Span(doc, ent.start, ent.start + 1, label="OCCUPATION"), Span(doc, ent.start + 1, ent.end, label="NAME")]


def _all_role_words(doc: Doc, ent: Span, ending_in_head: bool = False) -> bool:
    """A NAME made of position words only: "Opposition", "Prime Minister"; with
    ``ending_in_head``, one whose last words are a position noun ("Chief Executive", not
    "Opposition")."""
    i, head_last = ent.start, False
    while i < ent.end:
        stop = _head_at(doc, i, ent.end)
        if stop > i:
            i, head_last = stop, True
        elif _modifier(doc[i]) and doc[i].lower_ != "-":
            i, head_last = i + 1, False
        else:
            return False
    return head_last or not ending_in_head


def _role_spans(doc: Doc, kept: list[Span]) -> list[Span]:
    """Positions outside names: modifiers and position nouns up to the last noun ("first-team
    coach", "chief economist"); a modifier-only NAME just before ("Opposition") joins them."""
    owner = {i: ent for ent in kept for i in range(ent.start, ent.end)}
    spans = []
    i = 0
    while i < len(doc):
        if i in owner and owner[i].label_ not in ("OCCUPATION", "ROLE") or doc[i].lower_ == "-":
            i += 1
            continue
        j, last, entity_only = i, None, False
        while j < len(doc):
            ent = owner.get(j)
            if ent is not None:
                if ent.label_ not in ("OCCUPATION", "ROLE") or j != ent.start:
                    break
                entity_only = j == i
                j = last = ent.end
                continue
            stop = _head_at(doc, j, len(doc))
            if stop > j:
                j = last = stop
                entity_only = False
            elif _modifier(doc[j]) and (doc[j].lower_ != "-" or j > i):
                j += 1
            else:
                break
        if last is None:
            i += 1
            continue
        # "the council's planning officer": a one-word position; not "a marine microbiologist" (an
        # occupation stays one), not "In a statement chief executive X" (the lexicon's own position),
        # not an office or a player's position, whose modifiers the lexicon lists ("site leader")
        generic = not entity_only and last - i == 1 \
            and role_category(doc[i:last].text) not in ("office", "player", "owner", "founder")
        start = plain_modifiers_before(doc, i, owner) if generic else i
        before = owner.get(start - 1) if start > 0 else None
        if before is not None and before.label_ == "NAME" and _all_role_words(doc, before):
            start = before.start
        if not (entity_only and start == i):  # a bare occupation stays one
            last = field_after(doc, last, owner)
            spans.append(Span(doc, start, last, label="ROLE"))
        i = last
    return spans


def _quantity_spans(doc: Doc, taken: set[int]) -> list[Span]:
    """Amounts: [currency sign] number [scale] [currency word]; percentages and dates excluded."""
    symbols = word_set("currency_symbols")
    units = word_set("money_units")
    spans = []
    i = 0
    while i < len(doc):
        if i in taken or not _NUMBER.match(doc[i].text):
            i += 1
            continue
        start, end = i, i + 1
        if start > 0 and doc[start - 1].text in symbols and start - 1 not in taken:
            start -= 1
        while end < len(doc) and end not in taken and doc[end].lower_ in units and end - i <= 2:
            end += 1
        if end < len(doc) and doc[end].text in ("%",) or end < len(doc) and doc[end].lower_ in ("percent", "per"):
            i = end
            continue
        spans.append(Span(doc, start, end, label="QUANTITY"))
        i = end
    return spans


@Language.component("news_spans")
def news_spans(doc: Doc) -> Doc:
    """Mark positions (ROLE) and amounts (QUANTITY); cut titles off names. See the module."""
    kept, roles = [], []
    for ent in doc.ents:
        if ent.label_ != "NAME":
            kept.append(ent)
        elif _all_role_words(doc, ent, ending_in_head=True):
            roles.append(Span(doc, ent.start, ent.end, label="ROLE"))  # "the Prime Minister", "the new Chief Executive"
        elif (parts := _person_of_split(doc, ent) or _nationality_split(doc, ent)
              or _occupation_split(doc, ent)) is not None:
            kept += parts
        elif (parts := _title_split(doc, ent)) is not None:
            kept += [p for p in parts if p.label_ == "NAME"]
            roles += [p for p in parts if p.label_ == "ROLE"]
        else:
            kept.append(ent)
    roles += _role_spans(doc, kept + roles)
    spans = filter_spans(roles + kept)
    taken = {i for span in spans for i in range(span.start, span.end)}
    doc.ents = filter_spans(spans + _quantity_spans(doc, taken))
    return doc


@Language.component("line_breaks")
def line_breaks(doc: Doc) -> Doc:
    """A line break starts a sentence: a headline or a dateline is not part of the next one."""
    for token in doc[2:]:
        before = doc[token.i - 1]
        if before.is_space and "\n" in before.text and doc[token.i - 2].text not in (".", "!", "?", '"', "”", ":"):
            token.is_sent_start = True
    return doc
