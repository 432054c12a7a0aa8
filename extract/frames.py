"""Frame patterns: the sentence shapes the ``rules`` extractor turns into facts.

A sentence is rendered as one line of tokens (see ``rules.signature``): an entity becomes
``KIND#index`` (``NAME#4``, ``DATE#9``, ``COUNTRY#12``), a sentence-initial pronoun ``PRON#0``,
and any other token ``lower|lemma`` (``was|be``, ``born|bear``). A frame pattern is written
in a small language over those tokens and compiled to one regular expression with named
groups, because spaCy's ``Matcher`` reports only where a match is, not which token fills
which role (head, tail), and a frame needs the roles.

Pattern language (tokens separated by spaces):

- ``{PLACE:tail}``  an entity of that kind, captured as ``tail`` (kinds in ``KINDS``);
- ``{PLACE}``       an entity of that kind, not captured;
- ``word``          a token whose lower-case text or lemma is ``word``; ``a|an|the`` any of them;
- ``~N``            up to N tokens of anything (lazy);
- ``[ ... ]``       the part inside is optional;
- ``(`` ``)`` ``,`` ``-`` are literal punctuation tokens.

Each frame lists the facts it states as ``(head role, relation id, tail role)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAMES = ("NAME", "PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE")
KINDS = {
    "NAME": NAMES,
    "PLACE": NAMES + ("COUNTRY",),
    "SUBJ": NAMES + ("PRON",),          # a name or a pronoun standing for the document's subject
    "DATE": ("DATE",),
    "NORP": ("NORP",),
    "COUNTRY": ("COUNTRY",),
    "OCCUPATION": ("OCCUPATION",),
    "WORD": None,                       # one plain (non-entity) token, captured as text
}
DASHES = "–|-|—|to"


@dataclass(frozen=True)
class Frame:
    name: str
    pattern: str
    facts: tuple[tuple[str, str, str], ...]
    regex: re.Pattern


def compile_pattern(pattern: str) -> re.Pattern:
    """Compile the pattern language above into a regex over a sentence signature."""
    out = []
    for word in pattern.split():
        if word == "[":
            out.append("(?:")
        elif word == "]":
            out.append(")?")
        elif word.startswith("~"):
            out.append(r"(?: [^ ]+){0,%d}?" % int(word[1:]))
        elif word.startswith("{"):
            kind, _, role = word.strip("{}").partition(":")
            if kind not in KINDS:
                raise ValueError(f"unknown entity kind {kind!r} in frame pattern {pattern!r}")
            if kind == "WORD":
                body = r"[^ #|]+\|[^ #]+"
            else:
                body = r"(?:%s)#\d+" % "|".join(KINDS[kind])
            out.append(f" (?P<{role}>{body})" if role else f" {body}")
        else:
            alts = "|".join(re.escape(w) for w in word.split("|"))
            out.append(r" (?:(?:%s)\|[^ ]+|[^ ]+\|(?:%s))" % (alts, alts))
    return re.compile("".join(out))


def frame(name: str, pattern: str, *facts: tuple[str, str, str]) -> Frame:
    return Frame(name, pattern, tuple(facts), compile_pattern(pattern))


# Parenthesised asides between a subject and its verb: "X (born 1950 in Y) is ...".
ASIDE = "[ ( ~20 ) ]"

FRAMES: tuple[Frame, ...] = (
    # -- birth and death -------------------------------------------------------------------
    frame("birth-aside", "{NAME:head} ( ~3 born|b. [ on ] {DATE:date} [ , ] [ in {PLACE:place} ]",
          ("head", "P569", "date"), ("head", "P19", "place")),
    frame("lifespan-aside", "{NAME:head} ( ~3 [ born|b. ] {DATE:birth} [ , ] [ in ] [ {PLACE:bplace} ] [ , ] "
          f"{DASHES} [ died|d. ] {{DATE:death}} [ , ] [ in ] [ {{PLACE:dplace}} ]",
          ("head", "P569", "birth"), ("head", "P570", "death"),
          ("head", "P19", "bplace"), ("head", "P20", "dplace")),
    frame("place-lifespan", f"{{NAME:head}} ( {{PLACE:bplace}} , {{DATE:birth}} {DASHES} {{PLACE:dplace}} , {{DATE:death}} )",
          ("head", "P569", "birth"), ("head", "P570", "death"),
          ("head", "P19", "bplace"), ("head", "P20", "dplace")),
    frame("born-in", "{SUBJ:head} " + ASIDE + " ~4 be born|bear ~6 in|at {PLACE:place}", ("head", "P19", "place")),
    frame("born-on", "{SUBJ:head} " + ASIDE + " ~4 be born|bear ~6 on|in {DATE:date}", ("head", "P569", "date")),
    frame("died-in", "{SUBJ:head} ~8 die ~6 in|at {PLACE:place}", ("head", "P20", "place")),
    frame("died-on", "{SUBJ:head} ~8 die ~6 on|in {DATE:date}", ("head", "P570", "date")),
    # -- who someone is ----------------------------------------------------------------------
    frame("nationality-occupation", "{SUBJ:head} " + ASIDE + " [ , ] be a|an|the ~3 {NORP:nationality} ~3 {OCCUPATION:occupation}",
          ("head", "P27", "nationality"), ("head", "P106", "occupation")),
    frame("occupation", "{SUBJ:head} " + ASIDE + " [ , ] be a|an ~2 {OCCUPATION:occupation}",
          ("head", "P106", "occupation")),
    frame("apposition-occupation", "{NAME:head} , a|an ~2 [ {NORP:nationality} ] ~2 {OCCUPATION:occupation}",
          ("head", "P27", "nationality"), ("head", "P106", "occupation")),
    frame("national-thing", "{SUBJ:head} " + ASIDE + " [ , ] be a|an|the ~2 {NORP:country} {WORD:thing}",
          ("head", "P17", "country")),
    # -- where something is ------------------------------------------------------------------
    frame("located-in", "{SUBJ:head} " + ASIDE + " [ , ] be a|an|the ~6 in|within [ the ] ~4 {PLACE:place} "
          "[ , [ within ] ~3 {PLACE:region} ] [ , ~4 in ~3 {COUNTRY:country} ]",
          ("head", "P131", "place"), ("place", "P131", "region"), ("head", "P17", "country")),
    frame("locate-verb", "{SUBJ:head} ~6 locate|situate|lie|find|found ~2 in|on|at|within [ the ] {PLACE:place} [ , {PLACE:region} ]",
          ("head", "P131", "place"), ("place", "P131", "region")),
    # "in Waldeck-Frankenberg, Hesse, Germany": each place in the next; the country of all.
    frame("place-chain", "in|at|near|of|from|within [ the ] {PLACE:place} [ - {NAME} ] ~2 , {PLACE:region} [ , {COUNTRY:country} ] ,|.|)|and|on|in|near|with|where",
          ("place", "P131", "region"), ("region", "P131", "country"), ("place", "P17", "country")),
    frame("headquarters", "{SUBJ:head} ~8 headquarter|headquartered|base|based ~1 in|at [ the ] {PLACE:place}",
          ("head", "P159", "place")),
    frame("headquarters-noun", "{SUBJ:head} ~8 headquarters be|is|are ~1 in|at [ the ] {PLACE:place}",
          ("head", "P159", "place")),
    frame("capital-of", "{PLACE:capital} " + ASIDE + " [ , ] be the capital ~4 of [ the ] {PLACE:state}",
          ("state", "P36", "capital")),
    frame("the-capital-of", "the capital of [ the ] {PLACE:state} be {PLACE:capital}", ("state", "P36", "capital")),
    frame("its-capital", "{PLACE:state} ~12 its|whose capital [ city ] [ , ] [ be ] {PLACE:capital}", ("state", "P36", "capital")),
    frame("part-of", "{SUBJ:head} " + ASIDE + " [ , ] be [ a ] part of [ the ] {NAME:whole}", ("head", "P361", "whole")),
    # The tail's own last word must say what it is (see rules.TAIL_LAST_WORDS).
    frame("on-river", "{SUBJ:head} ~10 on|along|near|into|of [ the ] {NAME:water}", ("head", "P206", "water")),
    frame("in-range", "{SUBJ:head} ~10 in|of [ the ] {NAME:range}", ("head", "P4552", "range")),
    # -- organisations ---------------------------------------------------------------------
    frame("founded-by", "{SUBJ:head} ~6 be found|co-found|establish|form|create|founded|established ~4 by {NAME:founder}",
          ("head", "P112", "founder")),
    frame("founded", "{NAME:founder} ~3 found|co-found|founded|co-founded [ the ] {NAME:org}", ("org", "P112", "founder")),
    frame("founded-in", "{SUBJ:head} ~6 be found|establish|form|create|founded|established|open|opened ~8 in|on {DATE:date}",
          ("head", "P571", "date")),
    frame("owned-by", "{SUBJ:head} ~6 be own|owned by [ the ] {NAME:owner}", ("head", "P127", "owner")),
    frame("operated-by", "{SUBJ:head} ~6 be operate|operated|run by [ the ] {NAME:operator}", ("head", "P137", "operator")),
    # -- people and organisations ------------------------------------------------------------
    frame("spouse-married", "{SUBJ:head} ~6 marry|married [ to ] {NAME:spouse}", ("head", "P26", "spouse")),
    frame("spouse-noun", "{NAME:head} 's wife|husband|spouse|widow|widower [ , ] {NAME:spouse}", ("head", "P26", "spouse")),
    frame("works-for", "{SUBJ:head} ~6 work|worked|working for|at [ the ] {NAME:employer}", ("head", "P108", "employer")),
    frame("officer-of", "{NAME:head} , [ the ] ~2 ceo|chairman|chairwoman|president|director|chief|professor|employee ~3 of|at [ the ] {NAME:employer}",
          ("head", "P108", "employer")),
    frame("member-of", "{SUBJ:head} ~6 be a member of [ the ] {NAME:group}", ("head", "P463", "group")),
    frame("plays-for", "{SUBJ:head} ~6 play|played|playing for [ the ] {NAME:team}", ("head", "P54", "team")),
    frame("educated-at", "{SUBJ:head} ~8 study|studied|graduate|graduated|educate|educated|attend|attended [ at|from ] [ the ] {NAME:school}",
          ("head", "P69", "school")),
    # -- works -------------------------------------------------------------------------------
    frame("written-by", "{SUBJ:head} ~8 write|written|novel|book|poem|story|authored by {NAME:author}", ("head", "P50", "author")),
    frame("directed-by", "{SUBJ:head} ~8 direct|directed|film by {NAME:director}", ("head", "P57", "director")),
    frame("performed-by", "{SUBJ:head} ~8 song|single|album|record|perform|performed|recorded|sung by {NAME:performer}",
          ("head", "P175", "performer")),
    frame("published-by", "{SUBJ:head} ~8 publish|published by [ the ] {NAME:publisher}", ("head", "P123", "publisher")),
    frame("released-in", "{SUBJ:head} ~8 be release|released|publish|published|premiere|premiered ~6 in|on {DATE:date}",
          ("head", "P577", "date")),
)
