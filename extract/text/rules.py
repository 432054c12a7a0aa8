"""The ``rules`` extractor: frame patterns over a rule-based spaCy pipeline; works offline.

For every sentence: render it as a signature (entities as ``KIND#i``, other tokens as
``lower|lemma``), run every frame of ``extract.text.frames`` over it, and turn the roles of each
match into triples. Pronouns at the start of a sentence ("He", "The company") stand for the
document's subject: the first name of its first sentence. Nationalities become countries
("German" -> Germany); "located in" a country becomes the ``country`` relation, in a
continent the ``continent`` one, and in a sea, a range, an island group or a glacier the
relation that the tail's last word names (``tail_types``).

What a head is decides some facts, once the whole document is read: a person (born, died,
an occupation) has a citizenship, not a country, and is located nowhere; a work ("a 1935
British comedy film") has a country of origin and a publication year; a club (P54) needs a
sport. The class phrase after "is a" is read by ``class_phrase``.
"""

from __future__ import annotations

import bisect
import re

from spacy.tokens import Doc, Span

from extract.text.class_phrase import ClassPhrase, class_phrase, class_words, is_event, person_noun
from extract.text.coref import Mentions, common_word
from extract.text.frame_checks import (ENTITY_REF as _ENTITY_REF, adjective_name, after_article, after_at,
                                       after_preposition, after_rank, head_ends, in_name_list, opening_common_word,
                                       owned_role, placed_after)
from extract.text.opening import document_subject, title_case_headline
from extract.text.frames import FRAMES, NAMES
from extract.text.kin_frames import KIN_FRAMES, drop_kin_chains
from extract.text.member_frames import MEMBER_FRAMES, description_facts, team_sheet
from extract.text.news_frames import KIN, NEWS_FRAMES, VERB_ROLES, drop_general_positions, plausible, role_facts
from extract.text.lexicons import cities, one_english_word, tail_types
from extract.text.nlp import CAPITALISED_ADJECTIVES, NAME_LABELS, country_aliases, demonym_countries, load_pipeline, sport_names
from extract.text.normalize import display_name
from extract.text.org_frames import HEAD_LAST_WORDS, NAMED_ORGANISATIONS, ORG_FRAMES
from extract.text.name_kinds import person_shaped
from extract.text.roles import NON_TRADES, role_category, trade_like, word_set
from extract.text.signature import signature_parts
from extract.text.units import Triple

# Relations whose tail must be a country.
COUNTRY_TAILS = frozenset({"P17", "P27", "P495"})
# "Located" relations, re-typed by the tail's last word; P706 is kept only with a typed tail.
LOCATIVE = frozenset({"P131", "P706"})
# Facts that say where a thing is: a person has none of them.
PLACE_FACTS = frozenset({"P131", "P17", "P30", "P206", "P706", "P4552", "P361", "P159"})
# Frames whose organisation is no name after an article: "the Venetian painter X" says what the
# painter is, "Bayhawks coach X" where the coach works (``frame_checks.after_article``).
ADJECTIVE_ORGS = frozenset({"org-occupation-name"})
# Frames whose head is a name standing free, not the object of a locative preposition
# (``frame_checks.after_preposition``): "at Drexel University, a poet" is not about the
# university, and "In Norland, the opposition ..." not about Norland.
FREE_HEADS = frozenset({"apposition-occupation", "apposition-class", "operated-by", "founded-participle-in"})
# A P54 tail that is a league, not a team: "Algerian Ligue 2".
LEAGUE_WORDS = frozenset({"league", "ligue", "liga", "division", "conference", "bundesliga", "serie",
                          "divisie", "championship", "premiership"})
# Facts that only a person has.
PERSON_FACTS = frozenset({"P569", "P570", "P19", "P20", "P27", "P106", "P26", "P69", "P108", "P54", "P39",
                          "P551", "P40", "P22", "P25", "P3373", "P102", "P768", "P413", "P3629"})
