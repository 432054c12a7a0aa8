"""Who a mention means, within one document: rules, read once per document before its frames.

News names a person in full once ("Helen Marchetti") and then as "Ms Marchetti", "Marchetti",
"she" or "the minister"; a firm as "Harbourline Group", then "Harbourline", "it" or "the
company". ``Mentions`` reads a document (after the pipeline of ``extract.text.nlp``, where every
entity is one token) and decides:

- the **kind** of each name (person, organisation, place, other) from the words around its
  mentions: an honorific or a position just before it, an age after it (", 52,"), ", who",
  an organisation word in it ("Bank", "Rovers"), a place word ("Lane"), a locative
  preposition; a name shaped like a person's (two or three capitalised words, no such word)
  counts a little. The kinds of all mentions of a name are added up (``name_kinds.evidence``
  says what each mention votes for).
- the **full name** each short mention stands for: a surname the last word(s) of exactly one
  person named in the document; a one-word name the first word of exactly one organisation
  ("Harbourline" -> "Harbourline Group"), unless it is used as a place; the first words of a
  firm's or a building's name before a word news drops ("Van Asselt" -> "Van Asselt Groep NV",
  "St Aidan's" -> "St Aidan's Hospice"); a club's last word ("Harriers" -> "Harlow Harriers").
- the **organisation the story opens on** (``lead``): the first named in its first three
  sentences; "Chief executive X said" with no organisation is its.
- what a **pronoun** or a **definite description** refers to: "he", "she", "his", "her" -> a
  person: the nearest one before it in its sentence, else the first person of the nearest
  earlier sentence that names one (the subject, usually); "it", "its" -> an organisation or
  thing alike; "they" -> a team, band or group; "the company", "the bank" -> the organisation
  whose name ends with that noun ("the airline" -> Skyward Airlines), else for "the
  company" the organisation most talked about lately (a tie goes to the lead; never a
  ministry or a university), and for "the band", "the board" the organisation most talked
  about; "the minister" -> the nearest person introduced with that position; a sentence that
  opens on a description of a person ("The 47-year-old former Motherwell midfielder", see
  ``name_kinds.person_description``) -> the person introduced with that position, else the
  person named last. Nothing more than three sentences back counts; where nothing fits, a
  sentence-initial mention falls back to the document's subject (how encyclopedia abstracts
  use them), and otherwise stays unresolved.
- which tokens are **quoted speech**: facts are never read from inside quotation marks.

Where a trained pipeline with a coreference component has run and left clusters in
``doc.spans`` (spaCy's ``coref_clusters_*`` keys), a pronoun in a cluster with a name takes
that name instead of the rules' guess.
"""

from __future__ import annotations

import collections
import functools
import re

from spacy.tokens import Doc, Span

from extract.text.opening import dateline, title_case_headline
from extract.text.lexicons import (cities, english_words, lemma_table, one_english_word, rule_word_map, rule_words,
                                   word_set)
from extract.text.name_kinds import (NAME_KINDS, apposition, attached_role, before_role, definite, evidence,
                                     modifier_name, named_after, person_description, person_shaped, role_words)
from extract.text.roles import opens_sentence

PLACE_LABELS = frozenset({"COUNTRY", "CONTINENT", "GPE", "LOC"})
OPEN_QUOTES = {"“": "”", '"': '"', "«": "»"}
LOOK_BACK = 3  # sentences


