"""Frames for news: positions in organisations, appositions, amounts, events, prizes.

Written in the pattern language of ``extract.text.frames``. A fact whose relation starts with
``@`` depends on the words that filled the frame and is made by ``role_facts``:

- ``@role``: the head holds the position in role ``role``, at the organisation in role
  ``org`` where the frame has one. What that gives depends on the position
  (``roles.role_category``): an office, a political position, is ``P39`` (position held: "transport
  minister", "foreign minister of Norland"); at an organisation a chief executive is ``P169``
  of it, a chair ``P488``, a director or head ``P1037``, a coach (or a team's manager)
  ``P286``, a founder ``P112``, an owner ``P127``, a player ``P54``, anyone else working there
  ``P108`` (employer); an occupation of the gazetteer is also ``P106``.
- ``@verb``: "X chairs / heads / runs / coaches / founded Y", and "Y is run by X": the verb
  says the position.
- ``@join``: "X joined Y [as a Z]": a team's player (``P54``) or an employee (``P108``).
- ``@won``: a prize (``P166``, award received) or an event the head won (``P1346``, winner).
- ``@school``: educated at (``P69``), kept only where the name says it is a school.

A person fact is kept only for a head that ``coref.Mentions`` takes for a person.
"""

from __future__ import annotations

import functools
import re

from extract.text.class_phrase import is_event
from extract.text.coref import Mentions
from extract.text.name_kinds import org_class
from extract.text.member_frames import member_facts, party_in_role, playing_position
from extract.text.frames import ASIDE, FOUNDED_GAP, HONORIFIC, POSSESSIVE, Frame, news_frame
from extract.text.lexicons import (alternation, cities, demonym_countries, gazetteer, rule_word_map, rule_words,
                                   word_set)
from extract.text.roles import role_category
from extract.text.units import Triple

STATUS = "[ %s ]" % alternation("news_status_words")
APPROX = "[ %s ]" % alternation("approximately")
# Category -> (relation, True when the organisation is the relation's head).
ORGANISATION_SIDE = {"chief_executive": ("P169", True), "chair": ("P488", True), "head": ("P1037", True),
                     "coach": ("P286", True), "founder": ("P112", True), "owner": ("P127", True),
                     "player": ("P54", False), "staff": ("P108", False), "occupation": ("P108", False)}
# Family relations: child, father, mother, sibling, spouse.
KIN = frozenset({"P40", "P22", "P25", "P3373", "P26"})

# Nouns for a person between a nationality and a name ("Kenyan runner Faith Chepkoech"): none
# that may name a firm ("the German carmaker X" is a firm's country, in ``org_frames``).
PEOPLE_NOUNS = alternation("people_nouns")

