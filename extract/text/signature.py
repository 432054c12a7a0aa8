"""A sentence as one line of tokens, the text the frame patterns of ``extract.text.frames`` match.

An entity becomes ``KIND#index`` (``NAME#4``, ``DATE#9``, ``ROLE#2``); a name whose last word
says what it is carries that relation (``NAME@P4552#9`` for "Sentinel Range", see
``tail_types``); a pronoun or a description that ``coref.Mentions`` resolved ("she", "the
company", "the minister") becomes ``PRON#index`` (its article dropped); a run of quoted speech
becomes one ``QUOTE|quote`` part, so no frame reads a fact out of a quotation; any other token
is ``lower|lemma``.
"""

from __future__ import annotations


from spacy.tokens import Span

from extract.text.coref import Mentions, common_word, object_use
from extract.text.frames import NAMES
from extract.text.lexicons import rule_words, tail_types



def signature_parts(sentence: Span, mentions: Mentions | None = None) -> tuple[str, list[int], list[int]]:
    """The signature of ``sentence`` with, for each of its parts, where it starts in the line and
    which token it stands for (so a role that spans several parts can be read back).

    Without ``mentions``, a sentence-initial pronoun or "the" + a generic noun ("The company")
    becomes ``PRON#i`` (the document's subject, for the caller to fill in).
    """
    parts: list[str] = []
    starts: list[int] = []
    tokens: list[int] = []
    first = True
    skip_next_article = False
    length = 0
    resolved = mentions.resolved if mentions is not None else {}
    speech = mentions.speech if mentions is not None else set()
    doc = sentence.doc
    for token in sentence:
        if token.is_space:
            continue
        lower = token.lower_
        if mentions is not None and token.i in mentions.described:
            continue  # "The 47-year-old former Motherwell midfielder": only its noun stands, for the person
        if token.i in speech:
            if parts and parts[-1] == "QUOTE|quote":
                continue
            part = "QUOTE|quote"
        elif token.i in resolved:
            # "her husband", "its director": a possessive names the owner, not the sentence's subject
            possessive = lower in rule_words("possessive_pronouns") and not (lower == "her" and object_use(doc, token.i))
            part = f"POSS#{token.i}" if possessive else f"PRON#{token.i}"
        elif mentions is not None and lower == "the" and token.i + 1 < len(doc) and token.i + 1 in resolved:
            first = False
            continue  # "the company": the noun stands for the name
        elif token.ent_type_ and not _opening_participle(token):
            typed = tail_types().get(lower.rsplit(None, 1)[-1]) if token.ent_type_ in NAMES else None
            part = f"{token.ent_type_}@{typed}#{token.i}" if typed else f"{token.ent_type_}#{token.i}"
        elif mentions is None and first and lower in rule_words("subject_pronouns"):
            part = f"PRON#{token.i}"
        elif mentions is None and first and lower in ("the", "this") and token.i + 1 < len(doc) \
                and doc[token.i + 1].lower_ in rule_words("generic_mentions"):
            skip_next_article = True
            first = False
            continue
        elif skip_next_article:
            part = f"PRON#{token.i}"
            skip_next_article = False
        else:
            word = _clean(lower)
            part = f"{word}|{_clean(token.lemma_.lower()) or word}"
        first = False
        starts.append(length)
        tokens.append(token.i)
        parts.append(part)
        length += len(part) + 1
    return " " + " ".join(parts), starts, tokens


def signature(sentence: Span, mentions: Mentions | None = None) -> str:
    """One line per sentence: `` NAME#0 was|be born|bear in|in NAME#4``."""
    return signature_parts(sentence, mentions)[0]


def _opening_participle(token) -> bool:
    """"Formed in Leeds in 2006 by ...": a capitalised participle opening a sentence is a word, not a name."""
    return token.ent_type_ in NAMES and " " not in token.text and token.lower_.endswith("ed") and common_word(token)


def _clean(text: str) -> str:
    return text.replace(" ", "_").replace("|", "_").replace("#", "_")
