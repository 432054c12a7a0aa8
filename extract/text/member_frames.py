"""News frames about membership: a person's party and seat, a player's position and teams, a
team's league; and the facts of team sheets and of descriptions of people.

Written in the pattern language of ``extract.text.frames``; ``rules`` runs them with the news
frames. Their ``@`` facts are made here, by ``member_facts`` (called from
``news_frames.role_facts``):

- ``@party``: "Amrit Dhillon, a Conservative," and "Jo Reid (Labour)": member of political
  party (``P102``), only where the word is a party of the lexicon (``parties``);
- ``@seat``: "X was elected MP for Wiltshire North", "Jo Reid, the member for Riverside":
  electoral district (``P768``), only for a position that has a seat (``seat_roles``);
- ``@league``: "Premier League side Ashby Rovers": league (``P118``) of the team, only where
  the league's name ends in a league word;
- ``@of``: "Jane Grieve of Cardiff University", "Ana Kovač of Croatia": employer, team or
  citizenship, by what the name after "of" is;
- ``@employer``: "Lisa Marchetti of the Columbus firm Marchetti Rhoads": employer (``P108``).

``team_sheet`` reads a match report's team sheet ("Hawks: Liam Rewiti; Sione Tapueluelu, ...")
into players of the team (``P54``); ``description_facts`` what a description of a person
("The Japanese player", "the former Motherwell midfielder") says of the person it refers to.

A party inside a position ("Labour MP Rachel Osei", "the Conservative candidate X") is read by
``party_in_role``; a playing position ("Rovers goalkeeper Tom Halloran") by ``playing_position``.
"""

from __future__ import annotations

import functools

from spacy.tokens import Span

from extract.text.lexicons import alternation, country_aliases, demonym_countries, rule_words, word_set
from extract.text.coref import Mentions
from extract.text.frames import HONORIFIC, NAMES, POSSESSIVE, Frame, news_frame
from extract.text.roles import agent_noun, news_lexicon
from extract.text.units import Triple

STATUS = "[ %s ]" % alternation("member_status_words")

MEMBER_FRAMES: tuple[Frame, ...] = (
    news_frame("party-apposition", "{NAME:head} , a|an {NAME:party} ,|.|;|from|who|and", ("head", "@party", "party")),
    # "Opposition Leader Dean Fitzroy, of the Labor Party,"
    news_frame("party-of", "{NAME:head} , of the {NAME:party} ,|.|;|said|who|and", ("head", "@party", "party")),
    news_frame("party-noun-name", "the|a|an|by|,|to|for|from|and|with {NAME:party} candidate|nominee|activist|politician|"
               "challenger|incumbent|newcomer|backbencher|loyalist|veteran {NAME:head}", ("head", "@party", "party")),
    # "MacRury kept his own seat in Souris-Elmira", "lost his Summerside seat"
    news_frame("kept-seat", "{SUBJ:head} ~6 kept|keep|held|hold|won|win|retained|retain|lost|lose|defended [ his|her|their ] "
               "[ {OWNER} ] [ own ] seat in|of {NAME:seat}", ("head", "@seat", "seat")),
    news_frame("kept-named-seat", "{SUBJ:head} ~6 kept|keep|held|hold|won|win|retained|retain|lost|lose|defended [ his|her|their|the ] [ {OWNER} ] "
               "{NAME:seat} seat", ("head", "@seat", "seat")),
    news_frame("party-bracket", "{NAME:head} ( {NAME:party} ,|)", ("head", "@party", "party")),
    news_frame("elected-role-for", "{SUBJ:head} *6 elect|elected|become|became|serve|served|be|remain|remains ~2 [ as ] "
               "[ the|a|an|its ] " + STATUS + " {ROLE:role} for [ the ] {NAME:seat}", ("head", "@seat", "seat")),
    news_frame("name-role-for", "{NAME:head} , [ the|a|an ] " + STATUS + " {ROLE:role} for [ the ] {NAME:seat}",
               ("head", "@seat", "seat")),
    news_frame("role-for-name", "{ROLE:role} for [ the ] {NAME:seat} , " + STATUS + " {NAME:head}",
               ("head", "@seat", "seat")),
    news_frame("represented-since", "{NAME:head} [ , {QUANTITY} ] , who [ has|had ] represent|represented|represents {NAME:seat} since|from|between "
               "{DATE}", ("head", "@seat", "seat")),
    news_frame("member-for", "{NAME:head} , ~12 the member for [ the ] {NAME:seat}", ("head", "@seat", "seat")),
    news_frame("person-of", "{NAME:head} of [ the ] {NAME:org}", ("head", "@of", "org")),
    # "For the Kestrels, full-back Nathan Pryce was best on ground": a position for the organisation
    # the sentence opens on (a player's team, a council's officer)
    news_frame("for-org-role-name", "^ for [ the ] {NAME:org} , [ {NORP} ] {ROLE:role} " + HONORIFIC + " {NAME:head}",
               ("head", "@role", "role")),
    # "Kilbride Thistle have completed the signing of Norwegian striker Eirik Haugen"
    news_frame("signing-of", "{SUBJ:org} ~6 signing|capture|recruitment|arrival of [ the ] [ {NORP:nationality} ] {ROLE:role} "
               "{NAME:head}", ("head", "@role", "role"), ("head", "P27", "nationality")),
    # "Striker Daniel Okafor scored twice as Westbury Athletic beat Harlow Town": a match report's first
    # line names a scorer of the side that won (``rules.infer.document_facts``: only a player, by a position); the
    # scoring verb comes first, and no other name stands between ("... a consolation as Leeds beat" is
    # the risk this takes)
    news_frame("scored-as-team-won", "^ [ {PLACE} :|—|– ] [ {POSITION} ] {NAME:head} scored|struck|hit|kicked|netted|booted|"
               "smashed|grabbed *10 as [ the ] {NAME:team} beat|defeated|thrashed|edged|downed|overcame|crushed|hammered|"
               "routed|swept|stunned|outclassed", ("head", "P54", "team")),
    # "A trader at the scene, Mr Tunde Bakare, said", "Counsel for the family, farmer Tom Reid, said": a trade
    # said of a name in apposition (``member_facts``: a doer's noun of a trade, "trader", not "resident")
    news_frame("a-trade-comma-name", "^ a|an [ {NORP} ] {WORD:role} ~6 , " + HONORIFIC + " {NAME:head} ,|said|told|who|was",
               ("head", "@trade", "role")),
    news_frame("comma-trade-name", ", [ {WORD} ] {WORD:role} " + HONORIFIC + " {NAME:head} ,|said|told|argued|who|was",
               ("head", "@trade", "role")),
    # "Kingsford Rovers' Tom Eddery", "Harlow United's Ade Bello": a team's or a firm's person
    news_frame("owner-s-person", "{NAME:org} " + POSSESSIVE + " {NAME:head} ,|.|;|scored|made|added|took|hit|was|is|said|who|and",
               ("head", "@of", "org")),
    # "Lisa Marchetti of the Columbus firm Marchetti Rhoads": a firm by what it is
    news_frame("person-of-described", "{NAME:head} of|at|with|from the [ {PLACE} ] [ {NORP} ] +2 " + alternation("org_nouns") + " {NAME:org}",
               ("head", "@employer", "org")),
    news_frame("league-side", "{NAME:league} side|club|outfit|team|champions|leaders|newcomers {NAME:head}",
               ("head", "@league", "league")),
    news_frame("plays-in-league", "{SUBJ:head} ~3 play|plays|played|compete|competes|competed in [ the ] {NAME:league}",
               ("head", "@league", "league")),
)


