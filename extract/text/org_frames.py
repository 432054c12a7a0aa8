"""News frames about organisations and events: who owns, took over, runs or founded them, who
won them, what country a firm is from, where its headquarters are, how many work there.

Written in the pattern language of ``extract.text.frames``; ``rules`` runs them with the news
frames, so their facts pass ``news_frames.plausible`` (an amount or an owner of an
organisation, never of a person). ``@verb`` and ``@won`` facts are made by
``news_frames.role_facts``.

The doer of a passive ("was taken over by Northcastle Bank", "was won by Joshua Kiprotich",
"founded in 1994 by the businessman Eamon Crowley") is read only where the verb is done:
"has agreed to be bought by" puts words between the subject and "be", and does not match.
"""

from __future__ import annotations

from extract.text.lexicons import alternation
from extract.text.frames import FOUNDED_GAP, HONORIFIC, POSSESSIVE, Frame, news_frame

# "the businessman Eamon Crowley", "the private equity firm Hallam Capital": up to 4 words
# that are not names between "by" and the doer.
DESCRIBED = "[ the|a|an ] *4"
APPROX = "[ %s ]" % alternation("approximately")
# Nouns that say a name after them is a firm or a body: "the Danish turbine maker Nordvind";
# none that may name a person too ("the property developer", "the record producer").
ORG_NOUNS = alternation("org_nouns")
# What may stand between a place and the class noun: "the Perth-based miner", "Singapore-listed".
PLACED = "[ {PLACE} [ - based|listed|owned|headquartered|registered ] ]"

FACILITY_END = alternation("facility_end")
# What a number before a thing's class measures: "a 32-storey office building", "a 480-unit condominium".
MEASURES = alternation("measures")