class Mentions:
    """The mentions of one document: kinds, full names, what pronouns mean, quoted speech.

    Example:
        >>> from extract.text.nlp import load_pipeline
        >>> doc = load_pipeline()("Ms Ana Ruiz runs Brill Foods. She said it grew.")
        >>> m = Mentions(doc)
        >>> m.kind("Ana Ruiz"), m.kind("Brill Foods"), m.resolved[doc[-4].i][0]
        ('person', 'organization', 'Ana Ruiz')
    """

    def __init__(self, doc: Doc, subject: Span | None = None):
        self.doc = doc
        self.speech = speech_tokens(doc)
        self.described: set[int] = set()          # the words of a person's description before its noun
        self.descriptions: dict[int, int] = {}     # a description's noun -> its first word
        self.kinds: dict[str, str] = {}
        self.full: dict[int, str] = {}             # entity token -> the full name it stands for
        self.resolved: dict[int, tuple[str, str]] = {}  # pronoun / description token -> (name, label)
        self.roles: dict[str, set[str]] = collections.defaultdict(set)  # person -> positions introduced with
        self.gender: dict[str, str] = {}           # from an honorific: "m" or "f"
        self.scores: dict[str, collections.Counter] = {}
        self.lead: str | None = None               # the organisation the story opens on (``_lead_organization``)
        self.story_placed: set[str] = set()        # persons put at ``lead`` only because the story opens on it
        self._type_names()
        self._full_names()
        self._resolve(subject)
        self._clusters()

    # -- kinds ------------------------------------------------------------------------------

    def kind(self, name: str) -> str:
        """'person', 'organization', 'place' or '' for a name as the document writes it."""
        return self.kinds.get(name, "")

    def name(self, i: int) -> str:
        """The full name the entity token ``i`` stands for."""
        return self.full.get(i, self.doc[i].text)

    def _type_names(self) -> None:
        scores: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for token in self.doc:
            if token.ent_type_ in NAME_KINDS and token.i not in self.speech and not common_word(token):
                scores[token.text].update(evidence(self.doc, token.i))
                honorific = self.doc[token.i - 1].lower_.rstrip(".") if token.i else ""
                if honorific in rule_word_map("honorific_gender"):
                    self.gender[token.text] = rule_word_map("honorific_gender")[honorific]
                role = attached_role(self.doc, token.i)
                if role:
                    self.roles[token.text].add(role)
            elif token.ent_type_ in PLACE_LABELS:
                scores[token.text]["place"] += 5
        self.scores = scores
        self.certain_persons = {name for name, score in scores.items() if score["person"] >= 3
                                 and score["person"] > score["organization"] + score["place"]}
        for name, score in scores.items():
            best = score.most_common()
            if best and best[0][1] > 0 and (len(best) == 1 or best[0][1] > best[1][1]):
                self.kinds[name] = best[0][0]

    def _full_names(self) -> None:
        persons = [n for n, k in self.kinds.items() if k == "person" and len(n.split()) > 1]
        orgs = [n for n, k in self.kinds.items() if k == "organization" and len(n.split()) > 1]
        org_like = set(orgs) | {t.text for t in self.doc if t.ent_type_ in NAME_KINDS and len(t.text.split()) > 1
                                and not self.kinds.get(t.text) and "of" not in t.text.split()
                                and t.text.split()[0].lower() not in english_words()}  # "Orwell Comets", not "Shares of X"
        for token in self.doc:
            if token.ent_type_ not in NAME_KINDS:
                continue
            words = token.text.split()
            longer = [p for p in persons if len(p.split()) > len(words) and p.split()[-len(words):] == words]
            if len(longer) == 1 and self.kinds.get(token.text) != "organization":
                self.full[token.i] = longer[0]
                self.kinds.setdefault(token.text, "person")
                self.roles[longer[0]] |= self.roles.get(token.text, set())
                if token.text in self.gender:
                    self.gender.setdefault(longer[0], self.gender[token.text])
                continue
            after_preposition = token.i > 0 and self.doc[token.i - 1].lower_ in rule_words("locative_prepositions")
            starts = [o for o in orgs if _bare(o).split()[:len(words)] == _bare(token.text).split() and o != token.text]
            own_kind = self.kinds.get(token.text)
            if len(starts) == 1 and not after_preposition and (
                    len(words) == 1 and own_kind == "organization"  # "Meridian" for Meridian Mobile
                    or own_kind not in ("person", "place") and token.text not in cities()
                    and _firm_suffix(starts[0], len(words))):  # "Van Asselt", "St Aidan's", "joined Nirvaan"
                self.full[token.i] = starts[0]  # not "New York" for the New York Times
                continue
            ends = [o for o in org_like if len(words) == 1 and o.split()[-1] == words[0] and o != token.text]
            if len(ends) == 1 and not after_preposition and self.kinds.get(token.text) in (None, "organization") \
                    and words[0].lower() not in word_set("org_words") - word_set("team_words"):
                self.full[token.i] = ends[0]  # "Harriers chairman X" after "Harlow Harriers"; not "Group"

    # -- references -------------------------------------------------------------------------

    def _resolve(self, subject: Span | None) -> None:
        dead = _obituary_subject(self.doc, subject)  # a headline may name it: "X, novelist, dies at 84"
        if subject is not None and not _defines(subject):
            subject = None  # a headline's first word is no antecedent
        self.lead = self._lead_organization()
        history: list[tuple[int, int, str, str]] = []  # (sentence, token, full name, kind)
        for s, sentence in enumerate(self.doc.sents):
            first = _first_word(sentence)
            described = person_description(self.doc, sentence, first)  # "The 47-year-old former X midfielder"
            if described is not None:
                self.described.update(range(first, described))
                self.descriptions[described] = first
            for token in sentence:
                i = token.i
                if i in self.speech or i in self.described:
                    continue
                lower = token.lower_
                if i == described:  # the person named last ("... a corner from Luis Pereira. The Portuguese winger")
                    found = self._antecedent(history, s, i, ("role",), role_words(token.text)) \
                        if token.ent_type_ == "ROLE" else None  # "The French president": the president
                    recent = [h for h in history if h[0] >= s - LOOK_BACK and (
                        h[3] == "person" or not h[3] and person_shaped(h[2]))]
                    found = found or ((recent[-1][2], "person") if recent else None)
                    if found is None and subject is not None and self.kinds.get(subject.text, "") in ("person", ""):
                        found = (subject.text, "person")
                    if found is not None:
                        self.resolved[i] = (found[0], "NAME")
                        history.append((s, i, found[0], "person"))
                    continue
                if token.ent_type_ in NAME_KINDS and not common_word(token):
                    name = self.name(i)
                    if not modifier_name(token):  # "the ASX-listed grower" is no antecedent of "the company"
                        history.append((s, i, name, self.kinds.get(name) or self.kinds.get(token.text, "")))
                    continue
                want: tuple[str, ...] | None = None
                noun: str | None = None
                if not token.ent_type_ and lower in rule_words("person_pronouns"):
                    want = ("person",)
                elif not token.ent_type_ and lower in rule_words("thing_pronouns") and (i == first or lower == "its"):
                    want = ("organization", "thing")
                elif not token.ent_type_ and lower in rule_words("group_pronouns") and i == first:
                    want = ("group",)
                elif (definite(self.doc, i) or before_role(self.doc, i)) and not token.ent_type_ and (
                        lower in word_set("generic_orgs") or lower in word_set("generic_things")):
                    want, noun = ("description",), lower  # "the company", "library director X"
                elif token.ent_type_ == "ROLE" and definite(self.doc, i) and not named_after(self.doc, i) \
                        and not apposition(self.doc, i):
                    want, noun = ("role",), role_words(token.text)
                if want is None:
                    continue
                found = self._antecedent(history, s, i, want, noun)
                if dead and want == ("person",) and lower in ("he", "she") and self.gender.get(dead) in (
                        None, rule_word_map("pronoun_gender")[lower]) and not any(h[0] == s and h[3] == "person" for h in history):
                    found = (dead, "person")  # an obituary's "she" is its subject unless another is named here
                if found is None and i - first <= 1 and subject is not None and want != ("person",) \
                        and want != ("role",):
                    found = (subject.text, self.kinds.get(subject.text, ""))
                if found is None and i == first and want == ("person",) and subject is not None \
                        and self.kinds.get(subject.text, "") in ("person", ""):
                    found = (subject.text, "person")
                if found is not None:
                    self.resolved[i] = (found[0], "NAME")
                    if lower in rule_word_map("pronoun_gender") and found[1] == "person":
                        self.gender.setdefault(found[0], rule_word_map("pronoun_gender")[lower])
                    history.append((s, i, found[0], found[1]))

    def _lead_organization(self) -> str | None:
        """The first organisation named in the headline or the two sentences after it (by more than a
        "the" before it, and not a headline's common word such as "Bakery"): what the story is about."""
        headline = title_case_headline(self.doc)  # its capitals glue words into one long name
        for sentence in [s for s in self.doc.sents if headline is None or s.start != headline.start][:3]:
            placed = dateline(sentence)  # "TOKYO —" is no firm
            for token in [t for t in sentence if t.i not in placed and not modifier_name(t)]:
                if token.ent_type_ in NAME_KINDS and token.i not in self.speech and not (
                        token.i == _first_word(sentence) and one_english_word(token.text)):
                    name = self.name(token.i)
                    if (self.kinds.get(name) or self.kinds.get(token.text)) == "organization" \
                            and max(self.scores.get(name, collections.Counter()).get("organization", 0),
                                    self.scores.get(token.text, collections.Counter()).get("organization", 0)) >= 2:
                        return name
        return None

    def _favourite(self, candidates, counted):
        """The candidate mention named most often among ``counted``, the latest of those; a tie goes to
        the organisation the story opens on. Mentions are (sentence, token, name, kind)."""
        counts = collections.Counter(h[2] for h in counted)
        counts[self.lead] += 1
        best = max(candidates, key=lambda h: (counts[h[2]], h[1]))
        return best[2], best[3]

    def _antecedent(self, history, s: int, i: int, want: tuple[str, ...], noun: str | None):
        gender = rule_word_map("pronoun_gender").get(self.doc[i].lower_)
        object_pronoun = self.doc[i].lower_ == "him" or self.doc[i].lower_ == "her" and object_use(self.doc, i)

        def fits(name: str, kind: str) -> bool:
            if want == ("person",):
                return kind == "person" and (not gender or self.gender.get(name) in (None, gender))
            if want == ("group",):
                return kind == "organization" and (name.endswith("s") or bool(
                    {w.lower() for w in name.split()} & word_set("team_words")))
            if want == ("role",):
                return kind == "person" and noun is not None and any(
                    r == noun or r.endswith(" " + noun) for r in self.roles.get(name, ()))
            if want == ("person",) and gender and self.gender.get(name) not in (None, gender):
                return False
            if noun is not None:  # "the airline": Skyward Airlines
                return kind != "person" and _name_noun(name) in (noun, noun + "s")
            return kind in want or "thing" in want and kind == ""

        same = [h for h in history if h[0] == s and h[1] < i and fits(h[2], h[3])]
        if same and not object_pronoun and (want != ("organization", "thing") or self.doc[i].lower_ == "its") \
                and i > _first_word(self.doc[i].sent):
            return same[-1][2], same[-1][3]
        if want == ("description",):  # "the bank": the latest name ending with that noun, however far
            named = [h for h in history if h[1] < i and fits(h[2], h[3])]
            if named:  # the one most talked about, the latest of those
                return self._favourite(named, named)
            if noun in rule_words("any_organisation_nouns"):  # "the company": the organisation most talked about lately
                recent = [h for h in history if (h[0] >= s - LOOK_BACK or h[2] == self.lead) and h[1] < i
                          and h[3] == "organization" and _name_noun(h[2]) not in word_set("not_companies")]
                if recent:
                    return self._favourite(recent, [h for h in history if h[3] == "organization"])
            if noun in rule_words("story_nouns") and not before_role(self.doc, i):  # "the band", "the board": the
                orgs = [h for h in history if h[1] < i and h[3] == "organization" and not (  # organisation most
                    _name_noun(h[2]) in word_set("generic_orgs") and _name_noun(h[2]) != noun)]  # talked about
                counts = collections.Counter(h[2] for h in orgs)
                if orgs and (counts.most_common(1)[0][1] >= 2 or self.lead in counts):
                    return self._favourite(orgs, orgs)
            if noun in rule_words("work_mention_nouns"):  # "the film": the latest title
                works = [h for h in history if h[1] < i and self.doc[h[1]].ent_type_ == "WORK_OF_ART"]
                if works:
                    return works[-1][2], works[-1][3]
            return None
        for back in range(1, LOOK_BACK + 1):
            earlier = [h for h in history if h[0] == s - back and fits(h[2], h[3])]
            if earlier:
                return earlier[0][2], earlier[0][3]
        return None

    def _clusters(self) -> None:
        """Clusters from a trained coreference component, where one has run."""
        for key, group in self.doc.spans.items():
            if not key.startswith("coref_clusters"):
                continue
            names = [span for span in group if any(t.ent_type_ in NAME_KINDS for t in span)]
            if not names:
                continue
            head = next(t for t in names[0] if t.ent_type_ in NAME_KINDS)
            for span in group:
                if len(span) == 1 and span[0].lower_ in rule_words("person_pronouns") | rule_words("thing_pronouns") | rule_words("group_pronouns"):
                    self.resolved[span[0].i] = (self.name(head.i), "NAME")