@functools.lru_cache(maxsize=1)
def country_names() -> dict[str, str]:
    """Every way of writing a country, lower-cased -> its name (``nlp.country_aliases``)."""
    return country_aliases()


@functools.lru_cache(maxsize=1)
def parties() -> dict[tuple[str, ...], str]:
    """The lexicon's party words, as lower-case word tuples -> the party's name."""
    return {tuple(k.split()): v for k, v in news_lexicon()["parties"].items()}


def party_in_role(role: str) -> tuple[str | None, str]:
    """The party a position names before its noun, and the position without it.

    >>> party_in_role("Labour MP"), party_in_role("transport minister")
    (('Labour Party', 'MP'), (None, 'transport minister'))
    """
    words = role.split()
    lowered = tuple(w.lower() for w in words)
    for n in (2, 1):
        if len(words) > n and lowered[:n] in parties():
            return parties()[lowered[:n]], " ".join(words[n:])
    return None, role


def playing_position(role: str) -> str | None:
    """The playing position a player's position names ("goalkeeper", "centre-back"), or None."""
    lowered = role.lower().split()
    positions = word_set("playing_positions")
    for n in (2, 1):
        if len(lowered) >= n and " ".join(lowered[-n:]) in positions:
            return " ".join(lowered[-n:])
    return None