ORG_FRAMES: tuple[Frame, ...] = (
    # -- owners and takeovers: "Yorvale Bank, which was taken over by Northcastle Bank"
    news_frame("taken-over-by", "{SUBJ:head} [ , which|that ] [ has|had ] [ since|later|then|already ] be|been "
               "bought|acquired|purchased|taken ~1 [ over ] [ in {DATE} ] by " + DESCRIBED + " {NAME:owner}",
               ("head", "P127", "owner")),
    news_frame("owned-by-participle", "{NAME:head} , owned by " + DESCRIBED + " {NAME:owner}", ("head", "P127", "owner")),
    # -- founders described: "founded in 1921 by the baker Albert Brightwell"
    news_frame("founded-by-described", "{SUBJ:head} " + FOUNDED_GAP + " be found|founded|establish|established|set ~4 by " + DESCRIBED
               + " {NAME:founder}", ("head", "P112", "founder"), lists=("founder",)),
    # -- "The band, formed in 2012 by Maggie Darrow and drummer Luke Pruitt," "X, founded in 1901 by Y,"
    news_frame("founded-participle", "{SUBJ:head} , founded|formed|established|set ~4 by " + DESCRIBED + " {NAME:founder}",
               ("head", "P112", "founder"), lists=("founder",)),
    news_frame("founded-participle-in", "{SUBJ:head} , [ which|that be ] founded|formed|established|built|opened|completed "
               "[ as *4 ] [ by ~6 ] in {DATE:date}", ("head", "P571", "date"), free_head=True),
    # -- "Nowa Wspólnota, a centrist movement founded in 2021"
    news_frame("described-founded-in", "{NAME:head} , a|an|the +4 founded|formed|established|launched in {DATE:date}",
               ("head", "P571", "date")),
    # -- "The Vanderhaeghens, who founded the private bank Vanderhaeghen & Cie in Antwerp in 1921"
    news_frame("founded-org-in", "{SUBJ} [ , who|which ] [ has|had ] founded|co-founded|established|started|launched "
               + DESCRIBED + " {NAME:head} [ in {PLACE} ] in {DATE:date}", ("head", "P571", "date")),
    # -- when it opened or was built: "The Tawe, which opened in 1911,", "The bridge was built in 1957"
    news_frame("opened-in", "{SUBJ:head} [ , which|that ] [ first|originally|officially ] open|opened ~2 in {DATE:date}",
               ("head", "P571", "date")),
    news_frame("built-in", "{SUBJ:head} " + FOUNDED_GAP + " be built|constructed|completed ~2 in {DATE:date}",
               ("head", "P571", "date")),
    # -- where a named building or institution is: "The Whitlock Gallery in Glasgow has appointed"
    # (rules: only a name ending in one of the rules lexicon's ``buildings``: ``Frame.head_ends_in``)
    news_frame("facility-in", "the {NAME:head} in [ the ] {PLACE:place} " + FACILITY_END, ("head", "P131", "place"),
               head_ends_in="buildings"),
    news_frame("facility-in-first", "^ {NAME:head} in [ the ] {PLACE:place} " + FACILITY_END, ("head", "P131", "place"),
               head_ends_in="buildings"),
    # ... after a preposition or a verb: "rated Thornleigh Lodge in Spalding", "at Kiptenden Tea Factory in Kericho"
    news_frame("facility-in-after", "at|to|from|of|near|outside|inside|into|for|with|by|visit|visited|rated|built|opened|"
               "closed|bought|sold|run|runs|ran|manage|manages|managed|join|joined|, {NAME:head} in [ the ] {PLACE:place} "
               + FACILITY_END, ("head", "P131", "place"), head_ends_in="buildings"),
    # -- the dateline of wire copy: "KOUROU, French Guiana (AP) —" (rules: the place title-cased)
    news_frame("dateline", "^ {NAME:place} , {PLACE:region} [ , {PLACE} ] [ ( {NAME} ) ] —|–|-", ("place", "P131", "region"),
               dateline=True),
    # -- what a named thing cost: "The £6.5 million Eastwick Hub"
    news_frame("cost-before-name", "the|a|an|its {QUANTITY:n} {NAME:head} ,|.|;|(|in|on|at|will|was|is|has|had|which|that|and",
               ("head", "P2130", "n"), named_organisation=True),
    # -- who leads it, said after a comma: "The Liberals, led by outgoing premier Paul Desrosiers"
    news_frame("led-by-participle", "{NAME:org} , [ which|who be ] {WORD:verb} by " + DESCRIBED + " [ {ROLE} ] {NAME:head}",
               ("head", "@verb", "org")),
    # -- who won it: "The Lowther Marathon was won by Faith Chepkoech"
    news_frame("won-by", "{SUBJ:prize} ~4 be won|claimed|taken by " + DESCRIBED + " {NAME:head}", ("head", "@won", "prize")),
    # -- what country a firm is from: "the German engineering group Steinhoff Antriebe"
    news_frame("national-org-first", "^ {NORP:country} +3 " + ORG_NOUNS + " [ , ] {NAME:head}", ("head", "P17", "country"),
               named_organisation=True),
    news_frame("country-org-first", "^ {COUNTRY:country} +3 " + ORG_NOUNS + " [ , ] {NAME:head}", ("head", "P17", "country"),
               named_organisation=True),
    news_frame("national-org", "the|a|an|by|from|,|-|— {NORP:country} +3 " + ORG_NOUNS + " [ , ] {NAME:head}",
               ("head", "P17", "country"), named_organisation=True),
    news_frame("org-national", "{NAME:head} , the|a|an {NORP:country} +3 " + ORG_NOUNS + " ,|.|;|which|that|said|has|is",
               ("head", "P17", "country"), named_organisation=True),
    # -- where a firm is from: "the Manchester architecture firm Pennington Lowe"
    news_frame("placed-org", "the|a|an|by|from {PLACE:place} +3 " + ORG_NOUNS + " [ , ] {NAME:head}", ("head", "P159", "place"),
               named_organisation=True),
    news_frame("org-placed", "{NAME:head} , a|an|the {PLACE:place} +3 " + ORG_NOUNS + " ,|.|;|which|that|said|has|is",
               ("head", "P159", "place"), named_organisation=True),
    # -- where its headquarters are: "which has its headquarters in Stuttgart"
    news_frame("has-headquarters", "{SUBJ:head} ~6 has|have|had its|their headquarters|base|head office in|at [ the ] {PLACE:place}",
               ("head", "P159", "place")),
    # -- what it is: "the insurer Brightwater Mutual", "the Japanese conglomerate Hoshida Holdings"
    news_frame("class-before-org", "the|a|an|by|from|,|—|-|at|for|with [ {NORP} ] " + PLACED + " {WORDS:role} {NAME:head}",
               ("head", "@class", "role")),
    news_frame("class-before-org-first", "^ [ {NORP} ] " + PLACED + " {WORDS:role} {NAME:head}", ("head", "@class", "role")),
    # -- "Banco Levantino, Spain's sixth-largest lender": its country and what it is
    news_frame("org-country-largest", "{NAME:head} , {COUNTRY:country} 's|’s ~3 {WORD:role} ,|.|;|by|with|which|and",
               ("head", "@class", "role"), ("head", "@country", "country")),
    # -- and after it: "Brightwater Mutual, the insurer," "Hoshida Holdings, a Japanese conglomerate, said"
    news_frame("class-after-org", "{NAME:head} , a|an|the [ {NORP} ] " + PLACED + " {WORDS:role} ,|.|;|which|that|whose|said|has|is|based",
               ("head", "@class", "role")),
    # -- ... and where it is: "Meridian Tower, a 32-storey office building in Tanjong Pagar,"
    news_frame("class-in-place", "{NAME:head} , a|an [ {QUANTITY} - " + MEASURES + " ] {WORDS:role} in [ the ] {PLACE:place} "
               ",|.|;|that|which|where|with|owned|run|built|near", ("head", "@class", "role"), ("head", "P131", "place")),
    # -- who owns it: "Its largest shareholder is the investment firm Fjellstad Kapital"
    news_frame("largest-shareholder", "{OWNER:head} " + POSSESSIVE + " largest|biggest|main|majority|principal|controlling|major "
               "shareholder|owner|investor be|is|remains [ now|still ] " + DESCRIBED + " {NAME:owner}", ("head", "P127", "owner")),
    # -- fronted: "Formed in Leeds in 2006 by singer Tom Harrow and guitarist Niamh Callaghan, the band ..."
    news_frame("founded-fronted-by", "^ founded|formed|established|set [ up ] ~6 by " + DESCRIBED + " {NAME:founder} ~10 , "
               "{SUBJ:head}", ("head", "P112", "founder"), lists=("founder",)),
    news_frame("founded-fronted-in", "^ founded|formed|established|set [ up ] [ in {PLACE} ] in {DATE:date} ~12 , {SUBJ:head}",
               ("head", "P571", "date")),
    # -- its people, as it announces them: "Kalahari Platinum said chief financial officer Annelie Botha
    # would serve as interim CEO" (``news_frames.role_facts``: no organisation's side for a person's "said")
    news_frame("org-said-role-name", "{SUBJ:org} [ has|have|had ] said|says|announced|confirmed [ that ] [ its|their ] "
               "[ former|new|interim|acting|outgoing|current|incoming ] {ROLE:role} [ , ] " + HONORIFIC + " {NAME:head}",
               ("head", "@role", "role")),
    # -- how many work there: "its workforce of 240", "a staff of 60"
    news_frame("workforce-of", "{OWNER:head} " + POSSESSIVE + " ~3 workforce|payroll|staff of " + APPROX + " ~1 {QUANTITY:n}",
               ("head", "P1128", "n")),
)
