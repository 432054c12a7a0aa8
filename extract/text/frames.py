"""Frame patterns: the sentence shapes the ``rules`` extractor turns into facts.

A sentence is rendered as one line of tokens (see ``extract.text.signature``): an entity becomes
``KIND#index`` (``NAME#4``, ``DATE#9``, ``COUNTRY#12``), a sentence-initial pronoun ``PRON#0``,
and any other token ``lower|lemma`` (``was|be``, ``born|bear``). A frame pattern is written
in a small language over those tokens and compiled to one regular expression with named
groups, because spaCy's ``Matcher`` reports only where a match is, not which token fills
which role (head, tail), and a frame needs the roles.

Pattern language (tokens separated by spaces):

- ``{PLACE:tail}``  an entity of that kind, captured as ``tail`` (kinds in ``KINDS``);
- ``{PLACE}``       an entity of that kind, not captured;
- ``{RANGE:range}`` a name whose last word says it is a range (``WATER``, ``ISLANDS``,
                    ``FEATURE`` alike: ``TYPED_KINDS``);
- ``{WORDS:role}`` one to three plain words (no entity, no article), the last maybe an
                    occupation, captured as text: "trading house", "copper producer";
- ``{CLASS:class}`` a run of plain words, nationalities, dates, occupations, names after "is a":
                    the class phrase, which ``class_phrase`` reads into a class, a
                    nationality, a year, a sport, a genre;
- ``^``             the start of the sentence, after at most two articles or quotes;
- ``word``          a token whose lower-case text or lemma is ``word``; ``a|an|the`` any of them;
- ``~N``            up to N tokens of anything (lazy);
- ``*N``            up to N tokens that are not names (lazy): a gap no other name can sit in;
- ``+N``            up to N plain words (lazy): no entity, no punctuation;
- ``[ ... ]``       the part inside is optional;
- ``(`` ``)`` ``,`` ``-`` are literal punctuation tokens.

Each frame lists the facts it states as ``(head role, relation id, tail role)``, and the roles
whose name may be the first of a list ("starring A, B and C"): each name of the list fills it.

Example:
    >>> regex = compile_pattern("{NAME:head} be born in {PLACE:place}")
    >>> regex.search(" NAME#0 was|be born|bear in|in COUNTRY#4 .|.").group("place")
    'COUNTRY#4'
"""

from __future__ import annotations

from extract.text.lexicons import alternation

import re
from dataclasses import dataclass

NAMES = ("NAME", "PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE")
KINDS: dict[str, tuple[str, ...] | None] = {
    "NAME": NAMES,
    "PLACE": NAMES + ("COUNTRY", "CONTINENT"),
    "SUBJ": NAMES + ("PRON",),          # a name or a pronoun standing for the document's subject
    "DATE": ("DATE",),
    "NORP": ("NORP",),
    "COUNTRY": ("COUNTRY", "CONTINENT"),  # the last of a chain of places: a continent ends it too
    "OCCUPATION": ("OCCUPATION",),
    "ROLE": ("ROLE",),                  # a position: "chief executive", "Prime Minister"
    "POSITION": ("ROLE", "OCCUPATION"),  # a position or an occupation: "the novelist X"
    "QUANTITY": ("QUANTITY",),          # an amount: "£14.6bn", "6,000"
    "WORK": ("WORK_OF_ART",),           # a title in quotes: "Cotton Street"
    "OWNER": NAMES + ("PRON", "POSS"),  # a name, or a pronoun for one: "its director", "the company's"
    "POSS": ("POSS",),                  # a possessive pronoun standing for a name: "named X its chief executive"
    "WORD": None,                       # one plain (non-entity) token, captured as text
    "WORDS": None,                      # one to three plain lower-case words, no article: "trading house"
    "CLASS": None,                      # a run of plain tokens and CLASS_ENTITIES
}
# Names whose last word says what they are ("Fulda River"): the signature marks them
# ``NAME@P206#7`` (``lexicons.tail_types``), and these kinds match only such names.
TYPED_KINDS = {"WATER": "P206", "RANGE": "P4552", "ISLANDS": "P361", "FEATURE": "P706"}
KINDS.update({kind: NAMES for kind in TYPED_KINDS})
CLASS_ENTITIES = ("NORP", "DATE", "OCCUPATION") + NAMES  # "a 1993 Malayalam crime film"
_NOT_A_NAME = r"(?!(?:%s)[@#])" % "|".join(NAMES)
_TYPE = r"(?:@P\d+)?"
DASHES = "–|-|—|to"