NEWS_FRAMES: tuple[Frame, ...] = (
    # -- a position before a name: "Prime Minister David Okonkwo", "Rovers manager Steve Callow",
    # "Harbourline's chief executive, Amira Haddad", "the novelist Sarah Quinlan"
    news_frame("org-role-name", "{OWNER:org} " + POSSESSIVE + " " + STATUS + " [ {NORP:nationality} ] {ROLE:role} [ , ] " + HONORIFIC
               + " {NAME:head}", ("head", "@role", "role"), ("head", "P27", "nationality")),
    news_frame("role-name", "{ROLE:role} [ , ] " + HONORIFIC + " {NAME:head}", ("head", "@role", "role")),
    # "Calder City have sacked manager Iain Hendry", "Rovers have signed striker Ade Bello"
    news_frame("org-hires-role-name", "{SUBJ:org} [ have|has|had ] sack|sacked|dismiss|dismissed|appoint|appointed|name|named|"
               "sign|signed|hire|hired|recruit|recruited|recall|recalled|select|selected [ their|its|the ] [ {NORP} ] [ {COUNTRY} ] " + STATUS + " {ROLE:role} {NAME:head}",
               ("head", "@role", "role")),
    # "Mark Ellery, a former Calder City defender"
    news_frame("name-org-position", "{NAME:head} , a|an|the " + STATUS + " {NAME:org} {POSITION:role} ,|.|;|who|and",
               ("head", "@role", "role")),
    # "Bayhawks coach Terri Lindqvist", "Google engineer X": an occupation at a named organisation
    news_frame("org-occupation-name", "{NAME:org} {OCCUPATION:role} {NAME:head}", ("head", "@role", "role"),
               org_not_after_article=True),
    news_frame("occupation-name", "the|a|an|by|former|retired|veteran|and|with|after|to|from|for|, [ {NORP:nationality} ] [ {NAME} ] *2 "
               "{OCCUPATION:role} " + HONORIFIC + " {NAME:head}",
               ("head", "@role", "role"), ("head", "P27", "nationality")),
    # "A former county prosecutor and state attorney general, Halvorsen chairs ...": fronted positions
    news_frame("fronted-position", "^ " + STATUS + " ~2 {POSITION:role} [ and ~3 {POSITION} ~1 ] , {NAME:head}",
               ("head", "@role", "role")),
    news_frame("fronted-position-2", "^ " + STATUS + " ~2 {POSITION} and ~3 {POSITION:role} ~1 , {NAME:head}",
               ("head", "@role", "role")),
    # "Novelist Miriam Okoye dies at 84": a headline's occupation, cut off the name (roles)
    news_frame("occupation-name-first", "^ {OCCUPATION:role} {NAME:head}", ("head", "@role", "role")),
    news_frame("nationality-role-name", "{NORP:nationality} " + STATUS + " {POSITION:role} {NAME:head}",
               ("head", "@role", "role"), ("head", "P27", "nationality")),
    news_frame("role-of-org-name", "{ROLE:role} of|at|for [ the ] {SUBJ:org} [ , ] [ {ROLE} ] " + HONORIFIC + " {NAME:head}",
               ("head", "@role", "role")),
    news_frame("role-name-of", "{ROLE:role} {NAME:head} of|at [ the ] {SUBJ:org}", ("head", "@role", "role")),
    # -- a position after a name: "Jonas Mertens, chief economist at Tellus Bank"
    news_frame("name-role-of", "{NAME:head} , [ {QUANTITY} , ] [ who be ] [ currently|now|also ] [ the|a|an|its|their ] " + STATUS
               + " ~1 {POSITION:role} of|at|for|with [ the|a|an ] [ +2 " + alternation("org_nouns") + " ] {SUBJ:org}", ("head", "@role", "role")),
    news_frame("name-role", "{NAME:head} , [ {QUANTITY} , ] [ who be ] [ currently|now|also ] [ the|a|an ] " + STATUS + " {ROLE:role} ,|.|;|in",
               ("head", "@role", "role")),
    # "Her brother, Paul Kessler, is chief operating officer."
    news_frame("name-is-role", "{NAME:head} [ , ] [ ~6 , ] is|was [ now|also|currently ] [ the|its|their ] " + STATUS
               + " {ROLE:role} .|;|and", ("head", "@role", "role")),
    # "a charity, Rushmere Libraries Trust, whose chief executive, Claire Hewitt, said"
    # "Haynesworth's lawyer, Curtis Molloy": an occupation, said after a possessive
    news_frame("owner-occupation-name", "{OWNER} " + POSSESSIVE + " {OCCUPATION:role} , {NAME:head} ,|.|;|said|who|was|is|has|of",
               ("head", "@role", "role")),
    news_frame("whose-role-name", "{NAME:org} , whose " + STATUS + " {ROLE:role} [ , ] " + HONORIFIC + " {NAME:head}",
               ("head", "@role", "role")),
    news_frame("name-org-role", "{NAME:head} , [ {QUANTITY} , ] [ the ] {OWNER:org} 's|’s|'|’ " + STATUS + " {POSITION:role}", ("head", "@role", "role")),
    # -- "X is the finance director of Y", "X was elected governor", "X became leader of Y"
    news_frame("is-role-of", "{SUBJ:head} " + ASIDE + " ~6 be|become|became|remain [ currently|now|also ] [ the|a|an|its ] "
               + STATUS + " ~1 {POSITION:role} of|at|for [ the ] {SUBJ:org}", ("head", "@role", "role")),
    news_frame("became-role", "{SUBJ:head} *6 elect|elected|become|became|serve|served|appoint|appointed|name|named|sworn|"
               "remain|remains|remained ~2 "
               "[ as ] [ the|a ] " + STATUS + " {ROLE:role} [ of|at|for [ the ] {SUBJ:org} ]", ("head", "@role", "role")),
    news_frame("appointed-as", "{SUBJ:org} ~4 appoint|appointed|name|named|hire|hired|pick|picked|choose|chose [ {ROLE} ] " + HONORIFIC + " {NAME:head} "
               "[ , ~14 , ] as [ its|their|the ] ~2 {POSITION:role}", ("head", "@role", "role")),
    # "appointed X as the new Chief Executive of the Y Board": the organisation named after the position
    news_frame("appointed-as-of", "appoint|appointed|name|named|hire|hired|pick|picked|choose|chose " + HONORIFIC + " {NAME:head} "
               "[ , ~14 , ] as [ its|their|the ] " + STATUS + " {ROLE:role} of|at [ the ] {NAME:org}", ("head", "@role", "role")),
    # "Meridian Pictures has named X its new chief executive": no "as"
    news_frame("named-its-role", "{SUBJ:org} ~4 appoint|appointed|name|named|make|made " + HONORIFIC + " {NAME:head} {POSS} "
               + STATUS + " {ROLE:role}", ("head", "@role", "role")),
    # -- "X, who chairs Y", "X has led Y", "Y is run by X"
    news_frame("heads-org", "{SUBJ:head} [ , {QUANTITY} , ] [ , who ] [ has|have|had ] [ also ] {WORD:verb} [ the ] {SUBJ:org}",
               ("head", "@verb", "org")),
    news_frame("run-by", "{SUBJ:org} " + FOUNDED_GAP + " be|been {WORD:verb} ~4 by [ the ] *3 {NAME:head}", ("head", "@verb", "org")),
    news_frame("joined", "{SUBJ:head} ~3 join|joined|joins [ the ] *2 {NAME:org} [ ~4 as [ a|an|the ] ~2 {POSITION:role} ] "
               ",|.|;|in|as|from|on|at|for|after|and|last|this|when|until|with|since",
               ("head", "@join", "org")),
    news_frame("signed-from", "{SUBJ:head} ~6 sign|signed from [ the ] {NAME:team}", ("head", "P54", "team")),
    # "X left for English League Two side Halstead Town", "joined from Swedish side Y", "a transfer to
    # Portuguese champions Y": a team named after a team's noun
    news_frame("moved-to-side", "{SUBJ:head} ~8 transfer|move|moved|moves|switch|left|leaves|joined|joins|signed|signs|arrived|"
               "returned|returns to|for|from [ the ] [ {NORP} ] [ {NAME} ] [ +2 ] side|club|champions|outfit {NAME:team}",
               ("head", "P54", "team")),
    # "The Lakers traded veteran defenceman X to the Calgary Stampeders": a player of both teams
    news_frame("traded-to", "{SUBJ:team} [ have|has|had ] traded|trade|dealt|deal " + STATUS + " [ {ROLE} ] {NAME:head} to [ the ] "
               "{NAME:other}", ("head", "P54", "team"), ("head", "P54", "other")),
    # -- organisations
    news_frame("subsidiary-of", "{SUBJ:head} ~4 be a|an *2 subsidiary|division|unit|arm of [ the ] *4 {NAME:parent}",
               ("head", "P749", "parent")),
    news_frame("owned-by-described", "{SUBJ:head} ~6 be own|owned by [ the ] *4 {NAME:owner}", ("head", "P127", "owner")),
    news_frame("based-adjective", "{PLACE:place} - based *4 {NAME:head}", ("head", "P159", "place")),
    news_frame("name-based-adjective", "{NAME:head} , a|an|the {PLACE:place} - based", ("head", "P159", "place")),
    news_frame("name-based-in", "{NAME:head} , which|that|who|a|an|the *3 based|headquartered in|at [ the ] {PLACE:place}",
               ("head", "P159", "place")),
    news_frame("apposition-class", "{NAME:head} , the|a|an {CLASS:class} ,|.|;|which|that|said", ("head", "P31", "class"),
               free_head=True),
    # -- amounts
    news_frame("employs", "{SUBJ:head} ~8 employ|employs|employed|employing " + APPROX + " ~2 {QUANTITY:n}", ("head", "P1128", "n")),
    # "Kestrel, which was founded in 1994 as a gold explorer and now employs about 2,300 people"
    news_frame("which-and-employs", "{SUBJ:head} , which|that ~16 and [ now|currently|still ] employ|employs " + APPROX
               + " ~2 {QUANTITY:n}", ("head", "P1128", "n")),
    news_frame("staff-count", "{SUBJ:head} ~8 has|have|had|with " + APPROX + " ~2 {QUANTITY:n} employees|staff|workers",
               ("head", "P1128", "n")),
    news_frame("students-count", "{SUBJ:head} ~8 has|have|had|with " + APPROX + " ~2 {QUANTITY:n} students|pupils",
               ("head", "P2196", "n")),
    news_frame("population", "{SUBJ:head} ~8 population of " + APPROX + " ~2 {QUANTITY:n}", ("head", "P1082", "n")),
    # -- a person's age as the report gives it: "Gareth Pugh, 71, from", "Ana Ruiz (34)", "a 49-year-old
    # former nurse", "who has died aged 84", "at the age of 74" (P3629; ``plausible``: a whole number under 120)
    news_frame("name-age", "{NAME:head} , [ aged ] {QUANTITY:age} ,|.|;|and|who|from|of", ("head", "P3629", "age")),
    news_frame("name-age-bracket", "{NAME:head} ( [ aged ] {QUANTITY:age} )", ("head", "P3629", "age")),
    news_frame("name-year-old", "{NAME:head} , a|an|the {QUANTITY:age} - year - old", ("head", "P3629", "age")),
    news_frame("year-old-name", "the|a|an {QUANTITY:age} - year - old " + STATUS + " [ {NORP} ] [ {POSITION} ] {NAME:head}",
               ("head", "P3629", "age")),
    news_frame("died-aged", "{SUBJ:head} [ , who ] [ has|had ] die|died|dies ~6 aged|age [ of ] {QUANTITY:age}", ("head", "P3629", "age")),
    news_frame("revenue", "{SUBJ:head} ~6 revenue|revenues|turnover|sales of ~2 {QUANTITY:n}", ("head", "P2139", "n")),
    news_frame("cost", "{SUBJ:head} [ , ~12 , ] [ will|would|could|be ] [ expected|estimated|likely|set|due ] [ to ] "
               "cost|costs " + APPROX + " ~1 {QUANTITY:n}", ("head", "P2130", "n")),
    # -- events: where, when, first held; prizes and winners
    news_frame("held-in", "{SUBJ:head} ~6 held|staged|hosted|place ~4 in|at [ the ] {PLACE:place}", ("head", "P276", "place")),
    news_frame("held-on", "{SUBJ:head} ~6 held|staged|hosted|place ~4 on|in {DATE:date}", ("head", "P585", "date")),
    news_frame("first-held", "{SUBJ:head} ~6 first held|staged|run ~2 in {DATE:date}", ("head", "P571", "date")),
    news_frame("won", "{SUBJ:head} ~4 win|won|wins|receive|received|awarded|collect|collected|claim|claimed "
               "[ the|a|an|its|her|his|their ] ~2 {NAME:prize}", ("head", "@won", "prize")),
    # -- works: "including "Cotton Street" (1985)"
    news_frame("work-year", "{WORK:work} [ \"|” ] [ , ] ( {DATE:date} )", ("work", "P577", "date"),
               named_organisation=True),
    # -- people
    news_frame("born-fronted", "^ born in|at {PLACE:place} [ in|on {DATE:date} ] , *14 {NAME:head}",
               ("head", "P19", "place"), ("head", "P569", "date")),
    # "Professor Haruki Tanabe, 61, of the Kansai Institute of Materials Science"
    news_frame("age-of-org", "{NAME:head} , {QUANTITY} , of|at the {NAME:org} ,|.|;|in|who|has|said|was|is",
               ("head", "@of", "org")),
    news_frame("degree-from", "{SUBJ:head} ~3 read|study|studied|earn|earned|complete|completed|receive|received|qualify|"
               "qualified|obtain|obtained|gain|gained|take|took *8 at|from [ the ] {NAME:school}",
               ("head", "@school", "school"), lists=("school",)),
    news_frame("spouse-possessive", "{OWNER:head} " + POSSESSIVE + " husband|wife|widow|widower [ , ] {NAME:spouse}", ("head", "P26", "spouse")),
    news_frame("nationality-name", "by|the|and|,|with|beat|beating|to|from|against|alongside|behind|over {NORP:nationality} "
               "{NAME:head}", ("head", "P27", "nationality")),
    news_frame("nationality-name-first", "^ {NORP:nationality} {NAME:head}", ("head", "P27", "nationality")),
    # "Kenyan runner Faith Chepkoech", "another Kenyan, Mary Wanjiru", "Ethiopia's Tigist Alemu"
    news_frame("nationality-word-name", "{NORP:nationality} " + PEOPLE_NOUNS + " {NAME:head}", ("head", "P27", "nationality")),
    news_frame("country-word-name", "{COUNTRY:nationality} " + PEOPLE_NOUNS + "|{POSITION} {NAME:head}",
               ("head", "P27", "nationality")),
    news_frame("another-nationality-name", "another|fellow {NORP:nationality} , {NAME:head}", ("head", "P27", "nationality")),
    news_frame("country-s-name", "{COUNTRY:nationality} 's|’s {NAME:head} ,|.|;|and|finished|won|was|is|has|came|took|beat|lost",
               ("head", "P27", "nationality")),
)


