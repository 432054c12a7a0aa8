"""The candidates stage: a frame match's roles filled with names, and each fact of the frame made
into a candidate triple (or, for a class phrase, a ``ClassStatement``).

A role's filler is an entity reference of the signature (``NAME#12``); a pronoun stands for its
referent or the document's subject, a short name for its full name (``coref.Mentions``).
Nationalities become countries ("German" -> Germany); "located in" a country becomes the
``country`` relation, in a continent the ``continent`` one, and in a sea, a range, an island
group or a glacier the relation that the tail's last word names (``lexicons.tail_types``). A
fact that cannot be stated from what fills the frame ("Christian art" located nowhere, a
country located in a place it names) yields no candidate.
"""

from __future__ import annotations

import bisect

from spacy.tokens import Doc, Span

from extract.text.class_phrase import class_phrase, class_words, is_event
from extract.text.coref import Mentions, common_word
from extract.text.frame_checks import (ENTITY_REF, adjective_name, after_at, after_rank, in_name_list,
                                       opening_common_word, owned_role, placed_after)
from extract.text.frames import NAMES
from extract.text.lexicons import cities, one_english_word, rule_word_map, rule_words, tail_types, word_set
from extract.text.news_frames import role_facts
from extract.text.nlp import country_aliases, demonym_countries
from extract.text.normalize import display_name
from extract.text.roles import role_category
from extract.text.rules.values import (COUNTRY_TAILS, EXTRACTOR, KIND_OF_LABEL, LOCATIVE, PLACE_FACTS, STORY_ROLES,
                                       Candidate, ClassStatement, FrameMatch, ParsedDocument)
from extract.text.units import Triple


def candidates(parsed: ParsedDocument, mentions: Mentions,
               found: FrameMatch) -> tuple[list[Candidate], list[ClassStatement]]:
    """Every fact of ``found``'s frame, for every name that fills its tail (a list role: each
    name of the list), in the frame's order; class phrases as statements for later.

    Marks in ``mentions.story_placed`` a person put at the story's organisation only because the
    story opens on it ("Chief executive X said")."""
    doc, frame, match, sentence = parsed.doc, found.frame, found.match, found.sentence
    out: list[Candidate] = []
    statements: list[ClassStatement] = []
    for head_role, relation, tail_role in frame.facts:
        if tail_role in frame.class_roles:
            statement = class_statement(parsed, mentions, found, head_role, tail_role)
            if statement is not None:
                statements.append(statement)
            continue
        for tail in list_members(doc, match, tail_role, frame.lists, sentence):
            if relation.startswith("@"):
                out += [Candidate(t, frame, from_role_words=True)
                        for t in role_word_triples(parsed, mentions, found, relation, tail)]
                continue
            triple = frame_triple(parsed, mentions, found, head_role, relation, tail)
            if triple is not None:
                out.append(Candidate(triple, frame))
    return out, statements


def filler(parsed: ParsedDocument, mentions: Mentions, ref: str | None) -> tuple[str, str] | None:
    """(name, label) of a role's filler: a pronoun's referent, a short name's full name."""
    if ref is None:
        return None
    doc = parsed.doc
    m = ENTITY_REF.match(ref)
    if m is None or " " in ref:  # a WORD or WORDS role: "lower|lemma", "copper|copper OCCUPATION#5"
        return " ".join(doc[int(e.group(2))].text if (e := ENTITY_REF.match(part)) else part.split("|", 1)[0]
                        for part in ref.split()), "WORD"
    label, index = m.group(1), int(m.group(2))
    if label in ("PRON", "POSS"):
        if index in mentions.resolved:
            return mentions.resolved[index]
        return (parsed.subject.text, parsed.subject.label_) if parsed.subject is not None else None
    if common_word(doc[index]) and doc[index].lower_ not in word_set("team_words") | word_set("org_words"):
        return None  # "Fishermen based in Wells": a plural noun that opens a sentence is no name ("Rovers" is)
    return mentions.name(index), label