@dataclass(frozen=True)
class Frame:
    """A sentence shape, the facts it states, and what the shape asks of its fillers beyond the
    pattern (each option below is read by ``rules.matches`` or ``rules.candidates``)."""

    name: str
    pattern: str
    facts: tuple[tuple[str, str, str], ...]
    regex: re.Pattern
    lists: tuple[str, ...] = ()
    class_roles: tuple[str, ...] = ()   # roles of kind CLASS, read by class_phrase.class_phrase
    # A news frame: its matches may overlap ("Mr Ash said the company employs ...": the match from
    # "Ash" fails its checks, the one from "the company" holds), and each fact must fit what its
    # head is (``news_frames.plausible``).
    news: bool = False
    # The shape says the head is an organisation or a thing ("the German engineering group X",
    # "the £6.5 million Eastwick Hub"): its facts stand even where the name looks like a person's.
    named_organisation: bool = False
    # Its ``org`` after an article only describes: "the Venetian painter X" says what the painter
    # is; "Bayhawks coach X" where the coach works (``frame_checks.after_article``).
    org_not_after_article: bool = False
    # Its head is a name standing free, not the object of a locative preposition: "at Drexel
    # University, a poet" is not about the university (``frame_checks.after_preposition``).
    free_head: bool = False
    # The rules lexicon's word list the head's last word must be in ("buildings": "The Whitlock
    # Gallery in Glasgow"); "" for any.
    head_ends_in: str = ""
    # The dateline of wire copy ("KOUROU, French Guiana (AP) —"): the place is upper-case or
    # followed by the agency, and is title-cased.
    dateline: bool = False


def compile_pattern(pattern: str) -> re.Pattern:
    """Compile the pattern language above into a regex over a sentence signature.

    Raises:
        ValueError: an entity kind not in ``KINDS``.
    """
    out = []
    for word in pattern.split():
        if word == "^":
            out.append(r"^(?: (?:the|a|an|\"|“|‘|')\|[^ ]+){0,2}")
        elif word == "[":
            out.append("(?:")
        elif word == "]":
            out.append(")?")
        elif word.startswith("~") and word[1:].isdigit():
            out.append(r"(?: [^ ]+){0,%d}?" % int(word[1:]))
        elif word.startswith("*") and word[1:].isdigit():
            out.append(r"(?: %s[^ ]+){0,%d}?" % (_NOT_A_NAME, int(word[1:])))
        elif word.startswith("+") and word[1:].isdigit():
            out.append(r"(?: [a-z][^ #|]*\|[^ ]+){0,%d}?" % int(word[1:]))
        elif word.startswith("{"):
            kind, _, role = word.strip("{}").partition(":")
            if kind not in KINDS:
                raise ValueError(f"unknown entity kind {kind!r} in frame pattern {pattern!r}")
            if kind == "WORDS":
                word = r"(?!(?:the|a|an)\|)[a-z][^ #|]*\|[^ #]+"
                last = r"(?:%s|OCCUPATION#\d+)" % word   # "copper producer": an occupation's word as the noun
                out.append(f" (?P<{role}>(?:{word} ){{0,2}}{last})" if role else f" (?:{word} ){{0,2}}{last}")
                continue
            if kind == "WORD":
                body = r"[^ #|]+\|[^ #]+"
            elif kind == "CLASS":
                body = r"[^ #|]+\|[^ #]+|(?:%s)%s#\d+" % ("|".join(CLASS_ENTITIES), _TYPE)
                out.append(f"(?P<{role}>(?: (?:{body}))+)" if role else f"(?: (?:{body}))+")
                continue
            else:
                entities = KINDS[kind]
                assert entities is not None  # only WORD, WORDS and CLASS match plain tokens
                suffix = "@%s" % TYPED_KINDS[kind] if kind in TYPED_KINDS else _TYPE
                body = r"(?:%s)%s#\d+" % ("|".join(entities), suffix)
            out.append(f" (?P<{role}>{body})" if role else f" {body}")
        else:
            alts = "|".join(re.escape(w) for w in word.split("|"))
            out.append(r" (?:(?:%s)\|[^ ]+|[^ ]+\|(?:%s))" % (alts, alts))
    return re.compile("".join(out))