@functools.lru_cache(maxsize=1)
def occupations() -> frozenset[str]:
    """The gazetteer's occupations, and the staff positions of the news lexicon that are trades
    too ("an analyst at X": a position there, and what the person does)."""
    return frozenset(o.lower() for o in gazetteer()["occupations"]) | {"analyst", "lecturer"}




def position_name(role: str) -> str:
    """The position as a tail: lower-case unless an acronym, without a leading status word."""
    words = [w if w.isupper() and len(w) > 1 else w.lower() for w in role.split()]
    words = [rule_word_map("title_abbreviations").get(w.rstrip("."), w) for w in words]  # "Sen." -> "senator"
    while len(words) > 1 and words[0].lower() in ("former", "new", "interim", "acting", "outgoing", "current"):
        words.pop(0)
    return " ".join(words)


def role_facts(relation: str, head: tuple[str, str], role: tuple[str, str] | None, org: tuple[str, str] | None,
               mentions: Mentions, make) -> list[Triple | None]:
    """The facts of one ``@`` fact of a news frame (see the module).

    Args:
        relation: ``@role``, ``@verb``, ``@join``, ``@won`` or ``@school``.
        head: (name, entity label) of the frame's head.
        role: (text, label) of the position (for ``@verb``, the verb as written), or None.
        org: (name, entity label) of the organisation, prize or school, or None.
        mentions: the document's mentions, for what kind of thing each name is.
        make: ``make(head, relation, tail, head_kind, tail_kind)`` -> a Triple.
    """
    name = head[0]
    person = mentions.kind(name) == "person"
    out: list[Triple | None] = []
    if relation == "@won" and org is not None:
        prize = org[0]
        if {w.lower() for w in prize.split()} & word_set("award_words"):
            out.append(make(name, "P166", prize, "", "award"))
        elif is_event(prize) or prize.split()[-1].lower() in rule_words("event_name_ends"):
            out.append(make(prize, "P1346", name, "event", "person" if person else ""))
        return out
    if relation in ("@class", "@country"):  # "the Japanese conglomerate Hoshida Holdings", "Spain's largest lender"
        kind = org_class(role[0], mentions.kind(name) == "organization") if role is not None else None
        if kind and relation == "@class":
            out.append(make(name, "P31", kind, "organization", "class"))
        elif kind and org is not None:
            out.append(make(name, "P17", org[0], "organization", "place"))
        return out
    if relation in ("@party", "@seat", "@league", "@of", "@employer", "@trade"):
        return member_facts(relation, head, role, org, person, make)
    if relation == "@school":
        if org is not None and person and {w.lower() for w in org[0].split()} & rule_words("school_words"):
            out.append(make(name, "P69", org[0], "person", "organization"))
        return out
    if relation == "@verb" and role is not None and rule_word_map("verb_roles").get(role[0].lower()) == "head" \
            and org is not None and mentions.kind(name) == "organization" and mentions.kind(org[0]) != "person":
        return [make(org[0], "P137", name, "", "organization")]  # "Thornleigh Lodge is run by Elmcroft Care Group"
    if not person:
        return out
    if relation == "@verb":
        category = rule_word_map("verb_roles").get(role[0].lower()) if role else None
        role = None
    elif relation == "@join":
        category = role_category(role[0]) if role else ""
        if not category:
            team = org is not None and {w.lower() for w in org[0].split()} & word_set("team_words")
            category = "player" if team else "staff"
    else:
        party, position = party_in_role(role[0]) if role else (None, "")
        if party and role is not None:  # "Labour MP Rachel Osei": a member of the party, and an MP
            out.append(make(name, "P102", party, "person", "organization"))
            role = (position, role[1])
        category = role_category(role[0]) if role else ""
    if category == "player" and role is not None and (position_played := playing_position(role[0])):
        out.append(make(name, "P413", position_played, "person", "position"))
    if category == "head" and role is not None and len(role[0].split()) > 1 \
            and (role[0].lower().split()[0] not in ("managing", "executive", "director", "director-general")
                 or " of " in role[0].lower()):
        category = "staff"  # a finance director or a director of operations works for the bank; its director heads it
    if role is not None and category in ("", "staff", "coach", "player"):
        words = role[0].lower().split()
        occupation = next((" ".join(words[k:]) for k in range(len(words)) if " ".join(words[k:]) in occupations()),
                          None) or (role[0].lower() if role[1] == "OCCUPATION" else None)  # by its ending: "specialist"
        if occupation in rule_words("non_trades"):
            occupation = None  # "Teenager Lachlan Moore": a doer, no trade
        if occupation:
            played = occupation in word_set("playing_positions")  # "Hooker Tevita Lauina": a position on a team
            out.append(make(name, "P413" if played else "P106", occupation, "person", "position" if played else "occupation"))
            category = category or "occupation"
    if not category:
        return out
    org_kind = mentions.kind(org[0]) if org is not None else ""
    if org is not None and not org_kind and {w.lower() for w in org[0].split()} & word_set("org_words"):
        org_kind = "organization"  # "Stanford University", "Kingsford Rovers": the name says what it is
    if org is not None and org[1] == "NAME" and org[0].lower() in demonym_countries():
        org, org_kind = (demonym_countries()[org[0].lower()], "COUNTRY"), "place"  # "Latvian Prime Minister"
    if org is not None and (org_kind == "person" or not org_kind and org[1] == "NAME"):
        return out  # a position at a person, or at a word that may be no name at all
    if org is not None and org_kind == "place" and (category in ("head", "chief_executive", "chair", "owner", "founder")
                                                    or category != "office" and org[0] in cities()):
        return out  # "The Whitlock Gallery in Glasgow has appointed X as its director", "the Nashville producer X"
    if category == "office" and org is not None and org[1] == "NAME" and org_kind != "place" \
            and not (org_kind == "organization" and role is not None and role[0].lower().endswith("president")) \
            and not {w.lower() for w in org[0].split()} & word_set("org_words"):
        org = None  # "Local MP X": a capitalised word before an office says too little to name its seat
    if category == "office" and role is not None:
        tail = position_name(role[0])
        if org is not None and tail.split()[-1] == "president" and org_kind == "organization":
            category = "head"  # the president of a university or a firm heads it
        elif org is not None or tail != "leader":  # "site leader", "overnight leader": a bare "leader" says too little
            out.append(make(name, "P39", f"{tail} of {org[0]}" if org is not None else tail, "person", "position"))
            return out
    if org is None:
        if role is not None and role[1] == "ROLE" and not out and bare_position(role[0], category):
            out.append(make(name, "P39", position_name(role[0]), "person", "position"))  # "project director X"
        return out
    if category == "coach" and role is not None and role_category(role[0]) == "coach" \
            and not {w.lower() for w in org[0].split()} & word_set("team_words") and "coach" not in role[0].lower():
        # a team's manager coaches it; elsewhere a manager may run a plant or raise its funds: works there
        category = "head" if role[0].lower().split()[0] in ("general", "managing", "executive") else "staff"
    relation_id, org_first = ORGANISATION_SIDE.get(category, ("P108", False))
    out.append(make(org[0], relation_id, name, "organization", "person") if org_first
               else make(name, relation_id, org[0], "person", "organization"))
    return out + position_at(name, role, category, org[0], make)