def list_members(doc: Doc, match, role: str, lists: tuple[str, ...], sentence: Span) -> list[str | None]:
    """The tail's entity reference, and where ``role`` may be a list ("A, B and C"), the others."""
    ref = match.group(role) if role in match.groupdict() else None
    if ref is None or role not in lists:
        return [ref]
    out = [ref]
    first = ENTITY_REF.match(ref)
    assert first is not None  # a list role is an entity's role: "NAME#5"
    j = int(first.group(2)) + 1
    while j < sentence.end:
        k, last = j, False
        if doc[k].text == ",":
            k += 1
        if k < sentence.end and doc[k].lower_ in ("and", "&"):
            k, last = k + 1, True
        if k == j:
            break  # no comma, no "and": the list (if any) has ended
        if k < sentence.end and doc[k].lower_ == "the":
            k += 1
        if k + 1 < sentence.end and doc[k].ent_type_ in ("OCCUPATION", "ROLE") and doc[k + 1].ent_type_ in NAMES:
            k += 1  # "by singer Tom Harrow and guitarist Niamh Callaghan"
        if k >= sentence.end or doc[k].ent_type_ not in NAMES:
            break
        out.append(f"{doc[k].ent_type_}#{k}")
        j = k + 1
        if last:
            break
    return out


def class_statement(parsed: ParsedDocument, mentions: Mentions, found: FrameMatch, head_role: str,
                    tail_role: str) -> ClassStatement | None:
    """"X is a 1935 British comedy film": the head and its class phrase (``class_phrase``)."""
    match = found.match
    head = filler(parsed, mentions, match.group(head_role))
    if head is None or match.group(tail_role) is None:
        return None
    lo = bisect.bisect_left(found.starts, match.start(tail_role))
    hi = bisect.bisect_left(found.starts, match.end(tail_role))
    phrase = class_phrase(parsed.doc, list(found.tokens[lo:hi]))
    head_text = display_name(head[0])
    if not head_text:
        return None
    return ClassStatement(Triple(head_text, "P31", "", found.passage, EXTRACTOR, KIND_OF_LABEL.get(head[1], ""),
                                 "class", found.sentence.text), phrase)


def role_word_triples(parsed: ParsedDocument, mentions: Mentions, found: FrameMatch, relation: str,
                      tail_ref: str | None) -> list[Triple]:
    """The facts of an ``@`` relation of ``news_frames`` (``news_frames.role_facts``)."""
    doc, match = parsed.doc, found.match
    groups = match.groupdict()
    head = filler(parsed, mentions, groups.get("head"))
    if head is None:
        return []
    role = filler(parsed, mentions, groups.get("verb" if relation == "@verb" else "role"))
    org_ref = groups.get("org") if relation == "@role" else tail_ref
    org = filler(parsed, mentions, org_ref)
    if org is not None and opening_common_word(doc, org_ref, org[0]):
        org = None  # "Township trustee Gary Pruett", "Local councillor X": a capitalised common word
    founds = relation == "@verb" and role is not None \
        and rule_word_map("verb_roles").get(role[0].lower()) == "founder"
    if org is not None and org[1] == "NAME" and (founds or after_at(doc, org_ref)) \
            and not mentions.kind(org[0]) and org[0] not in cities():
        org = (org[0], "ORG")  # "a specialist at the Rijksbureau": what one works at is an organisation
    subject, lead = parsed.subject, mentions.lead
    category = role_category(role[0]) if role is not None else ""
    if relation == "@role" and "org" not in groups and role is not None and category in STORY_ROLES \
            and (category != "head" or role[0].lower().startswith("managing")) \
            and not owned_role(doc, groups.get("role")) and not placed_after(doc, groups.get("head")):
        if lead is not None:
            org = (lead, "NAME")  # a firm's story: "Chief executive X said", of the organisation it opens on
            mentions.story_placed.add(head[0])
        elif subject is not None and mentions.kind(subject.text) == "organization" \
                and not one_english_word(subject.text):
            org = (mentions.name(subject.start), subject.label_)
    passage, evidence = found.passage, found.sentence.text

    def make(h: str, rel: str, t: str, head_kind: str, tail_kind: str) -> Triple | None:
        h, t = display_name(h), display_name(t)
        if not h or not t or h.lower() == t.lower():
            return None
        return Triple(h, rel, t, passage, EXTRACTOR, head_kind, tail_kind, evidence)

    return [t for t in role_facts(relation, head, role, org, mentions, make) if t is not None]