def common_word(token) -> bool:
    """"Schools", "Councillors" at the start of a sentence: an inflected common word, not a name."""
    text = token.text
    if " " in text or not opens_sentence(token):
        return False
    lemma = lemma_table().get(text.lower())
    return lemma is not None and lemma != text.lower()


def _defines(subject: Span) -> bool:
    """"Marie Curie (born ...) was a physicist": the document opens on its subject and says what it is."""
    sentence = subject.sent
    return any(t.lemma_ == "be" for t in sentence[subject.end - sentence.start:][:25])


def object_use(doc: Doc, i: int) -> bool:
    """"called her", "told her that": "her" as an object (no noun after it), not a possessive."""
    nxt = doc[i + 1] if i + 1 < len(doc) else None
    return nxt is None or nxt.is_punct or nxt.lower_ in ("and", "to", "that", "for", "in", "with", "at", "on", "by",
                                                         "from", "as", "about", "into", "after", "before")


def _firm_suffix(name: str, n: int) -> bool:
    """"Nirvaan Systems", "St Aidan's Hospice" after their first words: a firm's or a building's word
    that news drops ("Systems", "Hospice"); not "Times" ("New York" is no short "New York Times")."""
    return all(w.lower() in _dropped_words() for w in name.split()[n:])


@functools.lru_cache(maxsize=1)
def _dropped_words() -> frozenset[str]:
    return word_set("company_words") | rule_words("facilities")