def frame(name: str, pattern: str, *facts: tuple[str, str, str], lists: tuple[str, ...] = (), **options) -> Frame:
    """A frame: its pattern compiled, its CLASS roles found; ``options`` are ``Frame``'s fields."""
    class_roles = tuple(re.findall(r"\{CLASS:(\w+)\}", pattern))
    return Frame(name, pattern, tuple(facts), compile_pattern(pattern), lists, class_roles, **options)


def news_frame(name: str, pattern: str, *facts: tuple[str, str, str], lists: tuple[str, ...] = (), **options) -> Frame:
    """A news frame (``Frame.news``): the frames of ``news_frames``, ``org_frames``, ``kin_frames``
    and ``member_frames``."""
    return frame(name, pattern, *facts, lists=lists, news=True, **options)


# Parenthesised asides between a subject and its verb: "X (born 1950 in Y) is ...".
ASIDE = "[ ( ~20 ) ]"
# The subject of a sentence at its start, maybe a title in quotes: "The X", "\"X\"".
SUBJECT = '^ {SUBJ:head} [ "|” ]'
# A possessive, also of a plural name: "Harbourline's", "Ellerby Homes' land director".
POSSESSIVE = "[ 's|’s|'|’ ]"
# An aside between commas: "X, also known as Y, is ...".
COMMA_ASIDE = "[ , ~8 , ]"
# Between a person and "died": an aside, or words that name no one else ("she married Robert
# Vance, an engineer, who died in 2011" is his death, not hers).
DIED_GAP = "[ , ~10 , ] [ , who|which ] +6"
FOUNDED_GAP = "[ , which|that ] [ , ~8 , ] +2"
# An honorific between a position or a relative and a name: "Its chairman, Sir Nigel Ash",
# "her husband, Mr Babatunde Cole", "police spokesman Sgt. Luis Ortega".
# Up to three in a row: "Prof Datuk Dr Awang Rosli", "Rt Hon Sir". (The news lexicon's
# ``honorifics`` are the words that say a person when they stand before a name; this list also
# holds ranks and titles that only stand between a position and a name here.)
_HONORIFIC_WORDS = alternation("honorific_titles")
HONORIFIC = "[ %s [ %s [ %s ] ] ]" % (_HONORIFIC_WORDS, _HONORIFIC_WORDS, _HONORIFIC_WORDS)
# Nouns that say a place is a unit of another: "a district of the Al Mahrah Governorate".
UNIT_NOUNS = alternation("unit_nouns")

WORK_NOUNS = alternation("work_nouns")