def frame_triple(parsed: ParsedDocument, mentions: Mentions, found: FrameMatch, head_role: str, relation: str,
                 tail_ref: str | None) -> Triple | None:
    """One fact of a frame with its head and tail filled and typed, or None where the fillers
    cannot state it."""
    doc, match = parsed.doc, found.match
    head = filler(parsed, mentions, match.group(head_role) if head_role in match.groupdict() else None)
    tail = filler(parsed, mentions, tail_ref)
    if head is None or tail is None:
        return None
    (head_text, head_label), (tail_text, tail_label) = head, tail
    if tail_label == "NORP":
        country = demonym_countries().get(tail_text.lower())
        if country is None:
            return None
        tail_text, tail_label = country, "COUNTRY"
    elif tail_label == "COUNTRY":
        tail_text = country_aliases().get(tail_text.lower(), tail_text)
    if head_label in ("COUNTRY", "CONTINENT"):
        head_text = country_aliases().get(head_text.lower(), head_text)
        if relation in PLACE_FACTS:
            return None  # a country is not located in a place it names
    if relation == "P17" and tail_label == "CONTINENT":
        relation = "P30"
    if relation in PLACE_FACTS and (head_text in rule_words("capitalised_adjectives")
                                    or tail_text.split()[-1] in class_words()["not_places"]):
        return None  # "Christian art", "in the National Football League": not places
    if relation in LOCATIVE and is_event(head_text):
        relation = "P276"  # an event takes place somewhere; it is not located in it
    elif relation in LOCATIVE:
        if tail_label == "COUNTRY":
            relation = "P17"
        elif tail_label == "CONTINENT":
            relation = "P30"
        else:
            typed = tail_types().get(tail_text.split()[-1].lower()) if tail_text.split() else None
            if typed is None and relation == "P706":
                return None
            relation = typed or relation
            if after_rank(doc, tail_ref) or in_name_list(doc, tail_ref):
                return None
    if relation in COUNTRY_TAILS and tail_label != "COUNTRY":
        return None
    if relation == "P31":  # "the town of Lloyd": only a unit's own noun names a class here
        if tail_text.lower() not in class_words()["unit_classes"]:
            return None
        tail_label = "CLASS"
    if relation == "P1344" and (not is_event(tail_text) or mentions.kind(head_text) == "place"
                                or one_english_word(head_text) or adjective_name(doc, match.group(head_role))):
        return None  # "The Montreal-born pianist ... took second prize at the X Competition": no Montreal
    if relation == "P54" and rule_words("league_words") & set(tail_text.lower().split()):
        return None
    head_text, tail_text = display_name(head_text), display_name(tail_text)
    if not head_text or not tail_text or head_text.lower() == tail_text.lower():
        return None
    if found.frame.dateline:  # "KOUROU, French Guiana (AP) —", "BRADLEY FALLS, Tenn. —"; not "Glass Orchard, Lyceum —"
        if not head_text.isupper() and "(" not in match.group(0):
            return None
        head_text = head_text.title() if head_text.isupper() and len(head_text) > 4 else head_text
    return Triple(head_text, relation, tail_text, found.passage, EXTRACTOR,
                  KIND_OF_LABEL.get(head_label, ""), KIND_OF_LABEL.get(tail_label, ""), found.sentence.text)