# Positions at the organisation's side whose holder also works there (P108): its chief
# executive, director and coach; a chair, an owner or a founder need not. (Staff get their P108
# from ``ORGANISATION_SIDE`` itself.)
EMPLOYED = frozenset({"chief_executive", "head", "coach"})


def position_at(name: str, role: tuple[str, str] | None, category: str, org: str, make) -> list[Triple | None]:
    """The person's side of a position at an organisation: "Harbourline's chief executive, Amira
    Haddad" says the firm's chief executive (``P169``, made by the caller), and also that she
    holds the position "chief executive" (``P39``) and works for Harbourline (``P108``). These
    are three questions a reader can answer from the sentence, and two independent annotators
    of the news gold wrote all three (``tests/extract/text/data/news/gold/``)."""
    out = []
    if role is not None and category in ("chief_executive", "chair", "head", "coach", "staff") \
            and (category != "staff" or role[1] == "ROLE" and len(position_name(role[0]).split()) > 1):
        # "Stampeders coach X", "the finance director"; not "Google engineer X" or a lone "analyst" (``bare_position``)
        out.append(make(name, "P39", position_name(role[0]), "person", "position"))
    if category in EMPLOYED:
        out.append(make(name, "P108", org, "person", "organization"))
    return out


def bare_position(role: str, category: str) -> bool:
    """Whether a position named with no organisation is a fact of its own (``P39``): a chief
    executive or a chair, or a position whose name says more than its noun ("project director",
    "police spokesman"); not a lone "director" or "spokesman", and no player, owner or founder,
    which are facts about a team or a firm that is not named."""
    if category in ("chief_executive", "chair"):
        return True
    return category in ("head", "staff", "coach") and len(position_name(role).split()) > 1


