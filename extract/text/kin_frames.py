"""News frames about people: their families, where they live, where they were born, where
they worked.

Written in the pattern language of ``extract.text.frames``; ``rules`` runs them with the news
frames, so their facts pass ``news_frames.plausible`` (a family fact or a residence only of a
person). ``@role`` facts are made by ``news_frames.role_facts``.

- family: "his daughter Susan Greenhalgh", "her husband, the architect Tobi Adeyemi":
  child (``P40``), father (``P22``), mother (``P25``), sibling (``P3373``), spouse (``P26``);
- residence (``P551``) as court and local reports give it: "Karen Whitlow, 58, of Lyndhurst
  Road, Harrogate", "Tom Price, 31, from Leeds", and "she lives in Brixton";
- place of birth (``P19``) from "the Nigerian-born forward Daniel Okafor";
- employer and occupation from "worked as an engineer at Google", "was a product manager at
  the software company Intuit";
- place of birth from "A native of Atlanta, X"; residence from "X, a property developer from
  Denver,"; occupation from "trained as a teacher", "X, a 49-year-old former nurse," and "X,
  who has died aged 91, was a physicist"; employer from "taught art history at the University
  of Glasgow".
"""

from __future__ import annotations

from extract.text.lexicons import alternation, rule_word_map
from extract.text.frames import HONORIFIC, POSSESSIVE, Frame, news_frame

STATUS = "[ %s ]" % alternation("kin_status_words")
# Words after a residence that end the noun phrase: "X, 58, of Harrogate, was jailed".
RESIDENCE_END = alternation("residence_end")
# An age before a position: "a 49-year-old former nurse".
AGED = "{QUANTITY} - year - old"


def _kin_frame(noun: str) -> Frame:
    return news_frame(f"kin-{noun}", "{OWNER:head} " + POSSESSIVE + " [ first|eldest|oldest|youngest|second|only|late ] " + noun
                      + " [ of {QUANTITY} years ] [ and +2 ] [ , ] [ the|a|an ] [ {NORP} ] [ {POSITION} ] [ , ] " + HONORIFIC
                      + " {NAME:kin}", ("head", rule_word_map("kin_nouns")[noun], "kin"))




def _kin_list_frame(noun: str) -> Frame:
    return news_frame(f"kin-{noun}", "{OWNER:head} " + POSSESSIVE + " [ two|three|four|five|six ] " + noun + " [ , ] " + HONORIFIC
                      + " {NAME:kin}", ("head", rule_word_map("kin_plural_nouns")[noun], "kin"), lists=("kin",))


KIN_FRAMES: tuple[Frame, ...] = tuple(_kin_frame(noun) for noun in rule_word_map("kin_nouns")) \
    + tuple(_kin_list_frame(noun) for noun in rule_word_map("kin_plural_nouns")) + (
    news_frame("residence-age", "{NAME:head} , {QUANTITY} , of|from [ *4 {NAME} , ] {PLACE:place} " + RESIDENCE_END,
               ("head", "P551", "place")),
    news_frame("lives-in", "{SUBJ:head} [ , who ] [ now|still|also ] live|lives|lived ~2 in|at [ the ] {PLACE:place}",
               ("head", "P551", "place")),
    # "Moore, from Geelong, began the day"
    news_frame("name-from", "{NAME:head} , [ {QUANTITY} , ] from {PLACE:place} ,", ("head", "P551", "place")),
    news_frame("described-from", "{NAME:head} , [ {QUANTITY} , ] a|an +3 [ {POSITION} ] from {PLACE:place} "
               + RESIDENCE_END, ("head", "P551", "place")),
    # "Marsters, whose wife, Jess, is from Chesterfield"
    news_frame("whose-spouse", "{NAME:head} , whose husband|wife|partner [ , ] {NAME:spouse}", ("head", "P26", "spouse")),
    news_frame("native-of", "{NAME:head} , [ who be ] a native of {PLACE:place}", ("head", "P19", "place")),
    news_frame("is-native-of", "{SUBJ:head} ~4 be a native of {PLACE:place}", ("head", "P19", "place")),
    news_frame("native-of-fronted", "^ a native of {PLACE:place} [ , {PLACE} ] , *6 {NAME:head}", ("head", "P19", "place")),
    news_frame("trained-as", "{SUBJ:head} [ , who ] ~4 work|worked|train|trained|qualify|qualified|practise|practised|"
               "practice|practiced as a|an ~2 {OCCUPATION:occupation}", ("head", "P106", "occupation")),
    news_frame("aged-apposition", "{NAME:head} , a|an|the " + AGED + " " + STATUS + " [ {NORP:nationality} ] ~1 {POSITION:role}",
               ("head", "@role", "role"), ("head", "P27", "nationality")),
    news_frame("occupation-after-aside", "{NAME:head} , who|which ~10 , be a|an|the ~2 [ {NORP:nationality} ] ~2 "
               "{OCCUPATION:occupation}", ("head", "P106", "occupation"), ("head", "P27", "nationality")),
    news_frame("taught-at", "{SUBJ:head} [ , who ] *4 teach|taught|lecture|lectured *4 at [ the ] {NAME:school}",
               ("head", "P108", "school"), lists=("school",)),
    news_frame("and-taught-at", "{SUBJ:head} ~12 and [ later|then|also ] teach|taught|lecture|lectured *4 at [ the ] {NAME:school}",
               ("head", "P108", "school"), lists=("school",)),
    news_frame("born-adjective", "{PLACE:place} - born " + STATUS + " *3 [ {POSITION} ] [ , ] {NAME:head}",
               ("head", "P19", "place")),
    news_frame("born-nationality", "{NORP:place} - born " + STATUS + " *3 [ {POSITION} ] [ , ] {NAME:head}",
               ("head", "P19", "place")),
    news_frame("worked-as", "{SUBJ:head} ~4 work|worked|working as [ a|an|the ] ~2 {POSITION:role} at|for|with [ the ] *3 "
               "{SUBJ:org}", ("head", "@role", "role")),
    news_frame("was-role-at", "{SUBJ:head} [ , ~10 , ] be [ previously|formerly|now|also ] a|an|the " + STATUS
               + " ~1 {POSITION:role} at|with [ the ] *3 {SUBJ:org}", ("head", "@role", "role")),
)


def drop_kin_chains(triples: list) -> list:
    """"survived by his daughter, Susan, and his son Michael": the second "his" is not Susan's.
    A family fact whose head is the kin of another family fact of the same sentence is dropped."""
    kin = frozenset(rule_word_map("kin_nouns").values())
    tails = {(t.evidence, t.tail) for t in triples if t.relation in kin}
    return [t for t in triples if t.relation not in kin or (t.evidence, t.head) not in tails]