def _bare(name: str) -> str:
    """A name without its possessives: "St Aidan's Hospice" -> "St Aidan Hospice"."""
    return re.sub(r"['’]s\b", "", name)


def _name_noun(name: str) -> str:
    """The noun a description of this name would use: "Yorvale Bank" -> "bank", "University of
    Tromsø" -> "university", "Ballinacree Chamber of Commerce" -> "chamber"."""
    words = name.lower().split()
    return words[words.index("of", 1) - 1] if "of" in words[1:] else words[-1]  # "Chamber of Commerce"


def speech_tokens(doc: Doc) -> set[int]:
    """Tokens inside quotation marks, except a quoted title (one entity: "The Salt Road")."""
    out: set[int] = set()
    close, start = None, 0
    for token in doc:
        if token.is_space and "\n" in token.text:
            close = None  # a quote never runs over a paragraph break
            continue
        if close is None and token.text in OPEN_QUOTES:
            close, start = OPEN_QUOTES[token.text], token.i + 1
        elif close is not None and token.text == close:
            inner = range(start, token.i)
            if not (len(inner) == 1 and doc[start].ent_type_) and not (
                    len(inner) == 2 and doc[start].ent_type_ and doc[start + 1].text == ","):
                out.update(inner)
            close = None
    if close is not None:
        out.update(range(start, len(doc)))
    return out


def _first_word(sentence: Span) -> int:
    for token in sentence:
        if not token.is_space and token.text not in OPEN_QUOTES and token.text not in ("'", "‘"):
            return token.i
    return sentence.start


def _obituary_subject(doc: Doc, subject: Span | None) -> str | None:
    """The subject's name where the first three sentences say someone died (an obituary)."""
    if subject is None:
        return None
    opening = [t for s in list(doc.sents)[:3] for t in s]
    return subject.text if any(t.lower_ in ("dies", "died", "dead") for t in opening) else None