def plausible(triple: Triple, mentions: Mentions, named: bool = False) -> bool:
    """Whether a news frame's fact fits what its head is: an amount of an organisation, a
    citizenship of a person, a place and date of an event. ``named``: the frame's shape says the
    head is no person ("the German engineering group X"), whatever its name looks like."""
    kind = "" if named else mentions.kind(triple.head)
    if triple.relation == "P159" and mentions.kind(triple.tail) in ("person", "organization"):
        return False  # "the Hallam Capital fund X": a firm's name before a noun is no place
    if triple.relation in ("P1128", "P2139", "P2196", "P749", "P159", "P127", "P118"):
        return kind not in ("person", "place", "thing")  # "thing": a prize, a currency ("CHF 25,000, employs")
    if triple.relation in KIN:
        return kind == "person" and mentions.kind(triple.tail) not in ("organization", "place")
    if triple.relation == "P551":
        return kind == "person" and mentions.kind(triple.tail) not in ("organization", "person")
    if triple.relation in ("P27", "P19", "P569", "P102", "P768", "P413", "P54", "P106", "P108"):  # "X, signed from Y"
        return kind == "person"
    if triple.relation == "P3629":  # "Hawks, 24, ..." is a score; an age is a person's whole number of years
        return kind == "person" and triple.tail.isdigit() and 0 < int(triple.tail) < 120 \
            and not {w.lower() for w in triple.head.split()} & word_set("org_words") \
            and not (f"({triple.tail})" in triple.evidence.replace(" ", "")  # "Shiva Maharaj (62) and X (41) put on 98"
                     and set(re.findall(r"[a-z]+", triple.evidence.lower())) & rule_words("score_words"))
    if kind == "person":
        return False
    if triple.relation == "P571":  # "opened on 14 March": a date without a year is no inception
        return any(w.isdigit() and len(w) == 4 for w in triple.tail.split())
    if triple.relation in ("P276", "P585"):
        return is_event(triple.head) or triple.head.split()[-1].lower() in rule_words("event_name_ends")
    if triple.relation == "P2130":
        return bool(set(triple.tail.lower().split()) & word_set("money_units")
                    or triple.tail[:1] in word_set("currency_symbols"))
    return True


def drop_general_positions(triples: list[Triple]) -> list[Triple]:
    """"prime minister" beside "prime minister of Latvia" for one person: keep the specific one.
    A position held at an organisation keeps its ``P39`` beside the organisation's fact
    (``position_at``)."""
    specific = {(t.head, t.tail.split(" of ")[0]) for t in triples if t.relation == "P39" and " of " in t.tail}
    founded = {(t.head, t.tail) for t in triples if t.relation == "P571"}  # "first held in 1946"
    return [t for t in triples if not (t.relation == "P39" and " of " not in t.tail and (t.head, t.tail) in specific)
            and not (t.relation == "P585" and (t.head, t.tail) in founded)]