FRAMES: tuple[Frame, ...] = (
    # -- birth and death -------------------------------------------------------------------
    frame("birth-aside", "{NAME:head} ( ~3 born|b. [ on ] {DATE:date} [ , ] [ [ in ] {PLACE:place} [ , {COUNTRY:country} ] ]",
          ("head", "P569", "date"), ("head", "P19", "place"), ("place", "P17", "country")),
    frame("lifespan-aside", "{NAME:head} ( ~3 [ born|b. ] {DATE:birth} [ , ] [ in ] [ {PLACE:bplace} ] [ , {PLACE} ] [ , ] "
          f"{DASHES} [ died|d. ] {{DATE:death}} [ , ] [ in ] [ {{PLACE:dplace}} ]",
          ("head", "P569", "birth"), ("head", "P570", "death"),
          ("head", "P19", "bplace"), ("head", "P20", "dplace")),
    frame("place-lifespan", f"{{NAME:head}} ( {{PLACE:bplace}} , {{DATE:birth}} {DASHES} {{PLACE:dplace}} , {{DATE:death}} )",
          ("head", "P569", "birth"), ("head", "P570", "death"),
          ("head", "P19", "bplace"), ("head", "P20", "dplace")),
    frame("born-in", "{SUBJ:head} " + ASIDE + " ~4 be born|bear ~6 in|at {PLACE:place}", ("head", "P19", "place")),
    frame("born-participle", "{SUBJ:head} *10 born in|at [ the ] {PLACE:place}", ("head", "P19", "place")),
    frame("born-on", "{SUBJ:head} " + ASIDE + " ~4 be born|bear ~6 on|in {DATE:date}", ("head", "P569", "date")),
    frame("died-in", "{SUBJ:head} " + DIED_GAP + " die ~6 in|at {PLACE:place}", ("head", "P20", "place")),
    frame("died-on", "{SUBJ:head} " + DIED_GAP + " die ~6 on|in {DATE:date}", ("head", "P570", "date")),
    # -- who or what something is ------------------------------------------------------------
    frame("nationality-occupation", "{SUBJ:head} " + ASIDE + " [ , ] be a|an|the ~3 {NORP:nationality} ~3 {OCCUPATION:occupation}",
          ("head", "P27", "nationality"), ("head", "P106", "occupation")),
    frame("occupation", "{SUBJ:head} " + ASIDE + " [ , ] be a|an ~2 {OCCUPATION:occupation}",
          ("head", "P106", "occupation")),
    frame("more-occupations", "{SUBJ:head} " + ASIDE + " [ , ] be a|an *6 {OCCUPATION} *3 and|, [ a|an ] *2 {OCCUPATION:occupation}",
          ("head", "P106", "occupation")),
    # (rules: the head is not the object of a preposition: "at Drexel University, a poet")
    frame("apposition-occupation", "{NAME:head} , [ {QUANTITY} , ] a|an ~2 [ {NORP:nationality} ] ~2 {OCCUPATION:occupation}",
          ("head", "P27", "nationality"), ("head", "P106", "occupation"), free_head=True),
    # "X is a 1935 British comedy film": the class phrase says the class (P31) and, by what
    # kind of thing it is, a country (P17, P495 or P27), a year, a sport, a genre.
    frame("is-a", SUBJECT + " " + ASIDE + " " + COMMA_ASIDE + " be a|an|the {CLASS:class}", ("head", "P31", "class")),
    frame("are-class", SUBJECT + " " + ASIDE + " " + COMMA_ASIDE + " are|were {CLASS:class}", ("head", "P31", "class")),
    # "the town of Lloyd", "the constellation of Mensa" (rules: the noun must name a unit)
    frame("the-unit-of", "the [ {WORD} ] {WORD:unit} of {NAME:place}", ("place", "P31", "unit")),
    # -- where something is ------------------------------------------------------------------
    frame("located-in", SUBJECT + " " + ASIDE + " " + COMMA_ASIDE + " be a|an|the *6 in|within [ the ] *7 {PLACE:place} "
          "[ , [ within ] *3 {PLACE:region} ] [ , *4 in *3 {COUNTRY:country} ]",
          ("head", "P131", "place"), ("place", "P131", "region"), ("head", "P17", "country")),
    frame("unit-of", SUBJECT + " " + ASIDE + " " + COMMA_ASIDE + f" be a|an|the *4 {UNIT_NOUNS} [ ( ~4 ) ] of [ the ] *2 {{PLACE:place}} "
          "[ , {PLACE:region} ]",
          ("head", "P131", "place"), ("place", "P131", "region")),
    frame("is-in", SUBJECT + " " + ASIDE + " be in|within [ the ] *4 {PLACE:place} [ , {PLACE:region} ]",
          ("head", "P131", "place"), ("place", "P131", "region")),
    frame("country-of", SUBJECT + " " + ASIDE + " " + COMMA_ASIDE + " be a|an|the *6 of [ the ] *3 {COUNTRY:country}",
          ("head", "P17", "country")),
    frame("locate-verb", "{SUBJ:head} ~6 locate|situate|lie|find ~2 in|on|at|within [ the ] {PLACE:place} [ , {PLACE:region} ]",
          ("head", "P131", "place"), ("place", "P131", "region")),
    # "in Waldeck-Frankenberg, Hesse, Germany": each place in the next; the country of all.
    frame("place-chain", "in|at|near|of|from|within [ the ] {PLACE:place} [ - {NAME} ] +2 , {PLACE:region} [ , {COUNTRY:country} ] ,|.|)|and|on|in|near|with|where|;",
          ("place", "P131", "region"), ("region", "P131", "country"), ("place", "P17", "country")),
    # "in Tlemcen Province in northwestern Algeria"
    frame("in-country", "in|at|near|of|within [ the ] *2 {PLACE:place} *2 in|of [ the ] *3 {COUNTRY:country}",
          ("place", "P17", "country")),
    # "in Parner taluka in Ahmednagar district", "at St. Rumbold's Cathedral in the City of Mechelen"
    frame("nested-in", "in|at|near|within [ the ] {NAME:place} [ ( ~4 ) ] +2 in|of [ the ] +3 {NAME:region}",
          ("place", "P131", "region")),
    # "the Indian state of West Bengal"
    frame("national-unit", "the {NORP:country} state|province|region|city|town|village|island|republic|territory of {NAME:place}",
          ("place", "P17", "country")),
    # "King George Island in the South Shetland Islands", "Mount Erebus on Ross Island"
    frame("in-feature", "{PLACE:head} in|of|on [ the ] {FEATURE:feature}", ("head", "P706", "feature")),
    frame("in-island-group", "{PLACE:head} [ , ] in|of [ the ] {ISLANDS:group}", ("head", "P361", "group")),
    frame("subject-in-island-group", SUBJECT + " ~30 in|of|on [ the ] {ISLANDS:group}", ("head", "P361", "group")),
    frame("headquarters", SUBJECT + " ~16 headquarter|headquartered|base|based ~1 in|at [ the ] {PLACE:place}",
          ("head", "P159", "place")),
    frame("headquarters-here", "{NAME:head} [ , ] headquartered|based in|at [ the ] {PLACE:place}",
          ("head", "P159", "place")),
    frame("headquarters-noun", "{SUBJ:head} ~8 headquarters be|is|are ~1 in|at [ the ] {PLACE:place}",
          ("head", "P159", "place")),
    frame("capital-of", "{PLACE:capital} " + ASIDE + " [ , ] be the capital ~4 of [ the ] {PLACE:state}",
          ("state", "P36", "capital")),
    frame("the-capital-of", "the capital of [ the ] {PLACE:state} be {PLACE:capital}", ("state", "P36", "capital")),
    frame("its-capital", "{PLACE:state} ~12 its|whose capital [ city ] [ , ] [ be ] {PLACE:capital}", ("state", "P36", "capital")),
    frame("part-of", "{SUBJ:head} " + ASIDE + " ~4 be|form|formed|forms [ a|an ] *2 part of [ the ] {NAME:whole}", ("head", "P361", "whole")),
    frame("on-river", "{SUBJ:head} ~10 on|along|near|into|of [ the ] {WATER:water}", ("head", "P206", "water")),
    frame("in-range", "{SUBJ:head} ~10 in|of [ the ] {RANGE:range}", ("head", "P4552", "range")),
    frame("subject-in-range", SUBJECT + " ~30 in|of|on [ the ] *3 {RANGE:range}", ("head", "P4552", "range")),
    # "in the Lanterman Range, Bowers Mountains", "the Heritage Range of the Ellsworth Mountains"
    frame("range-chain", "{RANGE:range} ,|of [ the ] {RANGE:whole}", ("range", "P4552", "whole")),
    # -- living things -----------------------------------------------------------------------
    frame("genus-in-family", "{SUBJ:head} " + ASIDE + " be a|an genus ~12 family|subfamily|tribe [ , ] {NAME:taxon}",
          ("head", "P171", "taxon")),
    frame("species-in-genus", "{SUBJ:head} " + ASIDE + " be a|an species ~12 genus [ , ] {NAME:taxon}",
          ("head", "P171", "taxon")),
    # -- organisations ---------------------------------------------------------------------
    # the founded thing is the clause's subject: a name in an aside between commas ("Corrib, which
    # employs 850 people in Galway, was founded by X") or in a gap before "was" is not its head
    frame("founded-by", "{SUBJ:head} " + FOUNDED_GAP + " be found|co-found|establish|form|create|founded|established ~4 by {NAME:founder}",
          ("head", "P112", "founder"), lists=("founder",)),
    frame("founded", "{NAME:founder} ~3 found|co-found|founded|co-founded [ the ] {NAME:org}", ("org", "P112", "founder")),
    frame("founded-in", "{SUBJ:head} " + FOUNDED_GAP + " be found|establish|form|create|founded|established|open|opened ~8 in|on {DATE:date}",
          ("head", "P571", "date")),
    frame("owned-by", "{SUBJ:head} ~6 be own|owned by [ the ] {NAME:owner}", ("head", "P127", "owner")),
    frame("operated-by", "{SUBJ:head} ~6 be operate|operated|run by [ the ] {NAME:operator}", ("head", "P137", "operator"),
          free_head=True),
    # -- people and organisations ------------------------------------------------------------
    frame("spouse-married", "{SUBJ:head} ~6 marry|married [ to ] {NAME:spouse}", ("head", "P26", "spouse")),
    frame("spouse-noun", "{NAME:head} 's wife|husband|spouse|widow|widower [ , ] {NAME:spouse}", ("head", "P26", "spouse")),
    frame("works-for", "{SUBJ:head} ~6 work|worked|working for|at [ the ] {NAME:employer}", ("head", "P108", "employer")),
    frame("officer-of", "{NAME:head} , [ the ] ~2 ceo|chairman|chairwoman|president|director|chief|professor|employee ~3 of|at [ the ] {NAME:employer}",
          ("head", "P108", "employer")),
    frame("member-of", "{SUBJ:head} ~6 be a member of [ the ] {NAME:group}", ("head", "P463", "group")),
    # Kept only for a head that plays a sport (rules: P54 needs P641).
    frame("plays-for", "{SUBJ:head} *12 play|played|playing|plays *6 for|with [ club ] [ the ] {NAME:team}",
          ("head", "P54", "team"), lists=("team",)),
    frame("plays-for-club", "{SUBJ:head} *12 play|played|playing|plays ~10 club|side {NAME:team}", ("head", "P54", "team")),
    frame("capped-for", "{SUBJ:head} ~8 cap|caps|capped|appearance|appearances *3 for [ the ] {NAME:team}",
          ("head", "P54", "team")),
    frame("signed-for", "{SUBJ:head} ~6 sign|signed *3 for|with|by [ the ] {NAME:team}", ("head", "P54", "team")),
    frame("educated-at", "{SUBJ:head} ~8 study|studied|graduate|graduated|educate|educated|attend|attended [ at|from ] [ the ] {NAME:school}",
          ("head", "P69", "school"), lists=("school",)),
    # Kept only where the tail is an event (``class_phrase.is_event``, in ``rules.fill``).
    frame("competed-at", "{SUBJ:head} ~12 compete|participate|take|won|win|represent|finish|finished *10 at|in [ the ] {NAME:event}",
          ("head", "P1344", "event")),
    frame("expedition-under", "{NAME:event} [ ( ~3 ) ] under|led by [ the ] {NAME:leader}", ("leader", "P1344", "event")),
    # -- works -------------------------------------------------------------------------------
    # "X ... written by Y"; "X is a novel by Y" only of the sentence's subject ("a poem by Y"
    # in the middle of a sentence is some other work).
    frame("written-by", "{SUBJ:head} ~8 write|written|authored by *4 {NAME:author}",
          ("head", "P50", "author"), lists=("author",)),
    frame("novel-by", SUBJECT + " ~8 novel|book|poem|story|play|collection by *4 {NAME:author}",
          ("head", "P50", "author"), lists=("author",)),
    frame("directed-by", "{SUBJ:head} ~8 direct|directed by *4 {NAME:director}", ("head", "P57", "director"),
          lists=("director",)),
    frame("film-by", SUBJECT + " ~8 film by *4 {NAME:director}", ("head", "P57", "director"), lists=("director",)),
    frame("performed-by", "{SUBJ:head} ~8 perform|performed|recorded|sung by *6 {NAME:performer}",
          ("head", "P175", "performer"), lists=("performer",)),
    frame("song-by", SUBJECT + " ~8 song|single|album|record|ep|lp by *6 {NAME:performer}",
          ("head", "P175", "performer"), lists=("performer",)),
    frame("album-from", "{SUBJ:head} be the *4 album|ep|lp|single|song from *6 {NAME:performer}",
          ("head", "P175", "performer")),
    frame("single-from", "{SUBJ:head} ~12 single|track|song from|off [ the|their|his|her ] *3 album|ep|soundtrack|record [ , ] {NAME:album}",
          ("head", "P361", "album")),
    frame("starring", "{SUBJ:head} ~20 star|stars|starring|starred|featuring [ actor|actress|actors ] {NAME:actor}",
          ("head", "P161", "actor"), lists=("actor",)),
    frame("published-by", "{SUBJ:head} ~8 publish|published by [ the ] {NAME:publisher}", ("head", "P123", "publisher")),
    frame("released-in", "{SUBJ:head} ~12 release|released|publish|published|premiere|premiered ~6 in|on {DATE:date}",
          ("head", "P577", "date")),
    frame("year-work", f"the|a|an {{DATE:date}} *3 {WORK_NOUNS} [ , ] [ \" ] {{NAME:work}}", ("work", "P577", "date")),
)