# Positions that, named without an organisation in a story about one ("Chief executive X said",
# "Founder X"), are that organisation's; of the heads, only a managing director.
STORY_ROLES = frozenset({"chief_executive", "chair", "founder", "head"})
# Frames whose head must fit what ``news_frames.plausible`` asks of it.
NEWS = frozenset(f.name for f in NEWS_FRAMES + ORG_FRAMES + KIN_FRAMES + MEMBER_FRAMES)
ALL_FRAMES = FRAMES + NEWS_FRAMES + ORG_FRAMES + KIN_FRAMES + MEMBER_FRAMES
DATELINE = next(f.regex for f in ORG_FRAMES if f.name == "dateline")
_YEAR = re.compile(r"^\d{4}$")
_YEAR_NAME = re.compile(r"^(\d{4}) \S")
KIND_OF_LABEL = {"PERSON": "person", "ORG": "organization", "GPE": "place", "LOC": "place",
                 "FAC": "place", "COUNTRY": "place", "CONTINENT": "place", "DATE": "date",
                 "OCCUPATION": "occupation", "NORP": "place", "WORK_OF_ART": "work", "CLASS": "class"}


class RulesExtractor:
    """Facts from frame patterns; see ``extract.text.frames`` for the frames themselves.

    Example:
        >>> ex = RulesExtractor()
        >>> doc = ex.nlp("Marie Curie (born 7 November 1867 in Warsaw) was a Polish physicist.")
        >>> sorted((t.relation, t.tail) for t in ex.extract_sentences(doc, [(doc[:], "p0")]))
        [('P106', 'physicist'), ('P19', 'Warsaw'), ('P27', 'Poland'), ('P569', '7 November 1867')]
    """

    name = "rules"

    def __init__(self, spacy_model: str | None = None):
        self.nlp = load_pipeline(spacy_model)
        self.spacy_model = spacy_model or "blank:en+rules"

    def extract_sentences(self, doc: Doc, sentences: list[tuple[Span, str]]) -> list[Triple]:
        """Triples of ``sentences`` (each with the key of the passage it belongs to)."""
        subject = document_subject(doc)
        mentions = Mentions(doc, subject)
        found: list[Triple] = []
        phrases: list[tuple[Triple, ClassPhrase]] = []  # a head and what its class phrase says
        team, sheets = None, []  # the team of the last team sheet ("Reserves: ..." goes on with it), its players
        headline = title_case_headline(doc)
        for sentence, passage in sentences:
            if headline is not None and sentence.start == headline.start:
                continue  # its capitals glue words into names (``opening``)
            line, starts, tokens = signature_parts(sentence, mentions)
            here: list[Triple] = []
            for frame in ALL_FRAMES:
                for match in _matches(frame, line):
                    if frame.name in ADJECTIVE_ORGS and after_article(doc, match.group("org")) \
                            or frame.name in FREE_HEADS and after_preposition(doc, match.group("head")) \
                            or frame.name in HEAD_LAST_WORDS and not head_ends(doc, match, HEAD_LAST_WORDS[frame.name]):
                        continue
                    for head_role, relation, tail_role in frame.facts:
                        if tail_role in frame.class_roles:
                            self._class_fact(doc, match, head_role, tail_role, (mentions, subject), passage,
                                             sentence.text, starts, tokens, phrases)
                            continue
                        for tail in self._list_members(doc, match, tail_role, frame.lists, sentence):
                            if relation.startswith("@"):
                                here += self._news_facts(doc, match, relation, tail_role, tail, (mentions, subject),
                                                         passage, sentence.text)
                                continue
                            triple = self._triple(doc, match, head_role, relation, tail, (mentions, subject),
                                                  passage, sentence.text)
                            if triple is None or relation in PERSON_FACTS and mentions.kind(triple.head) in (
                                    "organization", "place"):
                                continue  # "Her publisher, Greaves & Hart, said she died in X"
                            if frame.name not in NEWS or plausible(triple, mentions,
                                                                   named=frame.name in NAMED_ORGANISATIONS):
                                here.append(triple)
            here += _event_years(sentence, passage)
            here += [Triple(display_name(h), rel, display_name(t), passage, self.name, "person", kind, sentence.text)
                     for h, rel, t, kind in description_facts(sentence, mentions)]
            sheet, team = team_sheet(sentence, mentions, team)
            if team is not None:  # a team sheet says it is a team: no sport needed
                sheets += [Triple(display_name(p), "P54", display_name(team), passage, self.name, "person",
                                  "organization", sentence.text) for p in sheet]
            found += drop_kin_chains(here) + _country_of_located(here)
        persons = mentions.certain_persons  # a name shaped like a person's is not enough here
        return drop_general_positions(_drop_story_placed(_resolve(found, phrases, persons), mentions)) + sheets

    def _class_fact(self, doc, match, head_role, tail_role, context, passage, evidence, starts, tokens,
                    phrases) -> None:
        head = self._filler(doc, match.group(head_role), context)
        if head is None or match.group(tail_role) is None:
            return
        lo = bisect.bisect_left(starts, match.start(tail_role))
        hi = bisect.bisect_left(starts, match.end(tail_role))
        phrase = class_phrase(doc, tokens[lo:hi])
        head_text = display_name(head[0])
        if head_text:
            phrases.append((Triple(head_text, "P31", "", passage, self.name,
                                   KIND_OF_LABEL.get(head[1], ""), "class", evidence), phrase))

    @staticmethod
    def _list_members(doc: Doc, match, role: str, lists: tuple[str, ...], sentence: Span) -> list[str | None]:
        """The tail's entity reference, and where ``role`` may be a list ("A, B and C"), the others."""
        ref = match.group(role) if role in match.groupdict() else None
        if ref is None or role not in lists:
            return [ref]
        out = [ref]
        first = _ENTITY_REF.match(ref)
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

    def _news_facts(self, doc, match, relation, tail_role, tail_ref, context, passage, evidence) -> list[Triple]:
        """The facts of an ``@`` relation of ``news_frames`` (``news_frames.role_facts``)."""
        groups = match.groupdict()
        head = self._filler(doc, groups.get("head"), context)
        if head is None:
            return []
        role = self._filler(doc, groups.get("verb" if relation == "@verb" else "role"), context)
        org_ref = groups.get("org") if relation == "@role" else tail_ref
        org = self._filler(doc, org_ref, context)
        if org is not None and opening_common_word(doc, org_ref, org[0]):
            org = None  # "Township trustee Gary Pruett", "Local councillor X": a capitalised common word
        founds = relation == "@verb" and role is not None and VERB_ROLES.get(role[0].lower()) == "founder"
        if org is not None and org[1] == "NAME" and (founds or after_at(doc, org_ref)) \
                and not context[0].kind(org[0]) and org[0] not in cities():
            org = (org[0], "ORG")  # "a specialist at the Rijksbureau": what one works at is an organisation
        subject, lead = context[1], context[0].lead
        category = role_category(role[0]) if role is not None else ""
        if relation == "@role" and "org" not in groups and role is not None and category in STORY_ROLES \
                and (category != "head" or role[0].lower().startswith("managing")) \
                and not owned_role(doc, groups.get("role")) and not placed_after(doc, groups.get("head")):
            if lead is not None:
                org = (lead, "NAME")  # a firm's story: "Chief executive X said", of the organisation it opens on
                context[0].story_placed.add(head[0])
            elif subject is not None and context[0].kind(subject.text) == "organization" \
                    and not one_english_word(subject.text):
                org = (context[0].name(subject.start), subject.label_)

        def make(h: str, rel: str, t: str, head_kind: str, tail_kind: str) -> Triple | None:
            h, t = display_name(h), display_name(t)
            if not h or not t or h.lower() == t.lower():
                return None
            return Triple(h, rel, t, passage, self.name, head_kind, tail_kind, evidence)

        return [t for t in role_facts(relation, head, role, org, context[0], make) if t is not None]

    def _triple(self, doc, match, head_role, relation, tail_ref, context, passage, evidence) -> Triple | None:
        head = self._filler(doc, match.group(head_role) if head_role in match.groupdict() else None, context)
        tail = self._filler(doc, tail_ref, context)
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
        if relation in PLACE_FACTS and (head_text in CAPITALISED_ADJECTIVES
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
        if relation == "P1344" and (not is_event(tail_text) or context[0].kind(head_text) == "place"
                                    or one_english_word(head_text) or adjective_name(doc, match.group(head_role))):
            return None  # "The Montreal-born pianist ... took second prize at the X Competition": no Montreal
        if relation == "P54" and LEAGUE_WORDS & set(tail_text.lower().split()):
            return None
        head_text, tail_text = display_name(head_text), display_name(tail_text)
        if not head_text or not tail_text or head_text.lower() == tail_text.lower():
            return None
        if match.re is DATELINE:  # "KOUROU, French Guiana (AP) —", "BRADLEY FALLS, Tenn. —"; not "Glass Orchard, Lyceum —"
            if not head_text.isupper() and "(" not in match.group(0):
                return None
            head_text = head_text.title() if head_text.isupper() and len(head_text) > 4 else head_text
        return Triple(head_text, relation, tail_text, passage, self.name,
                      KIND_OF_LABEL.get(head_label, ""), KIND_OF_LABEL.get(tail_label, ""), evidence)

    @staticmethod
    def _filler(doc: Doc, ref: str | None, context: tuple[Mentions, Span | None]) -> tuple[str, str] | None:
        """(name, label) of a role's filler: a pronoun's referent, a short name's full name."""
        if ref is None:
            return None
        m = _ENTITY_REF.match(ref)
        if m is None or " " in ref:  # a WORD or WORDS role: "lower|lemma", "copper|copper OCCUPATION#5"
            return " ".join(doc[int(e.group(2))].text if (e := _ENTITY_REF.match(part)) else part.split("|", 1)[0]
                            for part in ref.split()), "WORD"
        label, index = m.group(1), int(m.group(2))
        mentions, subject = context
        if label in ("PRON", "POSS"):
            if index in mentions.resolved:
                return mentions.resolved[index]
            return (subject.text, subject.label_) if subject is not None else None
        if common_word(doc[index]) and doc[index].lower_ not in word_set("team_words") | word_set("org_words"):
            return None  # "Fishermen based in Wells": a plural noun that opens a sentence is no name ("Rovers" is)
        return mentions.name(index), label


def _matches(frame, line: str):
    """A frame's matches in a signature; a news frame's may overlap ("Mr Ash said the company
    employs ...": the match from "Ash" fails its checks, the one from "the company" holds)."""
    if frame.name not in NEWS:
        yield from frame.regex.finditer(line)
        return
    pos = 0
    while (match := frame.regex.search(line, pos)) is not None:
        yield match
        pos = match.start() + 1


def _drop_story_placed(triples: list[Triple], mentions: Mentions) -> list[Triple]:
    """A position put at the story's organisation only because the story opens on it ("Chairman
    Tom Pike said") gives way where the document places the person at another one ("Velnor
    Bank chairman Tom Pike")."""
    lead = display_name(mentions.lead or "")
    elsewhere = {(t.tail, t.relation) for t in triples if t.tail in mentions.story_placed and t.head != lead}
    return [t for t in triples if not (t.head == lead and (t.tail, t.relation) in elsewhere)]


# Nouns for several people: "Dale and Renee Kubiak, a retired couple" is no couple's instance.
PEOPLE_GROUPS = frozenset({"couple", "pair", "duo", "trio", "family", "siblings", "twins", "brothers", "sisters"})


def _event_years(sentence: Span, passage: str) -> list[Triple]:
    """"the 1964 Summer Olympics" took place in 1964 (P585)."""
    out = []
    for ent in sentence.ents:
        m = _YEAR_NAME.match(ent.text)
        if m and ent.label_ in NAME_LABELS:
            out.append(Triple(ent.text, "P585", m.group(1), passage, "rules", "event", "date", sentence.text))
    return out


def _part_of_any(name: str, names: set[str]) -> bool:
    """"Franchère" is part of "Joseph Franchère": a short mention of a person is that person."""
    words = name.lower().split()
    n = len(words)
    for other in names:
        longer = other.lower().split()
        if len(longer) > n and any(longer[i:i + n] == words for i in range(len(longer) - n + 1)):
            return True
    return False


def _country_of_located(found: list[Triple]) -> list[Triple]:
    """X located in Y, Y in country Z (same sentence) => X in country Z: a country is inherited."""
    country = {t.head: t for t in found if t.relation == "P17"}
    return [Triple(t.head, "P17", country[t.tail].tail, t.passage, t.extractor, t.head_kind, "place", t.evidence)
            for t in found if t.relation == "P131" and t.tail in country and t.head != country[t.tail].tail]


def _resolve(found: list[Triple], phrases: list[tuple[Triple, ClassPhrase]], named_persons: set[str]) -> list[Triple]:
    """Facts that depend on what a head is, decided with the whole document read."""
    persons = {t.head for t in found if t.relation in PERSON_FACTS} | {
        t.head for t, _ in phrases if t.head in named_persons}
    persons |= {t.head for t, p in phrases if p.person} | {t.tail for t in found if t.relation in KIN}  # "father, Steve,"
    persons |= {t.head for t, p in phrases if person_shaped(t.head)  # "Jo Pike, a German immigrant": a person, no class
                and any(c.split()[-1].lower() in NON_TRADES for c in p.classes)}
    persons |= {h for h in {t.head for t in found} | {t.head for t, _ in phrases} if _part_of_any(h, persons)}
    out = list(found)
    for base, phrase in phrases:
        def fact(relation: str, tail: str | None, kind: str) -> None:
            if tail:
                out.append(Triple(base.head, relation, tail, base.passage, base.extractor,
                                  base.head_kind, kind, base.evidence))
        country = demonym_countries().get(phrase.nationality.lower()) if phrase.nationality else None
        if base.head in persons:
            fact("P27", country, "place")
            for occupation in phrase.occupations:
                if occupation.split()[-1].lower() not in NON_TRADES:  # "an immigrant" is no trade
                    fact("P106", occupation, "occupation")
        else:
            for cls in phrase.classes:
                last = cls.split()[-1].lower()
                if person_shaped(base.head) and trade_like(last):
                    fact("P106", cls, "occupation")  # "Auguste Delmas, a Bordeaux cooper": a person's trade
                elif not person_noun(last, class_words()) and not (person_shaped(base.head) and last in PEOPLE_GROUPS):
                    fact("P31", cls, "class")
            fact("P495" if phrase.work or phrase.group else "P17", country, "place")
            if phrase.work:
                fact("P577", phrase.year, "date")
        if phrase.work or phrase.group:
            fact("P136", phrase.genre, "genre")
        fact("P641", phrase.sport, "sport")
    sports = sport_names()
    out += [Triple(t.head, "P641", sports[t.tail.lower()], t.passage, t.extractor, t.head_kind, "sport", t.evidence)
            for t in found if t.relation == "P106" and t.tail.lower() in sports]
    sport_of = {t.head: t.tail for t in out if t.relation == "P641"}
    # a player's club plays the player's sport
    out += [Triple(t.tail, "P641", sport_of[t.head], t.passage, t.extractor, "organization", "sport", t.evidence)
            for t in found if t.relation == "P54" and t.head in sport_of]
    # ... and so does one who plays for a name that says it is a team ("Kingsford Rovers")
    sporty = set(sport_of) | {t.head for t in found if t.relation == "P413"} | {t.head for t in found if t.relation == "P54"
                              and {w.lower() for w in t.tail.split()} & word_set("team_words")}
    triples: dict[tuple, Triple] = {}
    for t in out:
        if t.relation in PLACE_FACTS and (t.head in persons or t.tail in persons):
            continue  # "of Halden Foods, Kwame Boateng,": a person is no place a place lies in
        if t.relation == "P54" and t.head not in sporty:
            continue
        triples.setdefault((t.head, t.relation, t.tail, t.passage), t)
    return list(triples.values())