def member_facts(relation: str, head: tuple[str, str], role: tuple[str, str] | None,
                 other: tuple[str, str] | None, person: bool, make) -> list[Triple | None]:
    """The facts of one ``@party``, ``@seat``, ``@league``, ``@of``, ``@employer`` or ``@trade`` fact (see the module).

    Args:
        relation: the ``@`` relation.
        head: (name, label) of the person, or of the team for ``@league``.
        role: (text, label) of the position, or None.
        other: (name, label) of the party, the seat or the league.
        person: whether the head is taken for a person.
        make: ``make(head, relation, tail, head_kind, tail_kind)`` -> a Triple.
    """
    if other is None:
        return []
    if relation == "@league":
        if not person and other[0].split()[-1].lower() in rule_words("league_ends"):
            return [make(head[0], "P118", other[0], "organization", "organization")]
        return []
    if not person:
        return []
    if relation == "@trade":  # "A trader at the scene, Mr Tunde Bakare": only a doer's noun of a trade
        word = role[0].lower() if role is not None else ""
        return [make(head[0], "P106", word, "person", "occupation")] if agent_noun(word) else []
    if relation == "@employer":  # "of the Columbus firm Marchetti Rhoads"
        return [make(head[0], "P108", other[0], "person", "organization")]
    if relation == "@of":  # "Ana Kovač of Croatia", "Jane Grieve of Cardiff University"
        words = {w.lower() for w in other[0].split()}
        if words & word_set("team_words"):
            return [make(head[0], "P54", other[0], "person", "organization")]
        if words & word_set("org_words"):
            return [make(head[0], "P108", other[0], "person", "organization")]
        if other[1] in ("COUNTRY", "NAME") and other[0].lower() in country_names():
            return [make(head[0], "P27", country_names()[other[0].lower()], "person", "place")]
        return []
    if relation == "@party":
        party = parties().get(tuple(other[0].lower().split()))
        if party is None and len(other[0].split()) > 1 and other[0].split()[-1] == "Party":
            party = other[0]  # "the Labor Party": a party by its own name
        return [make(head[0], "P102", party, "person", "organization")] if party else []
    if relation == "@seat" and role is not None:
        party, position = party_in_role(role[0])
        if position.split() and position.split()[-1].lower() in word_set("seat_roles"):
            out = [make(head[0], "P768", other[0], "person", "place")]
            if party:
                out.append(make(head[0], "P102", party, "person", "organization"))
            return out
    if relation == "@seat" and role is None:
        if other[0].lower() in country_names() or {w.lower() for w in other[0].split()} & word_set("org_words"):
            return []  # "has represented Kenya since 2012", "represented Acme Ltd": no seat
        return [make(head[0], "P768", other[0], "person", "place")]
    return []




def team_sheet(sentence: Span, mentions: Mentions, team: str | None) -> tuple[list[str], str | None]:
    """"Hawks: Liam Rewiti; Sione Tapueluelu, Aaron Crene, ... Reserves: Nathan Fifita, ...": a
    match report's team sheet names the players of a team (``P54``). A sentence is one when it
    opens on a team's name (or "Reserves", which goes on with the last team) and a colon, then
    lists four or more people, separated by commas or semicolons, each perhaps marked "(c)" or
    followed by the substitute who replaced them and the minute ("Moreau (Lindqvist 63)").
    Returns the players' names and the team the next sentence may go on with (a "Reserves:"
    list right after it); any other sentence ends the sheet."""
    tokens = [t for t in sentence if not t.is_space]
    if len(tokens) < 6 or tokens[1].text != ":":
        return [], None
    first = tokens[0]
    if first.lower_ in rule_words("sheet_go_on"):
        owner = team
    elif first.ent_type_ in NAMES and mentions.kind(mentions.name(first.i)) != "person":
        owner = mentions.name(first.i)
    else:
        return [], None
    players, expect_name, skipping, bracket = [], True, False, False
    for t in tokens[2:]:
        if bracket or t.text == "(" and not expect_name:
            # "Moreau (Lindqvist 63)": a substitute who came on, and the minute; "(c)", "(capt)"
            bracket = t.text != ")"
            if t.ent_type_ in NAMES and mentions.kind(mentions.name(t.i)) in ("person", ""):
                players.append(mentions.name(t.i))
        elif t.text in (",", ";") and (not expect_name or skipping):
            expect_name, skipping = True, False
        elif skipping or not expect_name and t.lower_ in rule_words("sheet_marks") or t.text in (".", "!"):
            continue
        elif expect_name and t.ent_type_ in NAMES and mentions.kind(mentions.name(t.i)) in ("person", ""):
            players.append(mentions.name(t.i))
            expect_name = False
        elif expect_name and t.is_title and t.is_alpha:
            skipping = True  # "Will Pask": a first name the pipeline did not join; that player is left out
        else:
            return [], None  # not a list of names
    if owner is None or len(players) < 4:
        return [], None
    return players, owner


def description_facts(sentence: Span, mentions: Mentions) -> list[tuple[str, str, str, str]]:
    """What a description of a person says of the person it refers to (``coref``): "The Japanese
    player" a citizenship (``P27``), "the former Motherwell midfielder" a team (``P54``) and a
    position (``P413``). Returns (person, relation, value, value kind) tuples."""
    out = []
    doc = sentence.doc
    for noun, start in mentions.descriptions.items():
        if not sentence.start <= noun < sentence.end or noun not in mentions.resolved:
            continue
        person = mentions.resolved[noun][0]
        for k in range(start, noun):
            if doc[k].ent_type_ == "NORP" and doc[k].text.lower() in demonym_countries() and doc[k + 1].text != "-":
                out.append((person, "P27", demonym_countries()[doc[k].text.lower()], "place"))
        played = playing_position(doc[noun].text) if doc[noun].ent_type_ == "ROLE" else None
        if played and doc[noun - 1].ent_type_ in NAMES and mentions.kind(mentions.name(noun - 1)) != "place":
            out += [(person, "P54", mentions.name(noun - 1), "organization"), (person, "P413", played, "position")]
    return out
